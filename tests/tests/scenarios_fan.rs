//! Scenario tests T-51 … T-71 of `shared/rules/spec.md` part E: the fan expansions The
//! Tactician (D.1, TA-1 … TA-6, readings AT-1 … AT-9) and Promotions (D.2, PR-1 … PR-9,
//! readings AP-1 … AP-12), loaded from `fan-expansions/` as the program loads them
//! (manifest + Rhai script), with the official plugins from `expansions/` a scenario names
//! (count, king-robber, heretics-shrines, inns-cathedrals, traders-builders,
//! princess-dragon, tower, abbey-mayor). One test per T-id; the data is in
//! `tests/scenarios/fan/T-xx.toml`, and a file's `[[variant]]`s run in the same test. No
//! scenario of T-51 … T-71 is skipped: T-58 (the mayor) and T-66 (the wagon) run against
//! the real Abbey & Mayor plugin.

use carcassonne_tests::run_scenario;

/// T-51 — TA-3, TA-6, AT-3, AT-4: offers go fewest points first (Y 5), ties clockwise from
/// the active player's left (B, G); each sees the earlier deployments; a holder with nothing
/// legal left is not asked and keeps his token.
#[test]
fn t51_ta6_tactician_offers_fewest_points_first() {
    run_scenario("fan/T-51");
}

/// T-52 — TA-3, AT-8: B's Tactician thief on R's completed empty road → B +3, home; with
/// the Count R may then deploy into the CoC (CO-4). Variants: AT-5 Inns & Cathedrals' big
/// follower by token, AT-9 a Tactician heretic is challenged (HS-6), AT-7 each part of a
/// Traders & Builders builder turn opens a window, AT-5 never a builder or a pig by token,
/// nor a barn (the `test-special-figures` stand-in, by kind name); AM-32 with Abbey & Mayor's
/// real figures: a mayor on a city and a wagon on a road, city or cloister by token, never a
/// mayor off a city, a wagon on a field or a barn.
#[test]
fn t52_at8_tactician_thief_on_a_completed_road() {
    run_scenario("fan/T-52");
}

/// T-53 — TA-2, TA-4, TA-5: no token use in one's own turn, none into the CoC, none on a
/// claimed feature, nor to move the fairy (Princess & Dragon); held tokens score 0 and are
/// not used in final scoring. AT-6: a token uses neither the magic portal nor the princess.
#[test]
fn t53_ta4_ta5_no_token_in_own_turn_coc_or_claimed_feature() {
    run_scenario("fan/T-53");
}

/// T-54 — TA-3, X-4, PD-6: B's Tactician farmer goes on R's dragon tile before the flight;
/// R's step enters the tile and eats it; the token stays in the reserve (AT-1: B takes it
/// again next turn). Variant: the dragon flies elsewhere, the farmer stays.
#[test]
fn t54_ta3_tactician_farmer_before_the_dragon_flies() {
    run_scenario("fan/T-54");
}

/// T-55 — PR-2, PR-5, AP-1, AP-11, AP-12: R's disc under his own knight in the city his tile
/// completes → 3 vs 2 half-units → R +8, B 0; the disc goes back to R. Variants: no disc
/// (tie), downgrading B's knight, PR-3 no disc for a CoC follower (with the Count's
/// redeployment), the returned knight comes back without the disc, PR-3 no disc under a pig
/// (a builder and farmer may take one), a tower-top follower or a barn (the stand-in and
/// Abbey & Mayor's real barn, AM-33).
#[test]
fn t55_pr5_upgraded_knight_wins_the_city() {
    run_scenario("fan/T-55");
}

/// T-56 — PR-6, AP-1: R's disc under B's thief → R 2 vs B 1 half-units → R +3, B 0; disc
/// back to R. Variants: a lone downgraded thief still wins, no disc (tie), PR-2 a figure
/// with a disc takes no second one.
#[test]
fn t56_pr6_downgraded_thief_loses_the_road() {
    run_scenario("fan/T-56");
}

/// T-57 — AP-3, AP-1: R's big follower upgraded (5) beats B's two followers (4) → R only;
/// downgraded by B (3) → B only. Variants: upgraded in the completing turn (AP-11), no disc.
#[test]
fn t57_ap3_big_follower_upgraded_and_downgraded() {
    run_scenario("fan/T-57");
}

/// T-58 — PR-5, PR-6, AP-1, AM-33: R's upgraded mayor alone in a city without pennants has
/// strength 0 → nobody scores, the mayor returns, the disc goes back to R. B's mayor
/// downgraded by R in a 2-pennant city (3 half-units) beats R's knight (2) → B +10; vs two R
/// knights (4) → R +12. Variants: upgraded in the completing turn, no disc (B wins; a tie),
/// R's upgraded mayor with one pennant (3 vs 2).
#[test]
fn t58_ap1_mayor_promotions_count_only_with_pennants() {
    run_scenario("fan/T-58");
}

