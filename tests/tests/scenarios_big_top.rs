//! Scenario tests T-big-top-n of `docs/rules/big-top.md`: the big top and the ringmaster,
//! loaded from `expansions/big-top` as the program loads it (manifest, tile file, plugin
//! library). The data is in `tests/scenarios/big-top/T-big-top-<n>.toml`; T-big-top-1 (the
//! supply) is code. Token reveals come from the scenario's seed: the titles say what it
//! reveals.

use carcassonne_tests::{official_rules, run_scenario};
use std::collections::BTreeMap;

/// Copies of each Under the Big Top tile id in a fresh game's supply.
fn supply_counts(options: &[(&str, &str)]) -> BTreeMap<String, usize> {
    carcassonne_tests::supply_counts(&official_rules(&["big-top"], options), "BT/")
}

/// T-big-top-1 — BT-1: the 20 tiles (12 circus, 8 acrobats); the second edition's twins.
#[test]
fn t_big_top_1_bt1_tiles() {
    let first = supply_counts(&[]);
    assert_eq!(first.values().sum::<usize>(), 20, "{first:?}");
    let circus: usize = first
        .iter()
        .filter(|(k, _)| k.ends_with(".bt"))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(circus, 12);
    assert_eq!(first.get("BT/ffrr.ac"), Some(&3));
    assert_eq!(first.get("BT/cfrf.bt"), Some(&2));
    assert_eq!(first.get("BT/ffff.g.ac"), None);
    let second = supply_counts(&[("big-top.edition", "2")]);
    assert_eq!(second.values().sum::<usize>(), 20);
    assert_eq!(second.get("BT/ffff.ac"), None);
    assert_eq!(second.get("BT/frrf.bt"), None);
    assert_eq!(second.get("BT/ffff.g.ac"), Some(&1));
    assert_eq!(second.get("BT/frrf.g.bt"), Some(&1));
}

/// T-big-top-2 — BT-4: the first circus tile takes the big top; nothing scores.
#[test]
fn t_big_top_2_bt4_first_circus() {
    run_scenario("big-top/T-big-top-2");
}

/// T-big-top-3 — BT-2, BT-4, BT-5: a second circus tile scores the first, the big top moves.
#[test]
fn t_big_top_3_bt5_circus_scores() {
    run_scenario("big-top/T-big-top-3");
}

/// T-big-top-10 — BT-12, BT-13: the ringmaster's bonus.
#[test]
fn t_big_top_10_bt13_ringmaster() {
    run_scenario("big-top/T-big-top-10");
}

/// T-big-top-12 — BT-6: the big top's circus scores at the end.
#[test]
fn t_big_top_12_bt6_final() {
    run_scenario("big-top/T-big-top-12");
}

/// T-big-top-4 — BT-4, BT-5: features completed by the circus tile score first.
#[test]
fn t_big_top_4_bt4_features_first() {
    run_scenario("big-top/T-big-top-4");
}
