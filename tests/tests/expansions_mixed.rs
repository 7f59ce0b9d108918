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
//! The games are split into four tests so that the test harness runs them in parallel.

use carcassonne_core::{
    Action, DecisionKind, FigureKindId, FigureLoc, Game, GameSetup, PlayerId, Ruleset, Scoring,
    SegmentId, Side, SlotId,
};
use carcassonne_host::bots::{Bot, RandomBot};
use carcassonne_host::record::Record;
use carcassonne_host::rules::{build_ruleset, RulesSpec};
use carcassonne_tests::expansions_dir;
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

fn slot(rules: &Ruleset, expansion: &str, name: &str) -> SlotId {
    let ix = rules.expansion_index(expansion).expect("loaded");
    SlotId(
        rules
            .slots()
            .iter()
            .position(|d| d.expansion == ix && d.name == name)
            .unwrap_or_else(|| panic!("slot {expansion}.{name}")) as u16,
    )
}

fn scores(g: &Game) -> Vec<i32> {
    g.state().players().iter().map(|p| p.score).collect()
}

/// Figures conserved, occupancy exact, the Count's city tally right, scores = events.
fn check_figures_and_scores(g: &Game, in_city: SlotId, ctx: &str) {
    let rules = g.rules();
    let st = g.state();
    let graph = st.graph();
    for p in 0..st.players().len() {
        let player = PlayerId(p as u8);
        for (k, def) in rules.figure_kinds().iter().enumerate() {
            let kind = FigureKindId(k as u8);
            let mine = st
                .figures()
                .iter()
                .filter(|f| f.owner == player && f.kind == kind);
            let (mut supply, mut board) = (0, 0);
            for f in mine {
                match f.loc {
                    FigureLoc::Supply => supply += 1,
                    FigureLoc::On(_) => board += 1,
                    FigureLoc::Removed => panic!("{ctx}: no expansion here removes figures"),
                }
            }
            assert_eq!(
                supply + board,
                def.per_player as usize,
                "{ctx}: player {p} kind {k}"
            );
            assert_eq!(
                st.in_supply(player, kind) as usize,
                supply,
                "{ctx}: in_supply"
            );
        }
    }
    let mut on_feature = vec![0u16; graph.len()];
    let mut in_quarters = 0;
    for f in st.figures() {
        if let FigureLoc::On(seg) = f.loc {
            let node = graph.segment(seg);
            assert!(
                rules.kind(node.kind).occupiable,
                "{ctx}: figure on {node:?}"
            );
            if node.is_virtual() {
                assert_eq!(rules.kind(node.kind).name, "quarter", "{ctx}");
                in_quarters += 1;
            }
            on_feature[graph.feature_of(seg).0 as usize] += 1;
        }
    }
    assert_eq!(st.slot(in_city, 0), in_quarters, "{ctx}: the Count's tally");
    for i in 0..graph.len() {
        let f = graph.feature_of(SegmentId::new(i));
        assert_eq!(
            graph.totals(f).occupants,
            on_feature[f.0 as usize],
            "{ctx}: occupants of the feature of segment {i}"
        );
    }
    let mut sum = vec![0; st.players().len()];
    for e in st.events() {
        assert!(e.points >= 0, "{ctx}: negative event {e:?}");
        sum[e.player.index()] += e.points;
    }
    assert_eq!(sum, scores(g), "{ctx}: scores are the sum of the events");
}

/// A-11 at a tile step: completed grid features are scored and empty.
fn check_completed_scored(g: &Game, ctx: &str) {
    let graph = g.state().graph();
    for i in 0..graph.len() {
        let seg = SegmentId::new(i);
        let f = graph.feature_of(seg);
        let t = graph.totals(f);
        if f.segment() == seg && t.complete() && !graph.segment(seg).is_virtual() {
            let scored = g.rules().kind(graph.kind(f)).scoring != Scoring::Unscored;
            assert!(
                t.scored || !scored,
                "{ctx}: completed feature {i} not scored"
            );
            assert_eq!(t.occupants, 0, "{ctx}: completed feature {i} holds figures");
        }
    }
}

