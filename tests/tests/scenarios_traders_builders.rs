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

/// T-94 by feature — TB-11: a tile triggers the builder only by extending the builder's
/// own city or road, not the farm beside it.
#[test]
fn t94_tb11_only_the_builders_feature_triggers() {
    run_scenario("traders-builders/T-94-features");
}

/// T-95 — TB-14, TB-17: the second part even though the builder went home; it may be
/// deployed again.
#[test]
fn t95_tb14_second_part_after_the_builder_returned() {
    run_scenario("traders-builders/T-95");
}

/// T-96 — TB-15, AM-3: an abbey closes the builder's city but never triggers it.
#[test]
fn t96_tb15_abbey_never_triggers_the_builder() {
    run_scenario("traders-builders/T-96");
}

/// T-97 — TB-17, AP-4: the builder goes home with its owner's last follower of the
/// feature (removed by `test-princess`, standing in for dragon, tower and princess); a
/// Promotions disc under it returns then.
#[test]
fn t97_tb17_builder_returns_with_the_last_follower() {
    run_scenario("traders-builders/T-97");
}

/// T-97 with the real figures — TB-17, TB-31, PD-12, TW-10: the princess, the dragon and a
/// tower capture each take R's last knight off the city, and R's builder goes home.
#[test]
fn t97_dragon_tower_princess() {
    run_scenario("traders-builders/T-97-dragon");
}

/// T-98 — TB-24, CO-8, CO-4: each part of the double turn is judged alone for the CoC
/// deployment.
#[test]
fn t98_co8_coc_deployment_per_part() {
    run_scenario("traders-builders/T-98");
}

/// T-99 — TB-10, TBQ-2: any follower (follower flag) satisfies the builder.
#[test]
fn t99_tbq2_any_follower_satisfies_the_builder() {
    run_scenario("traders-builders/T-99");
}

/// T-99 with the mayor itself (0 pennants: R scores 0, the builder 0).
#[test]
fn t99_mayor() {
    run_scenario("traders-builders/T-99-mayor");
}

/// T-100 — TB-20, TB-22: the pig's +1 per city for a winning owner, in all three farm
/// editions.
#[test]
fn t100_tb20_pig_bonus() {
    run_scenario("traders-builders/T-100");
}

/// T-101 — TB-20: a pig owner who does not win gets nothing.
#[test]
fn t101_tb20_losing_pig_owner_gets_nothing() {
    run_scenario("traders-builders/T-101");
}

/// T-102 — TB-19: where the pig may go.
#[test]
fn t102_tb19_pig_deployment_conditions() {
    run_scenario("traders-builders/T-102");
}

/// T-102, the barn: no pig on a farm holding a barn.
#[test]
fn t102_barn() {
    run_scenario("traders-builders/T-102-barn");
}

/// T-103 — TB-23, TB-24, CO-3: the pig herd and the CoC in one farm; `pigHerd=off`.
#[test]
fn t103_tb23_pig_herd_and_coc() {
    run_scenario("traders-builders/T-103");
}

/// T-104 — TB-28, AT-5, AT-7: the Tactician's token deploys no builder or pig, and each
/// part of a double turn opens its own window.
#[test]
fn t104_at5_at7_tactician_and_builder() {
    run_scenario("traders-builders/T-104");
}

/// T-105 (a) — TB-29, PR-5, PR-6, AP-7: the builder's extra tile may be sent back once,
/// after it is revealed, by the disc's owner (upgraded: the builder's owner; downgraded:
/// the opponent); not when the stack is empty.
#[test]
fn t105a_promotions_redraw_of_the_extra_tile() {
    run_scenario("traders-builders/T-105a");
}

/// T-105 (b) — TB-29, TB-14, AP-4, TBQ-4: the disc returns with the builder; the second part
/// still happens.
#[test]
fn t105b_disc_returns_with_the_builder() {
    run_scenario("traders-builders/T-105");
}

/// TB-1: `edition=2` swaps one copy of each garden twin into the supply (JCZ's
/// `traders-and-builders:2`); the goods supply stays 9/6/5 (TB-8).
#[test]
fn tb1_second_edition_swaps_in_the_garden_twins() {
    use carcassonne_core::{Game, GameSetup};
    use carcassonne_rules::{build_ruleset, RulesSpec};
    for (edition, garden) in [("1", 0), ("2", 1)] {
        let rules = build_ruleset(&RulesSpec {
            expansions: vec!["traders-builders".into()],
            options: vec![("traders-builders.edition".into(), edition.into())],
            plugin_dirs: vec![carcassonne_tests::expansions_dir()],
        })
        .expect("traders-builders loads");
        let g = Game::new(
            rules.clone(),
            &GameSetup::new(vec!["R".into(), "B".into()], 1),
        )
        .expect("a game");
        let count = |id: &str| {
            let k = rules.tiles().find(id).expect("tile");
            g.state()
                .supply()
                .groups
                .iter()
                .flat_map(|gr| &gr.tiles)
                .filter(|t| **t == k)
                .count()
        };
        assert_eq!(count("TB/CcRR.wG"), garden, "edition {edition}");
        assert_eq!(count("TB/CcR.cG"), garden, "edition {edition}");
        assert_eq!(count("TB/CcRR.w"), 1 - garden, "edition {edition}");
        assert_eq!(count("TB/CcR.c"), 1 - garden, "edition {edition}");
        let supply = |name: &str| {
            let ix = rules.expansion_index("traders-builders").expect("loaded");
            let slot = rules
                .slots()
                .iter()
                .position(|d| d.expansion == ix && d.name == name)
                .expect("slot");
            g.state().slot(carcassonne_core::SlotId(slot as u16), 0)
        };
        assert_eq!(
            [
                supply("wine-supply"),
                supply("grain-supply"),
                supply("cloth-supply")
            ],
            [9, 6, 5]
        );
    }
}
