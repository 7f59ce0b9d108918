//! Seeded random and greedy games with Princess & Dragon mixed with the four *Count, King
//! & Robber* expansions (issue 17), 2–6 players, P&D options varied. Checked after every
//! action: figures conserved, occupancy exact, scores monotone and equal to the events
//! (the shared checks of `carcassonne_tests::mixed`); the dragon, once in play, stands on
//! a tile that it may enter (never the City of Carcassonne's central tiles) and a flight
//! never has more than 6 steps; at the end every tile is on the board, discarded or still
//! held back (PD-3: only when no volcano was placed), and the record replays identically.

use carcassonne_core::{Action, DecisionKind, Game, GameSetup, Pos, Ruleset};
use carcassonne_play::bots::{Bot, GreedyBot, RandomBot};
use carcassonne_play::record::Record;
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::expansions_dir;
use carcassonne_tests::mixed::{
    apply_monotone, check_completed_scored, check_dragon, check_end, check_figures_and_scores,
    check_same_game, held_aside, slot, total_tiles,
};
use std::sync::Arc;

const ALL: [&str; 5] = [
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "princess-dragon",
];

/// Option sets the games cycle through (defaults first).
const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[],
    &[
        ("princess-dragon.dragonTiming", "after-scoring"),
        ("princess-dragon.princessAction", "must"),
        ("princess-dragon.dragonOnCoC", "never"),
        ("river2.volcanoExtraTile", "true"),
    ],
    &[
        ("princess-dragon.fairyPlacement", "on-tile"),
        ("princess-dragon.fairyOnTilePoints", "per-figure"),
        ("princess-dragon.dragonTileDeploy", "volcano-only"),
        ("princess-dragon.volcanoExtraTile", "true"),
        ("count.countMove", "clockwise"),
    ],
    &[
        ("princess-dragon.fairyPlacement", "on-tile"),
        ("princess-dragon.cocQuarterFigures", "jcz"),
        ("king-robber.kingRobberAward", "continuously"),
        ("heretics-shrines.challengeStakes", "true"),
    ],
];

fn rules(set: usize) -> Arc<Ruleset> {
    rules_with(set, &[])
}

/// The five, plus `extra` (fan scripts), with option set `set`.
fn rules_with(set: usize, extra: &[&str]) -> Arc<Ruleset> {
    let mut expansions: Vec<String> = ALL.map(String::from).to_vec();
    expansions.extend(extra.iter().map(|s| s.to_string()));
    build_ruleset(&RulesSpec {
        expansions,
        options: OPTION_SETS[set]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        plugin_dirs: vec![expansions_dir(), carcassonne_tests::fan_expansions_dir()],
    })
    .unwrap_or_else(|e| panic!("the expansions load: {e}"))
}

/// Plays one game; returns how many dragon steps and fairy moves it had.
fn play_and_check(set: usize, rules: &Arc<Ruleset>, seed: u64, greedy: bool) -> (usize, usize) {
    let players = 2 + (seed % 5) as usize;
    let ctx = format!("option set {set}, seed {seed}, {players} players, greedy {greedy}");
    let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
    let mut g = Game::new(Arc::clone(rules), &setup).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let in_city = slot(rules, "count", "in-city");
    let total = total_tiles(&g) + held_aside(&g);
    let mut bots: Vec<Box<dyn Bot>> = (0..players)
        .map(|p| -> Box<dyn Bot> {
            let s = seed.rotate_left(7) ^ p as u64;
            if greedy && p == 0 {
                Box::new(GreedyBot::new(s))
            } else {
                Box::new(RandomBot::new(s))
            }
        })
        .collect();
    let mut actions: Vec<Action> = Vec::new();
    while !g.is_over() {
        assert!(actions.len() < 3000, "{ctx}: the game does not end");
        if matches!(g.decision().kind, DecisionKind::PlaceTile { .. }) {
            check_completed_scored(&g, &ctx);
        }
        let i = bots[g.decision().player.index()].choose(&g);
        let a = g.actions()[i];
        apply_monotone(&mut g, a, &ctx);
        actions.push(a);
        check_figures_and_scores(&g, in_city, &ctx);
        check_dragon(&g, &ctx);
        check_portal(&g, &ctx);
    }
    // PD-3: tiles still held back were never drawable (no volcano was placed).
    check_end(&g, total - held_aside(&g), &ctx);
    let record =
        Record::with_setup(&g, &setup, &actions).unwrap_or_else(|e| panic!("{ctx}: record: {e}"));
    let json = serde_json::to_string(&record).expect("record serialises");
    let parsed = Record::parse(&json, &ctx).expect("record parses");
    let replayed = parsed
        .replay_with(rules, &ctx, None)
        .unwrap_or_else(|e| panic!("{ctx}: replay: {e}"));
    check_same_game(&replayed, &g, &ctx);
    let verb = |name: &str| {
        let v = rules
            .verbs()
            .iter()
            .position(|(_, n)| n == name)
            .expect("verb");
        actions
            .iter()
            .filter(|a| matches!(a, Action::Custom(c) if c.verb.0 as usize == v))
            .count()
    };
    (verb("move-dragon"), verb("move-fairy"))
}

