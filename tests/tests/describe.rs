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

/// Plays seeded random games with Hills & Sheep and Under the Big Top and checks, after
/// every action, that `describe` shows each shepherd's flock beside him (HL-9) and the big
/// top on a circus tile once one is placed (BT-2, BT-4): what the renderer and the page draw.
#[test]
fn flocks_and_the_big_top_are_described() {
    let rules = build_ruleset(&RulesSpec {
        expansions: vec!["hills-sheep".into(), "big-top".into()],
        options: Vec::new(),
        plugin_dirs: vec![expansions_dir()],
    })
    .expect("ruleset");
    let shepherd = rules.figure_named("shepherd").expect("the shepherd");
    let (mut flocks_seen, mut tops_seen) = (0, 0);
    for seed in 1..=6u64 {
        let mut game = Game::new(
            Arc::clone(&rules),
            &GameSetup::new(vec!["A".into(), "B".into()], seed),
        )
        .expect("new game");
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        while !game.is_over() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = (x % game.action_count() as u64) as usize;
            game.apply_offered(i).expect("an offered action");
            let mut shown = Vec::new();
            game.view().describe(&mut shown).expect("describe");
            let st = game.state();
            let mut on_board: Vec<_> = st
                .figures()
                .iter()
                .filter(|f| f.kind == shepherd)
                .filter_map(|f| match f.loc {
                    carcassonne_core::FigureLoc::On(s) => Some(s),
                    _ => None,
                })
                .collect();
            let mut flocks: Vec<_> = shown
                .iter()
                .filter_map(|v| match v {
                    Visible::Place {
                        group,
                        name,
                        segment,
                    } if group == "Flocks (sheep)" => {
                        let sheep: i64 = name.parse().expect("a number of sheep");
                        assert!((0..=40).contains(&sheep), "{sheep} sheep");
                        Some(*segment)
                    }
                    _ => None,
                })
                .collect();
            on_board.sort();
            flocks.sort();
            assert_eq!(
                flocks, on_board,
                "one flock beside each shepherd (seed {seed})"
            );
            flocks_seen += flocks.len();
            for v in &shown {
                if let Visible::NeutralFigure { name, segment, .. } = v {
                    assert_eq!(name, "big top");
                    let tile = st.board().tile(st.graph().segment(*segment).tile);
                    assert!(
                        rules.tiles().get(tile.kind).has_tag("circus"),
                        "the big top stands on a circus tile"
                    );
                    tops_seen += 1;
                }
            }
        }
    }
    assert!(
        flocks_seen > 0 && tops_seen > 0,
        "{flocks_seen} flocks, {tops_seen} big tops"
    );
}
