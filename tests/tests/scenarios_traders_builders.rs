//! Scenario tests T-88 … T-105 of `shared/rules/spec-inns-traders-abbey.md` part E:
//! Traders & Builders, loaded from `expansions/traders-builders` as the program loads it
//! (manifest, tile file, plugin library). One test per T-id; the data is in
//! `tests/scenarios/traders-builders/T-xx.toml`.

use carcassonne_tests::run_scenario;

/// T-88 — TB-4, TB-8: R completes B's wine city (B +6, R 0) and takes the wine; an empty
/// city gives it too.
#[test]
fn t88_tb4_completer_takes_the_goods() {
    run_scenario("traders-builders/T-88");
}

/// T-89 — TB-4, TB-7: G completes R's and B's city with wine and grain: R +8, B +8, G takes
/// both tokens and scores 0.
#[test]
fn t89_tb4_goods_to_the_completer_not_the_scorers() {
    run_scenario("traders-builders/T-89");
}

/// T-90 — TB-6: 10 points per type to every tied leader with at least one token.
#[test]
fn t90_tb6_final_goods_majorities() {
    run_scenario("traders-builders/T-90");
}

/// T-91 — TB-3, TB-4, TB-5: all symbols of a completed city; none for an incomplete one at
/// the end; a city completed in part 2 of a double turn.
#[test]
fn t91_tb5_every_symbol_of_the_city() {
    run_scenario("traders-builders/T-91");
}

/// T-92 — TB-2: TB/RRrr's two roads cross without meeting.
#[test]
fn t92_tb2_bridge_tile_roads_do_not_meet() {
    run_scenario("traders-builders/T-92");
}

/// T-93 — TB-10, TBQ-3: where the builder may go.
#[test]
fn t93_tb10_builder_deployment_conditions() {
    run_scenario("traders-builders/T-93");
}

/// T-94 — TB-11, TB-12, TB-13: the double turn, at most one extra tile, only for the
/// builder's owner.
#[test]
fn t94_tb11_builder_double_turn() {
    run_scenario("traders-builders/T-94");
}

/// T-95 — TB-14, TB-17: the second part even though the builder went home; it may be
/// deployed again.
#[test]
fn t95_tb14_second_part_after_the_builder_returned() {
    run_scenario("traders-builders/T-95");
}
