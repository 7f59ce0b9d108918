//! `Game::refill_from` (the search bots' copy, issue 33): the copy it makes is the game
//! `clone_from` makes, it plays on the same, and the source is left as it was, also when the
//! copy owned its board before (the case refill_from exists for).

use carcassonne_core::{Game, GameSetup};
use carcassonne_rules::{build_ruleset, RulesSpec};
use std::path::Path;

/// The brief's nine official sets: a 209-tile board, virtual features (the Count), neutral
/// figures (dragon, fairy, Count), prompts of several expansions.
const NINE: [&str; 9] = [
    "inns-cathedrals",
    "traders-builders",
    "princess-dragon",
    "tower",
    "abbey-mayor",
    "count",
    "river2",
    "king-robber",
    "heretics-shrines",
];

fn game(expansions: &[&str], seed: u64) -> Game {
    let rules = build_ruleset(&RulesSpec {
        expansions: expansions.iter().map(|e| e.to_string()).collect(),
        options: Vec::new(),
        plugin_dirs: vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../../expansions")],
    })
    .unwrap_or_else(|e| panic!("the expansions load: {e}"));
    Game::new(rules, &GameSetup::new(vec!["a".into(), "b".into()], seed)).expect("a game")
}

/// Plays `n` actions on `g` (offer `k * 7 + i` modulo the offers, so both copies take the
/// same ones) and returns the Debug form of its state.
fn play_on(g: &mut Game, n: usize) -> String {
    for i in 0..n {
        if g.is_over() || g.action_count() == 0 {
            break;
        }
        let k = (i * 7 + 3) % g.action_count();
        g.apply_offered(k).expect("an offered action applies");
    }
    format!("{:?}", g.state())
}

#[test]
fn refill_from_copies_the_game_that_clone_from_copies() {
    for (expansions, seed) in [(&[][..], 11u64), (&NINE[..], 5)] {
        let mut source = game(expansions, seed);
        // Two scratch games that have played elsewhere, as a bot's do between decisions:
        // the refilled one owns a board of its own by then.
        let mut shared = source.clone();
        let mut owned = source.clone();
        play_on(&mut owned, 40);
        play_on(&mut shared, 40);
        for step in 0..30 {
            let before = format!("{:?}", source.state());
            shared.clone_from(&source);
            owned.refill_from(&source);
            assert_eq!(
                format!("{:?}", owned.state()),
                before,
                "step {step}: the copy"
            );
            // The copies go on alike (several placements), and the source does not move.
            assert_eq!(
                play_on(&mut owned, 12),
                play_on(&mut shared, 12),
                "step {step}: the copies after 12 actions"
            );
            assert_eq!(
                format!("{:?}", source.state()),
                before,
                "step {step}: the source"
            );
            play_on(&mut source, 5);
        }
    }
}
