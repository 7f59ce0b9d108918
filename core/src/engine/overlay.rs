//! Overlays on the board ([`crate::overlay`]): adding a variant's segment to a placed tile,
//! whether it fits, and the placements it makes legal.

use super::*;
use crate::graph::SegmentId;
use crate::overlay::Amendment;

/// Whether the tile at `at` may become `variant`: `variant` is one of its kind's variants
/// and its edges match every neighbour (so each end of the added segment faces an empty
/// cell or the same edge kind).
pub(crate) fn overlay_fits(rules: &Ruleset, st: &GameState, at: Pos, variant: TileKindId) -> bool {
    let Some(t) = st.board.at(at) else {
        return false;
    };
    if !rules.tiles().get(t.kind).variants.contains(&variant) {
        return false;
    }
    let (want, mask) = st.board.constraints(at);
    rules.tiles().get(variant).edge_code(t.rotation) & mask == want
}

/// Turns the tile at `at` into `variant` (checked by [`overlay_fits`] first): the added
/// segments become nodes of the feature graph, joined with the segments their sides face.
/// Returns the first added node.
pub(crate) fn add_overlay(
    rules: &Ruleset,
    st: &mut GameState,
    at: Pos,
    variant: TileKindId,
) -> Result<SegmentId, String> {
    if !overlay_fits(rules, st, at, variant) {
        return Err(format!("tile kind {} does not fit at {at}", variant.0));
    }
    let idx = st.board.index_at(at).expect("checked by overlay_fits");
    let t = *st.board.tile(idx);
    let vk = rules.tiles().get(variant);
    let first = st.graph.len() as u32;
    for (i, seg) in vk
        .segments
        .iter()
        .enumerate()
        .skip(usize::from(t.segment_count))
    {
        let def = rules.kind(seg.kind);
        st.graph.edit().add_segment(
            SegmentNode {
                kind: seg.kind,
                pos: at,
                tile: idx,
                local: i as u8,
                sides: seg.sides.rotate(t.rotation),
                halves: seg.halves.rotate(t.rotation),
                pennants: seg.pennants,
            },
            FeatureTotals {
                open: seg.sides.len() as u16,
                completable: def.completes,
                ..FeatureTotals::default()
            },
        );
    }
    let count = u8::try_from(vk.segments.len()).unwrap_or(u8::MAX);
    Arc::make_mut(&mut st.board).set_variant(idx, variant, count, first, vk.edge_code(t.rotation));
    let t = *st.board.tile(idx);
    for local in usize::from(t.split)..usize::from(count) {
        let a = t.segment(local);
        for s in st.graph.segment(a).sides.iter() {
            let Some(n) = st.board.at(at.step(s)).copied() else {
                continue;
            };
            let nk = rules.tiles().get(n.kind);
            if nk.barrier {
                st.graph.edit().close_edge(a);
            } else if let Some(b) = nk.segment_on_side(n.rotation, s.opposite()) {
                if nk.segments[usize::from(b)].kind == vk.segments[local].kind {
                    st.graph.edit().join(a, n.segment(usize::from(b)), true);
                }
            }
        }
    }
    let seg = node(first);
    st.last_overlay = Some(seg);
    Ok(seg)
}

/// Whether placements may be amended for the active player now.
#[inline]
pub(crate) fn amending(rules: &Ruleset, st: &GameState) -> bool {
    rules
        .amends
        .is_some_and(|slot| st.slot(slot.id(), st.active.index()) > 0)
}

/// The overlay that makes `tk` fit the cell `pos` (constraints `want`, `mask`) turned by
/// `rot` when its plain edges do not: one of its own variants, or else a variant of the one
/// neighbour whose field edge faces an edge feature of the tile. The first that fits, own
/// variants first, then in side order.
pub(crate) fn amendment(
    rules: &Ruleset,
    st: &GameState,
    tk: &crate::tile::TileKind,
    pos: Pos,
    rot: Rotation,
    (want, mask): (u32, u32),
) -> Option<Amendment> {
    let code = tk.edge_code(rot);
    for &v in &tk.variants {
        if rules.tiles().get(v).edge_code(rot) & mask == want {
            return Some(Amendment {
                at: pos,
                variant: v,
            });
        }
    }
    let diff = (code ^ want) & mask;
    let shift = diff.trailing_zeros() & !7;
    let byte = 0xFFu32 << shift;
    if diff == 0 || diff & !byte != 0 || want & byte != 0 {
        return None;
    }
    let side = Side::from_index((shift / 8) as u8);
    let at = pos.step(side);
    let n = st.board.at(at)?;
    let theirs = 8 * side.opposite().index() as u32;
    let edge = (code >> shift) & 0xFF;
    let (w, m) = st.board.constraints(at);
    rules
        .tiles()
        .get(n.kind)
        .variants
        .iter()
        .find(|&&v| {
            let vc = rules.tiles().get(v).edge_code(n.rotation);
            (vc >> theirs) & 0xFF == edge && vc & m == w
        })
        .map(|&v| Amendment { at, variant: v })
}

