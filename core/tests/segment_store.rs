//! The feature graph's own segment store (`FeatureGraph::graph`, core's vectors) against
//! the petgraph graph built from it on demand (`FeatureGraph::to_petgraph`): the same
//! nodes, the same border edges, and every segment's borders in petgraph's order, at every
//! step of seeded random games; and a copy refilled again and again from a game (each
//! refill undoing the copy's placements by a rewind) equal to its source, down to the
//! border lists.

mod common;

use carcassonne_core::*;
use petgraph::visit::EdgeRef;
use rand::{Rng, SeedableRng};
use std::sync::Arc;

/// Fields bordering two cities, one of them enclosed, and a cloister.
const SET: &str = r#"
schema = 1
set = "borders"

[[tile]]
id = "T/CFC"
count = 3
edges = "CFCF"
features = [
  { kind = "city", sides = "N" },
  { kind = "city", sides = "S" },
  { kind = "field", halves = ["EL", "ER", "WL", "WR"], cities = ["N", "S"] },
]

[[tile]]
id = "T/X"
count = 2
edges = "FFFF"
features = [
  { kind = "cloister" },
  { kind = "field", halves = ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"] },
]
"#;

/// The store against the petgraph view, segment by segment.
fn check_store(st: &GameState, ctx: &str) {
    let g = st.graph();
    let store = g.graph();
    let pg = g.to_petgraph();
    assert_eq!(pg.node_count(), g.len(), "{ctx}");
    assert_eq!(store.node_count(), g.len(), "{ctx}");
    assert_eq!(pg.edge_count(), store.edge_count(), "{ctx}");
    for (i, n) in store.raw_nodes().iter().enumerate() {
        let s = SegmentId::new(i);
        assert_eq!(pg[s], n.weight, "{ctx}: segment {i}");
        assert_eq!(*g.segment(s), n.weight, "{ctx}: segment {i}");
        // petgraph's own iteration order of the node's edges.
        let want: Vec<SegmentId> = pg
            .edges(s)
            .map(|e| {
                if e.source() == s {
                    e.target()
                } else {
                    e.source()
                }
            })
            .collect();
        let got: Vec<SegmentId> = g.borders(s).collect();
        assert_eq!(got, want, "{ctx}: borders of segment {i}");
    }
    for (e, pe) in store.raw_edges().iter().zip(pg.raw_edges()) {
        assert_eq!(
            (e.source(), e.target()),
            (pe.source(), pe.target()),
            "{ctx}"
        );
        assert_eq!(pe.weight, Link::Borders, "{ctx}");
    }
    // Each field's bordering features as a walk of petgraph's edges finds them.
    let mut out = Vec::new();
    for i in 0..g.len() {
        let s = SegmentId::new(i);
        if !g.represents(s) || g.kind(FeatureId(i as u32)) != FeatureKindId::FIELD {
            continue;
        }
        let f = FeatureId(i as u32);
        g.bordering_features(f, &mut out);
        let mut want = Vec::new();
        for m in g.members(f) {
            for e in pg.edges(m) {
                let c = if e.source() == m {
                    e.target()
                } else {
                    e.source()
                };
                let cf = g.feature_of(c);
                if !want.contains(&cf) {
                    want.push(cf);
                }
            }
        }
        assert_eq!(out, want, "{ctx}: field {i}");
    }
}

/// At every step of seeded random games, the store against the petgraph view.
#[test]
fn the_store_matches_its_petgraph_view_in_random_games() {
    let mut borders = 0;
    for rules in [common::rules(), common::rules_with(SET)] {
        common::play_random(&rules, &["R", "B", "G"], 8, |g, ctx| {
            check_store(g.state(), ctx);
            borders = borders.max(g.state().graph().graph().edge_count());
        });
    }
    assert!(borders > 40, "{borders} borders at most");
}

/// A copy refilled from a game before each of its tries (a few random actions, tiles
/// placed among them) equals its source after every refill, border lists and all: the
/// refill rewinds the copy's appended segments and borders instead of copying them.
#[test]
fn a_refilled_copy_equals_its_source_after_its_tries() {
    let rules = common::rules_with(SET);
    for seed in 0..6u64 {
        let setup = GameSetup::new(vec!["R".into(), "B".into()], seed);
        let mut g = Game::new(Arc::clone(&rules), &setup).expect("a game");
        let mut copy = g.clone();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut step = 0;
        while !g.is_over() {
            for try_ in 0..3 {
                if try_ % 2 == 0 {
                    copy.refill_for_try(&g);
                } else {
                    copy.refill_from(&g);
                }
                let ctx = format!("seed {seed}, step {step}, try {try_}");
                assert!(
                    copy.state().graph().graph() == g.state().graph().graph(),
                    "{ctx}"
                );
                assert_eq!(copy.state().graph().len(), g.state().graph().len(), "{ctx}");
                for _ in 0..4 {
                    if copy.is_over() {
                        break;
                    }
                    let n = copy.actions().len();
                    copy.apply_offered(rng.random_range(0..n)).expect("offered");
                }
                check_store(copy.state(), &ctx);
            }
            let n = g.actions().len();
            g.apply_offered(rng.random_range(0..n)).expect("offered");
            step += 1;
        }
    }
}
