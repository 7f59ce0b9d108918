//! Scenario tests T-43 … T-50 of `shared/rules/spec.md` part E: Heretics & Shrines (B.4,
//! HS-1 … HS-13), loaded from `expansions/heretics-shrines` as the program loads it
//! (manifest, tile file, plugin library; T-50 also loads `expansions/count`). One test per
//! T-id; the data is in `tests/scenarios/heretics-shrines/T-xx.toml`, and a file's
//! `[[variant]]`s (house rules `shrineCrowding`, `challengeStakes`, or another drawn tile)
//! run in the same test.

use carcassonne_tests::run_scenario;

/// T-43 — HS-3: a shrine may not have two cloisters among its 8 surrounding cells (orthogonal
/// or diagonal), one is fine; HS-2: a heretic may go on it. The `shrineCrowding` variant
/// (HS-4 house rule) changes neither.
#[test]
fn t43_hs3_shrine_not_beside_two_cloisters() {
    run_scenario("heretics-shrines/T-43");
}

/// T-44 — HS-4: no shrine next to a cloister that already has a shrine around it, and no
/// cloister next to a shrine that already has a cloister; with `shrineCrowding` such tiles
/// are legal but take no follower on the building.
#[test]
fn t44_hs4_no_second_rival_for_a_challenged_building() {
    run_scenario("heretics-shrines/T-44");
}

/// T-45 — HS-5/HS-6: the completed cloister scores 9, the rival heretic scores 0 and
/// returns, the shrine stays incomplete and empty; HS-13 `challengeStakes`: B +9 +5.
#[test]
fn t45_hs6_challenge_won_by_completed_cloister() {
    run_scenario("heretics-shrines/T-45");
}

/// T-46 — HS-7: one placement completes both rivals → both score 9.
#[test]
fn t46_hs7_both_completed_at_once_both_score() {
    run_scenario("heretics-shrines/T-46");
}

/// T-47 — HS-9: an unresolved challenge at the end: both score as incomplete cloisters
/// (B +7, R +5).
#[test]
fn t47_hs9_unresolved_challenge_scores_at_end() {
    run_scenario("heretics-shrines/T-47");
}

/// T-48 — HS-5/HS-6: self-challenge: R's shrine completes first → R +9, R's own monk
/// returns with 0.
#[test]
fn t48_hs5_hs6_self_challenge_shrine_wins() {
    run_scenario("heretics-shrines/T-48");
}

/// T-49 — HS-8: an empty completed cloister (its monk eaten; modelled as empty) challenges
/// nobody; the heretic stays and scores at the end (HS-9).
#[test]
fn t49_hs8_empty_completed_cloister_changes_nothing() {
    run_scenario("heretics-shrines/T-49");
}

/// T-50 — HS-11 / CO-4: R completes B's cloister and loses the challenge (B +9, R 0) → R may
/// deploy into the City of Carcassonne.
#[test]
fn t50_hs11_co4_losing_placer_deploys_into_the_city() {
    run_scenario("heretics-shrines/T-50");
}
