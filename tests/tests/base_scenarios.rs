//! Base-game scenarios T-01 … T-16 (rules spec part E), data in tests/scenarios/base.toml.

use carcassonne_tests::scenario::{load, run};

fn check(id_prefix: &str) {
    let file = load(include_str!("../scenarios/base.toml"));
    let selected: Vec<_> = file
        .scenario
        .iter()
        .filter(|s| s.id == id_prefix || s.id.starts_with(&format!("{id_prefix}-")))
        .collect();
    assert!(!selected.is_empty(), "no scenario {id_prefix}");
    for s in selected {
        if let Err(e) = run(s) {
            panic!("{e}");
        }
    }
}

#[test]
fn t01_city_completed_with_own_knight_a9() {
    check("T-01");
}
#[test]
fn t02_pennant_city_scored_by_owner_a9() {
    check("T-02");
}
#[test]
fn t03_incomplete_city_at_end_a12() {
    check("T-03");
}
#[test]
fn t04_road_ends_at_cloister_a8() {
    check("T-04");
}
#[test]
fn t05_road_loop_a8() {
    check("T-05");
}
#[test]
fn t06_cloister_completed_a9() {
    check("T-06");
}
#[test]
fn t07_incomplete_cloister_at_end_a12() {
    check("T-07");
}
#[test]
fn t08_majority_and_ties_a10() {
    check("T-08");
}
#[test]
fn t09_big_follower_strength_a10() {
    check("T-09");
}
#[test]
fn t10_edge_matching_and_contact_a3() {
    check("T-10");
}
#[test]
fn t11_unplaceable_tile_removed_a4() {
    check("T-11");
}
#[test]
fn t12_occupied_city_but_free_fields_a5() {
    check("T-12");
}
#[test]
fn t13_joined_cities_share_a6() {
    check("T-13");
}
#[test]
fn t14_deploy_on_completed_city_a7() {
    check("T-14");
}
#[test]
fn t15_farm_majority_a13() {
    check("T-15");
}
#[test]
fn t16_farm_editions_a14() {
    check("T-16");
}
