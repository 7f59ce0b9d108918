//! The pipeline's callers read the dispatch's one-condition shut test themselves
//! (`Ruleset::quick_shut_hook`, before any register is saved): `free_actions` (the Tower's
//! ransom, gated on `captives`), `open_window` and `turn_end_hooks`. Each returns at once when
//! that test finds every implementer of its hook shut, so the test may say so only when the
//! gates, read one by one, do. Checked at every decision of seeded random games of the six
//! and the nine (the debug build also checks every such return against the gates).

use carcassonne_core::{HookSet, Window};
use carcassonne_tests::mixed::play_seeded_random;
use carcassonne_tests::{official_rules, NINE_OFFICIAL};

/// The six official sets of the smaller boxes: the nine's first six.
fn six() -> &'static [&'static str] {
    &NINE_OFFICIAL[..6]
}

/// The hooks whose callers read the test: the free actions, every window, the turn end.
fn caller_hooks() -> Vec<HookSet> {
    let mut hooks = vec![HookSet::FREE_ACTIONS, HookSet::ON_TURN_END];
    hooks.extend(Window::ALL.map(HookSet::window));
    hooks
}

/// Plays `games` seeded random 2-player games of `expansions`; at every decision, each
/// caller hook's quick test must find its implementers shut only when the gates do. Returns
/// per hook of `fires` how many decisions the quick test found it shut and how many not.
fn check(expansions: &[&str], games: u64, fires: &[HookSet]) -> Vec<(usize, usize)> {
    let rules = official_rules(expansions, &[]);
    let hooks = caller_hooks();
    let mut seen = vec![(0usize, 0usize); fires.len()];
    for seed in 0..games {
        play_seeded_random(&rules, seed, 41, |game| {
            for a in rules.shut_answers(game.state()) {
                if !hooks.contains(&a.hook) {
                    continue;
                }
                assert!(
                    a.gates || !a.quick,
                    "{expansions:?}, seed {seed}: {:?} found shut by its quick test, a gate open",
                    a.hook
                );
                if let Some(k) = fires.iter().position(|&h| h == a.hook) {
                    if a.quick {
                        seen[k].0 += 1;
                    } else {
                        seen[k].1 += 1;
                    }
                }
            }
        });
    }
    for (k, (shut, open)) in seen.iter().enumerate() {
        assert!(
            *shut > 0,
            "{expansions:?}: {:?}'s quick test never found it shut ({open} not)",
            fires[k]
        );
    }
    seen
}

/// The nine: the Tower's free actions (its one gate, `captives`) are shut at most decisions
/// and open at some (a follower held).
#[test]
fn nine_free_actions_quick_test_agrees_with_the_gates() {
    let seen = check(&NINE_OFFICIAL, 6, &[HookSet::FREE_ACTIONS]);
    assert!(
        seen[0].1 > 0,
        "the Tower's free actions never open: {seen:?}"
    );
}

/// The six: every caller hook with a quick test answers it only when the gates agree; the
/// turn end (Traders & Builders' `triggered`) and the `BeforeScoring` window (the Count's
/// `in-city`) are found shut by it.
#[test]
fn six_caller_quick_tests_agree_with_the_gates() {
    check(
        six(),
        6,
        &[HookSet::ON_TURN_END, HookSet::window(Window::BeforeScoring)],
    );
}
