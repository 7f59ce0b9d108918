//! A field's open count (`FeatureTotals::open`: its segments' half-edges facing an empty
//! cell, which Hills & Sheep's closed field (HL-13) reads) equals a walk of its segments
//! after every action of seeded random games with the expansions that add tiles, segments
//! or overlays beside fields: Hills & Sheep, Bridges, Castles & Bazaars (bridges), Abbey &
//! Mayor (abbeys, which join no field), alone and together.

use carcassonne_core::{Game, GameSetup};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_tests::official_rules;
use std::sync::Arc;

fn play(expansions: &[&str], games: u64) {
    let rules = official_rules(expansions, &[]);
    let mut closed = 0;
    for seed in 0..games {
        let setup = GameSetup::new(vec!["R".into(), "B".into(), "G".into()], seed);
        let mut g = Game::new(Arc::clone(&rules), &setup).expect("a game");
        let mut bot = RandomBot::new(seed);
        let mut step = 0;
        while !g.is_over() && step < 2000 {
            assert!(
                !g.actions().is_empty(),
                "{expansions:?} seed {seed}: no action"
            );
            let i = bot.choose(&g);
            g.apply_offered(i).expect("an offered action");
            step += 1;
            let st = g.state();
            for (f, kept, walked) in st.graph().field_counts(|p| st.board().is_occupied(p)) {
                assert_eq!(
                    kept, walked,
                    "{expansions:?} seed {seed}, step {step}: {f:?}"
                );
                closed += usize::from(walked == 0);
            }
        }
    }
    assert!(closed > 0, "{expansions:?}: some field closed");
}

#[test]
fn field_open_counts_match_the_walk_with_hills_sheep() {
    play(&["hills-sheep"], 15);
}

#[test]
fn field_open_counts_match_the_walk_with_bridges() {
    play(&["bridges-castles-bazaars"], 15);
}

#[test]
fn field_open_counts_match_the_walk_with_abbeys() {
    play(&["abbey-mayor"], 15);
}

#[test]
fn field_open_counts_match_the_walk_with_all_three() {
    play(
        &["hills-sheep", "bridges-castles-bazaars", "abbey-mayor"],
        15,
    );
}
