//! Scenario tests T-160 … T-185 of `shared/rules/spec-dragon-tower.md` (The Tower, C.4),
//! loaded from `expansions/tower` as the program loads it (manifest, tile file, plugin
//! library). One test per T-id; the data is in `tests/scenarios/tower/T-xxx.toml`.
//! T-154 (capture before the dragon's flight) is a Princess & Dragon scenario and lives
//! with that expansion. Scenarios that need an expansion this tree lacks are ignored with
//! the reason.

use carcassonne_core::{
    binder, Binder, BoundExpansion, Declare, Expansion, FeatureKindId, FigureKindDef, HookResult,
    KindMask,
};
use carcassonne_tests::{expansions_dir, fan_expansions_dir, run_scenario, Harness};
use std::sync::Arc;

/// `test-special-figures`: stands in for the special figures of Traders & Builders
/// (`builder` on cities and roads, `pig` on fields) and Abbey & Mayor (`barn`, here simply
/// a figure on a field): one each per player, none a follower. Only T-174 loads it.
struct SpecialFigures;

struct NoHooks;

impl BoundExpansion for NoHooks {}

impl Expansion for SpecialFigures {
    fn id(&self) -> &str {
        "test-specials"
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let on =
            |kinds: &[FeatureKindId]| kinds.iter().fold(KindMask::default(), |m, k| m.with(*k));
        for (name, mask) in [
            ("builder", on(&[FeatureKindId::CITY, FeatureKindId::ROAD])),
            ("pig", on(&[FeatureKindId::FIELD])),
            ("barn", on(&[FeatureKindId::FIELD])),
        ] {
            d.figure_kind(FigureKindDef {
                name: name.into(),
                per_player: 1,
                strength: 0,
                deploy_on: mask,
                follower: false,
                returns: true,
                look: String::new(),
                neutral: 0,
                shares: false,
                colour: String::new(),
            })
            .map_err(|e| e.to_string())?;
        }
        Ok(binder(|_| Ok(NoHooks)))
    }
}

