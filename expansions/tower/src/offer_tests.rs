//! The crate linked directly (no plugin loading): seeded random games of the base game
//! with the Tower under several option sets, the Black Tower's among them, so that both
//! instances of `tower_offers` (with and without the black and white pieces) are played.

use crate::Tower;
use carcassonne_core::{Action, Game, GameSetup, Ruleset};
use std::path::Path;
use std::sync::Arc;

/// The base game with this expansion as the host loads it (its manifest's tiles and
/// options), the crate's code linked in, then `options` set.
fn rules(options: &[(&str, &str)]) -> Arc<Ruleset> {
    let manifest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/expansion.toml"));
    carcassonne_rules::linked_ruleset(manifest, Arc::new(Tower::new()), options).unwrap()
}

/// Plays seeded random games to the end; returns how many tower pieces and caps were
/// played, so that the test knows the offers were there.
fn play(rules: &Arc<Ruleset>, players: usize, seeds: std::ops::Range<u64>) -> (usize, usize) {
    let verb = |name| {
        let me = rules.expansion_index("tower").unwrap();
        rules.verb_named(me, name).unwrap()
    };
    let (piece, cap) = (verb("tower-piece"), verb("cap-tower"));
    let (mut pieces, mut caps) = (0, 0);
    for seed in seeds {
        let names = (0..players).map(|i| format!("P{i}")).collect();
        let mut g = Game::new(rules.clone(), &GameSetup::new(names, seed)).unwrap();
        let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        while !g.is_over() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let actions = g.actions();
            let i = (rng % actions.len() as u64) as usize;
            match actions[i] {
                Action::Custom(c) if c.verb == piece => pieces += 1,
                Action::Custom(c) if c.verb == cap => caps += 1,
                _ => {}
            }
            g.play_offered(i).unwrap();
        }
    }
    (pieces, caps)
}

#[test]
fn tower_pieces_and_caps_are_offered_under_each_option_set() {
    for (players, options) in [
        (2, &[][..]),
        (3, &[("ransomAsked", "jcz")][..]),
        (4, &[("towerTopCapture", "immune")][..]),
        (3, &[("blackTower", "true")][..]),
    ] {
        let (pieces, caps) = play(&rules(options), players, 1..9);
        assert!(
            pieces > 0 && caps > 0,
            "{options:?}: pieces {pieces}, caps {caps}"
        );
    }
}
