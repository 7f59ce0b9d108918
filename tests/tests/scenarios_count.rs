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
