//! Scenario tests T-17 … T-30 of `shared/rules/spec.md` part E: The Count of Carcassonne,
//! loaded from `expansions/count` as the program loads it (manifest, tile file, plugin
//! library). One test per T-id; the data is in `tests/scenarios/count/T-xx.toml`.

use carcassonne_tests::run_scenario;

/// T-17 — CO-4, CO-16: R completes B's city (B +6, R 0) → R deploys into a quarter and
/// moves the Count.
#[test]
fn t17_co4_placer_scoring_zero_deploys_into_the_city() {
    run_scenario("count/T-17");
}

/// T-18 — CO-4, A-10: R and B both score 6 from the city R completes → R may not deploy
/// into the city.
#[test]
fn t18_co4_placer_scoring_too_gets_no_deployment() {
    run_scenario("count/T-18");
}

/// T-19 — CO-4, CO-10, CO-11: R completes an empty city, B declines to redeploy into it →
/// nobody scored, no deployment.
#[test]
fn t19_co4_empty_city_gives_no_deployment() {
    run_scenario("count/T-19");
}

/// T-20 — CO-10, CO-11, CO-12, CO-4: B, G, Y redeploy from the castle into Y's city, R
/// passes → Y (2) +10, all return; R, who scored 0, deploys into the city.
#[test]
fn t20_co10_redeployment_round_then_co4_deployment() {
    run_scenario("count/T-20");
}

/// T-21 — CO-10: nothing leaves the Count's quarter, so B's castle followers stay; R +6.
#[test]
fn t21_co10_no_redeployment_out_of_the_counts_quarter() {
    run_scenario("count/T-21");
}

/// T-22 — CO-10, CO-11, CO-4: B redeploys from the blacksmith onto R's empty completed road
/// (+3, home); R scored 0 → R deploys into the city.
#[test]
fn t22_co10_blacksmith_to_empty_road_then_co4_deployment() {
    run_scenario("count/T-22");
}

/// T-23 — CO-7, CO-10: R redeploys from the castle into B's city, both +4 → R, who scored,
/// may not deploy.
#[test]
fn t23_co7_placer_scoring_by_redeployment_may_not_deploy() {
    run_scenario("count/T-23");
}

/// T-24 — CO-4: one placement completes B's road and G's city (R 0) → exactly one
/// deployment into the city.
#[test]
fn t24_co4_one_deployment_per_placement() {
    run_scenario("count/T-24");
}

/// T-25 — CO-8, CO-4: each part of a double turn (Traders & Builders' real builder) gives
/// its own deployment: R deploys after B's city and again after G's road.
#[test]
fn t25_co8_each_part_of_a_double_turn_may_deploy() {
    run_scenario("count/T-25");
}

/// T-26 — CO-13, CO-18: B's market follower stays through a mid-game completion and goes to
/// a farm at the end → R +6, B +6.
#[test]
fn t26_co13_co18_market_follower_joins_a_farm_at_the_end() {
    run_scenario("count/T-26");
}

/// T-27 — CO-18, CO-19: the final redeployment round from left of the last placer, one
/// follower per step until all pass → B +5; `cocFinal=market-only`: nobody moves, R +5.
#[test]
fn t27_co18_co19_final_redeployment_round() {
    run_scenario("count/T-27");
}

/// T-28 — CO-3: a farm bordering the City of Carcassonne and one completed city → R +6.
#[test]
fn t28_co3_the_coc_is_a_completed_city_for_farms() {
    run_scenario("count/T-28");
}

/// T-29 — CO-16 `clockwise`: three deployments move the Count castle → market → blacksmith
/// → cathedral; `follow`: he goes where the follower went.
#[test]
fn t29_co16_count_moves_clockwise_or_follows() {
    run_scenario("count/T-29");
}

/// T-30 — CO-17: DEFAULT R may deploy into the Count's quarter, the follower frozen there
/// until the Count leaves (CO-10); `deployIntoCountQuarter=forbidden`: not offered.
#[test]
fn t30_co17_deploy_into_the_counts_quarter() {
    run_scenario("count/T-30");
}
