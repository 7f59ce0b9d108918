//! Inns & Cathedrals with the four *Count, King & Robber* expansions: 1,200 seeded random
//! games over four option sets (both `innCathedralIncomplete` values, `smallCity=1st/2nd`,
//! `farmScoring=1st`, inns or cathedrals switched off) and 2–6 players (IC-2: a sixth
//! player), with the invariants of `expansions_mixed.rs`: figures conserved per player and
//! kind (big followers included, also in the City of Carcassonne), occupancy counts, scores
//! monotone and equal to the events, every completed feature scored and empty at each tile
//! step, every tile placed or discarded, HS-3, the river tree, the King's and Robber's
//! records; and every game's record replays to the identical game.

use carcassonne_core::{Action, DecisionKind, DrawMode, Game, GameSetup, Ruleset};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_play::record::Record;
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::expansions_dir;
use carcassonne_tests::mixed::{
    apply_monotone, check_completed_scored, check_end, check_figures_and_scores, check_same_game,
    slot, total_tiles,
};
use std::sync::Arc;

const ALL: [&str; 5] = [
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "inns-cathedrals",
];

const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[],
    &[
        ("inns-cathedrals.innCathedralIncomplete", "normal"),
        ("smallCity", "1st/2nd"),
        ("king-robber.kingRobberAward", "continuously"),
    ],
    &[
        ("farmScoring", "1st"),
        ("inns-cathedrals.inns", "false"),
        ("count.countMove", "follow"),
    ],
    &[
        ("inns-cathedrals.cathedrals", "false"),
        ("heretics-shrines.challengeStakes", "true"),
        ("count.cocFinal", "market-only"),
    ],
];

fn rules(set: usize) -> Arc<Ruleset> {
    build_ruleset(&RulesSpec {
        expansions: ALL.map(String::from).to_vec(),
        options: OPTION_SETS[set]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        plugin_dirs: vec![expansions_dir()],
    })
    .unwrap_or_else(|e| panic!("the five expansions load: {e}"))
}

fn play_and_check(set: usize, rules: &Arc<Ruleset>, seed: u64, draws: DrawMode) {
    let players = 2 + (seed % 5) as usize;
    let ctx = format!("I&C option set {set}, seed {seed}, {players} players, {draws:?} draws");
    let setup = GameSetup {
        draws,
        ..GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed)
    };
    let mut g = Game::new(Arc::clone(rules), &setup).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let in_city = slot(rules, "count", "in-city");
    let total_tiles = total_tiles(&g);
    let mut bots: Vec<RandomBot> = (0..players)
        .map(|p| RandomBot::new(seed.rotate_left(11) ^ p as u64))
        .collect();
    let mut actions: Vec<Action> = Vec::new();
    while !g.is_over() {
        assert!(actions.len() < 2500, "{ctx}: the game does not end");
        if matches!(g.decision().kind, DecisionKind::PlaceTile { .. }) {
            check_completed_scored(&g, &ctx);
        }
        let i = bots[g.decision().player.index()].choose(&g);
        let a = g.actions()[i];
        apply_monotone(&mut g, a, &ctx);
        actions.push(a);
        check_figures_and_scores(&g, in_city, &ctx);
    }
    check_end(&g, total_tiles, &ctx);
    let record =
        Record::with_setup(&g, &setup, &actions).unwrap_or_else(|e| panic!("{ctx}: record: {e}"));
    let json = serde_json::to_string(&record).expect("record serialises");
    let parsed = Record::parse(&json, &ctx).expect("record parses");
    let replayed = parsed
        .replay_with(rules, &ctx, None)
        .unwrap_or_else(|e| panic!("{ctx}: replay: {e}"));
    check_same_game(&replayed, &g, &ctx);
}

fn run(from: u64, to: u64, draws: DrawMode) {
    let rulesets: Vec<Arc<Ruleset>> = (0..OPTION_SETS.len()).map(rules).collect();
    for seed in from..to {
        let set = (seed % OPTION_SETS.len() as u64) as usize;
        play_and_check(set, &rulesets[set], seed, draws);
    }
}

#[test]
fn inns_cathedrals_mixed_games_0_to_500() {
    run(0, 500, DrawMode::Random);
}

#[test]
fn inns_cathedrals_mixed_games_500_to_1000() {
    run(500, 1000, DrawMode::Random);
}

#[test]
fn inns_cathedrals_chosen_draw_games() {
    run(0, 200, DrawMode::Chosen);
}
