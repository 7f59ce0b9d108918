//! Helpers for the tests that play a decision two ways on copies of one game and compare
//! them (`playout_pass.rs`, `known_offers.rs`): random games walked decision by decision,
//! the same position checked, the rest of a game played out.

use crate::NINE_OFFICIAL;
use carcassonne_core::{Game, GameSetup, Ruleset};
use carcassonne_play::bots::make_bot;
use std::sync::Arc;

/// The nine and every other official set.
pub fn every_official() -> Vec<&'static str> {
    [
        NINE_OFFICIAL.as_slice(),
        &[
            "abbot-garden",
            "hills-sheep",
            "bridges-castles-bazaars",
            "big-top",
            "phantom",
        ],
    ]
    .concat()
}

/// Plays a random 2-player game of `rules` (bot and game seeded `seed`), calling `at` at
/// every decision before the bot plays it, until the game ends or `at` says stop.
pub fn each_decision(rules: &Arc<Ruleset>, seed: u64, mut at: impl FnMut(&Game) -> bool) {
    let names = vec!["A".to_string(), "B".to_string()];
    let mut g = Game::new(Arc::clone(rules), &GameSetup::new(names, seed)).expect("game");
    let mut bot = make_bot("random", seed).expect("bot");
    while !g.is_over() {
        if !at(&g) {
            return;
        }
        let i = bot.choose(&g);
        g.apply_offered(i).expect("offered actions apply");
    }
}

/// Plays `g` to its end with a random bot of `seed`; returns the scores and how many score
/// events the game had.
pub fn finish(mut g: Game, seed: u64) -> (Vec<i32>, usize) {
    let mut bot = make_bot("random", seed).expect("bot");
    while !g.is_over() {
        let i = bot.choose(&g);
        g.apply_offered(i).expect("offered actions apply");
    }
    let scores = g.state().players().iter().map(|p| p.score).collect();
    (scores, g.state().events().len())
}

/// The two copies wait on the same decision, offer and figures.
pub fn assert_same_position(a: &Game, b: &Game, seed: u64) {
    assert_eq!(a.decision(), b.decision(), "seed {seed}");
    assert_eq!(a.actions(), b.actions(), "seed {seed}");
    assert_eq!(a.state().figures(), b.state().figures(), "seed {seed}");
}
