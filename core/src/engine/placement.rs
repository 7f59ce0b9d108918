//! Tiles on the board: start layouts, placing a tile and merging its segments, the legal placements of a drawn tile, deployments on a tile, returning figures.

use super::lanes::Lanes;
use super::*;
use crate::tile::NO_SEGMENT;

/// Checks that a start or position tile lands on an empty cell and matches its neighbours.
pub(crate) fn check_fits(
    rules: &Ruleset,
    state: &GameState,
    t: &StartTile,
) -> Result<(), GameError> {
    if !t.pos.in_bounds() {
        return Err(GameError::Position(format!(
            "a tile at {} is beyond the board's bound (|x| and |y| at most {})",
            t.pos,
            crate::pos::MAX_COORD
        )));
    }
    if state.board.is_occupied(t.pos) {
        return Err(GameError::Position(format!("two tiles at {}", t.pos)));
    }
    let (want, mask) = state.board.constraints(t.pos);
    let tk = rules.tiles().get(t.kind);
    if !tk.barrier && !rules.edges_fit(tk.edge_code(t.rotation), want, mask) {
        return Err(GameError::Position(format!(
            "tile {} at {} rotation {} does not match its neighbours' edges",
            rules.tiles().get(t.kind).id,
            t.pos,
            t.rotation
        )));
    }
    Ok(())
}

/// Puts a tile on the board and merges its segments into the feature graph.
///
/// Never inlined, as [`play_tile`]: a profile-guided build inlined it on `play_tile`'s
/// common path and called a second copy on the path of an amended placement (a bridge).
#[inline(never)]
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn place_tile(
    rules: &Ruleset,
    st: &mut GameState,
    kind: TileKindId,
    pos: Pos,
    rot: Rotation,
) -> PlacedIndex {
    let tk = rules.tiles().get(kind);
    let first = st.graph.len() as u32;
    let (idx, beside) = crate::state::unshared_mut(&mut st.board).place_beside(PlacedTile {
        kind,
        pos,
        rotation: rot,
        first_segment: first,
        // At most 16 by the tile parser; saturating keeps a hand-built kind harmless.
        segment_count: u8::try_from(tk.segments.len()).unwrap_or(u8::MAX),
        split: u8::try_from(tk.segments.len()).unwrap_or(u8::MAX),
        added: 0,
        edge_code: tk.edge_code(rot),
        sites: tk.sites,
        ring: tk.ring,
    });
    let filled = if tk.sites != 0 {
        st.board.surrounding_count(pos)
    } else {
        0
    };
    // One borrow of the segments for all of the tile's writes.
    let mut g = st.graph.edit();
    g.begin_placement();
    // The segments as the kind's templates at this rotation give them (sides and
    // half-edges turned, open edges and completability computed at load).
    debug_assert!(
        templates_match(rules, tk, rot),
        "tile {} at rotation {rot}: its templates differ from its segments",
        tk.id
    );
    g.add_tile_segments(tk.templates(rot), pos, idx, filled);
    // Its fields' borders, from the kind's flat list (the segments' `cities` in order).
    debug_assert!(
        tk.borders().iter().copied().eq(tk
            .segments
            .iter()
            .enumerate()
            .flat_map(|(i, seg)| seg.cities.iter().map(move |&c| (i as u8, c)))),
        "tile {}: its border list differs from its segments' cities",
        tk.id
    );
    for &(f, c) in tk.borders() {
        g.add_border(node(first + u32::from(f)), node(first + u32::from(c)));
    }
    // The sides with a tile, visited by bit (one unpredictable loop exit instead of one
    // unpredictable branch per side).
    let mut near = beside
        .iter()
        .enumerate()
        .fold(0u8, |m, (i, &b)| m | (u8::from(b != 0) << i));
    while near != 0 {
        let s = Side::from_index(near.trailing_zeros() as u8);
        near &= near - 1;
        let n = *st
            .board
            .tile((beside[s.index() as usize] - 1) as PlacedIndex);
        let nk = rules.tiles().get(n.kind);
        if tk.barrier {
            // A barrier edge closes the road or city facing it; fields end there, their
            // half-edges on either side facing a tile.
            let facing = nk.segment_on_side(n.rotation, s.opposite());
            for b in facing
                .into_iter()
                .chain(nk.sharer_on_side(n.rotation, s.opposite()))
            {
                g.close_edge(n.segment(b as usize));
            }
            for h in [
                HalfEdge::from_index(2 * s.index()),
                HalfEdge::from_index(2 * s.index() + 1),
            ] {
                if let Some(a) = tk.segment_on_half(rot, h) {
                    g.close_edge(node(first + a as u32));
                }
                if let Some(b) = nk.segment_on_half(n.rotation, h.facing()) {
                    g.close_edge(n.segment(b as usize));
                }
            }
            continue;
        }
        let (mine, theirs) = (tk.edge_at(rot, s), nk.edge_at(n.rotation, s.opposite()));
        // Each tile's segments on this side from one load (`side_link`): the side's
        // segment, its sharer, the side's two half-edges' fields (checked against the
        // segments for every kind in `core/tests/segment_templates.rs`).
        let [ma, mc, m0, m1] = tk.side_link(rot, s);
        let [ta, tc, t0, t1] = nk.side_link(n.rotation, s.opposite());
        if rules.edges_join(mine, theirs) {
            if (ma != NO_SEGMENT) & (ta != NO_SEGMENT) {
                let (a, b) = (node(first + u32::from(ma)), n.segment(usize::from(ta)));
                g.join(a, b, true);
                // A segment sharing the side (either tile's) joins what meets it there,
                // and its extra open edge closes.
                if mc != NO_SEGMENT {
                    g.join(node(first + u32::from(mc)), b, false);
                    g.close_edge(b);
                }
                if tc != NO_SEGMENT {
                    g.join(a, n.segment(usize::from(tc)), false);
                    g.close_edge(a);
                }
            }
        } else if rules.edges_meet(mine, theirs) {
            // Edges declared to meet without joining (`edge_meets`): each ends here.
            if ma != NO_SEGMENT {
                g.close_edge(node(first + u32::from(ma)));
            }
            if ta != NO_SEGMENT {
                g.close_edge(n.segment(usize::from(ta)));
            }
        }
        // Fields meet across field edges and along both sides of roads and rivers; each
        // field half-edge here now faces a tile, so it closes, joined or not (a tile with
        // no field there: an abbey, edges that only meet). This side's first half-edge (in
        // clockwise order) faces the neighbour's second, and the second its first.
        for (a, b) in [(m0, t1), (m1, t0)] {
            match (a != NO_SEGMENT, b != NO_SEGMENT) {
                (true, true) => {
                    g.join_halves(node(first + u32::from(a)), n.segment(usize::from(b)))
                }
                (true, false) => g.close_edge(node(first + u32::from(a))),
                (false, true) => g.close_edge(n.segment(usize::from(b))),
                (false, false) => {}
            }
        }
    }
    // Only where a tile with a centre site stands around (the board keeps the count).
    if st.board.site_tiles_around(pos) != 0 {
        for q in pos.surrounding() {
            let Some(t) = st.board.at(q).copied() else {
                continue;
            };
            let mut sites = t.sites;
            while sites != 0 {
                let i = sites.trailing_zeros();
                sites &= sites - 1;
                let f = g.feature_of(t.segment(i as usize));
                g.close_feature_edge(f);
            }
        }
    }
    idx
}

