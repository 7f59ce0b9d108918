//! The Count's moves out of the City of Carcassonne (CO-10, CO-18) against general scans, at
//! every decision of seeded random games (issue 33 item 1, mcts19). The plugin lists the final
//! round's targets from per-tile-kind tables of the placed tiles' segments (no segment node
//! read) and its followers per quarter in one pass over the figures; here every final offer is
//! rebuilt from a scan of every segment's node in graph order and of every figure per
//! quarter, and every redeployment offer's followers per quarter are checked the same way.

use carcassonne_core::{
    Action, DecisionKind, FeatureKindId, FigureId, FigureKindId, FigureLoc, Game, GameSetup,
    Ruleset, Scoring, SegmentId,
};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_tests::mixed::{apply_monotone, slot};
use carcassonne_tests::official_and_fan_rules;
use std::sync::Arc;

/// The scoring of each quarter's features (castle, market, blacksmith, cathedral) and the
/// base kind a follower must be able to stand on to go there (CO-9).
const QUARTERS: [(Scoring, FeatureKindId); 4] = [
    (Scoring::City, FeatureKindId::CITY),
    (Scoring::Farm, FeatureKindId::FIELD),
    (Scoring::Road, FeatureKindId::ROAD),
    (Scoring::Cloister, FeatureKindId::CLOISTER),
];

/// Per quarter, the first follower of each kind `g`'s deciding player has there that may
/// leave it (not the Count's quarter; only the market under `market_only`), by figure id.
fn followers(g: &Game, market_only: bool) -> [Vec<FigureId>; 4] {
    let rules = g.rules();
    let st = g.state();
    let player = g.decision().player;
    let get = |n: &str| st.slot(slot(rules, "count", n), 0);
    let count = get("count").rem_euclid(4) as usize;
    let quarters = ["castle", "market", "blacksmith", "cathedral"].map(get);
    let mut out: [Vec<FigureId>; 4] = Default::default();
    for (q, list) in out.iter_mut().enumerate() {
        if q == count || (market_only && q != 1) {
            continue;
        }
        let mut kinds: Vec<FigureKindId> = Vec::new();
        for (i, f) in st.figures().iter().enumerate() {
            let def = rules.figure_kind(f.kind);
            if f.owner == player
                && f.loc == FigureLoc::On(SegmentId::new(quarters[q] as usize))
                && def.follower
                && def.deploy_on.contains(QUARTERS[q].1)
                && !kinds.contains(&f.kind)
            {
                kinds.push(f.kind);
                list.push(FigureId(i as u16));
            }
        }
    }
    out
}

/// The quarter whose followers go to features of `kind`, if any.
fn quarter_of(rules: &Ruleset, kind: FeatureKindId) -> Option<usize> {
    let scoring = rules.kind(kind).scoring;
    QUARTERS.iter().position(|(s, _)| *s == scoring)
}

/// CO-18: every final target of quarter `q`, by a scan of every segment's node in graph
/// order: a feature's representative on the grid, a farm (with farmers) or an incomplete,
/// unscored city, road or cloister-scored building, not on the dragon's tile (PD-5).
fn final_targets(g: &Game, q: usize) -> Vec<SegmentId> {
    let rules = g.rules();
    let graph = g.state().graph();
    let dragon = rules.expansion_index("princess-dragon").and_then(|_| {
        let get = |n: &str| g.state().slot(slot(rules, "princess-dragon", n), 0);
        (get("dragon") != 0).then(|| (get("dragon-x"), get("dragon-y")))
    });
    (0..graph.len())
        .map(SegmentId::new)
        .filter(|s| {
            let node = graph.segment(*s);
            let f = graph.feature_of(*s);
            let t = graph.totals(f);
            quarter_of(rules, node.kind) == Some(q)
                && !node.is_virtual()
                && f.segment() == *s
                && dragon != Some((i64::from(node.pos.x), i64::from(node.pos.y)))
                && if q == 1 {
                    rules.base().farmers
                } else {
                    !t.scored && !t.complete()
                }
        })
        .collect()
}

