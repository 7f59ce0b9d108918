//! BT-10: the full pyramids a deployment step offers (`score-pyramid`) are exactly the acrobat
//! spaces holding three meeples, in placement order: checked at every deployment step of
//! seeded games against the spaces read from the board here, alone and beside other sets.
//! The plugin reads only the spaces that may be full when the player has no small follower
//! left, a set that every meeple's arrival grows (`on_figure_placed`): these games check
//! that no arrival escapes it, the Tactician's and the magic portal's included (tb21 had
//! tried a mask kept by the `AfterDeploy` window, which misses some: docs/speed-log.md).

use carcassonne_core::Ruleset;
use carcassonne_core::{Action, DecisionKind, Game, GameSetup, SegmentId};
use carcassonne_tests::{official_and_fan_rules, official_rules};
use std::sync::Arc;

/// The acrobat spaces with a full pyramid (three meeples or more), in placement order.
fn full_spaces(g: &Game) -> Vec<SegmentId> {
    let st = g.state();
    let kind = g
        .rules()
        .kind_named("acrobats")
        .expect("the acrobat space kind");
    let graph = st.graph();
    let mut out = Vec::new();
    for t in st.board().tiles() {
        for seg in t.segments() {
            if graph.segment(seg).kind == kind && graph.totals(graph.feature_of(seg)).occupants >= 3
            {
                out.push(seg);
            }
        }
    }
    out
}

/// Plays `games` seeded games with a fixed spread of choices, deploying onto acrobat spaces
/// whenever offered (so that pyramids fill); returns how many full pyramids were offered.
fn check(sets: &[&str], options: &[(&str, &str)], games: u64) -> usize {
    check_rules(&official_rules(sets, options), sets, games)
}

/// [`check`] with a ruleset built elsewhere (fan scripts in it).
fn check_rules(rules: &Arc<Ruleset>, sets: &[&str], games: u64) -> usize {
    let mut offered = 0;
    for seed in 0..games {
        let players = 2 + (seed % 3) as usize;
        let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
        let mut g = Game::new(rules.clone(), &setup).expect("game");
        let kind = rules
            .kind_named("acrobats")
            .expect("the acrobat space kind");
        let mut step = 0usize;
        while !g.is_over() && step < 4000 {
            if let DecisionKind::Deploy { .. } = g.decision().kind {
                let pyramids: Vec<SegmentId> = g
                    .actions()
                    .iter()
                    .filter_map(|a| match a {
                        Action::Custom(c) if c.segment.is_some() && c.figure.is_none() => c.segment,
                        _ => None,
                    })
                    .collect();
                assert_eq!(
                    pyramids,
                    full_spaces(&g),
                    "{sets:?} seed {seed}, step {step}: the offered pyramids"
                );
                offered += pyramids.len();
            }
            // Onto an acrobat space when offered (pyramids fill), else a fixed spread.
            let acts = g.actions();
            let graph = g.state().graph();
            let onto_space = acts.iter().position(|a| {
                matches!(a, Action::Deploy { segment, .. }
                    if segment.index() < graph.len() && graph.segment(*segment).kind == kind)
            });
            let i = match onto_space {
                Some(i) if !step.is_multiple_of(3) => i,
                _ => (step * 7919 + 13 + seed as usize) % g.action_count(),
            };
            g.apply_offered(i).expect("an offered action");
            step += 1;
        }
    }
    offered
}

#[test]
fn offered_pyramids_are_the_full_spaces_alone() {
    let offered = check(&["big-top"], &[], 24);
    assert!(
        offered > 0,
        "no full pyramid was ever offered: the check saw nothing"
    );
}

#[test]
fn offered_pyramids_are_the_full_spaces_beside_other_sets() {
    check(
        &["big-top", "bridges-castles-bazaars", "princess-dragon"],
        &[],
        8,
    );
}

/// The Tactician's prompt (a fan script's deployment out of the deployment step) and the
/// magic portal send meeples onto spaces far from the tile just placed; under
/// `bridgeAcrobats=barred` a bridged space's full pyramid is not offered.
#[test]
fn offered_pyramids_are_the_full_spaces_with_the_tactician_and_barred_bridges() {
    let sets = [
        "big-top",
        "princess-dragon",
        "bridges-castles-bazaars",
        "tactician",
    ];
    let rules = official_and_fan_rules(&sets, &[("big-top.bridgeAcrobats", "barred")]);
    let offered = check_rules(&rules, &sets, 8);
    assert!(offered > 0, "no full pyramid was ever offered");
}