/// Whether `tk`'s templates at `rot` are its segments turned, as placing them segment by
/// segment would give them (debug builds check every placement).
fn templates_match(rules: &Ruleset, tk: &crate::tile::TileKind, rot: Rotation) -> bool {
    let t = tk.templates(rot);
    t.len() == tk.segments.len()
        && tk.segments.iter().zip(t).all(|(seg, t)| {
            *t == crate::tile::SegmentTemplate {
                marks: crate::tile::marks_of(&seg.tags, &rules.mark_tags),
                ..crate::tile::SegmentTemplate::new(seg, rules.kind(seg.kind), rot)
            }
        })
}

/// The tile step of `player`: the tile goes on the board, `on_tile_placed` runs, and the
/// deployment step comes next.
///
/// Never inlined: it has two callers (a placement answered, and a tile played instead of
/// the draw), and a profile-guided build inlined it into one of them, so that a game using
/// both ran two copies of its ~11 KiB through the instruction cache.
#[inline(never)]
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn play_tile(
    rules: &Ruleset,
    st: &mut GameState,
    player: PlayerId,
    tile: TileKindId,
    pos: Pos,
    rotation: Rotation,
) -> Result<(), HookError> {
    // A placement offered only thanks to an overlay adds it at once.
    let amended = if amending(rules, st) {
        let tk = rules.tiles().get(tile);
        let fit = st.board.constraints(pos);
        if !tk.barrier && !rules.edges_fit(tk.edge_code(rotation), fit.0, fit.1) {
            amendment(rules, st, tk, pos, rotation, fit)?
        } else {
            None
        }
    } else {
        None
    };
    let idx = place_tile(rules, st, tile, pos, rotation);
    st.last_placed = Some(idx);
    st.last_placer = Some(player);
    st.last_overlay = None;
    st.deploy_choice = None;
    if let Some(a) = amended {
        add_overlay(rules, st, a.at, a.variant).map_err(|message| HookError {
            expansion: "core".into(),
            hook: "amended placement",
            message,
        })?;
    }
    // Only the implementers that act on this tile kind (`on_tile_placed_for`); the base
    // game, with none, reads no per-kind table.
    if rules.hook_members(HookSet::ON_TILE_PLACED) != 0 {
        each_in(
            rules,
            st,
            HookSet::ON_TILE_PLACED,
            rules.tile_placed_members(tile),
            "on_tile_placed",
            |e, ctx| e.on_tile_placed(ctx, pos),
        )?;
    }
    st.stage = Stage::DeployStep;
    Ok(())
}

#[inline]
pub(crate) fn node(i: u32) -> crate::graph::SegmentId {
    crate::graph::SegmentId::new(i as usize)
}

/// Writes the legal placements of `tile` for the active player into `out` (cleared
/// first) and returns how many (cell, rotation) pairs there are.
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn placements_into(
    rules: &Ruleset,
    st: &GameState,
    tile: TileKindId,
    out: &mut Vec<PlacementCell>,
    cands_buf: &mut Vec<u8>,
) -> Result<usize, HookError> {
    let tk = rules.tiles().get(tile);
    if !tk.barrier && amending(rules, st) {
        // Kept out of line: the plain enumeration below is the base game's hot loop.
        return amended_placements(rules, st, tile, out, cands_buf);
    }
    if !tk.barrier && rules.loose_edges() {
        // Out of line too: a branch for it inside this function slows the base loop.
        return loose_placements(rules, st, tile, out, cands_buf);
    }
    let frontier = st.board.frontier();
    let count = if tk.barrier {
        // A barrier tile goes only into a hole; its rotation does not matter (A-4 aside).
        let Ok(count) = write_cells(frontier, out, |f| {
            Ok::<u8, std::convert::Infallible>(u8::from(f.is_hole()))
        });
        count
    } else {
        plain_cells(frontier, out, &Rotation::ALL.map(|r| tk.edge_code(r)))
    };
    filter_cells(rules, st, tile, out, cands_buf, count)
}

