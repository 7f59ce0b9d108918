//! A playout's unlisted deployment steps (issue 33): `Game::apply_passing_deploy` plays a
//! placement and passes the deployment step after it without listing the step's offer;
//! `Game::apply_tile_deploy` answers it from the tile's own deployments, without listing
//! what expansions add. The game must go on exactly as if that answer had been chosen from
//! the listed offer, and a ruleset where a filter can take the pass away (or judge an
//! action by the others offered) must list the step as usual.

use carcassonne_core::{Action, DecisionKind, Game, Ruleset};
use carcassonne_tests::copies::{assert_same_position, each_decision, every_official, finish};
use carcassonne_tests::{official_and_fan_rules as rules, NINE_OFFICIAL};
use std::sync::Arc;

/// Applies `action` from the listed deployment step of `g`, which must offer it.
fn choose_listed(g: &mut Game, action: Action, seed: u64) {
    let at = g
        .actions()
        .iter()
        .position(|a| *a == action)
        .unwrap_or_else(|| panic!("seed {seed}: {action:?} is not offered"));
    g.apply_offered(at).expect("the choice applies");
}

/// At every tile step of a few random games, each of the first placements played with an
/// unlisted pass gives the decision, offer and figures that choosing `Pass` from the listed
/// step gives, and the same game to its end.
fn unlisted_pass_is_the_listed_pass(rules: &Arc<Ruleset>, seeds: std::ops::Range<u64>) -> u32 {
    let mut compared = 0;
    for seed in seeds {
        each_tile_step(rules, seed, |g| {
            for k in 0..g.action_count().min(3) {
                let mut listed = g.clone();
                listed.apply_offered(k).expect("the placement applies");
                let was_step = matches!(listed.decision().kind, DecisionKind::Deploy { .. });
                if was_step {
                    choose_listed(&mut listed, Action::Pass, seed);
                }
                let mut unlisted = g.clone();
                unlisted
                    .apply_passing_deploy(k)
                    .expect("the placement applies");
                assert_same_position(&unlisted, &listed, seed);
                if was_step {
                    compared += 1;
                    // The rest of the game, the same random choices on both copies.
                    let rest = seed ^ (k as u64) << 32;
                    assert_eq!(finish(unlisted, rest), finish(listed, rest), "seed {seed}");
                }
            }
            true
        });
    }
    compared
}

/// At every tile step of a few random games, each of the first placements played with a
/// deployment from the tile's own (at a few shares) gives the decision, offer and figures
/// that choosing the same action from the listed step gives, and the same game to its end.
/// Returns how many steps were compared, and how many of them deployed a figure.
fn tile_deploy_is_a_listed_choice(rules: &Arc<Ruleset>, seeds: std::ops::Range<u64>) -> (u32, u32) {
    let (mut compared, mut deployed) = (0, 0);
    let picks = [0, u64::MAX / 3, u64::MAX / 2, u64::MAX];
    for seed in seeds {
        each_tile_step(rules, seed, |g| {
            for k in 0..g.action_count().min(3) {
                for (j, &pick) in picks.iter().enumerate() {
                    let mut tiled = g.clone();
                    tiled
                        .apply_tile_deploy(k, pick)
                        .expect("the placement applies");
                    let mut listed = g.clone();
                    listed.apply_offered(k).expect("the placement applies");
                    if matches!(listed.decision().kind, DecisionKind::Deploy { .. }) {
                        let chosen = tiled
                            .state()
                            .deploy_choice()
                            .expect("the step was answered");
                        choose_listed(&mut listed, chosen, seed);
                        compared += 1;
                        deployed += u32::from(chosen != Action::Pass);
                    }
                    assert_same_position(&tiled, &listed, seed);
                    if j == 0 || k == 0 {
                        let rest = seed ^ (k as u64) << 32 ^ (j as u64) << 40;
                        assert_eq!(finish(tiled, rest), finish(listed, rest), "seed {seed}");
                    }
                }
            }
            true
        });
    }
    (compared, deployed)
}

/// The ruleset of `expansions` keeps the pass in every step, and in random games of it
/// (`seeds`) more than `least` steps answered from the tile's own deployments, a figure
/// deployed in more than a quarter of them, play as the same choice from the listed step.
fn tile_deploys_play_as_listed(expansions: &[&str], seeds: std::ops::Range<u64>, least: u32) {
    let rules = rules(expansions, &[]);
    assert!(rules.deploy_pass_kept(), "{expansions:?} keep the pass");
    let (n, deployed) = tile_deploy_is_a_listed_choice(&rules, seeds);
    assert!(n > least, "{n} answered steps compared");
    assert!(4 * deployed > n, "{deployed} of {n} deployed a figure");
}