/// Runs `tower/<name>` with the repository's harness plus [`SpecialFigures`].
fn run_with_specials(name: &str) {
    let path = carcassonne_tests::scenario_dir().join(format!("{name}.toml"));
    let cases = carcassonne_scenario::load_cases(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut extra = carcassonne_tests::test_expansions();
    extra.push(Arc::new(SpecialFigures));
    let h = Harness {
        plugin_dirs: vec![expansions_dir(), fan_expansions_dir()],
        extra,
        always: Vec::new(),
    };
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            h.run(&c.scenario).err().map(|f| {
                format!(
                    "{} [{}] at {}: {f}",
                    c.scenario.id,
                    c.scenario.name,
                    c.line(&f.part)
                )
            })
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// T-160 — TW-2: 10/9/7/6/5 pieces for 2–6 players.
#[test]
fn t160_tw2_pieces_by_player_count() {
    run_scenario("tower/T-160");
}

/// T-161 — TW-5, TW-7, TW-8, TW-11: height 1 reaches the tower's tile and the four
/// neighbours in line, not diagonals; the captured knight is R's prisoner.
#[test]
fn t161_tw7_reach_at_height_one() {
    run_scenario("tower/T-161");
}

/// T-162 — TW-7: height 2 reaches across an empty cell; not diagonal, not distance 3.
#[test]
fn t162_tw7_height_two_and_gaps() {
    run_scenario("tower/T-162");
}

/// T-163 — TW-7, TW-8: heights 3 and 4; another tower does not block, its capping follower
/// is a candidate.
#[test]
fn t163_tw7_heights_three_and_four_towers_do_not_block() {
    run_scenario("tower/T-163");
}

/// T-164 — TW-6, TW-8: capturing a tower-top follower reopens that tower at its height;
/// `towerTopCapture=immune` makes it no candidate.
#[test]
fn t164_tw8_capturing_a_tower_top_follower() {
    run_scenario("tower/T-164");
}

/// T-165 — TW-9: capturing one's own knight returns it to supply; no prisoner, no
/// exchange, the step is spent.
#[test]
fn t165_tw9_own_capture() {
    run_scenario("tower/T-165");
}

/// T-166 — TW-7: the capture is optional; a piece with nobody in reach asks nothing.
#[test]
fn t166_tw7_capture_is_optional() {
    run_scenario("tower/T-166");
}

/// T-167 — TW-12: mutual prisoners are exchanged at once, no points.
#[test]
fn t167_tw12_exchange() {
    run_scenario("tower/T-167");
}

/// T-168 — TW-12: the capturer chooses which of his followers comes back (big or normal);
/// two of the same kind: one comes back without a question.
#[test]
fn t168_tw12_exchange_with_a_choice() {
    run_scenario("tower/T-168");
}

/// T-169 — TW-12: no exchange through a third player.
#[test]
fn t169_tw12_no_exchange_through_a_third_player() {
    run_scenario("tower/T-169");
}

/// T-170 — TW-13: ransom 3 points to the jailer in one's own turn (before the tile or in
/// the deployment step), once per turn, score ≥ 3 unless `ransomFunds=may-go-negative`.
#[test]
fn t170_tw13_ransom() {
    run_scenario("tower/T-170");
}

/// TW-13 under `ransomAsked=jcz` (JCloisterZone's moments): asked after the draw, before the
/// placement, and after the action, where paying gives the deployment step back.
#[test]
fn tw13_ransom_at_jczs_moments() {
    run_scenario("tower/TW-13-jcz");
}

/// TW-13 under `ransomAsked=jcz` with the Count: declined after the action, then paid in the
/// Count's scoring round of the same turn when the round asks the turn player (JCZ's
/// `CocScoringPhase` takes `PAY_RANSOM` from the player it asks).
#[test]
fn tw13_ransom_declined_then_paid_in_the_counts_round() {
    run_scenario("tower/TW-13-jcz-count");
}

/// T-171 — TW-13: one ransom in a double turn (Traders & Builders' real builder gives the
/// second part).
#[test]
fn t171_tw13_one_ransom_per_double_turn() {
    run_scenario("tower/T-171");
}

/// T-172 — TW-4, TW-6, TW-14: capping closes the tower; no cap on a bare foundation nor on
/// a capped tower; the capping follower scores nothing at the end.
#[test]
fn t172_tw6_capping() {
    run_scenario("tower/T-172");
}

/// T-173 — TW-10, TW-15, TW-16, CO-4: the capture comes before scoring; the road scores
/// nobody and the placer gets no CoC deployment.
#[test]
fn t173_tw10_capture_before_scoring_with_the_count() {
    run_scenario("tower/T-173");
}

/// T-174 — TW-8, TW-10, TW-21: builders, pigs and barns are never captured; orphaned
/// builders and pigs return. The file's own case keeps stand-ins (`test-specials`) for the
/// barn (Abbey & Mayor is not in this tree); its variants use Traders & Builders' real
/// builder and pig.
#[test]
fn t174_tw10_special_figures_and_orphans() {
    run_with_specials("tower/T-174");
}

/// T-175 — TW-22, PD-17: the fairy stays when its follower is captured.
#[test]
fn t175_tw22_fairy_and_capture() {
    run_scenario("tower/T-175");
}

/// T-176 — TW-8, TW-16, CO-14: followers in the CoC's quarters are out of reach;
/// `cocQuarterFigures=jcz` puts them on (0,0).
#[test]
fn t176_tw16_count_quarters_out_of_reach() {
    run_scenario("tower/T-176");
}

/// T-177 — TW-19, TA-5, AT-5: the Tactician's token comes after the capture and neither
/// places a piece nor caps.
#[test]
fn t177_tw19_tactician() {
    run_scenario("tower/T-177");
}

/// T-178 — TW-7, TW-20, PR-9, AP-10, AP-4: with the Promotions script, a downgraded
/// follower is in reach at H + 1, upgraded ones never; the capture returns the disc.
#[test]
fn t178_tw20_promotions() {
    run_scenario("tower/T-178");
}

/// T-179 — TW-18, HS-8: capturing a monk ends its challenge; the heretic stays.
#[test]
fn t179_tw18_heretics_challenge_ends() {
    run_scenario("tower/T-179");
}

/// T-180 — TW-14: nothing of the Tower scores at the end; prisoners stay with the jailer.
#[test]
fn t180_tw14_end_of_the_game() {
    run_scenario("tower/T-180");
}

/// T-181 — TW-2, TW-5, TW-6: no piece left → no piece, a cap is still possible.
#[test]
fn t181_tw5_no_pieces_left() {
    run_scenario("tower/T-181");
}

/// T-182 — TW-10: a capture changes a majority.
#[test]
fn t182_tw10_capture_changes_a_majority() {
    run_scenario("tower/T-182");
}

/// T-183 — TW-22, PD-5: a tower on the dragon's tile may be raised or capped.
#[test]
fn t183_tw22_tower_on_the_dragons_tile() {
    run_scenario("tower/T-183");
}

/// T-184 — TW-5, TW-13, TW-21: two pieces in a double turn (Traders & Builders' real
/// builder), one ransom.
#[test]
fn t184_tw5_two_pieces_in_a_double_turn() {
    run_scenario("tower/T-184");
}

/// T-185 — TW-3, TW-5: ordinary deployment on a tower tile; never on the bare foundation.
#[test]
fn t185_tw3_ordinary_deployment_on_a_tower_tile() {
    run_scenario("tower/T-185");
}

/// T-bw-1 — BW-1, BW-2, BW-3, BW-5: the Black Tower's pieces per player count; which
/// colours are offered on a bare foundation and on a tower.
#[test]
fn t_bw_1_black_tower_pieces_and_offers() {
    run_scenario("tower/T-bw-1");
}

/// T-bw-2 — BW-3: a black piece captures along the diagonals, never the row or column.
#[test]
fn t_bw_2_black_piece_captures_diagonally() {
    run_scenario("tower/T-bw-2");
}

/// T-bw-3 — BW-4: the piece just placed sets the capture's direction.
#[test]
fn t_bw_3_the_piece_placed_sets_the_direction() {
    run_scenario("tower/T-bw-3");
}

/// T-bw-4 — BW-5, BW-6: a white piece captures nothing and tops the tower for good.
#[test]
fn t_bw_4_white_piece_tops_the_tower() {
    run_scenario("tower/T-bw-4");
}