/// The output of the placement loops, written without a branch per cell (whether a
/// random tile fits a cell is unpredictable, so a branch there mispredicts a lot): every
/// cell is written into `out`'s spare capacity, and the length only advances past a cell
/// that fits. `out` is cleared first and keeps its length 0 until [`CellWriter::finish`],
/// so a loop that stops early (an error) leaves it empty.
pub(crate) struct CellWriter<'a> {
    out: &'a mut Vec<PlacementCell>,
    /// `out`'s buffer, with room for `room` cells.
    base: *mut PlacementCell,
    room: usize,
    /// The cells kept so far: the next write goes at index `n`.
    n: usize,
}

impl<'a> CellWriter<'a> {
    /// A writer with room for `room` cells (a loop's one write per frontier cell).
    #[inline(always)]
    pub(crate) fn new(out: &'a mut Vec<PlacementCell>, room: usize) -> Self {
        out.clear();
        out.reserve(room);
        let base = out.as_mut_ptr();
        CellWriter {
            out,
            base,
            room,
            n: 0,
        }
    }

    /// Writes `cell`, kept if any rotation fits.
    ///
    /// # Safety
    /// At most `room` calls (of `put` and `put_words` together) on this writer.
    #[inline(always)]
    pub(crate) unsafe fn put(&mut self, cell: PlacementCell) {
        debug_assert!(self.n < self.room);
        // SAFETY: `n` is at most the number of earlier calls, so below `room`, within
        // the capacity reserved in `new`.
        unsafe { self.base.add(self.n).write(cell) };
        self.n += usize::from(cell.rotations != 0);
    }

    /// Writes the cell whose position is the low 8 bytes of `words` (a frontier cell's
    /// [`FrontierCell::words`](crate::board::FrontierCell::words), its `pos`), stored from
    /// that register, with `rotations`; kept if any fits.
    ///
    /// # Safety
    /// As [`CellWriter::put`]; and the low 8 bytes of `words` must be a valid [`Pos`].
    #[inline(always)]
    pub(crate) unsafe fn put_words(&mut self, words: Lanes, rotations: u8) {
        debug_assert!(self.n < self.room);
        // SAFETY: the slot is within the reserved capacity, as in `put`; its `pos` gets
        // the caller's valid `Pos` bytes and its `rotations` is written too, so every
        // field of the slot is initialised.
        unsafe {
            let slot = self.base.add(self.n);
            words.store_low(std::ptr::addr_of_mut!((*slot).pos).cast::<u8>());
            std::ptr::addr_of_mut!((*slot).rotations).write(rotations);
        }
        self.n += usize::from(rotations != 0);
    }

    /// Gives `out` the cells kept.
    #[inline(always)]
    pub(crate) fn finish(self) {
        // SAFETY: every index below `n` was written (`n` only moves past a written cell),
        // `n <= room` is within the reserved capacity, and `PlacementCell` is `Copy`
        // (nothing to drop).
        unsafe { self.out.set_len(self.n) };
    }
}

/// [`write_cells`] of the plain edge match ([`exact_rotations`]) of a kind whose
/// edge codes per rotation are `codes`: the base game's hot loop, written for few
/// instructions a cell. Each cell is read by one load (its four words,
/// [`FrontierCell::words`](crate::board::FrontierCell::words)), its `want` and `mask`
/// spread from there; its `pos` is written back from the same register; the fitting
/// (cell, rotation) pairs are counted by subtracting the compare's all-ones lanes from a
/// running sum (one instruction a cell instead of a table look-up and an add); two cells
/// a turn of the loop. The same cells and count as `write_cells` with the four-lane
/// match `RotationCodes::fits` (tested).
#[inline(always)]
pub(crate) fn plain_cells(
    frontier: &[crate::board::FrontierCell],
    out: &mut Vec<PlacementCell>,
    codes: &[u32; 4],
) -> usize {
    let mut cells = CellWriter::new(out, frontier.len());
    let codes = Lanes::new(codes);
    let mut fits = Lanes::splat(0);
    let mut one = |f: &crate::board::FrontierCell| {
        let v = Lanes::load(f.words());
        let fit = codes.and(v.lane3()).eq(v.lane2());
        fits = fits.sub(fit);
        // SAFETY: one call per frontier cell, so at most `frontier.len()` calls.
        unsafe { cells.put_words(v, fit.bits()) };
    };
    let mut pairs = frontier.chunks_exact(2);
    for p in &mut pairs {
        one(&p[0]);
        one(&p[1]);
    }
    for f in pairs.remainder() {
        one(f);
    }
    cells.finish();
    fits.sum() as usize
}

