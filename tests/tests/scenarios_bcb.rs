//! Scenario tests of `docs/rules/bridges-castles-bazaars.md`: the set's tiles (T-…-1 … 3),
//! castles (T-…-9 … 12, 17) and bazaars (T-…-13 … 16), loaded from
//! `expansions/bridges-castles-bazaars` as the program loads it (manifest, tile file, plugin
//! library). The data is in `tests/scenarios/bridges-castles-bazaars/`; bridges (BCB-4 …
//! BCB-8) are T-…-4, 5, 7 and 8.

use carcassonne_core::{FeatureKindId, Rotation, Ruleset, Side};
use carcassonne_tests::{official_rules, run_scenario};
use std::collections::BTreeMap;
use std::sync::Arc;

fn rules(expansions: &[&str]) -> Arc<Ruleset> {
    official_rules(expansions, &[])
}

/// Copies of each BB tile id in a fresh game's supply.
fn supply_counts(rules: &Arc<Ruleset>) -> BTreeMap<String, usize> {
    carcassonne_tests::supply_counts(rules, "BB/")
}

/// T-bridges-castles-bazaars-1 — BCB-1: the 12 tiles in the supply; the garden twin is an
/// alias of `BB/CFR!`.
#[test]
fn t_bcb_1_tiles() {
    let r = rules(&["bridges-castles-bazaars"]);
    let counts = supply_counts(&r);
    assert_eq!(counts.values().sum::<usize>(), 12, "{counts:?}");
    assert_eq!(counts.len(), 11, "{counts:?}");
    assert_eq!(counts.get("BB/Cccc.b"), Some(&2));
    for id in [
        "BB/CCCR",
        "BB/CFc.b",
        "BB/CFR!",
        "BB/CFR.b",
        "BB/F.b",
        "BB/LCFc",
        "BB/LRFr",
        "BB/R.bi",
        "BB/RFR.b",
        "BB/RFR.bi",
    ] {
        assert_eq!(counts.get(id), Some(&1), "{id}");
    }
    let twin = r.tiles().find("BB/CFR!").expect("BB/CFR!");
    assert_eq!(
        r.tiles().find("BB/CFR!G"),
        Some(twin),
        "BCB-1: garden twin alias"
    );
}

/// T-bridges-castles-bazaars-2 — BCB-2: the road of `BB/LRFr` runs W–E past its cloister as
/// one road; the inns of `BB/R.bi` and `BB/RFR.bi` are on their south roads; with Inns &
/// Cathedrals loaded the set still loads and plays its inns' tiles.
#[test]
fn t_bcb_2_cloister_roads_and_inns() {
    let r = rules(&["bridges-castles-bazaars"]);
    let t = r.tiles().get(r.tiles().find("BB/LRFr").expect("LRFr"));
    let roads: Vec<_> = t
        .segments
        .iter()
        .filter(|s| s.kind == FeatureKindId::ROAD)
        .map(|s| s.location(Rotation::R0))
        .collect();
    assert_eq!(
        roads,
        ["WE"],
        "one road through, not two ending at the cloister"
    );
    assert!(t.segments.iter().any(|s| s.kind == FeatureKindId::CLOISTER));
    for (id, inns) in [
        ("BB/R.bi", vec!["S"]),
        ("BB/RFR.bi", vec!["S"]),
        ("BB/RFR.b", vec![]),
    ] {
        let t = r.tiles().get(r.tiles().find(id).expect(id));
        let at: Vec<_> = t
            .segments
            .iter()
            .filter(|s| s.kind == FeatureKindId::ROAD && s.tags.iter().any(|g| g == "inn"))
            .map(|s| s.location(Rotation::R0))
            .collect();
        assert_eq!(at, inns, "{id}");
    }
    let mixed = rules(&["bridges-castles-bazaars", "inns-cathedrals"]);
    assert_eq!(supply_counts(&mixed).values().sum::<usize>(), 12);
}

/// T-bridges-castles-bazaars-3 — BCB-3: 8 copies (7 kinds) carry a bazaar; the bazaar changes
/// no feature (`BB/F.b` is one field, `BB/Cccc.b` one city).
#[test]
fn t_bcb_3_bazaar_marks() {
    let r = rules(&["bridges-castles-bazaars"]);
    let counts = supply_counts(&r);
    let bazaars: usize = counts
        .iter()
        .filter(|(id, _)| {
            let t = r.tiles().get(r.tiles().find(id).expect("id"));
            t.has_tag("bazaar")
        })
        .map(|(_, n)| n)
        .sum();
    assert_eq!(bazaars, 8);
    for (id, kind) in [
        ("BB/F.b", FeatureKindId::FIELD),
        ("BB/Cccc.b", FeatureKindId::CITY),
    ] {
        let t = r.tiles().get(r.tiles().find(id).expect(id));
        assert_eq!(t.segments.len(), 1, "{id}");
        assert_eq!(t.segments[0].kind, kind, "{id}");
    }
}

