//! A placements prompt (`Ctx::prompt_placements`: the bazaar's bought tile, BCB-15) offers
//! by index what a list of the tile's placements would: at every such decision of seeded
//! games, `actions`, `action_count`, `offered_at`, `offered_iter` and `apply`'s check agree
//! with the tile's placements computed afresh (`Game::placements_for`), in order. Alone the prompt is
//! answered by index; with a set that filters prompts (Abbot & Garden) or offers free
//! actions (the Tower) core lists the placements first and the others' actions follow.

use carcassonne_core::{Action, ActionError, DecisionKind, Game, GameSetup, Pos, Rotation};
use carcassonne_tests::official_rules;
use std::sync::Arc;

/// Plays seeded random games of `sets`; returns how many placements prompts were checked.
fn check_placements_prompts(sets: &[&str], seeds: std::ops::Range<u64>) -> usize {
    let rules = official_rules(sets, &[]);
    let mut asked = 0;
    let mut listed = Vec::new();
    for seed in seeds {
        let names = (0..2 + seed % 3).map(|p| format!("P{p}")).collect();
        let mut game = Game::new(Arc::clone(&rules), &GameSetup::new(names, seed)).unwrap();
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        while !game.is_over() {
            if let DecisionKind::Prompt(p) = game.decision().kind {
                if let Some(t) = p.placements_of() {
                    asked += 1;
                    game.placements_for(t, &mut listed).unwrap();
                    assert!(!listed.is_empty(), "a placements prompt with no placement");
                    let all = game.actions().to_vec();
                    assert_eq!(all.len(), game.action_count());
                    // The placements first, in order; only other sets' actions after them.
                    assert_eq!(all[..listed.len()], listed[..], "seed {seed}");
                    assert!(all[listed.len()..]
                        .iter()
                        .all(|a| !matches!(a, Action::Place { .. })));
                    let st = game.state();
                    for (i, a) in all.iter().enumerate() {
                        assert_eq!(st.offered_at(i), Some(*a));
                        assert!(st.is_offered(a));
                    }
                    assert_eq!(st.offered_at(all.len()), None);
                    assert!(st.offered_iter().eq(all.iter().copied()));
                    // A rotation that does not fit, a cell off the frontier, a pass: refused,
                    // and the game unchanged.
                    let before = format!("{:?}", game.state());
                    let Action::Place { pos, .. } = listed[0] else {
                        unreachable!("placements are `Place` actions")
                    };
                    let mut wrong = vec![
                        Action::Pass,
                        Action::Place {
                            pos: Pos::new(1000, 1000),
                            rotation: Rotation::R0,
                        },
                    ];
                    wrong.extend(
                        (0..4)
                            .map(|q| Action::Place {
                                pos,
                                rotation: Rotation::quarter_turns(q),
                            })
                            .filter(|a| !listed.contains(a)),
                    );
                    for a in wrong {
                        assert!(!game.state().is_offered(&a), "{a:?}");
                        let e = game.apply(a).unwrap_err();
                        assert!(
                            matches!(
                                e,
                                ActionError::NotOffered { .. } | ActionError::Refused { .. }
                            ),
                            "{e:?}"
                        );
                    }
                    assert_eq!(format!("{:?}", game.state()), before);
                }
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = game.action_count();
            let i = (x % n as u64) as usize;
            let a = game.state().offered_at(i).unwrap();
            assert_eq!(game.play_offered(i).unwrap(), a);
        }
    }
    asked
}

#[test]
fn bazaar_place_prompt_offers_its_placements_by_index() {
    let asked = check_placements_prompts(&["bridges-castles-bazaars"], 0..12);
    assert!(asked > 50, "{asked} placements prompts");
}

#[test]
fn bazaar_place_prompt_is_listed_for_prompt_filters_and_free_actions() {
    let asked = check_placements_prompts(&["bridges-castles-bazaars", "abbot-garden"], 0..6);
    assert!(asked > 20, "{asked} placements prompts");
    let asked = check_placements_prompts(&["bridges-castles-bazaars", "tower"], 0..6);
    assert!(asked > 20, "{asked} placements prompts");
}