/// Writes a [`PlacementCell`] into `out` (cleared first) for every frontier cell where
/// `rotations` (the fitting rotations, bit q: q quarter turns) gives any, in frontier
/// order; returns the number of (cell, rotation) pairs, through a [`CellWriter`]. The
/// barrier tile's loop; the base game's is [`plain_cells`] (tested against this), and the
/// amended one ([`super::overlay`]) is written as that is. On an error of `rotations`,
/// `out` is left empty.
#[inline(always)]
pub(crate) fn write_cells<E>(
    frontier: &[crate::board::FrontierCell],
    out: &mut Vec<PlacementCell>,
    mut rotations: impl FnMut(&crate::board::FrontierCell) -> Result<u8, E>,
) -> Result<usize, E> {
    let mut cells = CellWriter::new(out, frontier.len());
    let mut count = 0usize;
    for f in frontier {
        let cell = PlacementCell {
            pos: f.pos,
            rotations: rotations(f)?,
        };
        // SAFETY: one call per frontier cell, so at most `frontier.len()` calls.
        unsafe { cells.put(cell) };
        count += cell.rotation_count();
    }
    cells.finish();
    Ok(count)
}

/// [`placements_into`] for hooks ([`crate::View::placements_of`]): a tile kind without
/// placement filters has placements that depend only on the board and on whether an
/// overlay amends them, so the last such answer is kept in the state
/// ([`GameState::placement_memo`]) and given again while neither changed.
#[inline(never)]
pub(crate) fn placements_remembered(
    rules: &Ruleset,
    st: &GameState,
    tile: TileKindId,
    out: &mut Vec<PlacementCell>,
) -> Result<usize, HookError> {
    let Some(memo) = remembered(rules, st, tile)? else {
        return placements_into(rules, st, tile, out, &mut Vec::new());
    };
    crate::copy::copy_in_pieces(out, &memo.cells);
    Ok(memo.count)
}

/// [`placements_remembered`] read in place ([`crate::View::read_placements_of`]): `read`
/// gets the placements and their (cell, rotation) count where they are kept, instead of a
/// copy in a list of the caller's (a bazaar's bought tile: whether it fits, where, and
/// `Ctx::play_tile_instead`'s check, three reads of one answer).
#[inline(never)]
pub(crate) fn read_placements(
    rules: &Ruleset,
    st: &GameState,
    tile: TileKindId,
    read: &mut dyn FnMut(&[PlacementCell], usize),
) -> Result<(), HookError> {
    // A `read` that asks again finds the memo held and computes its own answer.
    if let Some(memo) = remembered(rules, st, tile)? {
        read(&memo.cells, memo.count);
        return Ok(());
    }
    let mut cells = Vec::new();
    let count = placements_into(rules, st, tile, &mut cells, &mut Vec::new())?;
    read(&cells, count);
    Ok(())
}

/// The memo ([`GameState::placement_memo`]) holding the placements of `tile` now, filled
/// first if it holds another answer; `None` when the answer cannot be kept (the caller
/// computes it).
#[inline(always)]
fn remembered<'s>(
    rules: &Ruleset,
    st: &'s GameState,
    tile: TileKindId,
) -> Result<Option<std::sync::MutexGuard<'s, crate::state::PlacementMemo>>, HookError> {
    let Some(key) = memo_key(rules, st, tile) else {
        return Ok(None);
    };
    let key = Some(key);
    // Not held elsewhere but by another thread reading the same state: then compute.
    let Ok(mut memo) = st.placement_memo.0.try_lock() else {
        return Ok(None);
    };
    if memo.key != key {
        memo.key = None;
        let crate::state::PlacementMemo { cells, count, .. } = &mut *memo;
        // Without filters this never fails; an error is passed on, nothing kept.
        *count = placements_into(rules, st, tile, cells, &mut Vec::new())?;
        memo.key = key;
    }
    Ok(Some(memo))
}

/// The memo's key for the placements of `tile` now (the kind, [`Board::edits`], whether an
/// overlay amends them); `None` when they cannot be kept.
#[inline(always)]
fn memo_key(rules: &Ruleset, st: &GameState, tile: TileKindId) -> Option<crate::state::MemoKey> {
    let amends = amending(rules, st);
    // An expansion that vets overlays may answer by figures, which the key does not hold.
    if rules.placement_filters(tile) != 0
        || (amends && rules.hook_members(HookSet::ALLOWS_OVERLAY) != 0)
    {
        return None;
    }
    Some((tile, st.board.edits(), amends))
}

/// The rotations (bit q: q quarter turns) whose edge codes match a cell's neighbours
/// exactly, without a branch.
#[inline(always)]
pub(crate) fn exact_rotations(codes: &[u32; 4], want: u32, mask: u32) -> u8 {
    (codes[0] & mask == want) as u8
        | ((codes[1] & mask == want) as u8) << 1
        | ((codes[2] & mask == want) as u8) << 2
        | ((codes[3] & mask == want) as u8) << 3
}

/// A tile kind's edge codes in its four rotations, ready to test a frontier cell's
/// constraints against all four at once ([`RotationCodes::fits`]).
/// The reference [`plain_cells`] is tested against.
#[cfg(test)]
#[derive(Clone, Copy)]
pub(crate) struct RotationCodes(Lanes);

#[cfg(test)]
impl RotationCodes {
    /// The codes of rotations R0, R90, R180 and R270.
    #[inline(always)]
    pub(crate) fn new(codes: &[u32; 4]) -> RotationCodes {
        RotationCodes(Lanes::new(codes))
    }

    /// [`exact_rotations`] of these codes, one lane per rotation (on x86_64 an `and`, a
    /// compare and a mask move for all four instead of four of each).
    #[inline(always)]
    pub(crate) fn fits(&self, want: u32, mask: u32) -> u8 {
        self.0.and(Lanes::splat(mask)).eq_bits(Lanes::splat(want))
    }
}