#[test]
fn a_tile_deploy_plays_as_the_listed_choice_in_the_base_game() {
    tile_deploys_play_as_listed(&[], 0..2, 200);
}

/// AM-23, PD-5 and the shrines' crowding filter judge each deployment by itself.
#[test]
fn a_tile_deploy_plays_as_the_listed_choice_with_the_nine() {
    tile_deploys_play_as_listed(&NINE_OFFICIAL, 0..1, 400);
}

/// Every official set at once: the garden's (AG-3), the acrobats' (BT-8) and the phantom's
/// (PH-3) filters too; the phantom's keeps only the pass of a step without its own spots,
/// which a step without the Tower's tops is too.
#[test]
fn a_tile_deploy_plays_as_the_listed_choice_with_every_official_set() {
    tile_deploys_play_as_listed(&every_official(), 0..1, 400);
}

/// [`each_decision`] at the tile steps only.
fn each_tile_step(rules: &Arc<Ruleset>, seed: u64, mut at: impl FnMut(&Game) -> bool) {
    each_decision(rules, seed, |g| {
        !matches!(g.decision().kind, DecisionKind::PlaceTile { .. }) || at(g)
    });
}

/// The ruleset of `expansions` keeps the pass in every step, and in random games of it
/// (`seeds`) more than `least` unlisted passes play as listed ones.
fn unlisted_passes_play_as_listed(expansions: &[&str], seeds: std::ops::Range<u64>, least: u32) {
    let rules = rules(expansions, &[]);
    assert!(rules.deploy_pass_kept(), "{expansions:?} keep the pass");
    let n = unlisted_pass_is_the_listed_pass(&rules, seeds);
    assert!(n > least, "{n} passed steps compared");
}

#[test]
fn an_unlisted_pass_plays_as_the_listed_one_in_the_base_game() {
    unlisted_passes_play_as_listed(&[], 0..3, 100);
}

/// AM-23, PD-5 and the shrines' crowding filter keep the pass.
#[test]
fn an_unlisted_pass_plays_as_the_listed_one_with_the_nine() {
    unlisted_passes_play_as_listed(&NINE_OFFICIAL, 0..2, 200);
}

/// Every official set at once: the garden's (AG-3), the acrobats' (BT-8) and the phantom's
/// (PH-3) filters keep the pass too.
#[test]
fn an_unlisted_pass_plays_as_the_listed_one_with_every_official_set() {
    unlisted_passes_play_as_listed(&every_official(), 0..2, 200);
}

/// Where the pass may not be taken unlisted, `apply_passing_deploy` and `apply_tile_deploy`
/// play as `apply_offered`: the step after the placement is listed and offered. Returns how many
/// such steps the first tile steps of a game (seed 1) offered.
fn steps_stay_listed(rules: &Arc<Ruleset>) -> usize {
    let mut steps = 0;
    each_tile_step(rules, 1, |g| {
        let mut listed = g.clone();
        listed.apply_offered(0).expect("the placement applies");
        let mut asked = g.clone();
        asked
            .apply_passing_deploy(0)
            .expect("the placement applies");
        assert_eq!(asked.decision(), listed.decision());
        assert_eq!(asked.actions(), listed.actions());
        let mut tiled = g.clone();
        tiled
            .apply_tile_deploy(0, u64::MAX / 2)
            .expect("the placement applies");
        assert_eq!(tiled.decision(), listed.decision());
        assert_eq!(tiled.actions(), listed.actions());
        steps += usize::from(matches!(asked.decision().kind, DecisionKind::Deploy { .. }));
        steps < 20
    });
    steps
}

/// PD-19 under `princessAction=must`: a step where the princess can act offers only her
/// removals, so the pass cannot be taken unlisted.
#[test]
fn a_compulsory_princess_keeps_every_step_listed() {
    let rules = rules(
        &["princess-dragon"],
        &[("princess-dragon.princessAction", "must")],
    );
    assert!(!rules.deploy_pass_kept());
    assert!(steps_stay_listed(&rules) > 0, "some steps were offered");
}

/// A fan script's deployment filter says nothing about the pass (the Robber's Son under
/// `action=must` takes it away when its offer is armed): with one, every step is listed.
#[test]
fn a_script_filter_keeps_every_step_listed() {
    let scripted = [NINE_OFFICIAL.as_slice(), &["robbers-son"]].concat();
    let rules = rules(&scripted, &[]);
    let script = rules
        .expansions()
        .iter()
        .position(|e| e.id() == "robbers-son")
        .expect("the script is loaded");
    assert!(rules.hook_sets()[script].has(carcassonne_core::HookSet::FILTER_DEPLOY_ACTIONS));
    assert!(!rules.deploy_pass_kept());
    assert!(steps_stay_listed(&rules) > 0, "some steps were offered");
}