/// PD-22: in a deployment step on a portal tile, the offers onto other tiles are those of
/// a general scan reading every segment's node (the plugin reads each segment's kind from
/// per-tile-kind tables): every open, unoccupied, unscored feature's segment of an
/// occupiable kind (fields only with farmers, never a tower top) on a tile that takes
/// figures, but the dragon's (PD-5), one per follower kind in supply that may stand there,
/// in tile order, then local segment order, then figure kind order.
fn check_portal(g: &Game, ctx: &str) {
    let rules = g.rules();
    let st = g.state();
    if !matches!(g.decision().kind, DecisionKind::Deploy { .. })
        || !rules.options().flag("princess-dragon.portal")
    {
        return;
    }
    let Some(here) = st.last_placed().map(|i| *st.board().tile(i)) else {
        return;
    };
    if !rules.tiles().get(here.kind).has_tag("portal") {
        return;
    }
    let player = g.decision().player;
    let get = |n: &str| st.slot(slot(rules, "princess-dragon", n), 0);
    let dragon = (get("dragon") != 0)
        .then(|| Pos::new(get("dragon-x") as i32, get("dragon-y") as i32))
        .filter(|d| {
            rules.options().str("princess-dragon.dragonTileDeploy") != "volcano-only"
                || (here.pos == *d && rules.tiles().get(here.kind).has_tag("volcano"))
        });
    let tower = rules.kind_named("tower");
    let g_ = st.graph();
    let mut expected = Vec::new();
    for t in st.board().tiles() {
        if t.pos == here.pos || Some(t.pos) == dragon || !rules.tiles().get(t.kind).deploy {
            continue;
        }
        for seg in t.segments() {
            let kind = g_.segment(seg).kind;
            let def = rules.kind(kind);
            if !def.occupiable
                || Some(kind) == tower
                || (!rules.base().farmers && def.shape == carcassonne_core::Shape::Field)
            {
                continue;
            }
            let tot = g_.totals(g_.feature_of(seg));
            if tot.occupants > 0 || tot.scored || tot.complete() {
                continue;
            }
            for (k, d) in rules.figure_kinds().iter().enumerate() {
                let k = carcassonne_core::FigureKindId(k as u8);
                if d.follower && st.in_supply(player, k) > 0 && d.deploy_on.contains(kind) {
                    expected.push(Action::Deploy {
                        figure: k,
                        segment: seg,
                    });
                }
            }
        }
    }
    let offered: Vec<Action> = g
        .actions()
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Deploy { segment, .. } if !here.has_segment(*segment)))
        .collect();
    assert_eq!(offered, expected, "{ctx}: the portal's offers");
}

fn run(from: u64, to: u64, greedy: bool) {
    let rulesets: Vec<Arc<Ruleset>> = (0..OPTION_SETS.len()).map(rules).collect();
    let (mut steps, mut fairy) = (0, 0);
    for seed in from..to {
        let set = (seed % OPTION_SETS.len() as u64) as usize;
        let (s, f) = play_and_check(set, &rulesets[set], seed, greedy);
        steps += s;
        fairy += f;
    }
    // The bots do steer the dragon (on other players' turns too) and move the fairy.
    let games = (to - from) as usize;
    assert!(steps > games, "{steps} dragon steps in {games} games");
    assert!(fairy > 0, "no fairy move in {games} games");
}

#[test]
fn random_games_keep_every_invariant() {
    run(0, 1000, false);
}

#[test]
fn games_with_a_greedy_player_keep_every_invariant() {
    run(1000, 1040, true);
}

/// With the fan scripts too (the Tactician's tokens meet the dragon's tile filter, PD-31;
/// Promotions' discs meet AP-9 and PR-8).
#[test]
fn games_with_the_fan_scripts_keep_every_invariant() {
    let rulesets: Vec<Arc<Ruleset>> = (0..OPTION_SETS.len())
        .map(|set| rules_with(set, &["tactician", "promotions"]))
        .collect();
    for seed in 2000..2300u64 {
        let set = (seed % OPTION_SETS.len() as u64) as usize;
        play_and_check(set, &rulesets[set], seed, false);
    }
}