/// [`placements_into`] with edges declared to meet (`edge_meets`): matched side by side
/// where a declaring edge (a gate) is on the tile or beside the cell, exactly elsewhere.
#[inline(never)]
fn loose_placements(
    rules: &Ruleset,
    st: &GameState,
    tile: TileKindId,
    out: &mut Vec<PlacementCell>,
    cands_buf: &mut Vec<u8>,
) -> Result<usize, HookError> {
    let tk = rules.tiles().get(tile);
    let codes = Rotation::ALL.map(|r| tk.edge_code(r));
    let declaring = rules.edges_declaring(codes[0]);
    let frontier = st.board.frontier();
    // Most draws: no declaring edge (a gate) on the tile or beside any open cell, so every
    // side matches exactly, and the plain loop gives the same cells, in the same order, at
    // a fraction of this loop's cost a cell (The City Gates: 45% of a decision before).
    if !declaring && !rules.any_declaring(frontier.iter().map(|f| f.want)) {
        let count = plain_cells(frontier, out, &codes);
        return filter_cells(rules, st, tile, out, cands_buf, count);
    }
    let Ok(count) = write_cells(frontier, out, |f| {
        Ok::<u8, std::convert::Infallible>(if declaring || rules.edges_declaring(f.want) {
            side_by_side_rotations(rules, &codes, f)
        } else {
            exact_rotations(&codes, f.want, f.mask)
        })
    });
    filter_cells(rules, st, tile, out, cands_buf, count)
}

/// The rotations (bit q: q quarter turns) of a tile of edge `codes` that fit the open
/// cell `f` side by side ([`Ruleset::edges_fit`]: equal edges, or a pair declared to meet).
#[inline]
fn side_by_side_rotations(rules: &Ruleset, codes: &[u32; 4], f: &crate::board::FrontierCell) -> u8 {
    let mut rotations = 0u8;
    for (q, code) in codes.iter().enumerate() {
        rotations |= u8::from(rules.edges_fit(*code, f.want, f.mask)) << q;
    }
    rotations
}

/// [`placements_into`] while an overlay amends placements ([`amended_cells`]).
#[inline(never)]
fn amended_placements(
    rules: &Ruleset,
    st: &GameState,
    tile: TileKindId,
    out: &mut Vec<PlacementCell>,
    cands_buf: &mut Vec<u8>,
) -> Result<usize, HookError> {
    let count = amended_cells(rules, st, tile, out)?;
    filter_cells(rules, st, tile, out, cands_buf, count)
}

/// Runs the placement filters of `tile` over its `count` edge-legal placements in `out`;
/// returns how many are left.
#[inline(always)]
fn filter_cells(
    rules: &Ruleset,
    st: &GameState,
    tile: TileKindId,
    out: &mut Vec<PlacementCell>,
    cands_buf: &mut Vec<u8>,
    count: usize,
) -> Result<usize, HookError> {
    let filters = rules.placement_filters(tile);
    if filters != 0 && count > 0 {
        return run_filters(rules, st, tile, filters, out, cands_buf);
    }
    Ok(count)
}

/// [`filter_cells`] for a tile with filters: out of line, so that the edge-legal loop of
/// every draw keeps its registers.
#[inline(never)]
fn run_filters(
    rules: &Ruleset,
    st: &GameState,
    tile: TileKindId,
    filters: u64,
    out: &mut Vec<PlacementCell>,
    legal: &mut Vec<u8>,
) -> Result<usize, HookError> {
    // Filters may only remove: remember the edge-legal bits and keep only those.
    legal.clear();
    legal.extend(out.iter().map(|c| c.rotations));
    // Bit 63 of the mask stands for every later expansion (each may filter the tile).
    read_members(
        rules,
        st,
        filters,
        |_| true,
        "filter_placements",
        |e, v| e.filter_placements(v, v.state.active, tile, out),
    )?;
    Ok(keep_legal(out, legal))
}

/// Masks each cell of `out` with its edge-legal bits in `legal` (same length: the filters
/// get a slice) and drops the cells left empty, in order; returns the rotations left.
/// One pass masks and counts (about 8 instructions a cell); only a draw whose filters
/// emptied a cell (two filtered draws in three in the six) pays for the move.
/// `retain_mut` with the mask in its closure cost about 22 instructions a cell.
#[inline(always)]
fn keep_legal(out: &mut Vec<PlacementCell>, legal: &[u8]) -> usize {
    let mut count = 0;
    let mut emptied = false;
    for (c, &l) in out.iter_mut().zip(legal) {
        c.rotations &= l;
        count += c.rotation_count();
        emptied |= c.rotations == 0;
    }
    if emptied {
        drop_empty(out);
    }
    count
}

/// Drops the cells [`keep_legal`] left without a rotation (two filtered draws in three).
#[inline(never)]
fn drop_empty(out: &mut Vec<PlacementCell>) {
    out.retain(|c| c.rotations != 0);
}

/// [`keep_legal`]'s reference in the tests: the same cells and count by `retain_mut`
/// (`keep_legal` is a pure function of its two lists, so the unit test covers it).
#[cfg(test)]
fn retained_slowly(out: &[PlacementCell], legal: &[u8]) -> (Vec<PlacementCell>, usize) {
    let mut cells = out.to_vec();
    let mut i = 0;
    let mut count = 0;
    cells.retain_mut(|c| {
        c.rotations &= legal[i];
        i += 1;
        count += c.rotation_count();
        c.rotations != 0
    });
    (cells, count)
}