fn check_end(g: &Game, total_tiles: usize, ctx: &str) {
    let rules = g.rules();
    let st = g.state();
    assert!(g.is_over());
    assert_eq!(
        st.board().tiles().len() + st.discarded().len(),
        total_tiles,
        "{ctx}: every tile placed or discarded"
    );
    let shrine = rules.kind_named("shrine").expect("shrine kind");
    let river = rules.kind_named("river").expect("river kind");
    let crowding = rules.options().flag("heretics-shrines.shrineCrowding");
    let mut river_tiles = 0;
    let mut river_contacts = 0;
    for t in st.board().tiles() {
        let tk = rules.tiles().get(t.kind);
        let water = river.0 + 1;
        let is_river = Side::ALL
            .iter()
            .any(|s| tk.edge_at(t.rotation, *s) == water);
        river_tiles += is_river as usize;
        for s in Side::ALL {
            if let Some(n) = st.board().at(t.pos.step(s)) {
                let nk = rules.tiles().get(n.kind);
                let (a, b) = (
                    tk.edge_at(t.rotation, s),
                    nk.edge_at(n.rotation, s.opposite()),
                );
                assert_eq!(a, b, "{ctx}: edges of {} and {} differ", t.pos, n.pos);
                river_contacts += (a == water) as usize;
            }
        }
        // HS-3: buildings around a shrine / a cloister.
        let has = |pos: carcassonne_core::Pos, want_shrine: bool| {
            st.board().at(pos).is_some_and(|n| {
                rules.tiles().get(n.kind).segments.iter().any(|s| {
                    let k = rules.kind(s.kind);
                    k.scoring == Scoring::Cloister && (s.kind == shrine) == want_shrine
                })
            })
        };
        for want_shrine in [true, false] {
            if has(t.pos, want_shrine) && !crowding {
                let rivals = t
                    .pos
                    .surrounding()
                    .iter()
                    .filter(|q| has(**q, !want_shrine))
                    .count();
                assert!(rivals < 2, "{ctx}: HS-3 broken at {}", t.pos);
            }
        }
    }
    // Each contact is seen from both sides; a tree of n river tiles has n - 1 contacts.
    assert_eq!(
        river_contacts / 2 + 1,
        river_tiles,
        "{ctx}: the river is not a tree from the spring"
    );
    // KR-3 … KR-5: records = largest completed city / road.
    let graph = st.graph();
    for (title, scoring) in [("king", Scoring::City), ("robber", Scoring::Road)] {
        let mut largest = 0;
        for i in 0..graph.len() {
            let seg = SegmentId::new(i);
            let f = graph.feature_of(seg);
            if f.segment() == seg
                && !graph.segment(seg).is_virtual()
                && graph.totals(f).complete()
                && rules.kind(graph.kind(f)).scoring == scoring
            {
                largest = largest.max(graph.tile_count(f) as i64);
            }
        }
        let record = st.slot(slot(rules, "king-robber", &format!("{title}-record")), 0);
        let holder = st.slot(slot(rules, "king-robber", title), 0);
        assert_eq!(record, largest, "{ctx}: {title} record");
        assert_eq!(holder >= 0, largest > 0, "{ctx}: {title} holder {holder}");
    }
}

fn play_and_check(set: usize, rules: &Arc<Ruleset>, seed: u64) {
    let players = 2 + (seed % 4) as usize;
    let ctx = format!("option set {set}, seed {seed}, {players} players");
    let mut g = Game::new(
        Arc::clone(rules),
        &GameSetup {
            players: (0..players).map(|i| format!("P{i}")).collect(),
            seed,
        },
    )
    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let in_city = slot(rules, "count", "in-city");
    // Tiles in play: on the board, in the supply, discarded, and the one drawn now.
    let drawn = matches!(g.decision().kind, DecisionKind::PlaceTile { .. }) as usize;
    let total_tiles = g.state().board().tiles().len()
        + g.state().supply().remaining()
        + g.state().discarded().len()
        + drawn;
    let mut bots: Vec<RandomBot> = (0..players)
        .map(|p| RandomBot::new(seed.rotate_left(7) ^ p as u64))
        .collect();
    let mut actions: Vec<Action> = Vec::new();
    while !g.is_over() {
        assert!(actions.len() < 2000, "{ctx}: the game does not end");
        if matches!(g.decision().kind, DecisionKind::PlaceTile { .. }) {
            check_completed_scored(&g, &ctx);
        }
        let before = scores(&g);
        let events = g.state().events().len();
        let i = bots[g.decision().player.index()].choose(&g);
        let a = g.actions()[i];
        g.apply(a)
            .unwrap_or_else(|e| panic!("{ctx}: offered {a} refused: {e}"));
        actions.push(a);
        for (p, (b, n)) in before.iter().zip(scores(&g)).enumerate() {
            assert!(n >= *b, "{ctx}: player {p}'s score fell after {a}");
        }
        assert!(
            g.state().events().len() >= events,
            "{ctx}: events rewritten"
        );
        check_figures_and_scores(&g, in_city, &ctx);
    }
    check_end(&g, total_tiles, &ctx);
    // The record replays to the identical game.
    let record = Record::new(&g, seed, &actions);
    let json = serde_json::to_string(&record).expect("record serialises");
    let parsed = Record::parse(&json, &ctx).expect("record parses");
    let replayed = parsed
        .replay_with(rules, &ctx, None)
        .unwrap_or_else(|e| panic!("{ctx}: replay: {e}"));
    assert_eq!(scores(&replayed), scores(&g), "{ctx}: replayed scores");
    assert_eq!(
        replayed.state().events(),
        g.state().events(),
        "{ctx}: events"
    );
    assert_eq!(
        replayed.state().figures(),
        g.state().figures(),
        "{ctx}: figures"
    );
    let cells = |g: &Game| -> Vec<_> {
        g.state()
            .board()
            .tiles()
            .iter()
            .map(|t| (t.kind, t.pos, t.rotation))
            .collect()
    };
    assert_eq!(cells(&replayed), cells(&g), "{ctx}: board");
}

/// Games `from..to` (seed = index), option sets in turn.
fn run(from: u64, to: u64) {
    let rulesets: Vec<Arc<Ruleset>> = (0..OPTION_SETS.len()).map(rules).collect();
    for seed in from..to {
        let set = (seed % OPTION_SETS.len() as u64) as usize;
        play_and_check(set, &rulesets[set], seed);
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
