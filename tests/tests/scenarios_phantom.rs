//! Scenario tests T-phantom-1 … T-phantom-11 of `docs/rules/phantom.md`: The Phantom,
//! loaded from `expansions/phantom` as the program loads it (manifest, plugin library),
//! alone and with The Tower, Princess & Dragon, the abbot and Traders & Builders. The data
//! is in `tests/scenarios/phantom/T-phantom-<n>.toml`.

use carcassonne_tests::run_scenario;

/// T-phantom-1 — PH-1, PH-3: one phantom each; the phantom step after a deployment.
#[test]
fn t_phantom_1_ph3_phantom_step_after_a_deployment() {
    run_scenario("phantom/T-phantom-1");
}

/// T-phantom-2 — PH-4: no phantom step after a pass.
#[test]
fn t_phantom_2_ph4_no_phantom_step_after_a_pass() {
    run_scenario("phantom/T-phantom-2");
}

/// T-phantom-3 — PH-5: the phantom as the turn's only follower.
#[test]
fn t_phantom_3_ph5_phantom_in_the_deployment_step() {
    run_scenario("phantom/T-phantom-3");
}

/// T-phantom-4 — PH-2, PH-3, PH-6: the phantom scores, returns and is deployed again.
#[test]
fn t_phantom_4_ph6_phantom_scores_and_returns() {
    run_scenario("phantom/T-phantom-4");
}

/// T-phantom-5 — PH-2: the phantom counts as one follower in majorities.
#[test]
fn t_phantom_5_ph2_phantom_in_majorities() {
    run_scenario("phantom/T-phantom-5");
}

/// T-phantom-6 — PH-3, PH-4, PH-7: the phantom caps a tower; after a tower piece.
#[test]
fn t_phantom_6_ph7_phantom_and_the_tower() {
    run_scenario("phantom/T-phantom-6");
}

/// T-phantom-7 — PH-4, PH-8: no phantom step after the princess.
#[test]
fn t_phantom_7_ph8_no_phantom_after_the_princess() {
    run_scenario("phantom/T-phantom-7");
}

/// T-phantom-8 — PH-3, PH-9: one portal use per turn.
#[test]
fn t_phantom_8_ph9_one_portal_use_per_turn() {
    run_scenario("phantom/T-phantom-8");
}

/// T-phantom-9 — PH-2, AG-3: no phantom on a garden.
#[test]
fn t_phantom_9_ph2_no_phantom_on_a_garden() {
    run_scenario("phantom/T-phantom-9");
}

/// T-phantom-10 — PH-10, PH-3: a phantom step in each part of a double turn.
#[test]
fn t_phantom_10_ph10_phantom_step_in_each_part() {
    run_scenario("phantom/T-phantom-10");
}

/// T-phantom-11 — PH-3 with TW-6: a phantom step whose only spots are tower tops is offered,
/// or skipped under `towerTopsAlone=jcz` (JCZ's `PhantomPhase`).
#[test]
fn t_phantom_11_tower_tops_alone() {
    run_scenario("phantom/T-phantom-11");
}

/// T-phantom-12 — PH-3 with BT-8: an acrobat space is no spot for the phantom, so a step
/// whose other spots are tower tops is skipped under `towerTopsAlone=jcz`, whatever the load
/// order of the Phantom and the Big Top.
#[test]
fn t_phantom_12_an_acrobat_space_is_no_phantom_spot() {
    run_scenario("phantom/T-phantom-12");
}