/// Computes the legal placements of the drawn tile into the state.
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn legal_placements(
    rules: &Ruleset,
    st: &mut GameState,
    tile: TileKindId,
) -> Result<(), HookError> {
    let mut cells = std::mem::take(&mut st.placements);
    let mut cands = std::mem::take(&mut st.candidates);
    let r = placements_into(rules, st, tile, &mut cells, &mut cands);
    cands.clear();
    st.placements = cells;
    st.candidates = cands;
    st.placement_actions = std::sync::OnceLock::new();
    st.placement_count = *r.as_ref().unwrap_or(&0);
    r.map(|_| ())
}

/// The placements of `tile` for the active player into the state's offer: a placements
/// prompt's ([`crate::Ctx::prompt_placements`]), taken from the memo when it holds them
/// (its owner asked them before queueing it), else computed.
pub(crate) fn offer_placements(
    rules: &Ruleset,
    st: &mut GameState,
    tile: TileKindId,
) -> Result<(), HookError> {
    st.placement_actions = std::sync::OnceLock::new();
    let key = memo_key(rules, st, tile);
    st.offered_key = key;
    if let (Some(key), Ok(memo)) = (key, st.placement_memo.0.get_mut()) {
        if memo.key == Some(key) {
            // Taken, not copied: while the key holds, they answer for the memo
            // ([`offered_placements`]: `Ctx::play_tile_instead`'s check of the answer).
            std::mem::swap(&mut memo.cells, &mut st.placements);
            memo.key = None;
            st.placement_count = memo.count;
            return Ok(());
        }
    }
    let mut cells = std::mem::take(&mut st.placements);
    let r = placements_into(rules, st, tile, &mut cells, &mut Vec::new());
    st.placements = cells;
    st.placement_count = *r.as_ref().unwrap_or(&0);
    r.map(|_| ())
}

/// The placements of `tile` the pending decision offers, if it is a placements prompt of
/// that kind by index and its offer was made under the memo key of now: what the memo
/// would answer ([`placements_remembered`]), without asking it.
#[inline]
pub(crate) fn offered_placements<'s>(
    rules: &Ruleset,
    st: &'s GameState,
    tile: TileKindId,
) -> Option<&'s [PlacementCell]> {
    match st.decision.kind {
        DecisionKind::Prompt(p)
            if p.placements_of() == Some(tile)
                && st.offers_cells()
                && st.offered_key.is_some()
                && memo_key(rules, st, tile) == st.offered_key =>
        {
            Some(&st.placements)
        }
        _ => None,
    }
}

/// Base-rule deployments of `player` on the tile at `pos`: per segment, the follower
/// kinds allowed on its feature kind (`Ruleset::follower_masks`) that the player has in
/// supply, those that occupy only on an unoccupied feature; in segment order, then kind order
/// (as `deployments_by_list`, the rules' lists read one by one, which debug builds compare).
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn deployments_on_tile(
    rules: &Ruleset,
    st: &GameState,
    player: PlayerId,
    pos: Pos,
    out: &mut Vec<Action>,
) {
    let Some((masks, kinds, occupying)) = rules.follower_masks() else {
        return deployments_by_list(rules, st, player, pos, out);
    };
    // Most steps of random play find the player without a follower to deploy: then no
    // offer, whatever the tile.
    let have = st.supply_bits(player, kinds);
    #[cfg(debug_assertions)]
    let start = out.len();
    if have != 0 {
        deployments_masked(rules, st, pos, masks, have, occupying, out);
    }
    #[cfg(debug_assertions)]
    {
        let mut check = Vec::new();
        deployments_by_list(rules, st, player, pos, &mut check);
        debug_assert_eq!(out[start..], check[..], "the deployment masks' offers");
    }
}

/// [`deployments_on_tile`] for a player with the follower kinds `have` in supply (not 0).
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
#[inline(never)]
fn deployments_masked(
    rules: &Ruleset,
    st: &GameState,
    pos: Pos,
    masks: &[u64],
    have: u64,
    occupying: u64,
    out: &mut Vec<Action>,
) {
    let Some(t) = st.board.at(pos) else { return };
    if !rules.tiles().get(t.kind).deploy {
        return;
    }
    let segments = t.segments();
    // At most one write per segment and kind in supply, the later ones at or before the
    // last: all within this capacity.
    out.reserve(segments.len() * have.count_ones() as usize);
    let mut n = out.len();
    let base = out.as_mut_ptr();
    for seg in segments {
        let kind = st.graph.segment(seg).kind;
        let mut each = masks.get(usize::from(kind.0)).map_or(0, |&m| m & have);
        if each == 0 {
            continue;
        }
        // An occupied feature takes only figures that share it. As before, an offer is
        // written whether it holds or not and the length moves only on a hold: whether a
        // feature is occupied follows no pattern the branch predictor could learn.
        let occupied = st.graph.totals(st.graph.feature_of(seg)).occupants > 0;
        let keep = each & !(occupying & 0u64.wrapping_sub(u64::from(occupied)));
        while each != 0 {
            let bit = each & each.wrapping_neg();
            let figure = FigureKindId(each.trailing_zeros() as u8);
            // SAFETY: `n` is below the capacity reserved above (it moves at most once per
            // write, and there are at most `segments.len() * have.count_ones()` writes);
            // `Action` is `Copy`, so overwriting a written element is fine.
            unsafe {
                base.add(n).write(Action::Deploy {
                    figure,
                    segment: seg,
                })
            };
            n += usize::from(keep & bit != 0);
            each ^= bit;
        }
    }
    // SAFETY: every element below `n` was written above (or was there before).
    unsafe { out.set_len(n) };
}

