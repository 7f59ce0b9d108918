//! A tile kind's per-rotation tables, computed once when the kind is loaded
//! (`TileKind::templates`, the turned side, half-edge and sharer tables) against the
//! general computation from its segments at rotation 0, for every kind of the base game, a
//! set with shared sides and a barrier, and variants (`TileCatalog::add_variant`); and the
//! segments `place_tile` adds from them against the tile's segments turned, at every step
//! of seeded random games. Also each kind's flat border list (`TileKind::borders`) against
//! its segments' `cities`, and each side's link (`TileKind::side_link`: what `place_tile`
//! reads for a neighbour across it) against the segments.

mod common;

use carcassonne_core::tile::{SegmentTemplate, TileKind};
use carcassonne_core::*;
use std::sync::Arc;

/// A city sharing a side (HS/CC!.v's layout), a barrier and an enclosed city.
const SET: &str = r#"
schema = 1
set = "shared"

[[tile]]
id = "T/CC!"
count = 2
edges = "CCFC"
features = [
  { kind = "city", sides = "NW", pennants = 1 },
  { kind = "city", sides = "E", shares = "N" },
  { kind = "field", halves = ["SL", "SR"], cities = ["N", "E"] },
]

[[tile]]
id = "T/X"
count = 2
edges = "XXXX"
features = [{ kind = "cloister" }]
"#;

/// The template of `seg` turned by `r`, computed as placing it segment by segment does.
fn general(rules: &Ruleset, seg: &tile::Segment, r: Rotation) -> SegmentTemplate {
    let def = rules.kind(seg.kind);
    let edge = matches!(def.shape, Shape::Edge { .. });
    let site = def.shape == Shape::Site;
    let mut open = seg.halves.0.count_ones() as u16;
    if edge {
        open += (seg.sides.len() + seg.shares.len()) as u16;
    }
    SegmentTemplate {
        kind: seg.kind,
        sides: seg.sides.rotate(r),
        halves: seg.halves.rotate(r),
        pennants: seg.pennants,
        open,
        site,
        completable: def.completes && (edge || site),
        // No expansion here asks for a mark (`segment_marks.rs` tests them).
        marks: 0,
    }
}

/// Every table of `tk` against the general computation; returns how many segments.
fn check_kind(rules: &Ruleset, tk: &TileKind) -> usize {
    for r in Rotation::ALL {
        let want: Vec<SegmentTemplate> = tk.segments.iter().map(|s| general(rules, s, r)).collect();
        assert_eq!(tk.templates(r), &want[..], "{} at {r}", tk.id);
        for s in Side::ALL {
            let on = tk
                .segments
                .iter()
                .position(|g| g.sides.rotate(r).contains(s))
                .map(|i| i as u8);
            assert_eq!(tk.segment_on_side(r, s), on, "{} at {r}, side {s:?}", tk.id);
            let sharer = tk
                .segments
                .iter()
                .position(|g| g.shares.rotate(r).contains(s))
                .map(|i| i as u8);
            assert_eq!(
                tk.sharer_on_side(r, s),
                sharer,
                "{} at {r}, sharer {s:?}",
                tk.id
            );
        }
        for h in 0..8u8 {
            let h = side::HalfEdge::from_index(h);
            let on = tk
                .segments
                .iter()
                .position(|g| g.halves.rotate(r).0 & (1 << h.index()) != 0)
                .map(|i| i as u8);
            assert_eq!(tk.segment_on_half(r, h), on, "{} at {r}, half {h:?}", tk.id);
        }
        // `side_link`, what `place_tile` reads for a neighbour across each side: the side's
        // segment, its sharer and its two half-edges' fields, from the segments.
        for s in Side::ALL {
            let find = |f: &dyn Fn(&tile::Segment) -> bool| {
                tk.segments
                    .iter()
                    .position(f)
                    .map_or(tile::NO_SEGMENT, |i| i as u8)
            };
            let half = |h: u8| find(&|g: &tile::Segment| g.halves.rotate(r).0 & (1 << h) != 0);
            let want = [
                find(&|g: &tile::Segment| g.sides.rotate(r).contains(s)),
                find(&|g: &tile::Segment| g.shares.rotate(r).contains(s)),
                half(2 * s.index()),
                half(2 * s.index() + 1),
            ];
            assert_eq!(tk.side_link(r, s), want, "{} at {r}, link {s:?}", tk.id);
        }
    }
    // The flat border list `place_tile` adds: each field's cities in segment order.
    let mut borders = Vec::new();
    for (i, seg) in tk.segments.iter().enumerate() {
        for &c in &seg.cities {
            borders.push((i as u8, c));
        }
    }
    assert_eq!(tk.borders(), &borders[..], "{} borders", tk.id);
    tk.segments.len()
}

