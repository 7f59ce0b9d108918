//! Seeded games with the abbot and gardens (`expansions/abbot-garden`), alone and with every
//! official expansion and both fan scripts, 2–6 players, random bots, under every shared
//! check of `carcassonne_tests::mixed::play_checked` — figures conserved, occupancy exact,
//! scores monotone and equal to their events, completed features scored, only abbots
//! on gardens and abbots only on cloisters, gardens, shrines or a cloister quarter (AG-3,
//! AG-5), every tile placed, and each record replaying to the identical game.

use carcassonne_core::{GameSetup, Ruleset};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_tests::mixed::play_checked;
use carcassonne_tests::official_and_fan_rules;
use std::sync::Arc;

const EVERYTHING: &[&str] = &[
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "inns-cathedrals",
    "traders-builders",
    "princess-dragon",
    "abbey-mayor",
    "tower",
    "abbot-garden",
    "tactician",
    "promotions",
];

fn rules(expansions: &[&str], options: &[(&str, &str)]) -> Arc<Ruleset> {
    official_and_fan_rules(expansions, options)
}

/// `games` games (seed = index); the number of custom actions (abbot returns, alone).
fn run(rules: &Arc<Ruleset>, games: u64, label: &str) -> usize {
    let mut custom = 0;
    for seed in 0..games {
        let players = 2 + (seed % 5) as usize;
        let ctx = format!("{label}, seed {seed}, {players} players");
        let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
        let bots: Vec<Box<dyn Bot>> = (0..players)
            .map(|p| Box::new(RandomBot::new(seed.rotate_left(9) ^ p as u64)) as Box<dyn Bot>)
            .collect();
        custom += play_checked(rules, &setup, bots, 4000, &ctx).custom;
    }
    custom
}

/// Alone: the random bots take abbots back (AG-8) in some of the games.
#[test]
fn abbot_garden_alone() {
    let returns = run(&rules(&["abbot-garden"], &[]), 300, "alone");
    assert!(returns > 0, "no abbot was ever taken back");
    run(
        &rules(&["abbot-garden"], &[("abbot-garden.gardenTiles", "false")]),
        100,
        "first-edition tiles",
    );
}

/// With every official expansion and both fan scripts.
#[test]
fn abbot_garden_with_everything() {
    run(&rules(EVERYTHING, &[]), 200, "everything");
}

/// With the expansions whose figures or rules meet the abbot's: shrines, the abbey, the
/// wagon, the Count's cloister quarter, the big follower, the tower.
#[test]
fn abbot_garden_with_neighbours() {
    run(
        &rules(
            &["count", "heretics-shrines", "abbey-mayor", "abbot-garden"],
            &[("abbey-mayor.edition", "2")],
        ),
        200,
        "count+shrines+abbey",
    );
    run(
        &rules(
            &[
                "inns-cathedrals",
                "tower",
                "princess-dragon",
                "abbot-garden",
            ],
            &[],
        ),
        200,
        "i&c+tower+p&d",
    );
}
