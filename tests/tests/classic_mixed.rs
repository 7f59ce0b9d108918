//! *Inns & Cathedrals* and *Traders & Builders* in random and greedy games with all four
//! *Count, King & Robber* expansions and both fan scripts (*The Tactician*, *Promotions*)
//! (issue 16): 5,000 seeded games over four option sets (both `builderDoubleTurn` values,
//! `pigHerd` on and off, both T&B editions, both `innCathedralIncomplete` values, the three
//! farm editions, both `smallCity` values), 2–6 players, the bots acting only through the
//! offered actions (so every new decision — big follower, builder, pig, the optional extra
//! tile, the Tactician's tokens and Promotions' discs and redraws — is one they take). Checked:
//!
//! - after every action: the checks of `expansions_mixed.rs` (figures conserved, occupancy,
//!   scores = events, monotone); goods conserved (TB-8: held + supply = the printed
//!   symbols, 9 wine, 6 grain, 5 cloth); every builder stands on a road or city and every pig
//!   on a farm where its owner has a follower (TB-10, TB-17, TB-19, TB-21);
//! - no turn has more than two placements (TB-13, core's one extra part);
//! - at the end: every tile placed or discarded, the KR/HS/river checks, and the
//!   `trade-goods` events are exactly 10 per type to every leader with ≥ 1 (TB-6);
//! - every game's record replays to the identical game;
//! - the bots did deploy big followers, builders and pigs and play double turns.
//!
//! Then 5,000 more games (issues 17, 18) add *Princess & Dragon*, *The Tower* and *Abbey &
//! Mayor* (its options varied by option set) — every official expansion and both fan
//! scripts — with random bots, under the same checks.

use carcassonne_core::{Action, DecisionKind, Game, GameSetup, Ruleset};
use carcassonne_play::bots::make_bot;
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::mixed::{
    apply_monotone, check_completed_scored, check_end, check_figures_and_scores, check_final_goods,
    check_record_replays, check_traders, held_aside, slot, total_tiles, GOODS,
};
use carcassonne_tests::{expansions_dir, fan_expansions_dir};
use std::sync::Arc;

const EXPANSIONS: [&str; 8] = [
    "inns-cathedrals",
    "traders-builders",
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "tactician",
    "promotions",
];

const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[],
    &[
        ("traders-builders.builderDoubleTurn", "optional"),
        ("traders-builders.pigHerd", "false"),
        ("inns-cathedrals.innCathedralIncomplete", "normal"),
        ("farmScoring", "2nd"),
        ("river2.volcanoExtraTile", "true"),
    ],
    &[
        ("traders-builders.edition", "2"),
        ("farmScoring", "1st"),
        ("smallCity", "1st/2nd"),
        ("count.cocTrigger", "completion"),
    ],
    &[
        ("traders-builders.builderDoubleTurn", "optional"),
        ("king-robber.kingRobberAward", "continuously"),
        ("count.countMove", "follow"),
    ],
];

/// With them, every other official expansion (issues 17, 18): Princess & Dragon, The Tower
/// and Abbey & Mayor.
const LATER: [&str; 3] = ["princess-dragon", "tower", "abbey-mayor"];

/// Abbey & Mayor's options per option set (with [`LATER`] only): every value of each.
const LATER_OPTIONS: &[&[(&str, &str)]] = &[
    &[],
    &[
        ("abbey-mayor.wagonMove", "C2"),
        ("abbey-mayor.barnPlacement", "occupied"),
        ("abbey-mayor.challengeLoserWagon", "may-move"),
    ],
    &[
        ("abbey-mayor.abbeyFinalRound", "off"),
        ("abbey-mayor.edition", "2"),
    ],
    &[
        ("abbey-mayor.wagonMove", "C2"),
        ("abbey-mayor.challengeLoserWagon", "may-move"),
    ],
];

fn rules(set: usize, all: bool) -> Arc<Ruleset> {
    let later: &[&str] = if all { &LATER } else { &[] };
    build_ruleset(&RulesSpec {
        expansions: EXPANSIONS
            .iter()
            .chain(later)
            .map(|e| e.to_string())
            .collect(),
        options: OPTION_SETS[set]
            .iter()
            .chain(if all { LATER_OPTIONS[set] } else { &[] })
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        plugin_dirs: vec![expansions_dir(), fan_expansions_dir()],
    })
    .unwrap_or_else(|e| panic!("the expansions load: {e}"))
}

/// How often the bots took the new decisions.
#[derive(Debug, Default)]
struct Counts {
    doubles: usize,
    builders_and_pigs: usize,
    big_followers: usize,
    /// Goods tokens held at the end, summed over players and games.
    goods: i64,
}

