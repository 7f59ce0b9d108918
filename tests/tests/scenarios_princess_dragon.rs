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

/// T-131 — PD-3, A-12: dragon tiles are not drawable before the first volcano; a stack of
/// only dragon tiles counts as empty.
#[test]
fn t131_early_dragon_tiles() {
    run_scenario("princess-dragon/T-131");
}

/// T-133 — PD-7…PD-10: free choice of step, no return to the start, dead ends.
#[test]
fn t133_choices_and_dead_ends() {
    run_scenario("princess-dragon/T-133");
}

/// T-134 — PD-8 a, PD-9: the flight's start tile counts as visited.
#[test]
fn t134_start_tile_is_visited() {
    run_scenario("princess-dragon/T-134");
}

/// T-135 — PD-8 b, PD-13, PD-14: the fairy's tile is never entered; moving it first.
#[test]
fn t135_fairy_shield() {
    run_scenario("princess-dragon/T-135");
}

/// T-136 — PD-10, PD-12, A-5: an eaten knight frees its city for anyone.
#[test]
fn t136_eaten_follower_frees_its_feature() {
    run_scenario("princess-dragon/T-136");
}

/// T-137 — PD-6, PD-12, PD-27, CO-4: dragon timing against scoring and the CoC.
#[test]
fn t137_dragon_timing_with_a_completion() {
    run_scenario("princess-dragon/T-137");
}

/// T-138 — PD-15, PD-17, PD-18: the fairy's turn point, once per turn; none when
/// unattached; the on-tile variants.
#[test]
fn t138_fairy_turn_point() {
    run_scenario("princess-dragon/T-138");
}

/// T-139 — PD-16, PD-17, CO-6: the fairy's +3 for a minority follower; it stays on its
/// tile; the Count's deployment is unaffected.
#[test]
fn t139_fairy_bonus_without_majority() {
    run_scenario("princess-dragon/T-139");
}

/// T-140 — PD-16, PD-27, CO-6: the bonus does not count as the placer scoring.
#[test]
fn t140_fairy_bonus_and_the_coc() {
    run_scenario("princess-dragon/T-140");
}

/// T-141 — PD-13, PD-16: moving the fairy beside a follower whose feature the tile
/// completes scores the bonus at once; IC-22: beside a big follower too (bonus and turn point).
#[test]
fn t141_moving_the_fairy_to_score_at_once() {
    run_scenario("princess-dragon/T-141");
}

/// T-142 — PD-16, PD-25: the bonus in final scoring (farms).
#[test]
fn t142_fairy_in_final_scoring() {
    run_scenario("princess-dragon/T-142");
}

/// T-143 — PD-19…PD-21: the princess, optional or compulsory; a Tactician token may claim
/// the emptied city.
#[test]
fn t143_princess_may_and_must() {
    run_scenario("princess-dragon/T-143");
}

/// T-144 — PD-19, PD-20: the removal comes before scoring a city the princess completes.
#[test]
fn t144_princess_completing_a_city() {
    run_scenario("princess-dragon/T-144");
}

/// T-145 — PD-19, PD-12, PD-34: a big follower is removed like a knight; a builder left
/// without its owner's follower returns too.
#[test]
fn t145_princess_big_follower_and_builder() {
    run_scenario("princess-dragon/T-145");
}

/// T-146 — PD-19, PD-20: only the princess's own city counts.
#[test]
fn t146_princess_on_the_joined_city_only() {
    run_scenario("princess-dragon/T-146");
}

/// T-147 — PD-22, PD-5: the magic portal's targets.
#[test]
fn t147_magic_portal_targets() {
    run_scenario("princess-dragon/T-147");
}

/// T-148 — PD-22, HS-12: no portal deployment on a feature the placement completed.
#[test]
fn t148_portal_and_its_own_completion() {
    run_scenario("princess-dragon/T-148");
}

/// T-149 — PD-8 c, PD-27, CO-14, CO-20: the dragon over the City of Carcassonne's outer
/// landscape, never its central tiles or quarters.
#[test]
fn t149_dragon_and_the_coc() {
    run_scenario("princess-dragon/T-149");
}

/// T-150 — PD-6, PD-31, TA-3: the Tactician's window comes before the flight; token
/// followers on the dragon tile can be eaten.
#[test]
fn t150_tactician_timing() {
    run_scenario("princess-dragon/T-150");
}

/// T-151 — PD-8 d, AP-9: a tile with an upgraded figure stops the dragon
/// (`enter-but-immune`: it enters, the upgraded figure is not eaten).
#[test]
fn t151_promotions_vs_the_dragon() {
    run_scenario("princess-dragon/T-151");
}

/// T-152 — PD-10…PD-12: followers, builders and pigs are eaten or orphaned, barns never
/// (stand-in figures for the barn; the real builder, pig and tower top in the variants).
#[test]
fn t152_what_the_dragon_eats() {
    run_scenario("princess-dragon/T-152");
}

/// T-153 — PD-29, RV-9: River II's lake is a volcano.
#[test]
fn t153_river_volcano() {
    run_scenario("princess-dragon/T-153");
}

/// T-154 — TW-22: a tower capture before the flight.
#[test]
fn t154_capture_before_the_flight() {
    run_scenario("princess-dragon/T-154");
}

/// T-155 — PD-17, PD-19: the princess removes the fairy's follower; the fairy stays and
/// still shields its tile.
#[test]
fn t155_princess_and_the_fairy() {
    run_scenario("princess-dragon/T-155");
}

/// T-156 — PD-6, PD-15, PD-34: two flights in a double turn, each with a fresh visited
/// list; one turn point.
#[test]
fn t156_double_turn_two_dragon_tiles() {
    run_scenario("princess-dragon/T-156");
}

/// T-158 — PR-8, AP-9: the fairy never goes onto a tile with a downgraded follower, and the
/// Promotions script never offers a downgrading disc under the fairy's follower.
#[test]
fn t158_fairy_and_promotions() {
    run_scenario("princess-dragon/T-158");
}

/// T-157 — PD-5, PD-27, CO-10: no CoC redeployment onto the dragon's tile
/// (`filter_prompt_actions`); `dragonTileDeploy=volcano-only` allows it.
#[test]
fn t157_coc_redeployment_and_the_dragons_tile() {
    run_scenario("princess-dragon/T-157");
}

/// PD-16 with AM-20, AM-22 (issue 31, JCZ's reading): a barn's placement scores the farm
/// at once, and the fairy's farmer there brings its owner the fairy's +3.
#[test]
fn fairy_bonus_on_a_barn_scoring() {
    run_scenario("princess-dragon/T-princess-dragon-fairy-barn");
}
