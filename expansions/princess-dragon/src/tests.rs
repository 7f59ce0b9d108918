//! The crate linked directly (no plugin loading): seeded random games of the base game
//! with Princess & Dragon, under the option sets whose paths changed. The fast paths'
//! checks against the general code (`cfg!(test)` in `before_scoring`'s fairy bonus and in
//! the dragon's `eat`) run at every scoring and every dragon step of these games.

use crate::PrincessDragon;
use carcassonne_core::{Game, GameSetup, Ruleset, ScoreSource};
use std::path::Path;
use std::sync::Arc;

/// The base game with this expansion as the host loads it (its manifest's tiles and
/// options), the crate's code linked in, then `options` set.
fn rules(options: &[(&str, &str)]) -> Arc<Ruleset> {
    let manifest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/expansion.toml"));
    carcassonne_rules::linked_ruleset(manifest, Arc::new(PrincessDragon::new()), options).unwrap()
}

/// Plays seeded random games to the end (every check above runs inside the hooks);
/// returns how many fairy points were scored, so that the test knows the bonus path ran.
fn play(rules: &Arc<Ruleset>, players: usize, seeds: std::ops::Range<u64>) -> i64 {
    let mut fairy = 0;
    for seed in seeds {
        let names = (0..players).map(|i| format!("P{i}")).collect();
        let mut g = Game::new(rules.clone(), &GameSetup::new(names, seed)).unwrap();
        let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        while !g.is_over() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let n = g.actions().len();
            g.play_offered((rng % n as u64) as usize).unwrap();
        }
        let labels = g.rules().labels();
        fairy += g
            .state()
            .events()
            .iter()
            .filter(|e| {
                matches!(e.source, ScoreSource::Label(l) if labels[usize::from(l.0)] == "fairy")
            })
            .map(|e| i64::from(e.points))
            .sum::<i64>();
    }
    fairy
}

#[test]
fn fast_paths_agree_with_the_general_code() {
    for (players, options) in [
        (2, &[][..]),
        (3, &[("dragonTiming", "after-scoring")][..]),
        (4, &[("fairyPlacement", "on-tile")][..]),
    ] {
        let r = rules(options);
        assert!(
            play(&r, players, 1..13) > 0,
            "{options:?}: the fairy scored"
        );
    }
}