/// The moves `figs` give onto `targets` per quarter, in the plugin's order.
fn moves(figs: &[Vec<FigureId>; 4], targets: &[Vec<SegmentId>; 4]) -> Vec<Action> {
    let mut out = Vec::new();
    for q in 0..4 {
        for &segment in &targets[q] {
            for &figure in &figs[q] {
                out.push(Action::Move { figure, segment });
            }
        }
    }
    out
}

/// At a Count prompt (tags: 1 redeploy, 4 final), the offered moves against the scans;
/// returns whether this was a final prompt with a move.
fn check_count_offers(g: &Game, market_only: bool, ctx: &str) -> bool {
    let DecisionKind::Prompt(p) = g.decision().kind else {
        return false;
    };
    if Some(p.owner) != g.rules().expansion_index("count") {
        return false;
    }
    let offered: Vec<Action> = g
        .actions()
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Move { .. }))
        .collect();
    match p.code().tag {
        4 => {
            let figs = followers(g, market_only);
            let targets: [Vec<SegmentId>; 4] = std::array::from_fn(|q| {
                if figs[q].is_empty() {
                    Vec::new()
                } else {
                    final_targets(g, q)
                }
            });
            let expected = moves(&figs, &targets);
            assert_eq!(offered, expected, "{ctx}: the final round's offers (CO-18)");
            !expected.is_empty()
        }
        1 => {
            // The targets as offered (the features the placement completed), by quarter.
            let figs = followers(g, false);
            let mut targets: [Vec<SegmentId>; 4] = Default::default();
            for a in &offered {
                if let Action::Move { segment, .. } = a {
                    let kind = g.state().graph().segment(*segment).kind;
                    let q = quarter_of(g.rules(), kind).expect("a target has a quarter");
                    if !targets[q].contains(segment) {
                        targets[q].push(*segment);
                    }
                }
            }
            assert_eq!(
                offered,
                moves(&figs, &targets),
                "{ctx}: the redeployment's offers (CO-10)"
            );
            false
        }
        _ => false,
    }
}

/// Expansions and options of one set of games.
type Set = (
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

/// Sets of expansions and options the games cycle through.
const SETS: &[Set] = &[
    (&["count"], &[]),
    (
        &[
            "count",
            "inns-cathedrals",
            "traders-builders",
            "abbey-mayor",
        ],
        &[("count.cocFinal", "market-only")],
    ),
    (
        &["count", "tower", "princess-dragon", "king-robber", "river2"],
        &[("count.finalRound", "pass-is-final"), ("farmers", "false")],
    ),
    (
        &[
            "count",
            "hills-sheep",
            "bridges-castles-bazaars",
            "big-top",
            "heretics-shrines",
        ],
        &[("count.countMove", "clockwise")],
    ),
];

fn play(set: usize, seed: u64) -> usize {
    let (expansions, options) = SETS[set];
    let rules: Arc<Ruleset> = official_and_fan_rules(expansions, options);
    let market_only = rules.options().str("count.cocFinal") == "market-only";
    let players = 2 + (seed % 3) as usize;
    let ctx = format!("set {set}, seed {seed}, {players} players");
    let setup = GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), seed);
    let mut g = Game::new(Arc::clone(&rules), &setup).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let mut bots: Vec<RandomBot> = (0..players)
        .map(|p| RandomBot::new(seed.rotate_left(9) ^ p as u64))
        .collect();
    let mut finals = 0;
    let mut steps = 0;
    while !g.is_over() {
        steps += 1;
        assert!(steps < 5000, "{ctx}: the game does not end");
        finals += usize::from(check_count_offers(&g, market_only, &ctx));
        let i = bots[g.decision().player.index()].choose(&g);
        let a = g.actions()[i];
        apply_monotone(&mut g, a, &ctx);
    }
    finals
}

#[test]
fn count_offers_match_general_scans() {
    let mut finals = 0;
    for set in 0..SETS.len() {
        for seed in 0..40u64 {
            finals += play(set, 1000 + seed * 7 + set as u64);
        }
    }
    // Random games put followers in the city often enough that the final round is seen
    // (25 in these 160 games; the first 120 gave only 20 once the Big Top loaded after Hills &
    // Sheep, so the seeds go on to 40 a set, which also reached a final round beside the
    // dragon, PD-5).
    assert!(finals > 20, "only {finals} final prompts with a move");
}
