//! CPU time of two bot specs deciding the same positions (docs/speed-log.md).
//!
//! ```sh
//! cargo run --release -p carcassonne-play --example search_paired -- \
//!     mcts:200:p0 mcts:200 8 count,tower,…
//! ```
//!
//! Plays GAMES 2-player games (seeds 1..=GAMES) whose moves bots of spec MOVER choose
//! (`greedy` unless named; EXPANSIONS may then be `""` for the base game), with the given
//! expansions (plugins found through `CARCASSONNE_PLUGIN_PATH` or beside the program). At
//! every decision with more than one legal action both specs decide the same
//! position, in alternating order, and their thread CPU times are summed (specs of one
//! search thread: a thread's clock leaves out the threads it starts). A change to a
//! bot changes the games it plays, and a game's boards move a search's cost by several per
//! cent; on the same positions only the bots differ.

use carcassonne_core::{Game, GameSetup};
use carcassonne_play::bots::{make_bot, Bot};

mod common;
use common::cpu_ns;

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(a), Some(b)) = (args.get(1), args.get(2)) else {
        fail("usage: search_paired SPEC_A SPEC_B [GAMES] [EXPANSIONS] [MOVER]");
    };
    let games: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(4);
    let rules = common::ruleset_from_arg(args.get(4));
    let mut cpu = [0u64; 2];
    let mut searched = 0u64;
    for seed in 1..=games {
        let names = vec!["P1".to_string(), "P2".to_string()];
        let mut g = Game::new(rules.clone(), &GameSetup::new(names, seed))
            .unwrap_or_else(|e| fail(&format!("game {seed} does not start: {e}")));
        let bot = |spec: &str| make_bot(spec, seed).unwrap_or_else(|| fail("bad bot spec"));
        let mut bots: [Box<dyn Bot>; 2] = [bot(a), bot(b)];
        // A search plays other positions than greedy bots do (it sends more followers to
        // the Count's city, for one), and a change may cost where only those arise.
        let mover = args.get(5).map_or("greedy", String::as_str);
        let mut movers = [bot(mover), bot(mover)];
        while !g.is_over() {
            if g.action_count() > 1 {
                searched += 1;
                let first = (searched % 2) as usize;
                for k in [first, 1 - first] {
                    let t = cpu_ns();
                    std::hint::black_box(bots[k].choose(&g));
                    cpu[k] += cpu_ns() - t;
                }
            }
            let i = movers[g.decision().player.index() % 2].choose(&g);
            g.apply_offered(i)
                .unwrap_or_else(|e| fail(&format!("game {seed}: {e}")));
        }
    }
    let per = |ns: u64| ns as f64 / 1000.0 / searched.max(1) as f64;
    println!(
        "{searched} positions; {a}: {:.1} µs a decision; {b}: {:.1} µs a decision; {b} / {a} = {:.3}",
        per(cpu[0]),
        per(cpu[1]),
        cpu[1] as f64 / cpu[0].max(1) as f64
    );
}
