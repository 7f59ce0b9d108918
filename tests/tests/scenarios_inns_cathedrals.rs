//! Scenario tests T-72 … T-87 of `shared/rules/spec-inns-traders-abbey.md` (part E): Inns &
//! Cathedrals (C.1, IC-1 … IC-25), loaded from `expansions/inns-cathedrals` as the program
//! loads it (manifest, tile file, plugin library), with the Count, King & Robber, River II
//! and the fan expansions The Tactician and Promotions where a scenario needs them. One test
//! per T-id; the data is in `tests/scenarios/inns-cathedrals/T-xx.toml`. Parts that need
//! another expansion (T-83's pig: Traders & Builders) are separate tests loading it.

use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::{expansions_dir, run_scenario};

/// T-72 — IC-5, IC-6: a completed 3-tile road with an inn (on the junction's inn arm) → R +6;
/// IC-8: with the inns switched off (JCZ element `inn` absent) → R +3.
#[test]
fn t72_ic6_completed_inn_road_scores_two_per_tile() {
    run_scenario("inns-cathedrals/T-72");
}

/// T-73 — IC-7, IC-16: the same inn road open at the end → R 0 (a 0-point event); a plain
/// junction → R +2; IC-17 `innCathedralIncomplete=normal` → R +2.
#[test]
fn t73_ic7_open_inn_road_scores_zero_at_the_end() {
    run_scenario("inns-cathedrals/T-73");
}

/// T-74 — IC-5: two inns on one 4-tile road → R +8 (not 12, not 16).
#[test]
fn t74_ic5_second_inn_changes_nothing() {
    run_scenario("inns-cathedrals/T-74");
}

/// T-75 — IC-9, IC-10: a 5-tile cathedral city with a pennant → B +18; without its
/// cathedral → B +12. (AM/C!+ comes from the real `abbey-mayor` plugin.)
#[test]
fn t75_ic10_cathedral_city_scores_three_per_tile_and_pennant() {
    run_scenario("inns-cathedrals/T-75");
}

/// T-76 — IC-11, IC-17: an open cathedral city at the end → B 0; under `normal` → B +3.
#[test]
fn t76_ic11_open_cathedral_city_scores_zero_at_the_end() {
    run_scenario("inns-cathedrals/T-76");
}

/// T-77 — IC-13, IC-15, A-10: big follower (2) = two knights (1 + 1) > one knight: R and B
/// +15 each, G and Y 0; every figure returns.
#[test]
fn t77_ic15_big_follower_ties_two_knights() {
    run_scenario("inns-cathedrals/T-77");
}

/// T-78 — IC-6, IC-15: big follower vs two thieves on an inn road: R +8, B +8; open at the
/// end (IC-7): R 0, B 0.
#[test]
fn t78_ic15_big_follower_on_inn_road() {
    run_scenario("inns-cathedrals/T-78");
}

/// T-79 — IC-13, A-13: a big farmer equals two farmers (both +6) and loses to three (B +6).
#[test]
fn t79_ic13_big_farmer() {
    run_scenario("inns-cathedrals/T-79");
}

/// T-80 — IC-18, CO-9, CO-10, CO-12: the big follower redeploys from the castle with
/// strength 2 (R 2 > G 1 → R +6); the placer B, who scored 0, deploys his own big follower
/// into a quarter (CO-4).
#[test]
fn t80_ic18_big_follower_in_the_city_of_carcassonne() {
    run_scenario("inns-cathedrals/T-80");
}

/// T-81 — IC-19, KR-4: a 5-tile cathedral city (+21) does not beat a King record of 5; a
/// plain 6-tile city does.
#[test]
fn t81_ic19_king_counts_tiles_not_cathedrals() {
    run_scenario("inns-cathedrals/T-81");
}