/// Every official expansion together (issue 17, item 8): the dragon with The Tower (tower
/// tops, prisoners out of its reach, TW-22), Inns & Cathedrals' big followers (IC-22) and
/// Traders & Builders' builders and pigs (eaten and orphaned, TB-31, PD-12); then the fan
/// scripts on top.
#[test]
fn games_with_every_official_expansion_keep_every_invariant() {
    for (extra, seeds) in [
        (
            &["tower", "inns-cathedrals", "traders-builders"][..],
            2400..2550u64,
        ),
        (
            &[
                "tower",
                "inns-cathedrals",
                "traders-builders",
                "tactician",
                "promotions",
            ][..],
            2550..2610u64,
        ),
    ] {
        let rulesets: Vec<Arc<Ruleset>> = (0..OPTION_SETS.len())
            .map(|set| rules_with(set, extra))
            .collect();
        let (mut steps, mut games) = (0, 0);
        for seed in seeds {
            let set = (seed % OPTION_SETS.len() as u64) as usize;
            steps += play_and_check(set, &rulesets[set], seed, false).0;
            games += 1;
        }
        assert!(steps > games, "{steps} dragon steps in {games} games");
    }
}

/// Hostile input never panics and never changes a game: P&D custom actions with random
/// figures, segments and values that were not offered are refused and leave the state as
/// it was; bad position settings are errors.
#[test]
fn hostile_actions_and_settings_fail_cleanly() {
    use carcassonne_core::{
        CustomAction, FigureId, Position, PositionSetting, SegmentId, StartTile,
    };
    let rules = rules(0);
    let verbs: Vec<(carcassonne_core::ExpansionIndex, carcassonne_core::VerbId)> = rules
        .verbs()
        .iter()
        .enumerate()
        .filter(|(_, (_, n))| ["move-dragon", "move-fairy", "princess"].contains(&n.as_str()))
        .map(|(i, (e, _))| (*e, carcassonne_core::VerbId(i as u16)))
        .collect();
    assert_eq!(verbs.len(), 3);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for seed in 0..60u64 {
        let setup = GameSetup::new(vec!["A".into(), "B".into(), "C".into()], seed);
        let mut g = Game::new(Arc::clone(&rules), &setup).expect("game");
        let mut bot = RandomBot::new(seed);
        let mut n = 0;
        while !g.is_over() && n < 600 {
            n += 1;
            for _ in 0..3 {
                let (expansion, verb) = verbs[(next() % 3) as usize];
                let segs = g.state().graph().len() + 4;
                let figs = g.state().figures().len() + 3;
                let a = Action::Custom(CustomAction {
                    expansion,
                    verb,
                    figure: (next() % 2 == 0).then(|| FigureId((next() % figs as u64) as u16)),
                    segment: (next() % 4 != 0)
                        .then(|| SegmentId::new((next() % segs as u64) as usize)),
                    value: match next() % 4 {
                        0 => i32::MIN,
                        1 => i32::MAX,
                        _ => (next() % 9) as i32 - 2,
                    },
                });
                if g.state().is_offered(&a) {
                    continue;
                }
                let before = (
                    g.state().events().len(),
                    g.state()
                        .players()
                        .iter()
                        .map(|p| p.score)
                        .collect::<Vec<_>>(),
                    g.decision(),
                );
                assert!(g.apply(a).is_err(), "seed {seed}: {a} was not offered");
                let after = (
                    g.state().events().len(),
                    g.state()
                        .players()
                        .iter()
                        .map(|p| p.score)
                        .collect::<Vec<_>>(),
                    g.decision(),
                );
                assert_eq!(
                    before, after,
                    "seed {seed}: a refused action changed the game"
                );
            }
            let i = bot.choose(&g);
            g.apply_offered(i).expect("offered");
        }
    }
    let start = rules.tiles().find("BA/RCr").expect("start tile");
    for (key, value) in [
        ("dragon", "1"),
        ("dragon", "x,y"),
        ("dragon", "5,5"),
        ("dragon", "99999999999,0"),
        ("fairy", "0,0,Nobody"),
        ("fairy", "0,0,A"),
        ("fairy", ""),
        ("volcano", "0,0"),
    ] {
        let p = Position {
            players: vec!["A".into(), "B".into()],
            tiles: vec![StartTile {
                kind: start,
                pos: Pos::new(0, 0),
                rotation: carcassonne_core::Rotation::R0,
            }],
            settings: vec![PositionSetting {
                expansion: "princess-dragon".into(),
                key: key.into(),
                value: value.into(),
            }],
            ..Position::default()
        };
        assert!(
            Game::from_position(Arc::clone(&rules), &p).is_err(),
            "setting {key} = {value} must fail"
        );
    }
}