#[test]
fn templates_and_turned_tables_match_the_segments() {
    let base = common::rules();
    let shared = common::rules_with(SET);
    let mut kinds = 0;
    for rules in [&base, &shared] {
        for (_, tk) in rules.tiles().iter() {
            check_kind(rules, tk);
            kinds += 1;
        }
    }
    assert!(kinds > 24 + 24);
    // Variants: a road over each pair of opposite field edges, where the kind allows one.
    let road = shared.kind_named("road").expect("roads");
    let mut catalog = shared.tiles().clone();
    let plain: Vec<TileKindId> = catalog.defined().map(|(id, _)| id).collect();
    let mut variants = 0;
    for id in plain {
        for sides in ["NS", "EW", "N", "W"] {
            let sides = side::SideSet::parse(sides).unwrap();
            if let Some(v) = catalog.add_variant(id, road, shared.kind(road), sides, "bridge") {
                let tk = catalog.get(v);
                assert_eq!(tk.variant_of, Some(id));
                check_kind(&shared, tk);
                variants += 1;
            }
        }
    }
    assert!(variants > 10, "{variants} variants");
}

/// Every placed tile's segment nodes against its kind's segments turned.
fn check_nodes(rules: &Ruleset, st: &GameState, ctx: &str) {
    let g = st.graph();
    for t in st.board().tiles() {
        let tk = rules.tiles().get(t.kind);
        for (i, seg) in tk.segments.iter().enumerate() {
            let node = g.segment(t.segment(i));
            assert_eq!(usize::from(node.local), i, "{ctx}");
            assert_eq!(node.kind, seg.kind, "{ctx}");
            assert_eq!(node.pos, t.pos, "{ctx}");
            assert_eq!(node.sides, seg.sides.rotate(t.rotation), "{ctx}");
            assert_eq!(node.halves, seg.halves.rotate(t.rotation), "{ctx}");
            assert_eq!(node.pennants, seg.pennants, "{ctx}");
            assert!(!node.anchored && !node.is_virtual(), "{ctx}");
        }
    }
}

/// Seeded random games, every placed tile's nodes checked at every step, and every
/// complete feature's open count 0 (the complete counts kept as segments are added).
fn play(rules: &Arc<Ruleset>, games: u64) {
    common::play_random(rules, &["R", "B", "G"], games, |g, ctx| {
        check_nodes(rules, g.state(), ctx);
        let graph = g.state().graph();
        for k in 0..8u8 {
            let kind = FeatureKindId(k);
            let listed = graph
                .complete_features()
                .filter(|f| graph.kind(*f) == kind)
                .count();
            assert_eq!(graph.complete_count(kind) as usize, listed, "{ctx}");
        }
        if g.is_over() {
            assert!(g.state().board().tiles().len() > 50, "{ctx}: a whole game");
        }
    });
}

#[test]
fn placed_segments_match_their_kinds_in_random_games() {
    play(&common::rules(), 12);
    play(&common::rules_with(SET), 12);
}