/// [`deployments_on_tile`] from the rules' follower lists (`Ruleset::followers_on`), one
/// supply read per kind: when a follower kind's id is 64 or more, and the check of the masks
/// in debug builds.
#[cold]
#[inline(never)]
fn deployments_by_list(
    rules: &Ruleset,
    st: &GameState,
    player: PlayerId,
    pos: Pos,
    out: &mut Vec<Action>,
) {
    let Some(t) = st.board.at(pos) else { return };
    if !rules.tiles().get(t.kind).deploy {
        return;
    }
    let farmers = rules.base().farmers;
    for seg in t.segments() {
        let kind = st.graph.segment(seg).kind;
        let def = rules.kind(kind);
        if !def.occupiable || (def.shape == Shape::Field && !farmers) {
            continue;
        }
        let occupied = st.graph.totals(st.graph.feature_of(seg)).occupants > 0;
        for &figure in rules.followers_on(kind) {
            // A figure that shares features may join an occupied one.
            let have = st
                .in_supply
                .get(player.index() * st.figure_kinds + usize::from(figure.0))
                .is_some_and(|&c| c > 0);
            if have && (!occupied || !st.occupies(figure)) {
                out.push(Action::Deploy {
                    figure,
                    segment: seg,
                });
            }
        }
    }
}

/// Sends a figure back to supply and notifies every expansion.
pub(crate) fn return_figure(
    rules: &Ruleset,
    st: &mut GameState,
    figure: FigureId,
    reason: RemovalReason,
) -> Result<(), HookError> {
    if st.unplace(figure) && rules.any_hooks(HookSet::ON_FIGURE_REMOVED) {
        each(
            rules,
            st,
            HookSet::ON_FIGURE_REMOVED,
            "on_figure_removed",
            |e, ctx| e.on_figure_removed(ctx, figure, reason),
        )?;
    }
    Ok(())
}

/// Tells every expansion that `figure` came onto `segment` (deployed or moved there).
pub(crate) fn figure_placed(
    rules: &Ruleset,
    st: &mut GameState,
    figure: FigureId,
    segment: crate::SegmentId,
) -> Result<(), HookError> {
    each(
        rules,
        st,
        HookSet::ON_FIGURE_PLACED,
        "on_figure_placed",
        |e, ctx| e.on_figure_placed(ctx, figure, segment),
    )
}

