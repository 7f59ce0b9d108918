//! core's deployments on a tile (`View::deployments_on_tile`, what every deployment step
//! starts from) are, segment by segment in the tile's order, each follower kind allowed on
//! the segment's feature kind (`Ruleset::followers_on`, in kind order) that the player has in
//! supply, a figure that occupies only on an unoccupied feature. Core builds them from
//! per-feature-kind bit masks and the player's supply bits (bt22: docs/speed-log.md); this
//! checks them against that rule read from the public state, for every player on the tile
//! just placed and on a few others, at every decision of seeded random games.

#[path = "../../core/tests/rules/deployments.rs"]
mod rules_oracle;

use std::sync::Arc;

use carcassonne_core::{Action, PlayerId, Pos, Ruleset};
use carcassonne_tests::mixed::play_seeded_random;
use carcassonne_tests::{official_and_fan_rules, official_rules, NINE_OFFICIAL};

/// Plays `games` seeded games of `rules`; at every decision compares core's offers with
/// the rule's for every player on the last placed tile and on every seventh tile. Returns
/// (comparisons, offers compared), so that a caller can see both paths were reached.
fn check(rules: &Arc<Ruleset>, games: u64, name: &str) -> (usize, usize) {
    let (mut compared, mut offers) = (0, 0);
    for seed in 0..games {
        let mut step = 0usize;
        play_seeded_random(rules, seed, 0xB722, |g| {
            let st = g.state();
            let tiles = st.board().tiles();
            let mut cells: Vec<Pos> = tiles.iter().step_by(7).map(|t| t.pos).collect();
            if let Some(last) = st.last_placed() {
                cells.push(st.board().tile(last).pos);
            }
            for p in 0..st.players().len() {
                let player = PlayerId(p as u8);
                for &pos in &cells {
                    let mut got = vec![Action::Pass];
                    g.view().deployments_on_tile(player, pos, &mut got);
                    let want =
                        rules_oracle::deployments_by_the_rule(g.rules(), g.state(), player, pos);
                    assert_eq!(
                        got[1..],
                        want[..],
                        "{name}, seed {seed}, step {step}: player {p} at {pos}"
                    );
                    assert_eq!(got[0], Action::Pass, "{name}: what was in the list stays");
                    compared += 1;
                    offers += want.len();
                }
            }
            step += 1;
        });
    }
    (compared, offers)
}

#[test]
fn deployment_offers_follow_the_rule_in_the_base_game() {
    let (compared, offers) = check(&official_rules(&[], &[]), 12, "base");
    assert!(compared > 10_000 && offers > 5_000, "{compared} {offers}");
    let (compared, offers) = check(
        &official_rules(&[], &[("farmers", "false")]),
        6,
        "base without farmers",
    );
    assert!(compared > 5_000 && offers > 1_000, "{compared} {offers}");
}

#[test]
fn deployment_offers_follow_the_rule_under_the_big_top() {
    let (compared, offers) = check(&official_rules(&["big-top"], &[]), 12, "big-top");
    assert!(compared > 10_000 && offers > 5_000, "{compared} {offers}");
}

#[test]
fn deployment_offers_follow_the_rule_with_the_nine_and_the_big_top() {
    let mut sets = NINE_OFFICIAL.to_vec();
    sets.push("big-top");
    let (compared, offers) = check(&official_rules(&sets, &[]), 6, "nine and big-top");
    assert!(compared > 5_000 && offers > 5_000, "{compared} {offers}");
}

#[test]
fn deployment_offers_follow_the_rule_with_sharing_figures_and_fan_sets() {
    // The phantom, the fairy (a figure that shares), the abbot, the fan scripts' figures.
    let rules = official_and_fan_rules(
        &[
            "princess-dragon",
            "phantom",
            "abbot-garden",
            "hills-sheep",
            "big-top",
            "tactician",
            "promotions",
        ],
        &[],
    );
    let (compared, offers) = check(&rules, 6, "sharing and fan sets");
    assert!(compared > 5_000 && offers > 5_000, "{compared} {offers}");
}