/// T-bridges-castles-bazaars-2 (played) — BCB-2: the road through `BB/LRFr`'s cloister joins
/// the roads on both sides (3 tiles at the end, not 2).
#[test]
fn t_bcb_2_road_past_the_cloister_scores() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-2");
}

/// T-bridges-castles-bazaars-4 — BCB-4, BCB-6: a bridge laid on the tile just placed, a
/// follower on it, its road scoring 1 at the end; passing keeps the bridge.
#[test]
fn t_bcb_4_bridge_on_the_placed_tile() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-4");
}

/// T-bridges-castles-bazaars-5 — BCB-5: a bridge runs straight between two field edges
/// whose ends meet no field or city; only the W–E bridge on the placed tile is offered.
#[test]
fn t_bcb_5_bridge_ends() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-5");
}

/// T-bridges-castles-bazaars-7 — BCB-7: a placement legal only with a bridge (on the tile
/// or on the neighbour its road meets) lays it; without a bridge left it is illegal.
#[test]
fn t_bcb_7_placement_made_legal_by_a_bridge() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-7");
}

/// T-bridges-castles-bazaars-8 — BCB-6 … BCB-8: a bridge completing a road scores with its
/// placement (3 tiles).
#[test]
fn t_bcb_8_bridge_completes_a_road() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-8");
}

/// BCB-1, BCB-5: every tile kind with two opposite field edges has a bridge variant per
/// such pair, and variants stay out of the defined kinds, the supply and name lookups.
#[test]
fn bcb_bridge_variants() {
    let r = rules(&["bridges-castles-bazaars"]);
    let e = r.tiles().find("E").expect("E");
    // E (city N): one bridge, W–E.
    assert_eq!(r.tiles().get(e).variants.len(), 1);
    let v = r.tiles().get(r.tiles().get(e).variants[0]);
    assert_eq!(v.variant_of, Some(e));
    let road = FeatureKindId::ROAD.0 + 1;
    assert_eq!(v.edge_at(Rotation::R0, Side::W), road);
    assert_eq!(v.edge_at(Rotation::R0, Side::E), road);
    assert_eq!(v.edge_at(Rotation::R0, Side::S), 0, "the field stays");
    assert_eq!(v.segments.len(), r.tiles().get(e).segments.len() + 1);
    // B (cloister, all fields): two bridges; D (road W–E, city N): none.
    assert_eq!(
        r.tiles()
            .get(r.tiles().find("B").expect("B"))
            .variants
            .len(),
        2
    );
    assert!(r
        .tiles()
        .get(r.tiles().find("D").expect("D"))
        .variants
        .is_empty());
    assert!(r.tiles().defined().all(|(_, k)| k.variant_of.is_none()));
    assert!(r.tiles().iter().any(|(_, k)| k.variant_of.is_some()));
    assert_eq!(supply_counts(&r).values().sum::<usize>(), 12);
    assert_eq!(
        r.tiles().find("E"),
        Some(e),
        "a variant is never found by name"
    );
}

/// T-bridges-castles-bazaars-9 — BCB-9: a completed two-tile city becomes a castle instead
/// of scoring (variant `pass`: it scores 4).
#[test]
fn t_bcb_9_castle_instead_of_scoring() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-9");
}

/// T-bridges-castles-bazaars-10 — BCB-10, BCB-11: a road completed in the vicinity scores
/// its 3 points for the castle; the follower returns.
#[test]
fn t_bcb_10_castle_scores_a_road_in_its_vicinity() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-10");
}

/// T-bridges-castles-bazaars-11 — BCB-11: of two features completed at once, the castle
/// takes the highest (4, not 3).
#[test]
fn t_bcb_11_castle_takes_the_highest() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-11");
}

/// T-bridges-castles-bazaars-12 — BCB-12: a castle still waiting at the end scores nothing.
#[test]
fn t_bcb_12_waiting_castle_scores_nothing() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-12");
}

/// T-bridges-castles-bazaars-13 — BCB-13 … BCB-15: the auction (choose, bid, raise, buy),
/// the last tile free, the bought tiles placed on the owners' next turns instead of a draw.
#[test]
fn t_bcb_13_bazaar_buy() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-13");
}

/// T-bridges-castles-bazaars-14 — BCB-14: the auctioneer sells to the highest bidder.
#[test]
fn t_bcb_14_bazaar_sell() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-14");
}

/// T-bridges-castles-bazaars-15 — BCB-14, BCB-15: no raise, the auctioneer pays his own
/// bid; bought tiles are placed after the supply ran out.
#[test]
fn t_bcb_15_bazaar_no_raise_and_empty_supply() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-15");
}

/// T-bridges-castles-bazaars-21 — BCB-13 under `bazaarDraws=chosen`: the active player names
/// each shown tile among those left in the supply; the auction then runs as printed.
#[test]
fn t_bcb_21_bazaar_tiles_named() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-21");
}