/// T-59 — PR-7: final farm scoring uses the disc: R's upgraded farmer (3) beats B's (2) →
/// R +6, B 0. Variants: downgraded by B, no disc, disc placed in the last turn.
#[test]
fn t59_pr7_upgraded_farmer_in_final_scoring() {
    run_scenario("fan/T-59");
}

/// T-60 — PR-5, AP-8: around B's upgraded monk R may not place a cloister tile, B may; with
/// no other cell R's tile is removed. Variants: no disc, AP-4 the ban ends when the
/// monk leaves the board by a lost challenge.
#[test]
fn t60_ap8_upgraded_monk_keeps_opponents_cloisters_away() {
    run_scenario("fan/T-60");
}

/// T-61 — PR-6, AP-8, HS-3/HS-4: around B's heretic downgraded by R at (5,-5) B may not place
/// a cloister or shrine tile, R may (unless HS-4 forbids it). Variant "AP-4" (as T-67 with
/// a lost challenge): the disc returns to R when the heretic loses, and R reuses it.
#[test]
fn t61_pr6_downgraded_heretic_keeps_its_owner_away() {
    run_scenario("fan/T-61");
}

/// T-62 — PR-9, AP-10, AP-4: a tower raised to 3 cannot capture R's upgraded knight 1 tile
/// away; raised to 2, it reaches B's knight downgraded by G 3 tiles away (H + 1), and G's
/// disc goes back to G. Variants: without the disc that knight is out of reach; AP-12 a disc
/// instead of a tower piece ends the step.
#[test]
fn t62_pr9_ap10_tower_capture_of_promoted_figures() {
    run_scenario("fan/T-62");
}

/// T-63 — AP-9: B's upgraded farmer keeps the dragon off its tile (DEFAULT); with
/// `dragonVsUpgraded=enter-but-immune` the dragon enters, eats G's monk and spares the
/// farmer. Variant: a downgraded farmer is eaten and the disc returns (AP-4).
#[test]
fn t63_ap9_dragon_vs_upgraded_figure() {
    run_scenario("fan/T-63");
}

/// T-64 — PR-8: the fairy may not move onto a tile with a downgraded follower; nobody but
/// its owner may slide a disc under the fairy's follower (the owner may upgrade it).
#[test]
fn t64_pr8_fairy_and_downgraded_followers() {
    run_scenario("fan/T-64");
}

/// T-65 — PR-5, PR-6, AP-7: R's upgraded builder: R may send the extra tile back once and
/// plays the replacement; downgraded by B, B decides. Variants: kept, no disc, empty stack.
#[test]
fn t65_ap7_builder_extra_tile_redraw() {
    run_scenario("fan/T-65");
}

/// T-66 — PR-6, AP-5, AP-3: B's wagon downgraded by R scores its 3-tile road (+3, no ±½),
/// returns, does not move, and the disc goes back to R. PR-5, AP-6: R's upgraded wagon may
/// also move to the empty incomplete city on a tile next to its own though not connected to
/// the road; the disc does not travel with it. Variants: no disc (C1 targets only), upgraded
/// in the completing turn (AP-11), `wagonMove=C2` upgraded (5 × 5) and not (3 × 3).
#[test]
fn t66_ap5_ap6_downgraded_wagon_stays_upgraded_wagon_reaches_further() {
    run_scenario("fan/T-66");
}

/// T-67 — AP-4: the dragon eats B's knight under R's disc → the disc is back with R at once
/// and R uses it again on his next turn. Variants: the princess sends the knight home; an
/// orphaned builder (PD-12) takes its disc home too.
#[test]
fn t67_ap4_disc_returns_when_the_dragon_eats_its_figure() {
    run_scenario("fan/T-67");
}

/// T-68 — TA-6, AT-4: ties go clockwise from the active player's left neighbour: active R →
/// B, G, Y; active Y → R, B, G; fewest points still come first.
#[test]
fn t68_ta6_ties_go_clockwise_from_the_active_players_left() {
    run_scenario("fan/T-68");
}

/// T-69 — AT-1, TA-2: B spends his token in R's turn and takes it back in his own turn
/// instead of deploying; G, a holder, cannot take another. Variants: AP-12 token or disc,
/// AT-2 taken with no follower in supply.
#[test]
fn t69_at1_token_is_taken_again_holders_cannot_take_another() {
    run_scenario("fan/T-69");
}

/// T-70 — CO-4, TB-4: R completes B's city with a wine symbol: R takes the goods but scores
/// 0, B +6 → R may deploy into the City of Carcassonne. Variant: R scores too → no CoC.
#[test]
fn t70_co4_goods_are_not_points_for_the_count() {
    run_scenario("fan/T-70");
}

/// T-71 — AT-8, KR-2, KR-5: one placement completes R's 2-tile city and the 3-tile road B
/// claims by token → R +4, B +3, both home; King and Robber go to R, the placer. Variant:
/// the followers already on the board.
#[test]
fn t71_kr2_kr5_titles_go_to_the_placer() {
    run_scenario("fan/T-71");
}
