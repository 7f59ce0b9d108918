//! The crate linked directly (no plugin loading): seeded random games of the base game
//! with Traders & Builders, 2 to 4 players, so that the builder's test (TB-11,
//! `TbRules::extends`) runs against the scan of every segment at each placement.

use crate::TradersBuilders;
use carcassonne_core::{Action, Game, GameSetup, Ruleset};
use std::path::Path;
use std::sync::Arc;

/// The base game with this expansion as the host loads it (its manifest's tiles and
/// options), the crate's code linked in.
fn rules() -> Arc<Ruleset> {
    let manifest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/expansion.toml"));
    carcassonne_rules::linked_ruleset(manifest, Arc::new(TradersBuilders::new()), &[]).unwrap()
}

/// Plays seeded random games to the end; returns how many placements were a turn's second
/// part (the builder's extra tile: TB-11 found the first tile extending his feature).
fn second_parts(rules: &Arc<Ruleset>, players: usize, seeds: std::ops::Range<u64>) -> usize {
    let mut seconds = 0;
    for seed in seeds {
        let names = (0..players).map(|i| format!("P{i}")).collect();
        let mut g = Game::new(rules.clone(), &GameSetup::new(names, seed)).unwrap();
        let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut last_turn = None;
        while !g.is_over() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let actions = g.actions();
            let i = (rng % actions.len() as u64) as usize;
            if let Action::Place { .. } = actions[i] {
                let turn = g.state().turn();
                seconds += usize::from(last_turn == Some(turn));
                last_turn = Some(turn);
            }
            g.play_offered(i).unwrap();
        }
    }
    seconds
}

#[test]
fn builder_extra_parts_follow_the_segment_scan() {
    let rules = rules();
    for players in 2..=4 {
        let n = second_parts(&rules, players, 1..9);
        assert!(n > 0, "{players} players: no builder's second tile");
    }
}
