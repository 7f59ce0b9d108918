//! Scenario tests T-abbot-1 … T-abbot-7 of `docs/rules/abbot-garden.md`: the abbot and
//! gardens of the base game's 2nd/3rd edition, loaded from `expansions/abbot-garden` as the
//! program loads it (manifest, tile file, plugin library). The data is in
//! `tests/scenarios/abbot-garden/T-abbot-<n>.toml`; T-abbot-1 (the supply) is code.

use carcassonne_tests::{official_rules, run_scenario};

/// Copies of each tile id in a fresh game's supply.
fn supply_counts(options: &[(&str, &str)]) -> std::collections::BTreeMap<String, usize> {
    carcassonne_tests::supply_counts(&official_rules(&["abbot-garden"], options), "")
}

/// T-abbot-1 — AG-1: the edition's 8 garden tiles each replace one copy of their twin; the
/// supply keeps its size. `gardenTiles=false`: the first edition's tiles.
#[test]
fn t_abbot_1_ag1_garden_tiles_replace_their_twins() {
    let with = supply_counts(&[]);
    let without = supply_counts(&[("abbot-garden.gardenTiles", "false")]);
    let total = |m: &std::collections::BTreeMap<String, usize>| m.values().sum::<usize>();
    assert_eq!(total(&with), total(&without), "same number of tiles");
    assert_eq!(total(&with), 71, "72 tiles, the start tile on the board");
    // shared/data/tiles-reference.toml: `garden_variant_of` (letters N M R E H I V U).
    let twins = [
        ("BA/Cc.1", "BA/CcG"),
        ("BA/Cc+", "BA/Cc+G"),
        ("BA/Ccc", "BA/CccG"),
        ("BA/C", "BA/CG"),
        ("BA/CFC.2", "BA/CFCG"),
        ("BA/CC.2", "BA/CCG"),
        ("BA/Rr", "BA/RrG"),
        ("BA/RFr", "BA/RFrG"),
    ];
    for (twin, garden) in twins {
        assert_eq!(with.get(garden), Some(&1), "{garden}");
        assert_eq!(without.get(garden), None, "{garden}");
        assert_eq!(
            with.get(twin).copied().unwrap_or(0) + 1,
            without[twin],
            "{twin}"
        );
    }
    // Letters E, H, I, M, N, R, U, V of the 2nd edition (tiles-reference.toml count_c2).
    assert_eq!(with["BA/C"], 4);
    assert_eq!(with["BA/Rr"], 8);
    assert_eq!(with["BA/RFr"], 7);
    assert_eq!(with["BA/Cc+"], 1);
}

/// T-abbot-2 — AG-3 … AG-5: the abbot on a garden, no other follower there.
#[test]
fn t_abbot_2_ag3_only_the_abbot_on_a_garden() {
    run_scenario("abbot-garden/T-abbot-2");
}

/// T-abbot-3 — AG-5: the abbot on a cloister or a shrine, never on a road or a field.
#[test]
fn t_abbot_3_ag5_abbot_on_cloisters() {
    run_scenario("abbot-garden/T-abbot-3");
}

/// T-abbot-4 — AG-6, AG-8: a surrounded garden scores 9; no early return once complete.
#[test]
fn t_abbot_4_ag6_complete_garden() {
    run_scenario("abbot-garden/T-abbot-4");
}

/// T-abbot-5 — AG-7: an abbot on an incomplete garden at the end; an empty garden scores 0.
#[test]
fn t_abbot_5_ag7_final_scoring() {
    run_scenario("abbot-garden/T-abbot-5");
}

/// T-abbot-6 — AG-8: the abbot taken back instead of a deployment, for its current value;
/// only one's own.
#[test]
fn t_abbot_6_ag8_abbot_return() {
    run_scenario("abbot-garden/T-abbot-6");
}

/// T-abbot-7 — AG-5 with CO-4: the abbot never goes into the Count's quarters.
#[test]
fn t_abbot_7_no_abbot_in_the_counts_quarters() {
    run_scenario("abbot-garden/T-abbot-7");
}

/// T-abbot-8 — AG-11 with HS-3, HS-4: a garden is no cloister for Heretics & Shrines'
/// placement limits.
#[test]
fn t_abbot_8_a_garden_is_no_cloister_for_the_shrines() {
    run_scenario("abbot-garden/T-abbot-8");
}
