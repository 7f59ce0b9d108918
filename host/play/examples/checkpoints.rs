//! What a checkpoint (a full-state snapshot before each action, `Game::set_checkpoints`)
//! costs: the same random 2-player games played with and without them, CPU time per
//! decision (docs/speed-log.md, "Bots").
//!
//! ```sh
//! cargo run --release -p carcassonne-play --example checkpoints -- 200 count,tower,…
//! ```
//!
//! Plugins are found through `CARCASSONNE_PLUGIN_PATH` or beside the program. Both runs
//! must end every game with the same scores (a checkpoint changes nothing but the cost).

use carcassonne_core::{Game, GameSetup};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod common;
use common::cpu_ns;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200);
    let rules = common::ruleset_from_arg(args.get(2));
    let mut scores = [Vec::new(), Vec::new()];
    for checkpoints in [false, true] {
        let (mut decisions, start) = (0u64, cpu_ns());
        for seed in 1..=games {
            let names = vec!["P1".to_string(), "P2".to_string()];
            let mut g = Game::new(rules.clone(), &GameSetup::new(names, seed))
                .unwrap_or_else(|e| panic!("game {seed} does not start: {e}"));
            g.set_checkpoints(checkpoints);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            while !g.is_over() && g.action_count() > 0 {
                decisions += 1;
                let i = rng.random_range(0..g.action_count() as u32) as usize;
                if let Err(e) = g.apply_offered(i) {
                    panic!("game {seed}: {e}");
                }
            }
            let s: Vec<i32> = g.state().players().iter().map(|p| p.score).collect();
            scores[usize::from(checkpoints)].push(s);
        }
        let ns = cpu_ns() - start;
        println!(
            "checkpoints {}: {:.3} µs/decision ({decisions} decisions, {games} games)",
            if checkpoints { "on " } else { "off" },
            ns as f64 / 1000.0 / decisions as f64
        );
    }
    assert_eq!(scores[0], scores[1], "checkpoints changed a game");
}
