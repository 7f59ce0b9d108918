//! Inns & Cathedrals with the four *Count, King & Robber* expansions: 1,200 seeded random
//! games over four option sets (both `innCathedralIncomplete` values, `smallCity=1st/2nd`,
//! `farmScoring=1st`, inns or cathedrals switched off) and 2–6 players (IC-2: a sixth
//! player), with the invariants of `expansions_mixed.rs`: figures conserved per player and
//! kind (big followers included, also in the City of Carcassonne), occupancy counts, scores
//! monotone and equal to the events, every completed feature scored and empty at each tile
//! step, every tile placed or discarded, HS-3, the river tree, the King's and Robber's
//! records; and every game's record replays to the identical game. Then 300 games against an
//! oracle: the same games with inns and cathedrals switched off, whose score events must
//! differ only as IC-6, IC-7, IC-10 and IC-11 allow.

use carcassonne_core::{DrawMode, Game, GameSetup, Ruleset};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::expansions_dir;
use carcassonne_tests::mixed::play_random_checked;
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
    play_random_checked(rules, &setup, seed.rotate_left(11), 2500, &ctx);
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

/// The same games with inns and cathedrals switched off are an oracle: the flow (tiles,
/// placements, figures) is identical, so the score events pair up one to one, and each
/// pair differs only as IC-6, IC-7, IC-10, IC-11 allow: a completed road scores the same or
/// twice as much (inn), a completed city the same or 3/2 as much (cathedral: 3 per tile and
/// pennant instead of 2), an unfinished road or city at the end the same or 0; everything
/// else (cloisters, farms, titles) the same. Each kind of change must occur somewhere.
#[test]
fn inns_cathedrals_change_only_what_they_should() {
    let plain_rules = |extra: &[(&str, &str)]| {
        let mut options: Vec<(String, String)> = vec![
            ("inns-cathedrals.inns".into(), "false".into()),
            ("inns-cathedrals.cathedrals".into(), "false".into()),
        ];
        options.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        build_ruleset(&RulesSpec {
            expansions: ["inns-cathedrals", "king-robber", "river2"]
                .map(String::from)
                .to_vec(),
            options,
            plugin_dirs: vec![expansions_dir()],
        })
        .expect("ruleset")
    };
    let ic_rules = build_ruleset(&RulesSpec {
        expansions: ["inns-cathedrals", "king-robber", "river2"]
            .map(String::from)
            .to_vec(),
        options: Vec::new(),
        plugin_dirs: vec![expansions_dir()],
    })
    .expect("ruleset");
    let plain = plain_rules(&[]);
    let (road, city) = (
        ic_rules.kind_named("road").expect("road"),
        ic_rules.kind_named("city").expect("city"),
    );
    let mut seen = [0u32; 3]; // inn doubled, cathedral raised, unfinished zeroed
    for seed in 0..300u64 {
        let players = 2 + (seed % 5) as usize;
        let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
        let mut g = Game::new(Arc::clone(&ic_rules), &setup).expect("game");
        let mut o = Game::new(Arc::clone(&plain), &setup).expect("oracle game");
        let mut bot = RandomBot::new(seed ^ 0x1c);
        while !g.is_over() {
            let i = bot.choose(&g);
            let a = g.actions()[i];
            g.apply(a).expect("offered");
            o.apply(a)
                .unwrap_or_else(|e| panic!("seed {seed}: the oracle game refuses {a:?}: {e}"));
        }
        assert!(o.is_over(), "seed {seed}: both games end together");
        let (ge, oe) = (g.state().events(), o.state().events());
        assert_eq!(ge.len(), oe.len(), "seed {seed}: events pair up");
        for (e, p) in ge.iter().zip(oe) {
            let ctx = format!("seed {seed}: {e:?} vs plain {p:?}");
            assert_eq!(
                (e.player, e.source, e.complete, e.final_scoring, e.turn),
                (p.player, p.source, p.complete, p.final_scoring, p.turn),
                "{ctx}"
            );
            if e.points == p.points {
                continue;
            }
            let kind = match e.source {
                carcassonne_core::ScoreSource::Feature(k) => k,
                _ => panic!("{ctx}: a title or bonus changed"),
            };
            if e.complete && kind == road {
                assert_eq!(e.points, 2 * p.points, "{ctx}: IC-6");
                seen[0] += 1;
            } else if e.complete && kind == city {
                assert_eq!(2 * e.points, 3 * p.points, "{ctx}: IC-10");
                seen[1] += 1;
            } else if !e.complete && e.final_scoring && (kind == road || kind == city) {
                assert_eq!(e.points, 0, "{ctx}: IC-7/IC-11");
                seen[2] += 1;
            } else {
                panic!("{ctx}: changed points");
            }
        }
    }
    assert!(
        seen.iter().all(|n| *n > 0),
        "every change occurs (inn, cathedral, unfinished): {seen:?}"
    );
}
