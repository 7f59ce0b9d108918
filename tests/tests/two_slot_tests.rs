//! The dispatch's shut test on two slots (`Ruleset::all_shut`: a hook whose two implementers
//! each gate it on one game slot and wait for nothing else is found shut, or exactly not,
//! from the two slots, without going gate by gate): the nine's `BeforeScoring` window, the
//! Count's redeployment round (`in-city`) and the dragon's flight (`flight-pending`).
//! Checked against the gates at every decision of seeded random games (the debug build also
//! checks every `all_shut` answer against the gates).

use carcassonne_core::{HookSet, Window};
use carcassonne_tests::mixed::play_seeded_random;
use carcassonne_tests::{official_rules, NINE_OFFICIAL};

/// Plays `games` seeded random 2-player games of `expansions`; at every decision, the test
/// of `hook` must answer exactly as its gates whenever it answers, never through the
/// one-condition quick test (`ShutAnswer::quick`, which `each_member` reads), and its
/// answers must be: shut at many decisions, exactly not at some.
fn check_two_slots(expansions: &[&str], games: u64, hook: HookSet) {
    let rules = official_rules(expansions, &[]);
    let (mut shut, mut open, mut unknown) = (0usize, 0usize, 0usize);
    for seed in 0..games {
        play_seeded_random(&rules, seed, 29, |game| {
            let answers = rules.shut_answers(game.state());
            let a = answers
                .iter()
                .find(|a| a.hook == hook)
                .unwrap_or_else(|| panic!("{expansions:?}: {hook:?} has no shut test"));
            assert!(
                !a.quick,
                "{expansions:?}, seed {seed}: a two-slot test answered the one-condition test"
            );
            match a.verdict {
                Some(v) => {
                    assert_eq!(
                        v, a.gates,
                        "{expansions:?}, seed {seed}: {hook:?}: the two slots against the gates"
                    );
                    if v {
                        shut += 1;
                    } else {
                        open += 1;
                    }
                }
                None => unknown += 1,
            }
        });
    }
    // Each implementer's slot is its only gate on the hook: every answer is exact.
    assert_eq!(unknown, 0, "{expansions:?}: {hook:?} left to the gates");
    assert!(
        shut > 100 && open > 10,
        "{expansions:?}: {hook:?} shut {shut} times, open {open} times"
    );
}

/// The nine: the Count's `BeforeScoring` window (gated on `in-city`) and Princess & Dragon's
/// flight window (gated on `flight-pending`).
#[test]
fn nine_before_scoring_window_two_slot_test_agrees_with_the_gates() {
    check_two_slots(&NINE_OFFICIAL, 6, HookSet::window(Window::BeforeScoring));
}

/// The Count with Princess & Dragon alone: the same two implementers.
#[test]
fn count_with_dragon_two_slot_test_agrees_with_the_gates() {
    check_two_slots(
        &["count", "princess-dragon"],
        6,
        HookSet::window(Window::BeforeScoring),
    );
}
