//! Seeded games with The Tower and the four *Count, King & Robber* expansions loaded as
//! plugins (and, in one test, the two fan scripts on top), 2–6 players, the Tower's options varied, random bots (and a few greedy ones).
//! Checked after every action:
//!
//! - every figure is in its owner's supply, on the board, or held as a prisoner
//!   (`Removed` with a jailer other than its owner, TW-11), per player and kind;
//!   `in_supply` agrees; every feature's occupant count equals the figures on it; each
//!   player's `tower.held` equals the prisoners he holds; the Count's tally of followers in
//!   the city is right (captures from quarters under `cocQuarterFigures=jcz`);
//! - tower pieces: pieces in supply + tower heights = players × pieces per player (TW-2;
//!   with the Black Tower, normal + black + white pieces, BW-1, BW-2);
//!   a follower stands on a tower only at height ≥ 1, one at most (TW-3, TW-6), never on a
//!   tower topped by a white piece (BW-6);
//! - scores equal the sum of the score events (ransoms are the only negative events, −3,
//!   each paired with +3 to the jailer, TW-13);
//! - at the end: every tile placed or discarded, and the record replays identically.

use carcassonne_core::{
    Action, DecisionKind, FigureKindId, FigureLoc, Game, GameSetup, OptionValue, PlayerId, Ruleset,
    SegmentId, VerbId,
};
use carcassonne_play::bots::{Bot, GreedyBot, RandomBot};
use carcassonne_play::record::Record;
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::mixed::{
    check_completed_scored, check_end, check_same_game, held_aside, scores, slot, total_tiles,
};
use carcassonne_tests::{expansions_dir, fan_expansions_dir};
use std::sync::Arc;

/// TW-2: tower pieces per player (JCZ for 1, 7 and 8 players).
fn pieces_for(players: usize) -> i64 {
    match players {
        0..=2 => 10,
        3 => 9,
        4 => 7,
        5 => 6,
        6 => 5,
        7 => 4,
        _ => 3,
    }
}

/// BW-1: (normal, black, white) pieces per player with the Black Tower.
fn black_tower_pieces_for(players: usize) -> (i64, i64, i64) {
    match players {
        0..=2 => (8, 4, 2),
        3 => (7, 3, 2),
        4 => (6, 3, 1),
        5 => (5, 2, 1),
        6 => (4, 2, 1),
        7 => (3, 2, 1),
        _ => (2, 1, 1),
    }
}

const ALL: [&str; 5] = [
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "tower",
];

const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[],
    &[
        ("tower.towerTopCapture", "immune"),
        ("tower.ransomFunds", "may-go-negative"),
        ("count.countMove", "clockwise"),
        ("tower.ransomAsked", "fcz"),
    ],
    &[
        ("tower.cocQuarterFigures", "jcz"),
        ("heretics-shrines.challengeStakes", "true"),
        ("king-robber.kingRobberAward", "continuously"),
        ("tower.ransomAsked", "jcz"),
    ],
    // The Black Tower (BW-1 … BW-7), only in its own test (`run_on` cycles over the first
    // three sets).
    &[
        ("tower.blackTower", "true"),
        ("tower.cocQuarterFigures", "jcz"),
        ("tower.ransomAsked", "fcz"),
    ],
];

/// The option sets `run_on` cycles over.
const CYCLED: usize = 3;
/// The Black Tower's option set.
const BLACK_TOWER: usize = 3;

fn rules_with(set: usize, more: &[&str]) -> Arc<Ruleset> {
    let mut expansions: Vec<String> = ALL.map(String::from).to_vec();
    expansions.extend(more.iter().map(|m| m.to_string()));
    build_ruleset(&RulesSpec {
        expansions,
        options: OPTION_SETS[set]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        plugin_dirs: vec![expansions_dir(), fan_expansions_dir()],
    })
    .unwrap_or_else(|e| panic!("the expansions load: {e}"))
}

