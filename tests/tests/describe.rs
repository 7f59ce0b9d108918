//! `Expansion::describe` (issue 14): an expansion tells tools what it shows, so the
//! renderer names no expansion. The King & Robber titles and the Count, from the real
//! plugins.

use carcassonne_core::{Game, GameSetup, Visible};
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::expansions_dir;
use std::sync::Arc;

#[test]
fn titles_and_the_count_are_described() {
    let rules = build_ruleset(&RulesSpec {
        expansions: vec!["count".into(), "king-robber".into()],
        options: Vec::new(),
        plugin_dirs: vec![expansions_dir()],
    })
    .expect("ruleset");
    let game = Game::new(
        Arc::clone(&rules),
        &GameSetup::new(vec!["A".into(), "B".into()], 3),
    )
    .expect("new game");
    let mut shown = Vec::new();
    game.view().describe(&mut shown).expect("describe");
    let titles: Vec<(&str, &str, bool)> = shown
        .iter()
        .filter_map(|v| match v {
            Visible::Title {
                group,
                name,
                holder,
                ..
            } => Some((group.as_str(), name.as_str(), holder.is_some())),
            _ => None,
        })
        .collect();
    assert_eq!(
        titles,
        [
            ("King & Robber", "King", false),
            ("King & Robber", "Robber", false)
        ]
    );
    // The Count starts in the castle, the first quarter (a virtual feature, local 0).
    let count = shown
        .iter()
        .find_map(|v| match v {
            Visible::NeutralFigure { name, segment, .. } if name == "count" => Some(*segment),
            _ => None,
        })
        .expect("the Count is described");
    let node = game.state().graph().segment(count);
    assert!(node.is_virtual());
    assert_eq!(node.local, 0);
}
