//! A field's open count (`FeatureTotals::open`: its segments' half-edges facing an empty
//! cell, kept by `place_tile`) equals a walk of its segments at every step of seeded random
//! games, abbeys (barrier tiles, which join no field) among the tiles; so a field is closed
//! (Hills & Sheep's HL-13) exactly when its count is 0.

mod common;

use carcassonne_core::*;
use std::sync::Arc;

/// An abbey: every edge a barrier, no field (as Abbey & Mayor's).
const ABBEY: &str = r#"
schema = 1
set = "abbey"

[[tile]]
id = "T/X"
count = 6
edges = "XXXX"
features = [{ kind = "cloister" }]
"#;

/// Every field's count against the walk; returns how many fields were closed.
fn check(st: &GameState, ctx: &str) -> usize {
    let g = st.graph();
    let mut closed = 0;
    for (f, kept, walked) in g.field_counts(|p| st.board().is_occupied(p)) {
        assert_eq!(kept, walked, "{ctx}: field {f:?}");
        assert!(!g.totals(f).complete(), "{ctx}: a field never completes");
        closed += usize::from(walked == 0);
    }
    closed
}

/// Random games of `rules`, checked after every action; the closed fields seen.
fn play(rules: &Arc<Ruleset>, games: u64) -> usize {
    let mut closed = 0;
    common::play_random(rules, &["R", "B"], games, |g, ctx| {
        closed += check(g.state(), ctx);
    });
    closed
}

#[test]
fn field_open_counts_match_the_walk_in_base_games() {
    assert!(play(&common::rules(), 20) > 0, "some field closed");
}

#[test]
fn field_open_counts_match_the_walk_beside_abbeys() {
    assert!(
        play(&common::rules_with(ABBEY), 20) > 0,
        "some field closed"
    );
}
