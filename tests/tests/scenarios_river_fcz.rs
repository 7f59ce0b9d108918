//! River II as FanCloisterZone plays it (`jcz-saves.md` §4 and §13; options
//! `river2.riverPlacement=fcz` and `river2.riverLakes=per-branch`, which the JCZ importer
//! turns on). One scenario per condition of the stricter placement rule, each with a
//! variant showing that the printed rule (RV-4 … RV-7) allows what FanCloisterZone refuses;
//! then the lake count in a real new game.

use carcassonne_core::{DecisionKind, DrawMode, Game, GameSetup};
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::{expansions_dir, run_scenario};
use std::sync::Arc;

/// Condition (1): the 2×3 area ahead of every open river end is empty.
#[test]
fn fcz1_the_area_ahead_of_an_open_end_is_empty() {
    run_scenario("river2/FCZ-1");
}

/// Condition (2): the 3-wide strip ahead up to the bounding box's edge is empty.
#[test]
fn fcz2_the_strip_to_the_bounding_box_is_empty() {
    run_scenario("river2/FCZ-2");
}

/// Condition (3): no two open ends pointing the same way in neighbouring lines.
#[test]
fn fcz3_no_open_ends_side_by_side() {
    run_scenario("river2/FCZ-3");
}

/// How many copies of the lake a new game's pack holds, by `river2.riverLakes`.
fn lakes_in_a_new_game(lakes: &str) -> usize {
    let rules = build_ruleset(&RulesSpec {
        expansions: vec!["river2".into()],
        options: vec![("river2.riverLakes".into(), lakes.into())],
        plugin_dirs: vec![expansions_dir()],
    })
    .expect("ruleset");
    let lake = rules.tiles().find("RI.2/I.v").expect("the lake is loaded");
    let mut setup = GameSetup::new(vec!["R".into(), "B".into()], 1);
    setup.draws = DrawMode::Chosen;
    let game = Game::new(Arc::clone(&rules), &setup).expect("new game");
    assert_eq!(game.decision().kind, DecisionKind::Draw);
    game.state()
        .supply()
        .groups
        .iter()
        .flat_map(|g| g.tiles.iter())
        .filter(|t| **t == lake)
        .count()
}

/// `riverLakes=per-branch`: River II's fork makes two branches, so two lakes (FCZ, §4);
/// the printed set has one.
#[test]
fn per_branch_lakes_follow_the_open_branches() {
    assert_eq!(lakes_in_a_new_game("printed"), 1);
    assert_eq!(lakes_in_a_new_game("per-branch"), 2);
}
