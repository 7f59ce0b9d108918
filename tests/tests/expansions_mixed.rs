//! 10,000 seeded random games with all four *Count, King & Robber* expansions loaded as
//! plugins (issue 3), over several option sets and 2–5 players. Checked:
//!
//! - after every action: figures are conserved per player and kind (supply + board,
//!   quarters of the City of Carcassonne included), `in_supply` agrees, every feature's
//!   occupant count equals the figures standing on it, the Count's own tally of followers
//!   in the city agrees; scores never decrease, equal the sum of the score events, and
//!   past events are never rewritten;
//! - at every tile step: every completed feature on the grid is scored and empty;
//! - at the end: every tile is on the board or discarded; all edges match; no shrine has
//!   two cloisters around it or the other way round (HS-3); the river is a tree hanging
//!   from the spring (RV-4, RV-6: one water contact per river tile); the King's and the
//!   Robber's records are the largest completed city and road (KR-3 … KR-5);
//! - every game's record (JSON) replays to the identical state and events.
//!
//! A further 400 games run with chosen draws (`DrawMode::Chosen`: the bots pick each tile
//! among the kinds offered, as an importer or a table would), under the same checks, and
//! their records (with `draw` actions) replay identically too.
//!
//! The games are split into four tests so that the test harness runs them in parallel.

use carcassonne_core::{DrawMode, GameSetup, Ruleset};
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::expansions_dir;
use carcassonne_tests::mixed::play_random_checked;
use std::sync::Arc;

const ALL_FOUR: [&str; 4] = ["count", "king-robber", "river2", "heretics-shrines"];

/// Option sets the games cycle through (defaults first).
const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[],
    &[
        ("count.countMove", "clockwise"),
        ("count.cocTrigger", "completion"),
        ("king-robber.kingRobberAward", "continuously"),
        ("river2.riverEnds", "both-last"),
    ],
    &[
        ("count.countMove", "follow"),
        ("count.deployIntoCountQuarter", "forbidden"),
        ("count.cocFinal", "market-only"),
        ("heretics-shrines.challengeStakes", "true"),
        ("heretics-shrines.cultPlaces", "true"),
        ("river2.riverLookahead", "true"),
    ],
    &[
        ("farmScoring", "1st"),
        ("king-robber.kingRobberAward", "15/40"),
        ("river2.volcanoExtraTile", "true"),
        ("heretics-shrines.shrineCrowding", "true"),
    ],
];

fn rules(set: usize) -> Arc<Ruleset> {
    build_ruleset(&RulesSpec {
        expansions: ALL_FOUR.map(String::from).to_vec(),
        options: OPTION_SETS[set]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        plugin_dirs: vec![expansions_dir()],
    })
    .unwrap_or_else(|e| panic!("all four expansions load: {e}"))
}

fn play_and_check(set: usize, rules: &Arc<Ruleset>, seed: u64, draws: DrawMode) {
    let players = 2 + (seed % 4) as usize;
    let ctx = format!("option set {set}, seed {seed}, {players} players, {draws:?} draws");
    let setup = GameSetup {
        draws,
        ..GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed)
    };
    play_random_checked(rules, &setup, seed.rotate_left(7), 2000, &ctx);
}

/// Games `from..to` (seed = index), option sets in turn.
fn run(from: u64, to: u64) {
    let rulesets: Vec<Arc<Ruleset>> = (0..OPTION_SETS.len()).map(rules).collect();
    for seed in from..to {
        let set = (seed % OPTION_SETS.len() as u64) as usize;
        play_and_check(set, &rulesets[set], seed, DrawMode::Random);
    }
}

#[test]
fn chosen_draw_games_keep_every_invariant_and_replay() {
    let rulesets: Vec<Arc<Ruleset>> = (0..OPTION_SETS.len()).map(rules).collect();
    for seed in 0..400 {
        let set = (seed % OPTION_SETS.len() as u64) as usize;
        play_and_check(set, &rulesets[set], seed, DrawMode::Chosen);
    }
}

#[test]
fn mixed_games_0_to_2500_keep_every_invariant() {
    run(0, 2500);
}

#[test]
fn mixed_games_2500_to_5000_keep_every_invariant() {
    run(2500, 5000);
}

#[test]
fn mixed_games_5000_to_7500_keep_every_invariant() {
    run(5000, 7500);
}

#[test]
fn mixed_games_7500_to_10000_keep_every_invariant() {
    run(7500, 10000);
}