fn check(g: &Game, ctx: &str) {
    let rules = g.rules();
    let st = g.state();
    let graph = st.graph();
    let jailer = slot(rules, "tower", "jailer");
    let held = slot(rules, "tower", "held");
    let pieces = slot(rules, "tower", "pieces");
    let tower = rules.kind_named("tower").expect("tower kind");
    let black_tower = rules.options().get("tower.blackTower") == Some(&OptionValue::Bool(true));
    let white_tops = st.slot(slot(rules, "tower", "white-tops"), 0);
    let n = st.players().len();
    let mut holding = vec![0i64; n];
    for p in 0..n {
        let player = PlayerId(p as u8);
        for (k, def) in rules.figure_kinds().iter().enumerate() {
            let kind = FigureKindId(k as u8);
            let (mut supply, mut board, mut prisoners) = (0, 0, 0);
            for (i, f) in st.figures().iter().enumerate() {
                if f.owner != player || f.kind != kind {
                    continue;
                }
                match f.loc {
                    FigureLoc::Supply => supply += 1,
                    FigureLoc::On(_) => board += 1,
                    FigureLoc::Removed => {
                        let j = st.slot(jailer, i);
                        assert!(
                            j >= 1 && (j - 1) as usize != p && ((j - 1) as usize) < n,
                            "{ctx}: removed figure {i} has jailer {j}"
                        );
                        holding[(j - 1) as usize] += 1;
                        prisoners += 1;
                    }
                }
            }
            assert_eq!(
                supply + board + prisoners,
                def.per_player as usize,
                "{ctx}: player {p} kind {k}: supply + board + prisoners"
            );
            assert_eq!(
                st.in_supply(player, kind) as usize,
                supply,
                "{ctx}: in_supply"
            );
        }
    }
    for (p, h) in holding.iter().enumerate() {
        assert_eq!(st.slot(held, p), *h, "{ctx}: tower.held of player {p}");
        let captive = st
            .figures()
            .iter()
            .filter(|f| f.owner.index() == p && f.loc == FigureLoc::Removed)
            .count() as i64;
        assert_eq!(
            st.slot(slot(rules, "tower", "captive"), p),
            captive,
            "{ctx}: tower.captive of player {p}"
        );
    }
    let mut on_feature = vec![0u16; graph.len()];
    let mut in_quarters = 0;
    for f in st.figures() {
        if let FigureLoc::On(seg) = f.loc {
            on_feature[graph.feature_of(seg).0 as usize] += 1;
            in_quarters += i64::from(graph.segment(seg).is_virtual());
        }
    }
    // The Count's tally stays right when a capture takes a follower out of a quarter
    // (`cocQuarterFigures=jcz`).
    assert_eq!(
        st.slot(slot(rules, "count", "in-city"), 0),
        in_quarters,
        "{ctx}: the Count's tally"
    );
    for i in 0..graph.len() {
        let f = graph.feature_of(SegmentId::new(i));
        assert_eq!(
            graph.totals(f).occupants,
            on_feature[f.0 as usize],
            "{ctx}: occupants of the feature of segment {i}"
        );
    }
    // Towers: heights in placement order of the foundations.
    let mut heights = 0i64;
    let mut k = 0usize;
    for t in st.board().tiles() {
        let tk = rules.tiles().get(t.kind);
        let Some(local) = tk.segments.iter().position(|s| s.kind == tower) else {
            continue;
        };
        k += 1;
        let h = st.slot(slot(rules, "tower", &format!("height.{k}")), 0);
        heights += h;
        let seg = SegmentId::new(t.first_segment as usize + local);
        let on = graph.totals(graph.feature_of(seg)).occupants;
        assert!(on <= 1, "{ctx}: {on} followers on the tower at {}", t.pos);
        assert!(
            on == 0 || h >= 1,
            "{ctx}: a follower on a bare foundation at {}",
            t.pos
        );
        let white = white_tops >> (k - 1) & 1 == 1;
        assert!(
            !(white && on > 0),
            "{ctx}: a follower on a white top at {}",
            t.pos
        );
        assert!(
            black_tower || !white,
            "{ctx}: a white top without the option"
        );
    }
    let mut left: i64 = (0..n).map(|p| st.slot(pieces, p)).sum();
    let each = if black_tower {
        for colour in ["black-pieces", "white-pieces"] {
            let s = slot(rules, "tower", colour);
            left += (0..n).map(|p| st.slot(s, p)).sum::<i64>();
        }
        let (normal, black, white) = black_tower_pieces_for(n);
        normal + black + white
    } else {
        pieces_for(n)
    };
    assert_eq!(
        left + heights,
        n as i64 * each,
        "{ctx}: tower pieces conserved"
    );
    let mut sum = vec![0; n];
    for e in st.events() {
        sum[e.player.index()] += e.points;
    }
    assert_eq!(sum, scores(g), "{ctx}: scores are the sum of the events");
}