/// T-82 — IC-19, KR-6: a 4-tile inn road (+8) does not beat a Robber record of 4; at the end
/// the completed inn road counts for the Robber, the open one pays its thief 0.
#[test]
fn t82_ic19_robber_and_inn_roads() {
    run_scenario("inns-cathedrals/T-82");
}

/// T-83 — IC-12, A-13: a completed cathedral city is one completed city for a farm (R +6).
#[test]
fn t83_ic12_cathedral_city_for_farmers() {
    run_scenario("inns-cathedrals/T-83");
}

/// T-83, second part — IC-12, TB-20: with R's pig on the farm as well → R +8.
#[test]
fn t83_ic12_cathedral_city_with_a_pig() {
    run_scenario("inns-cathedrals/T-83-pig");
}

/// T-84 — IC-25, AT-5: B's Tactician token deploys his big follower on R's unclaimed inn
/// road; not when R's thief claims it.
#[test]
fn t84_ic25_tactician_deploys_a_big_follower() {
    run_scenario("inns-cathedrals/T-84");
}

/// T-85 — IC-25, AP-1: big vs big ties (+15 each); a disc under R's (5 vs 4) or under B's
/// (4 vs 3) big follower decides for R, and the disc returns to R.
#[test]
fn t85_ic25_promotions_disc_on_big_followers() {
    run_scenario("inns-cathedrals/T-85");
}

/// T-86 — IC-1, IC-2: six players, each with 7 followers and 1 big follower (scenario), and
/// the set itself: 18 tiles in 17 kinds (IC/Cccc.c twice), 6 inn segments, 2 cathedrals, 3
/// pennants; IC-3: the edition-2 garden ids name their plain twins.
#[test]
fn t86_ic1_ic2_set_contents_and_six_players() {
    run_scenario("inns-cathedrals/T-86");
    let rules = build_ruleset(&RulesSpec {
        expansions: vec!["inns-cathedrals".into()],
        options: Vec::new(),
        plugin_dirs: vec![expansions_dir()],
    })
    .expect("ruleset with inns-cathedrals");
    let set: Vec<_> = rules
        .tiles()
        .iter()
        .map(|(_, k)| k)
        .filter(|k| k.set == "inns-cathedrals")
        .collect();
    assert_eq!(set.len(), 17, "kinds");
    assert_eq!(set.iter().map(|k| u32::from(k.count)).sum::<u32>(), 18);
    let tagged = |tag: &str| -> u32 {
        set.iter()
            .map(|k| {
                u32::from(k.count)
                    * k.segments
                        .iter()
                        .filter(|s| s.tags.iter().any(|t| t == tag))
                        .count() as u32
            })
            .sum()
    };
    assert_eq!(tagged("inn"), 6, "inns");
    assert_eq!(tagged("cathedral"), 2, "cathedrals");
    let pennants: u32 = set
        .iter()
        .map(|k| {
            u32::from(k.count)
                * k.segments
                    .iter()
                    .map(|s| u32::from(s.pennants))
                    .sum::<u32>()
        })
        .sum();
    assert_eq!(pennants, 3, "pennants");
    let cathedral = rules.tiles().find("IC/Cccc.c").expect("cathedral tile");
    assert_eq!(rules.tiles().get(cathedral).count, 2);
    for (garden, plain) in [("IC/CCCCG", "IC/CCCC"), ("IC/RFr.iG", "IC/RFr.i")] {
        assert_eq!(
            rules.tiles().find(garden),
            rules.tiles().find(plain),
            "{garden} plays as {plain}"
        );
    }
    let big = rules.figure_named("big-follower").expect("big follower");
    let def = rules.figure_kind(big);
    assert_eq!((def.per_player, def.strength, def.follower), (1, 4, true));
}

/// T-87 — IC-8, IC-20: River II's inn counts with Inns & Cathedrals (R +6), not without
/// (R +3).
#[test]
fn t87_ic8_river_inn_only_with_inns_and_cathedrals() {
    run_scenario("inns-cathedrals/T-87");
}
