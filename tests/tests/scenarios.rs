//! Base-game scenario tests T-01 … T-16 of `shared/rules/spec.md` part E, one test per
//! T-id. The positions, steps and expected outcomes are data in
//! `tests/scenarios/base/T-xx.toml` (each file lists the rule ids it checks); the runner
//! is `carcassonne_tests::run_scenario`. A file's `[[variant]]`s (sub-cases such as
//! another rule option) run in the same test.

use carcassonne_tests::{load_cases, run_scenario, scenario_files};

/// T-01 —: a completed 2-tile city scores R 4 and the knight returns;
/// A-15 `smallCity=1st/2nd`: 2.
#[test]
fn t01_a9_a11_a15_two_tile_city_four_or_two() {
    run_scenario("base/T-01");
}

/// T-02 — A-9: 3-tile city with a pennant completed by R scores B's knight 8, R 0.
#[test]
fn t02_a9_a10_city_with_pennant_scores_owner_8() {
    run_scenario("base/T-02");
}

/// T-03 — A-12: the same city left incomplete scores B 3 at the end.
#[test]
fn t03_a12_incomplete_city_at_end_scores_3() {
    run_scenario("base/T-03");
}

/// T-04 —: road from a junction to a cloister scores R 3; A-5: a monk may go on the
/// new cloister.
#[test]
fn t04_a8_a9_a5_road_to_cloister_and_monk_offered() {
    run_scenario("base/T-04");
}

/// T-05 — A-8: a road loop is complete; A-9: 4 tiles → B 4.
#[test]
fn t05_a8_a9_road_loop_scores_4() {
    run_scenario("base/T-05");
}

/// T-06 —: the 8th neighbour completes B's cloister → B 9, R 0.
#[test]
fn t06_a8_a9_cloister_completed_scores_9() {
    run_scenario("base/T-06");
}

/// T-07 — A-12: a cloister with 5 neighbours at the end → B 6.
#[test]
fn t07_a12_incomplete_cloister_scores_6() {
    run_scenario("base/T-07");
}

/// T-08 —: tied majority both score 8; 2 vs 1 only R; all knights return.
#[test]
fn t08_a10_a11_city_majority_tie_and_win() {
    run_scenario("base/T-08");
}

/// T-09 — A-10: big follower (strength 2) ties two followers and beats one on a 5-tile road.
#[test]
fn t09_a10_big_follower_strength_two() {
    run_scenario("base/T-09");
}

/// T-10 — A-3: edges must match and corner contact is not enough.
#[test]
fn t10_a3_cloister_placement_legality() {
    run_scenario("base/T-10");
}

/// T-11 — A-4: a tile with no legal placement leaves the game and the same player draws again.
#[test]
fn t11_a4_unplaceable_tile_discarded_and_redrawn() {
    run_scenario("base/T-11");
}

/// T-12 — A-5: no knight on B's city joined by R's tile; farmers on either new field are legal.
#[test]
fn t12_a5_occupied_city_refused_fields_free() {
    run_scenario("base/T-12");
}

/// T-13 —: R's tile joins R's and B's cities; both score 6.
#[test]
fn t13_a6_a10_joined_city_both_score_6() {
    run_scenario("base/T-13");
}

/// T-14 — A-7: a knight on the city its own tile completes scores 4 and is back the same turn.
#[test]
fn t14_a7_knight_on_completing_tile_scores_and_returns() {
    run_scenario("base/T-14");
}

/// T-15 — A-13: a farm with 2 completed cities and 1 incomplete; R 2 farmers vs B 1 → R 6.
#[test]
fn t15_a13_farm_majority_counts_completed_cities() {
    run_scenario("base/T-15");
}

/// T-16 —: two farms on one city under `3rd`, `2nd` and `1st` farm scoring.
#[test]
fn t16_a13_a14_farm_scoring_editions() {
    run_scenario("base/T-16");
}

/// Every scenario file parses, names itself after its file and cites at least one rule id.
#[test]
fn every_scenario_file_loads() {
    let files = scenario_files();
    assert!(files.len() >= 16, "scenario files: {files:?}");
    for f in files {
        let cases = load_cases(&f).unwrap_or_else(|e| panic!("{e}"));
        for c in cases {
            assert!(!c.rules.is_empty(), "{}: no rule ids", f.display());
        }
    }
}

/// Heretics & Shrines with `heretics-shrines.shrines = plain-cloisters` (JCZ's cult sets
/// without the element `shrine`; HS-1, HS-3, HS-5): the CU tiles' buildings score as
/// `cloister`, take part in no challenge and ignore HS-3/HS-4. Registered here because it
/// has no T-id of the spec.
#[test]
fn hs_plain_cloisters_option_plays_cu_tiles_as_cloisters() {
    run_scenario("heretics-shrines/HS-plain-cloisters");
}