/// Captures, ransoms, ransoms paid as a free action in another expansion's prompt, and black
/// or white pieces placed (BW-3, BW-5).
fn play(set: usize, rules: &Arc<Ruleset>, seed: u64, greedy: bool) -> (u32, u32, u32, u32) {
    let players = 2 + (seed % 5) as usize;
    let ctx = format!("option set {set}, seed {seed}, {players} players, greedy {greedy}");
    let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
    let mut g = Game::new(Arc::clone(rules), &setup).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    // With Princess & Dragon, its dragon tiles wait aside until a volcano (PD-3).
    let total = total_tiles(&g) + held_aside(&g);
    let mut bots: Vec<Box<dyn Bot>> = (0..players)
        .map(|p| -> Box<dyn Bot> {
            let s = seed.rotate_left(9) ^ p as u64;
            if greedy && p == 0 {
                Box::new(GreedyBot::new(s))
            } else {
                Box::new(RandomBot::new(s))
            }
        })
        .collect();
    let capture = rules.verb_named(rules.expansion_index("tower").expect("tower"), "capture");
    let ransom = rules.verb_named(rules.expansion_index("tower").expect("tower"), "pay-ransom");
    let colours = ["black-tower-piece", "white-tower-piece"]
        .map(|v| rules.verb_named(rules.expansion_index("tower").expect("tower"), v));
    let (mut captures, mut ransoms, mut free, mut coloured) = (0, 0, 0, 0);
    let mut actions: Vec<Action> = Vec::new();
    while !g.is_over() {
        assert!(actions.len() < 3000, "{ctx}: the game does not end");
        if matches!(g.decision().kind, DecisionKind::PlaceTile { .. }) {
            check_completed_scored(&g, &ctx);
        }
        check_ransom_offers(&g, ransom, &ctx);
        let i = bots[g.decision().player.index()].choose(&g);
        let a = g.actions()[i];
        if let Action::Custom(c) = a {
            captures += (Some(c.verb) == capture) as u32;
            ransoms += (Some(c.verb) == ransom) as u32;
            coloured += colours.contains(&Some(c.verb)) as u32;
        }
        let before = g.decision();
        g.apply(a)
            .unwrap_or_else(|e| panic!("{ctx}: offered {a} refused: {e}"));
        // TW-13 at any decision of the turn player: a ransom offered in another expansion's
        // prompt (the Count's, a dragon step, …) leaves that prompt pending, asked again.
        if let (DecisionKind::Prompt(p), Action::Custom(c)) = (before.kind, a) {
            if c.expansion != p.owner {
                assert_eq!(Some(c.verb), ransom, "{ctx}: a free action is a ransom");
                assert_eq!(p.player, g.state().active_player(), "{ctx}: {a} in turn");
                assert_eq!(
                    g.decision(),
                    before,
                    "{ctx}: the prompt is asked again after {a}"
                );
                free += 1;
            }
        }
        actions.push(a);
        check(&g, &ctx);
    }
    check_end(&g, total - held_aside(&g), &ctx);
    let record =
        Record::with_setup(&g, &setup, &actions).unwrap_or_else(|e| panic!("{ctx}: record: {e}"));
    let json = serde_json::to_string(&record).expect("record serialises");
    let parsed = Record::parse(&json, &ctx).expect("record parses");
    let replayed = parsed
        .replay_with(rules, &ctx, None)
        .unwrap_or_else(|e| panic!("{ctx}: replay: {e}"));
    check_same_game(&replayed, &g, &ctx);
    (captures, ransoms, free, coloured)
}

