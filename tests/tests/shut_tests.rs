//! The hook dispatch's quick test for hooks whose implementers are all shut
//! (`Ruleset::all_shut` reads first the test chosen at build: the empty supply, a hole, one
//! slot, or those together), with the official sets whose gated hooks it skips on most
//! turns: it may find every implementer shut only when their gates, read one by one, do.
//! Checked at every decision of seeded random games (the debug build also checks it at every
//! call).

use carcassonne_core::{Game, GameSetup, HookSet, Window};
use carcassonne_tests::mixed::play_seeded_random;
use carcassonne_tests::{official_rules, NINE_OFFICIAL};

/// Plays `games` seeded random 2-player games of `expansions`, checking the quick test of
/// every hook that has one at every decision; each hook of `expected` must have one, and
/// find its implementers shut at some decisions and not at others.
/// Returns how often a test that did not find its implementers shut still gave an exact
/// answer (`ShutAnswer::verdict`), which `all_shut` then returns without the gates.
fn check(expansions: &[&str], games: u64, expected: &[HookSet]) -> usize {
    let mut exact = 0;
    let rules = official_rules(expansions, &[]);
    let mut seen: Vec<(HookSet, usize, usize)> = expected.iter().map(|&h| (h, 0, 0)).collect();
    for seed in 0..games {
        play_seeded_random(&rules, seed, 17, |game| {
            for a in rules.shut_answers(game.state()) {
                assert!(
                    a.gates || !a.quick,
                    "{expansions:?}, seed {seed}: {:?} found shut by its quick test, a gate open",
                    a.hook
                );
                if let Some(s) = seen.iter_mut().find(|s| s.0 == a.hook) {
                    s.1 += usize::from(a.quick);
                    s.2 += usize::from(!a.quick);
                }
                // The test's exact answers (`Ruleset::all_shut` returns them without the gates).
                if let Some(v) = a.verdict {
                    assert_eq!(
                        v, a.gates,
                        "{expansions:?}, seed {seed}: {:?}: the quick test's verdict against the gates",
                        a.hook
                    );
                    exact += usize::from(!a.quick);
                }
            }
        });
    }
    let tested: Vec<HookSet> = rules
        .shut_answers(
            Game::new(rules.clone(), &GameSetup::new(vec!["A".into()], 0))
                .unwrap()
                .state(),
        )
        .iter()
        .map(|a| a.hook)
        .collect();
    for (hook, yes, no) in seen {
        assert!(
            tested.contains(&hook),
            "{expansions:?}: {hook:?} has no quick test"
        );
        assert!(
            yes > 100 && no > 0,
            "{expansions:?}: {hook:?} shut {yes} times, not {no} times"
        );
    }
    exact
}

/// Abbey & Mayor: `on_tile_drawn` and `on_turn_end` wait for the empty supply (AM-9), the
/// abbey's `BeforeDraw` window for a hole.
#[test]
fn abbey_mayor_quick_shut_tests_agree_with_the_gates() {
    let exact = check(
        &["abbey-mayor"],
        8,
        &[
            HookSet::ON_TILE_DRAWN,
            HookSet::ON_TURN_END,
            HookSet::window(Window::BeforeDraw),
        ],
    );
    // The abbey window with a hole on the board: its `abbey-live` slot answers.
    assert!(exact > 50, "exact answers without the gates: {exact}");
}

/// Bridges, Castles & Bazaars: the bazaar's windows, each on its slot.
#[test]
fn bridges_quick_shut_tests_agree_with_the_gates() {
    check(
        &["bridges-castles-bazaars"],
        8,
        &[HookSet::window(Window::BeforeDraw)],
    );
}

/// Under the Big Top: the circus' `AfterScoring` window, on its slot.
#[test]
fn big_top_quick_shut_tests_agree_with_the_gates() {
    check(&["big-top"], 8, &[HookSet::window(Window::AfterScoring)]);
}

/// The nine: `on_turn_end` waits for the supply (Abbey & Mayor) and a slot (Traders &
/// Builders' `triggered`) together.
#[test]
fn nine_quick_shut_tests_agree_with_the_gates() {
    check(
        &NINE_OFFICIAL,
        6,
        &[HookSet::ON_TILE_DRAWN, HookSet::ON_TURN_END],
    );
}