fn play_and_check(set: usize, rules: &Arc<Ruleset>, seed: u64, all: bool, n: &mut Counts) {
    let players = 2 + (seed % 5) as usize;
    // Greedy looks one step ahead through every offer: too slow for games with the dragon.
    let greedy = seed % 5 == 4 && !all;
    let ctx = format!("option set {set}, seed {seed}, {players} players, greedy {greedy}");
    let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
    let mut g = Game::new(Arc::clone(rules), &setup).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let in_city = slot(rules, "count", "in-city");
    // With Princess & Dragon, its dragon tiles wait aside until a volcano (PD-3).
    let total_tiles = total_tiles(&g) + held_aside(&g);
    let mut bots: Vec<_> = (0..players)
        .map(|p| {
            let kind = if greedy && p % 2 == 0 {
                "greedy"
            } else {
                "random"
            };
            make_bot(kind, seed.rotate_left(7) ^ p as u64).expect("bot")
        })
        .collect();
    let mut actions: Vec<Action> = Vec::new();
    let (mut turn, mut parts) = (u32::MAX, 0);
    let builder = rules.figure_named("builder").expect("builder");
    let pig = rules.figure_named("pig").expect("pig");
    let big = rules.figure_named("big-follower").expect("big follower");
    while !g.is_over() {
        assert!(actions.len() < 2500, "{ctx}: the game does not end");
        if matches!(g.decision().kind, DecisionKind::PlaceTile { .. }) {
            check_completed_scored(&g, &ctx);
        }
        let i = bots[g.decision().player.index()].choose(&g);
        let a = g.actions()[i];
        if let Action::Place { .. } = a {
            if g.state().turn() == turn {
                parts += 1;
                n.doubles += 1;
                assert!(parts <= 2, "{ctx}: a third placement in one turn (TB-13)");
            } else {
                turn = g.state().turn();
                parts = 1;
            }
        }
        if let Action::Deploy { figure, .. } = a {
            n.builders_and_pigs += usize::from(figure == builder || figure == pig);
            n.big_followers += usize::from(figure == big);
        }
        apply_monotone(&mut g, a, &ctx);
        actions.push(a);
        check_figures_and_scores(&g, in_city, &ctx);
        check_traders(&g, &ctx);
    }
    check_end(&g, total_tiles - held_aside(&g), &ctx);
    check_final_goods(&g, &ctx);
    n.goods += GOODS
        .iter()
        .map(|(good, _)| {
            (0..players)
                .map(|p| g.state().slot(slot(rules, "traders-builders", good), p))
                .sum::<i64>()
        })
        .sum::<i64>();
    check_record_replays(&g, &setup, &actions, &ctx);
}

/// Games `from..to` (seed = index), option sets in turn; `all`: with every official
/// expansion.
fn run(from: u64, to: u64, all: bool) {
    let rulesets: Vec<Arc<Ruleset>> = (0..OPTION_SETS.len()).map(|s| rules(s, all)).collect();
    let mut n = Counts::default();
    for seed in from..to {
        let set = (seed % OPTION_SETS.len() as u64) as usize;
        play_and_check(set, &rulesets[set], seed, all, &mut n);
    }
    eprintln!("classic_mixed games {from}..{to} (all: {all}): {n:?}");
    // The bots do take the new decisions.
    assert!(n.doubles > 0, "no double turn was played");
    assert!(n.builders_and_pigs > 0, "no builder or pig was deployed");
    assert!(n.big_followers > 0, "no big follower was deployed");
    assert!(n.goods > 0, "no goods were handed out");
}

/// Ten batches of 500 games, so that the test harness runs them in parallel.
macro_rules! batches {
    ($($name:ident: $i:expr,)*) => {$(
        #[test]
        fn $name() {
            run($i * 500, ($i + 1) * 500, false);
        }
    )*};
}

batches! {
    classic_games_0_to_500_keep_every_invariant: 0,
    classic_games_500_to_1000_keep_every_invariant: 1,
    classic_games_1000_to_1500_keep_every_invariant: 2,
    classic_games_1500_to_2000_keep_every_invariant: 3,
    classic_games_2000_to_2500_keep_every_invariant: 4,
    classic_games_2500_to_3000_keep_every_invariant: 5,
    classic_games_3000_to_3500_keep_every_invariant: 6,
    classic_games_3500_to_4000_keep_every_invariant: 7,
    classic_games_4000_to_4500_keep_every_invariant: 8,
    classic_games_4500_to_5000_keep_every_invariant: 9,
}

/// Issue 17: 5,000 more games with every official expansion (Princess & Dragon and The Tower
/// too) and both fan scripts, random bots, under the same checks (prisoners count as figures,
/// `mixed::check_figures_and_scores`).
macro_rules! all_batches {
    ($($name:ident: $i:expr,)*) => {$(
        #[test]
        fn $name() {
            run(10_000 + $i * 500, 10_000 + ($i + 1) * 500, true);
        }
    )*};
}

all_batches! {
    all_official_games_0_keep_every_invariant: 0,
    all_official_games_1_keep_every_invariant: 1,
    all_official_games_2_keep_every_invariant: 2,
    all_official_games_3_keep_every_invariant: 3,
    all_official_games_4_keep_every_invariant: 4,
    all_official_games_5_keep_every_invariant: 5,
    all_official_games_6_keep_every_invariant: 6,
    all_official_games_7_keep_every_invariant: 7,
    all_official_games_8_keep_every_invariant: 8,
    all_official_games_9_keep_every_invariant: 9,
}