/// TW-13: the ransoms offered (in a deployment step, a prompt or as free actions) are one
/// per (jailer, kind) of the turn player's followers held by others, each at its first
/// prisoner by figure id, in that order: the plugin's one pass over the player's figures
/// against a scan of every figure here.
fn check_ransom_offers(g: &Game, ransom: Option<VerbId>, ctx: &str) {
    let offered: Vec<i32> = g
        .actions()
        .iter()
        .filter_map(|a| match a {
            Action::Custom(c) if Some(c.verb) == ransom => Some(c.value),
            _ => None,
        })
        .collect();
    if offered.is_empty() {
        return;
    }
    let st = g.state();
    let p = st.active_player();
    let jailer = slot(g.rules(), "tower", "jailer");
    let mut expected: Vec<i32> = Vec::new();
    for (i, f) in st.figures().iter().enumerate() {
        let j = st.slot(jailer, i);
        if f.owner != p || f.loc != FigureLoc::Removed || j <= 0 || j - 1 == i64::from(p.0) {
            continue;
        }
        let value = (j - 1) as i32 + 256 * i32::from(f.kind.0);
        if !expected.contains(&value) {
            expected.push(value);
        }
    }
    assert_eq!(offered, expected, "{ctx}: the ransoms offered to {p:?}");
}

fn run(from: u64, to: u64, greedy: bool) -> (u32, u32, u32) {
    run_on(from, to, greedy, &[])
}

fn run_on(from: u64, to: u64, greedy: bool, more: &[&str]) -> (u32, u32, u32) {
    let rulesets: Vec<Arc<Ruleset>> = (0..CYCLED).map(|set| rules_with(set, more)).collect();
    let mut totals = (0, 0, 0);
    for seed in from..to {
        let set = (seed % CYCLED as u64) as usize;
        let (c, r, f, _) = play(set, &rulesets[set], seed, greedy);
        totals.0 += c;
        totals.1 += r;
        totals.2 += f;
    }
    totals
}

#[test]
fn tower_games_0_to_400_keep_every_invariant() {
    let (captures, ransoms, free) = run(0, 400, false);
    // The random bots do reach every decision of the Tower.
    assert!(captures > 100, "{captures} captures");
    assert!(ransoms > 10, "{ransoms} ransoms");
    // TW-13: also in the Count's prompts (its deployment and rounds) of the turn player.
    assert!(free > 0, "{free} ransoms in another expansion's prompt");
}

#[test]
fn tower_games_400_to_800_keep_every_invariant() {
    run(400, 800, false);
}

#[test]
fn tower_games_with_a_greedy_bot_keep_every_invariant() {
    run(800, 830, true);
}

/// With the two fan scripts on top (the Tactician's tokens after the capture, Promotions'
/// discs returning when their follower is captured).
#[test]
fn tower_games_with_the_fan_scripts_keep_every_invariant() {
    let (captures, _, _) = run_on(900, 1050, false, &["tactician", "promotions"]);
    assert!(captures > 20, "{captures} captures");
}

/// Every official expansion together (issue 17, item 8): the Tower with Princess & Dragon
/// (the capture before the flight, tower tops eaten per `dragonVsTowerTop`, TW-22), Inns &
/// Cathedrals' big followers (captured, exchanged, ransomed, TW-21) and Traders & Builders'
/// builders and pigs (never captured, orphans returned, two pieces in a double turn), then the
/// fan scripts on top.
#[test]
fn tower_games_with_every_official_expansion_keep_every_invariant() {
    let all = ["princess-dragon", "inns-cathedrals", "traders-builders"];
    let (captures, _, _) = run_on(1100, 1250, false, &all);
    assert!(captures > 20, "{captures} captures");
    let all_fan = [
        "princess-dragon",
        "inns-cathedrals",
        "traders-builders",
        "tactician",
        "promotions",
    ];
    run_on(1250, 1310, false, &all_fan);
}

/// The Black Tower (BW-1 … BW-7): black and white pieces are placed, captures follow black
/// pieces, white tops stay free of followers, and every piece of every colour is accounted
/// for; alone, then with every official expansion.
#[test]
fn black_tower_games_keep_every_invariant() {
    let (mut captures, mut coloured) = (0, 0);
    for (from, to, more) in [
        (1400u64, 1520u64, &[][..]),
        (
            1520,
            1580,
            &["princess-dragon", "inns-cathedrals", "traders-builders"][..],
        ),
    ] {
        let rules = rules_with(BLACK_TOWER, more);
        for seed in from..to {
            let (c, _, _, w) = play(BLACK_TOWER, &rules, seed, seed % 5 == 0);
            captures += c;
            coloured += w;
        }
    }
    assert!(captures > 20, "{captures} captures");
    assert!(coloured > 100, "{coloured} black and white pieces placed");
}