/// T-bridges-castles-bazaars-16 — BCB-13: fewer tiles left than players: no bazaar.
#[test]
fn t_bcb_16_no_bazaar_without_tiles() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-16");
}

/// T-bridges-castles-bazaars-17 — BCB-11: a castle that scores makes a castle beside it
/// score the same points (JCZ's chain).
#[test]
fn t_bcb_17_castles_chain() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-17");
}

/// T-bridges-castles-bazaars-18 — BCB-15: a bazaar tile bought at a bazaar calls no new
/// bazaar; a bid of 0 moves no points.
#[test]
fn t_bcb_18_bought_bazaar_tile_calls_no_bazaar() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-18");
}

/// T-bridges-castles-bazaars-19 — BCB-14 under `bazaarAuction = no-auction` (JCZ): each
/// player in turn takes a shown tile, no bids.
#[test]
fn t_bcb_19_bazaar_without_auction() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-19");
}

/// T-bridges-castles-bazaars-20 — BCB-12: a waiting castle scores nothing, but a farm
/// bordering it scores 4 for it.
#[test]
fn t_bcb_20_castle_counts_four_for_a_farm() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-20");
}

/// T-bridges-castles-bazaars-30 — BCB-13 with TB-11: the bazaar comes after the whole turn,
/// so after the second part a builder gives it (JCZ's `BazaarPhase` after its
/// `CleanUpTurnPartPhase`).
#[test]
fn t_bcb_30_bazaar_after_the_builders_second_part() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-30");
}

/// T-bridges-castles-bazaars-31 — BCB-11 with AM-11: a city won by nobody (a mayor without
/// pennants alone on it) still gives a castle in its vicinity its base value.
#[test]
fn t_bcb_31_a_castle_scores_a_city_its_mayor_cannot_win() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-31");
}

/// T-bridges-castles-bazaars-32 — BCB-12 with AM-25: a barn's final scoring counts a castle
/// one point more than a city, as a farmer's does.
#[test]
fn t_bcb_32_a_barn_counts_a_castle_five() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-32");
}

/// T-bridges-castles-bazaars-33 — BCB-12 with AM-22: a barn placed on a farm bordering a
/// castle scores its farmers 4 for the castle, whatever the load order of the two sets.
#[test]
fn t_bcb_33_a_placed_barn_scores_a_castle_four() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-33");
}

/// T-bridges-castles-bazaars-22 — BCB-15 with AM-3: no abbey instead of a bought tile; the
/// abbey question returns once the bazaar round is over.
#[test]
fn t_bcb_22_no_abbey_instead_of_a_bought_tile() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-22");
}

/// T-bridges-castles-bazaars-23 — BCB-9 with TW-8: a castle's follower is out of the
/// Tower's reach, also under `cocQuarterFigures=jcz` (JCZ's `TowerCapturePhase`).
#[test]
fn t_bcb_23_the_tower_does_not_capture_a_castle_follower() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-23");
}

/// T-bridges-castles-bazaars-24 — BCB-15 with PD-15: the bazaar round after the supply ran
/// out is whole turns, so the fairy gives its point at their start.
#[test]
fn t_bcb_24_the_bazaar_round_is_whole_turns() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-24");
}

/// T-bridges-castles-bazaars-25 — BCB-9: the one-edge cities JCZ's tile data marks
/// `castle-base="false"` in other sets' tiles (here `IC/C!`) never become castles.
#[test]
fn t_bcb_25_a_no_castle_city_of_another_set_scores() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-25");
}

/// T-bridges-castles-bazaars-26 — BCB-11 with AM-11: a mayor has no strength on a castle,
/// so the castle it holds scores for nobody (JCZ and FanCloisterZone, `Mayor.getPower`).
#[test]
fn t_bcb_26_a_castle_held_by_a_mayor_scores_for_nobody() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-26");
}

/// T-bridges-castles-bazaars-27 — BCB-9 with KR-6: a castle takes its city's place, so
/// the King's award does not count it.
#[test]
fn t_bcb_27_the_king_does_not_count_a_castle() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-27");
}

/// T-bridges-castles-bazaars-28 — BCB-9 with CO-10: the castle is asked before the
/// Count's scoring round, which then offers nobody the castle's city.
#[test]
fn t_bcb_28_the_count_offers_no_castle_city() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-28");
}

/// T-bridges-castles-bazaars-29 — BCB-11 with CO-4: a castle's scoring is a scoring the
/// placement caused, so the placer who scored nothing may deploy into the City.
#[test]
fn t_bcb_29_a_castle_s_scoring_lets_the_placer_deploy_into_the_city() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-29");
}

/// T-bridges-castles-bazaars-34 — BCB-15 with TB-11: the bazaar round lasts to the end of the
/// turn that places its last tile, so a bazaar tile of that turn's second part calls none.
#[test]
fn t_bridges_castles_bazaars_34_the_round_s_last_turn_calls_no_bazaar() {
    run_scenario("bridges-castles-bazaars/T-bridges-castles-bazaars-34");
}