/// Takes a figure off the board without returning it to supply (it becomes
/// [`FigureLoc::Removed`](crate::FigureLoc::Removed): e.g. a prisoner held by another
/// player) and notifies every expansion. Returns whether it was on the board.
pub(crate) fn hold_figure(
    rules: &Ruleset,
    st: &mut GameState,
    figure: FigureId,
    reason: RemovalReason,
) -> Result<bool, HookError> {
    if !st.lift(figure) {
        return Ok(false);
    }
    if rules.any_hooks(HookSet::ON_FIGURE_REMOVED) {
        each(
            rules,
            st,
            HookSet::ON_FIGURE_REMOVED,
            "on_figure_removed",
            |e, ctx| e.on_figure_removed(ctx, figure, reason),
        )?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::FeatureKindId;
    use crate::{binder, BoundExpansion, Declare, Expansion, HookResult};
    use std::sync::Arc;

    /// Edges of kinds `0` and `1` may face each other without joining, declared in that
    /// order ([`Declare::edge_meets`]).
    struct Meets(FeatureKindId, FeatureKindId);

    struct NoRules;

    impl BoundExpansion for NoRules {}

    impl Expansion for Meets {
        fn id(&self) -> &str {
            "meets"
        }

        fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn crate::Binder>> {
            d.edge_meets(self.0, self.1).map_err(|e| e.to_string())?;
            Ok(binder(|_| Ok(NoRules)))
        }
    }

    /// With edges declared to meet, the placements are those of a side-by-side test of
    /// every rotation at every open cell ([`Ruleset::edges_fit`]), whichever loop
    /// `loose_placements` takes: for every tile kind, at every decision of seeded random
    /// base games, with the declaring kind first or second and the field on either side.
    #[test]
    fn loose_placements_match_a_side_by_side_test_of_every_cell() {
        let pairs = [
            (FeatureKindId::CITY, FeatureKindId::ROAD),
            (FeatureKindId::FIELD, FeatureKindId::CITY),
            (FeatureKindId::ROAD, FeatureKindId::FIELD),
        ];
        for (a, b) in pairs {
            let rules = Arc::new(
                Ruleset::builder()
                    .tiles(toml::from_str(crate::BASE_TILES_TOML).unwrap())
                    .expansion(Arc::new(Meets(a, b)))
                    .build()
                    .unwrap(),
            );
            assert!(rules.loose_edges());
            let kinds: Vec<TileKindId> = (0..rules.tiles().len())
                .map(|i| TileKindId(i as u16))
                .filter(|k| !rules.tiles().get(*k).barrier)
                .collect();
            let (mut fast, mut buf, mut slow) = (Vec::new(), Vec::new(), Vec::new());
            let mut loose = 0;
            for seed in 0..3u64 {
                let setup = crate::GameSetup::new(vec!["A".into(), "B".into()], seed);
                let mut game = crate::Game::new(rules.clone(), &setup).unwrap();
                let mut pick = seed;
                while !game.is_over() {
                    let st = game.state();
                    for &k in &kinds {
                        let n = loose_placements(&rules, st, k, &mut fast, &mut buf).unwrap();
                        let tk = rules.tiles().get(k);
                        let codes = Rotation::ALL.map(|r| tk.edge_code(r));
                        // Side by side at every cell, the shortcuts' reference.
                        let Ok(m) = write_cells(st.board.frontier(), &mut slow, |f| {
                            let rotations = side_by_side_rotations(&rules, &codes, f);
                            let exact = exact_rotations(&codes, f.want, f.mask);
                            loose += usize::from(rotations != exact);
                            Ok::<u8, std::convert::Infallible>(rotations)
                        });
                        assert_eq!((n, &fast), (m, &slow), "{a:?}/{b:?}, kind {}", tk.id);
                    }
                    pick = pick.wrapping_mul(6364136223846793005).wrapping_add(1);
                    let offered = game.action_count();
                    game.apply_offered((pick >> 33) as usize % offered).unwrap();
                }
            }
            assert!(loose > 0, "{a:?}/{b:?}: some cells fit only side by side");
        }
    }

    /// A xorshift generator: the tests' random codes, cells and masks, seeded.
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// Masking the filtered cells with their edge-legal bits keeps the same cells, in the
    /// same order, with the same count, as `retain_mut` did: random cells and masks, none,
    /// some and all of them emptied.
    #[test]
    fn keep_legal_matches_retain() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
        for n in 0..200usize {
            let cells: Vec<PlacementCell> = (0..n % 40)
                .map(|i| PlacementCell {
                    pos: Pos {
                        x: i as i32,
                        y: -(i as i32),
                    },
                    rotations: (next() % 16) as u8,
                })
                .collect();
            let legal: Vec<u8> = cells
                .iter()
                .map(|_| match n % 3 {
                    0 => 0xF,
                    1 => 0,
                    _ => (next() % 16) as u8,
                })
                .collect();
            let expected = retained_slowly(&cells, &legal);
            let mut out = cells.clone();
            let count = keep_legal(&mut out, &legal);
            assert_eq!((out, count), expected, "{cells:?} {legal:?}");
        }
    }

    /// The four-lane test of a cell's constraints gives the scalar answer, bit for bit
    /// a tile fits where every constrained edge matches). Random codes and cells,
    /// half of them built to fit at least one rotation.
    #[test]
    fn rotation_lanes_match_the_scalar_answer() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
        let mut fitting = 0;
        for i in 0..20_000 {
            let code = (next() as u32) & 0x0303_0303;
            let codes = [0u32, 8, 16, 24].map(|r| code.rotate_left(r));
            let mask = [0u32, 0xFF, 0xFF00, 0xFF_0000, 0xFF00_0000][(next() % 5) as usize]
                | [0u32, 0xFF, 0xFF00, 0xFF_0000, 0xFF00_0000][(next() % 5) as usize];
            let want = if i % 2 == 0 {
                codes[(next() % 4) as usize] & mask
            } else {
                (next() as u32) & 0x0303_0303 & mask
            };
            let lanes = RotationCodes::new(&codes).fits(want, mask);
            assert_eq!(
                lanes,
                exact_rotations(&codes, want, mask),
                "{codes:x?} {want:x} {mask:x}"
            );
            fitting += usize::from(lanes != 0);
        }
        assert!(fitting > 10_000, "{fitting}");
    }

    /// [`plain_cells`] writes the cells and count that [`write_cells`] with
    /// [`RotationCodes::fits`] (the general loop) gives, for random frontiers of every
    /// length up to 40 (odd and even: the loop takes two cells a turn), codes of a few
    /// edge values (so that cells often fit), into a buffer holding stale cells.
    #[test]
    fn plain_cells_match_the_general_loop() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
        let (mut fast, mut general) = (Vec::new(), Vec::new());
        let mut pairs = 0;
        for round in 0..4_000 {
            let code = (next() as u32) & 0x0101_0303;
            let codes = [0u32, 8, 16, 24].map(|r| code.rotate_left(r));
            let frontier: Vec<crate::board::FrontierCell> = (0..round % 41)
                .map(|_| {
                    let side = |b: u64| [0u32, 0xFF][(b & 1) as usize];
                    let r = next();
                    let mask =
                        side(r) | side(r >> 1) << 8 | side(r >> 2) << 16 | side(r >> 3) << 24;
                    let want = if r >> 4 & 1 == 0 {
                        codes[(r >> 5) as usize % 4] & mask
                    } else {
                        (r >> 8) as u32 & 0x0303_0303 & mask
                    };
                    crate::board::FrontierCell {
                        pos: Pos::new((r >> 40) as i32 % 500, -((r >> 50) as i32 % 500)),
                        want,
                        mask,
                    }
                })
                .collect();
            let rc = RotationCodes::new(&codes);
            let Ok(m) = write_cells(&frontier, &mut general, |f| {
                Ok::<u8, std::convert::Infallible>(rc.fits(f.want, f.mask))
            });
            let n = plain_cells(&frontier, &mut fast, &codes);
            assert_eq!((n, &fast), (m, &general), "round {round}");
            pairs += n;
        }
        assert!(pairs > 10_000, "{pairs}");
    }
}