/// Own variants whose edge codes [`amended_cells`] keeps on the stack; a kind with more
/// (several overlays) takes the general [`amendment`] per placement.
const OWN_VARIANTS: usize = 4;

/// The legal cells of `tk` when an overlay amends placements ([`amending`]): those where
/// it fits by its edges, with the rotations an overlay makes legal added. Returns the
/// number of (cell, rotation) pairs.
///
/// The same answer as asking [`amendment`] for every (cell, rotation) the plain edges
/// reject, at a fraction of the cost (it runs at every placement while a player holds an
/// overlay): the own variants' codes are read once per call, a neighbour's variants only
/// when the mismatch is one side where the tile shows an edge and the neighbour a field,
/// and that neighbour's answer is kept for the cell's other rotations.
pub(crate) fn amended_cells(
    rules: &Ruleset,
    st: &GameState,
    tk: &crate::tile::TileKind,
    out: &mut Vec<PlacementCell>,
) -> usize {
    out.clear();
    let codes = Rotation::ALL.map(|r| tk.edge_code(r));
    let mut own = [[0u32; 4]; OWN_VARIANTS];
    let own_count = tk.variants.len();
    if own_count > OWN_VARIANTS {
        return amended_cells_general(rules, st, tk, out);
    }
    for (slot, &v) in own.iter_mut().zip(&tk.variants) {
        let vk = rules.tiles().get(v);
        *slot = Rotation::ALL.map(|r| vk.edge_code(r));
    }
    let own = &own[..own_count];
    let mut count = 0;
    for f in st.board.frontier() {
        // Per side: the edge byte last asked of that neighbour (0: not asked) and the answer.
        let mut asked = [(0u32, false); 4];
        let mut rotations = 0u8;
        for q in 0..4 {
            let diff = (codes[q] ^ f.want) & f.mask;
            let fits = diff == 0
                || own.iter().any(|vc| vc[q] & f.mask == f.want)
                || neighbour_amends(rules, st, f.pos, codes[q], f.want, diff, &mut asked);
            rotations |= u8::from(fits) << q;
        }
        if rotations != 0 {
            let cell = PlacementCell {
                pos: f.pos,
                rotations,
            };
            count += cell.rotation_count();
            out.push(cell);
        }
    }
    count
}

/// Whether a variant of the neighbour makes a tile with edge code `code` fit a cell at
/// `pos` whose plain mismatch is `diff` (the neighbour half of [`amendment`]); `asked`
/// keeps each side's answer per edge byte for the cell's other rotations.
#[inline]
fn neighbour_amends(
    rules: &Ruleset,
    st: &GameState,
    pos: Pos,
    code: u32,
    want: u32,
    diff: u32,
    asked: &mut [(u32, bool); 4],
) -> bool {
    let shift = diff.trailing_zeros() & !7;
    let byte = 0xFFu32 << shift;
    if diff & !byte != 0 || want & byte != 0 {
        return false;
    }
    let side = (shift / 8) as usize;
    // Not 0: the tile's byte differs from the neighbour's field (0) there.
    let edge = (code >> shift) & 0xFF;
    if asked[side].0 == edge {
        return asked[side].1;
    }
    let at = pos.step(Side::from_index(side as u8));
    let fits = st.board.at(at).is_some_and(|n| {
        let theirs = 8 * Side::from_index(side as u8).opposite().index() as u32;
        let (w, m) = st.board.constraints(at);
        rules.tiles().get(n.kind).variants.iter().any(|&v| {
            let vc = rules.tiles().get(v).edge_code(n.rotation);
            (vc >> theirs) & 0xFF == edge && vc & m == w
        })
    });
    asked[side] = (edge, fits);
    fits
}

/// [`amended_cells`] by [`amendment`] per placement: for kinds with many variants.
#[cold]
fn amended_cells_general(
    rules: &Ruleset,
    st: &GameState,
    tk: &crate::tile::TileKind,
    out: &mut Vec<PlacementCell>,
) -> usize {
    let mut count = 0;
    for f in st.board.frontier() {
        let mut rotations = 0u8;
        for r in Rotation::ALL {
            let fits = tk.edge_code(r) & f.mask == f.want
                || amendment(rules, st, tk, f.pos, r, (f.want, f.mask)).is_some();
            rotations |= u8::from(fits) << r.quarters();
        }
        if rotations != 0 {
            let cell = PlacementCell {
                pos: f.pos,
                rotations,
            };
            count += cell.rotation_count();
            out.push(cell);
        }
    }
    count
}
