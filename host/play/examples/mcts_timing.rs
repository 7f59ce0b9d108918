//! Wall time per searched decision of a bot spec (docs/bots.md, "Time per decision").
//!
//! ```sh
//! cargo run --release -p carcassonne-play --example mcts_timing -- mcts 4 count,tower,…
//! ```
//!
//! Plays GAMES 2-player games of SPEC against greedy (seats alternated, seeds 1..=GAMES)
//! with the given expansions (plugins found through `CARCASSONNE_PLUGIN_PATH` or beside the
//! program) and prints how long SPEC took on its decisions with more than one legal action.

use carcassonne_core::{Game, GameSetup};
use carcassonne_play::bots::make_bot;

mod common;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let spec = args.get(1).map_or("mcts", String::as_str);
    let games: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2);
    let rules = common::ruleset_from_arg(args.get(3));
    let mut times: Vec<f64> = Vec::new();
    let mut all_decisions = 0usize;
    for seed in 1..=games {
        let names = vec!["P1".to_string(), "P2".to_string()];
        let Ok(mut g) = Game::new(rules.clone(), &GameSetup::new(names, seed)) else {
            eprintln!("error: game {seed} does not start");
            std::process::exit(2);
        };
        let me = (seed % 2) as usize;
        let (Some(mut bot), Some(mut greedy)) = (make_bot(spec, seed), make_bot("greedy", seed))
        else {
            eprintln!("error: bad bot spec {spec}");
            std::process::exit(2);
        };
        while !g.is_over() {
            all_decisions += 1;
            let i = if g.decision().player.index() == me {
                let searched = g.action_count() > 1;
                let t = Instant::now();
                let i = bot.choose(&g);
                if searched {
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                }
                i
            } else {
                greedy.choose(&g)
            };
            if g.apply_offered(i).is_err() {
                break;
            }
        }
    }
    times.sort_by(f64::total_cmp);
    let n = times.len().max(1);
    let mean = times.iter().sum::<f64>() / n as f64;
    let q = |p: f64| {
        times
            .get(((n - 1) as f64 * p) as usize)
            .copied()
            .unwrap_or(0.0)
    };
    println!(
        "{spec}: {games} games, {all_decisions} decisions, {} searched by {spec}: mean {mean:.1} ms, median {:.1} ms, p90 {:.1} ms, max {:.1} ms",
        times.len(),
        q(0.5),
        q(0.9),
        q(1.0)
    );
}
