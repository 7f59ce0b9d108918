//! Scenario tests T-130 … T-158 of `shared/rules/spec-dragon-tower.md` (C.3, Princess &
//! Dragon), loaded from `expansions/princess-dragon` as the program loads it. One test per
//! T-id; the data is in `tests/scenarios/princess-dragon/T-xxx.toml`.

use carcassonne_tests::run_scenario;

/// T-130 — PD-2…PD-5, PD-13: a volcano brings the dragon; nothing may be deployed on it;
/// the fairy may move instead; dragon tiles become drawable.
#[test]
fn t130_volcano_brings_the_dragon() {
    run_scenario("princess-dragon/T-130");
}

/// T-132 — PD-6…PD-8, PD-10: six steps steered clockwise from the active player with 2…6
/// players; eaten followers return to their owners.
#[test]
fn t132_steering_order() {
    run_scenario("princess-dragon/T-132");
}
