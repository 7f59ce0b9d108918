//! CPU time of two bot specs deciding the same positions (docs/speed-log.md).
//!
//! ```sh
//! cargo run --release -p carcassonne-play --example search_paired -- \
//!     mcts:200:p0 mcts:200 8 count,tower,…
//! ```
//!
//! Plays GAMES 2-player games (seeds 1..=GAMES) whose moves greedy bots choose, with the
//! given expansions (plugins found through `CARCASSONNE_PLUGIN_PATH` or beside the
//! program). At every decision with more than one legal action both specs decide the same
//! position, in alternating order, and their thread CPU times are summed (specs of one
//! search thread: a thread's clock leaves out the threads it starts). A change to a
//! bot changes the games it plays, and a game's boards move a search's cost by several per
//! cent; on the same positions only the bots differ.

use carcassonne_core::{Game, GameSetup};
use carcassonne_play::bots::{make_bot, Bot};
use carcassonne_rules::{build_ruleset, RulesSpec};

/// The calling thread's CPU time in nanoseconds (another process on the core does not
/// count, unlike wall time).
fn thread_cpu_ns() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and the clock id is a constant.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(a), Some(b)) = (args.get(1), args.get(2)) else {
        fail("usage: search_paired SPEC_A SPEC_B [GAMES] [EXPANSIONS]");
    };
    let games: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(4);
    let expansions: Vec<String> = args
        .get(4)
        .map(|s| {
            s.split(',')
                .filter(|e| !e.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let rules = build_ruleset(&RulesSpec {
        expansions,
        options: Vec::new(),
        plugin_dirs: Vec::new(),
    })
    .unwrap_or_else(|e| fail(&e.to_string()));
    let mut cpu = [0u128; 2];
    let mut searched = 0u64;
    for seed in 1..=games {
        let names = vec!["P1".to_string(), "P2".to_string()];
        let mut g = Game::new(rules.clone(), &GameSetup::new(names, seed))
            .unwrap_or_else(|e| fail(&format!("game {seed} does not start: {e}")));
        let bot = |spec: &str| make_bot(spec, seed).unwrap_or_else(|| fail("bad bot spec"));
        let mut bots: [Box<dyn Bot>; 2] = [bot(a), bot(b)];
        let mut movers = [bot("greedy"), bot("greedy")];
        while !g.is_over() {
            if g.action_count() > 1 {
                searched += 1;
                let first = (searched % 2) as usize;
                for k in [first, 1 - first] {
                    let t = thread_cpu_ns();
                    std::hint::black_box(bots[k].choose(&g));
                    cpu[k] += thread_cpu_ns() - t;
                }
            }
            let i = movers[g.decision().player.index() % 2].choose(&g);
            g.apply_offered(i)
                .unwrap_or_else(|e| fail(&format!("game {seed}: {e}")));
        }
    }
    let per = |ns: u128| ns as f64 / 1000.0 / searched.max(1) as f64;
    println!(
        "{searched} positions; {a}: {:.1} µs a decision; {b}: {:.1} µs a decision; {b} / {a} = {:.3}",
        per(cpu[0]),
        per(cpu[1]),
        cpu[1] as f64 / cpu[0].max(1) as f64
    );
}
