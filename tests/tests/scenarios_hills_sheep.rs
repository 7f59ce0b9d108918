//! Scenario tests T-hills-sheep-1 … T-hills-sheep-11 of `docs/rules/hills-sheep.md`: hills,
//! vineyards and the shepherd, loaded from `expansions/hills-sheep` as the program loads it
//! (manifest, tile file, plugin library). The data is in
//! `tests/scenarios/hills-sheep/T-hills-sheep-<n>.toml`; T-hills-sheep-1 (the supply) is code.
//! Token draws come from the scenario's seed: the titles say what that seed draws.

use carcassonne_tests::{official_rules, run_scenario};
use std::collections::BTreeMap;

/// Copies of each Hills & Sheep tile id in a fresh game's supply.
fn supply_counts(options: &[(&str, &str)]) -> BTreeMap<String, usize> {
    carcassonne_tests::supply_counts(&official_rules(&["hills-sheep"], options), "HS/")
}

/// T-hills-sheep-1 — HL-1: the 18 tiles; the second edition's garden twin.
#[test]
fn t_hills_sheep_1_hs1_tiles() {
    let first = supply_counts(&[]);
    assert_eq!(first.values().sum::<usize>(), 18, "{first:?}");
    let hills = [
        "HS/Cc.h.1",
        "HS/CC.h.2",
        "HS/CFC.h",
        "HS/CFR.h",
        "HS/CRr.h",
        "HS/RFR.h",
    ];
    for h in hills.iter().chain(&["HS/RR.h", "HS/RrC.h"]) {
        assert_eq!(first.get(*h), Some(&1), "{h}");
    }
    assert_eq!(first.get("HS/C!.v"), Some(&2));
    assert_eq!(first.get("HS/CC!.v"), Some(&2));
    assert_eq!(first.get("HS/RR.hG"), None);
    let second = supply_counts(&[("hills-sheep.edition", "2")]);
    assert_eq!(second.values().sum::<usize>(), 18);
    assert_eq!(second.get("HS/RR.h"), None);
    assert_eq!(second.get("HS/RR.hG"), Some(&1));
}

/// T-hills-sheep-2 — HL-2, HL-3: a hill hides a tile: one draw fewer.
#[test]
fn t_hills_sheep_2_hs3_hidden_tile() {
    run_scenario("hills-sheep/T-hills-sheep-2");
}

/// T-hills-sheep-3 — HL-4, HL-5: a follower on a hill breaks a tie.
#[test]
fn t_hills_sheep_3_hs4_hill_breaks_a_tie() {
    run_scenario("hills-sheep/T-hills-sheep-3");
}

/// T-hills-sheep-4 — HL-4: both tied players on hills; the `count` reading.
#[test]
fn t_hills_sheep_4_hs4_both_on_hills() {
    run_scenario("hills-sheep/T-hills-sheep-4");
}

/// T-hills-sheep-5 — HL-6: +3 per vineyard around a completed cloister.
#[test]
fn t_hills_sheep_5_hs6_vineyards() {
    run_scenario("hills-sheep/T-hills-sheep-5");
}

/// T-hills-sheep-6 — HL-7: an incomplete cloister gets nothing from vineyards.
#[test]
fn t_hills_sheep_6_hs7_incomplete_cloister() {
    run_scenario("hills-sheep/T-hills-sheep-6");
}

/// T-hills-sheep-7 — HL-8, HL-9: the shepherd draws at once; one shepherd per field.
#[test]
fn t_hills_sheep_7_hs8_shepherd_deployed() {
    run_scenario("hills-sheep/T-hills-sheep-7");
}

/// T-hills-sheep-8 — HL-10, HL-11: extending the field asks; driving home scores.
#[test]
fn t_hills_sheep_8_hs11_drive_home() {
    run_scenario("hills-sheep/T-hills-sheep-8");
}

/// T-hills-sheep-9 — HL-10: the wolf scatters the flock.
#[test]
fn t_hills_sheep_9_hs10_wolf() {
    run_scenario("hills-sheep/T-hills-sheep-9");
}

/// T-hills-sheep-10 — HL-13: a closed field sends its flock home.
#[test]
fn t_hills_sheep_10_hs13_closed_field() {
    run_scenario("hills-sheep/T-hills-sheep-10");
}

/// T-hills-sheep-12 — HL-13: an abbey, which joins no field, closes one all the same.
#[test]
fn t_hills_sheep_12_hs13_closed_by_an_abbey() {
    run_scenario("hills-sheep/T-hills-sheep-12");
}

/// T-hills-sheep-11 — HL-14: flocks score nothing at the end.
#[test]
fn t_hills_sheep_11_hs14_no_final_scoring() {
    run_scenario("hills-sheep/T-hills-sheep-11");
}

/// HL-13 after every placement: the plugin finds the fields facing the placed tile without
/// joining it from the tile kinds' half-edge tables; its debug build checks each answer
/// against a walk over the neighbours' segments (a difference fails the hook, so the game).
/// Abbeys (Abbey & Mayor: barrier tiles that join no field) and bridges (Bridges, Castles &
/// Bazaars: tile variants with an added segment) are the cases the tables must get right.
#[test]
fn hs13_bordering_fields_from_the_tables_match_the_segments() {
    use carcassonne_core::GameSetup;
    use carcassonne_tests::mixed::play_random_checked;
    let rules = official_rules(
        &["hills-sheep", "abbey-mayor", "bridges-castles-bazaars"],
        &[],
    );
    for seed in 0..24u64 {
        let players = 2 + (seed % 3) as usize;
        let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
        let ctx = format!("seed {seed}, {players} players");
        play_random_checked(&rules, &setup, seed.rotate_left(9), 3000, &ctx);
    }
}

/// The `AfterDeploy` window's quiet turn (`Flock::quiet_turn`: no draw, no question, no
/// closed field, found in one pass over the shepherds) agrees with the full check's own
/// tests: its debug build asserts so at every turn it calls quiet (a difference fails the
/// hook, so the game). One shepherd each and two each (`figures.shepherd`, the shepherds of
/// one player on several fields), random and chosen draws, 2–4 players.
#[test]
fn shepherds_quiet_turns_agree_with_the_full_check() {
    use carcassonne_core::GameSetup;
    use carcassonne_tests::mixed::play_random_checked;
    for options in [
        &[][..],
        &[("figures.shepherd", "2")][..],
        &[("hills-sheep.tokenDraws", "chosen")][..],
    ] {
        let rules = official_rules(&["hills-sheep"], options);
        for seed in 0..12u64 {
            let players = 2 + (seed % 3) as usize;
            let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
            let ctx = format!("{options:?}, seed {seed}, {players} players");
            play_random_checked(&rules, &setup, seed.rotate_left(7), 3000, &ctx);
        }
    }
}
