//! The board: placed tiles on a growable dense grid, and the frontier of open cells.
//!
//! A dense grid (instead of a hash map) gives O(1) neighbour lookups with no hashing and
//! a deterministic layout; it grows by doubling when a tile lands near its border, so
//! there is no fixed board size. The frontier (empty cells next to a tile) is kept as a
//! list (swap-removed, so its order is deterministic but not discovery order), which makes placement enumeration a short, allocation-free
//! loop.

use crate::graph::{PlacedIndex, SegmentId};
use crate::pos::Pos;
use crate::side::{Rotation, Side};
use crate::tile::TileKindId;

/// A tile on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacedTile {
    /// Its kind.
    pub kind: TileKindId,
    /// Its cell.
    pub pos: Pos,
    /// Its rotation.
    pub rotation: Rotation,
    /// Node index of its first segment; its segments are consecutive
    /// ([`PlacedTile::segments`]) up to `split`.
    pub first_segment: u32,
    /// How many segments it has (its kind's `segments.len()`).
    pub segment_count: u8,
    /// How many of them are consecutive from `first_segment`: all but those an overlay
    /// added later ([`crate::overlay`]), which start at node `added`.
    pub split: u8,
    /// Node index of its first added segment (meaningless while `split == segment_count`).
    pub added: u32,
    /// Edge codes as placed (byte `s` = side `s`).
    pub edge_code: u32,
    /// Bit mask of its local segments that are centre sites (cloister-like).
    pub sites: u16,
    /// Whether one of its sites can complete (its kind's [`crate::TileKind::ring`]): only
    /// such tiles count in [`Board::site_tiles_around`].
    pub ring: bool,
}

impl PlacedTile {
    /// The feature-graph node of its local segment `local` (index into its kind's
    /// `segments`). Core gives a tile's segments consecutive nodes, so expansions ask
    /// here instead of adding to [`Self::first_segment`] themselves. A `local` beyond
    /// [`Self::segment_count`] names another tile's node: callers pass indices of the
    /// tile kind's segments.
    #[inline]
    pub fn segment(&self, local: usize) -> SegmentId {
        let split = usize::from(self.split);
        if local < split {
            SegmentId::new(self.first_segment as usize + local)
        } else {
            SegmentId::new(self.added as usize + local - split)
        }
    }

    /// The feature-graph nodes of its segments, in local order (local index `i` is the
    /// `i`-th item).
    #[inline]
    pub fn segments(
        &self,
    ) -> impl DoubleEndedIterator<Item = SegmentId> + ExactSizeIterator + Clone {
        let t = *self;
        (0..usize::from(self.segment_count)).map(move |i| t.segment(i))
    }

    /// The feature-graph nodes of the segments whose local index is a bit of `mask` (bit
    /// `i` for local index `i`; bits from [`Self::segment_count`] on are ignored), in local
    /// order: an expansion's per-kind mask of the segments it asks about, without a look at
    /// the others.
    #[inline]
    pub fn segments_in(&self, mask: u32) -> impl Iterator<Item = SegmentId> {
        let t = *self;
        let mut m = mask
            & 1u32
                .checked_shl(u32::from(self.segment_count))
                .map_or(u32::MAX, |b| b - 1);
        std::iter::from_fn(move || {
            if m == 0 {
                return None;
            }
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(t.segment(i))
        })
    }

    /// Whether node `s` is one of its segments.
    #[inline]
    pub fn has_segment(&self, s: SegmentId) -> bool {
        let (i, first, added) = (s.index(), self.first_segment as usize, self.added as usize);
        (first..first + usize::from(self.split)).contains(&i)
            || (added..added + usize::from(self.segment_count - self.split)).contains(&i)
    }

    /// The local index (into its kind's `segments`) of its segment `s`, the inverse of
    /// [`Self::segment`]; `None` for a node that is not one of its segments. An overlay's
    /// added segments are not consecutive with the others, so `s - first_segment` is not
    /// their index.
    #[inline]
    pub fn local_of(&self, s: SegmentId) -> Option<usize> {
        let (i, first, added) = (s.index(), self.first_segment as usize, self.added as usize);
        let split = usize::from(self.split);
        if (first..first + split).contains(&i) {
            Some(i - first)
        } else if (added..added + usize::from(self.segment_count) - split).contains(&i) {
            Some(split + i - added)
        } else {
            None
        }
    }
}

/// A frontier cell with its edge constraints, kept up to date as neighbours arrive so
/// that enumerating placements never looks at the neighbours again. Laid out as four
/// 32-bit words (`pos`, `want`, `mask`), so the placement loop reads a cell in one load
/// ([`FrontierCell::words`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct FrontierCell {
    /// The empty cell.
    pub pos: Pos,
    /// Edge codes the neighbours require (byte `s` = side `s`).
    pub want: u32,
    /// Which bytes of `want` are constrained.
    pub mask: u32,
}

// The words view below relies on these: a `Pos` is two `i32`s (8 bytes, no padding).
const _: () = assert!(std::mem::size_of::<Pos>() == 8 && std::mem::align_of::<Pos>() == 4);
const _: () =
    assert!(std::mem::size_of::<FrontierCell>() == 16 && std::mem::align_of::<FrontierCell>() == 4);

impl FrontierCell {
    /// The cell as four words: words 0 and 1 its `pos` (in `Pos`'s field order), word 2
    /// `want`, word 3 `mask` (the placement loop's one load per cell).
    #[inline(always)]
    pub(crate) fn words(&self) -> &[u32; 4] {
        // SAFETY: `FrontierCell` is `repr(C)`: a `Pos` (two `i32`, 8 bytes without
        // padding, asserted above) then two `u32`, 16 bytes in all, every byte initialised
        // and the alignment 4, as `[u32; 4]`'s; any bits are a valid `u32`.
        unsafe { &*std::ptr::from_ref(self).cast::<[u32; 4]>() }
    }

    /// Whether a tile stands on all four sides (a hole: every side constrained).
    #[inline(always)]
    pub fn is_hole(&self) -> bool {
        self.mask == u32::MAX
    }
}

/// How far from the origin the grid's corner and far edge may lie (tiles stay within
/// `MAX_COORD`, and the grid at most doubles around them), far below `i32`'s range, which
/// `Board::index` relies on.
const GRID_REACH: i32 = 1 << 20;

// Cell encoding: 0 = empty, FRONTIER_BIT | index = frontier cell, otherwise tile index + 1.
const EMPTY: u32 = 0;
const FRONTIER_BIT: u32 = 1 << 31;

/// [`Board::rewind_to`] undoes at most this many placements (a search's try places a few;
/// undoing a whole game's would cost about what copying does).
const REWIND_TILES: usize = 48;

/// Placed tiles and the open frontier. (`Clone` below: its `clone_from` reuses the
/// buffers.)
#[derive(Debug, PartialEq)]
pub struct Board {
    min_x: i32,
    min_y: i32,
    width: i32,
    height: i32,
    cells: Vec<u32>,
    placed: Vec<PlacedTile>,
    frontier: Vec<FrontierCell>,
    /// Counts the changes to the board (a tile placed, a tile made a variant): two states
    /// of one game with the same count have the same board ([`Board::edits`]).
    edits: u32,
    /// Frontier cells with a tile on all four sides ([`Board::holes`]).
    holes: u32,
    /// Per cell of the grid (same layout as `cells`): how many of its 8 surrounding cells
    /// hold a tile with a centre site that can complete ([`Board::site_tiles_around`]).
    near_sites: Vec<u8>,
}

impl Clone for Board {
    fn clone(&self) -> Board {
        let mut b = Board {
            cells: Vec::new(),
            placed: Vec::new(),
            frontier: Vec::new(),
            near_sites: Vec::new(),
            ..*self
        };
        b.clone_from(self);
        b
    }

    /// Reuses this board's buffers (a simulation starts each game from a copy of the
    /// set-up's board, [`crate::GameTemplate::game_into`]).
    fn clone_from(&mut self, source: &Board) {
        let Board {
            min_x,
            min_y,
            width,
            height,
            cells,
            placed,
            frontier,
            edits,
            holes,
            near_sites,
        } = source;
        self.min_x = *min_x;
        self.min_y = *min_y;
        self.width = *width;
        self.height = *height;
        // In pieces: the grid is several KiB (`crate::copy`).
        crate::copy::copy_in_pieces(&mut self.cells, cells);
        crate::copy::copy_in_pieces(&mut self.placed, placed);
        crate::copy::copy_in_pieces(&mut self.frontier, frontier);
        self.edits = *edits;
        self.holes = *holes;
        crate::copy::copy_in_pieces(&mut self.near_sites, near_sites);
    }
}

impl Default for Board {
    fn default() -> Self {
        Board::new()
    }
}

impl Board {
    /// An empty board.
    pub fn new() -> Board {
        // Large enough that most games never grow the grid (24 was outgrown about once a
        // game with six sets: a copy of every cell each time), small enough to stay a cheap
        // copy for the bots' searches (docs/speed-log.md, mix17).
        let side = 40;
        Board {
            min_x: -side / 2,
            min_y: -side / 2,
            width: side,
            height: side,
            cells: vec![EMPTY; (side * side) as usize],
            placed: Vec::with_capacity(96),
            frontier: Vec::with_capacity(256),
            edits: 0,
            holes: 0,
            near_sites: vec![0; (side * side) as usize],
        }
    }

    /// How many empty cells have a tile on all four sides (holes: where only a barrier
    /// tile such as the abbey can go), kept as tiles are placed, so that a rule asking
    /// "is there a hole?" every turn reads one number instead of the frontier.
    #[inline]
    pub fn holes(&self) -> u32 {
        self.holes
    }

    /// How many times this board has changed (wrapping): a key for what is computed from
    /// the board alone, valid within one game and its copies.
    #[inline]
    pub fn edits(&self) -> u32 {
        self.edits
    }

    /// [`Board::rewind_to`]'s step for frontier index `k`: when this board's entry there
    /// is not `base`'s, its cell gets `base`'s code back (the entry itself is copied after).
    #[inline]
    fn restore_frontier_cell(&mut self, base: &Board, k: usize) {
        let pos = self.frontier[k].pos;
        if base.frontier.get(k).is_some_and(|f| f.pos == pos) {
            return;
        }
        if let Some(i) = self.index(pos) {
            self.cells[i] = base.cells[i];
        }
    }

    #[inline]
    fn index(&self, p: Pos) -> Option<usize> {
        // `p` may be any cell a caller names, up to the ends of `i32`. Offsets taken as
        // unsigned make a cell left of or above the grid a huge value, so one compare per
        // axis bounds it; since the grid's corner stays within `GRID_REACH` of the origin,
        // no cell wraps back inside.
        let dx = p.x.wrapping_sub(self.min_x) as u32;
        let dy = p.y.wrapping_sub(self.min_y) as u32;
        if dx >= self.width as u32 || dy >= self.height as u32 {
            None
        } else {
            Some(dy as usize * self.width as usize + dx as usize)
        }
    }

    #[inline]
    fn cell(&self, p: Pos) -> u32 {
        self.index(p).map_or(EMPTY, |i| self.cells[i])
    }

    /// The index of the tile at `p`.
    #[inline]
    pub fn index_at(&self, p: Pos) -> Option<PlacedIndex> {
        let c = self.cell(p);
        (c != EMPTY && c & FRONTIER_BIT == 0).then(|| (c - 1) as PlacedIndex)
    }

    /// How many of the 8 cells surrounding `p` hold a tile with a centre site that can
    /// complete ([`PlacedTile::ring`]), kept as tiles are placed: a placement that has none
    /// around it skips the walk over its surrounding cells (open cells of a cloister, its
    /// completion). A site that never completes (the Big Top's acrobat space) is not
    /// counted: its open count is kept only while a counted site is also around, and no
    /// rule reads it (it never completes, and core scores it at no time).
    #[inline]
    pub fn site_tiles_around(&self, p: Pos) -> u8 {
        self.index(p).map_or(0, |i| self.near_sites[i])
    }

    /// Room for `tiles` tiles and `frontier` frontier cells without growing (a clone keeps
    /// only what is in use).
    pub(crate) fn reserve_total(&mut self, tiles: usize, frontier: usize) {
        self.placed.reserve(tiles.saturating_sub(self.placed.len()));
        self.frontier
            .reserve(frontier.saturating_sub(self.frontier.len()));
    }

    /// The tile at `p`.
    #[inline]
    pub fn at(&self, p: Pos) -> Option<&PlacedTile> {
        self.index_at(p).map(|i| &self.placed[i as usize])
    }

    /// Whether a tile lies at `p`.
    #[inline]
    pub fn is_occupied(&self, p: Pos) -> bool {
        let c = self.cell(p);
        c != EMPTY && c & FRONTIER_BIT == 0
    }

    /// All placed tiles in placement order.
    pub fn tiles(&self) -> &[PlacedTile] {
        &self.placed
    }

    /// The tile placed `i`-th.
    #[inline]
    pub fn tile(&self, i: PlacedIndex) -> &PlacedTile {
        &self.placed[i as usize]
    }

    /// Empty cells next to at least one tile, with their edge constraints.
    pub fn frontier(&self) -> &[FrontierCell] {
        &self.frontier
    }

    /// Edge constraints of an empty cell: `(want, mask)` such that a tile fits its
    /// neighbours when `edge_code & mask == want`.
    #[inline]
    pub fn constraints(&self, p: Pos) -> (u32, u32) {
        let c = self.cell(p);
        if c & FRONTIER_BIT != 0 {
            // A frontier cell keeps them (one look-up instead of four: the amended
            // placement's check of every placement while a bridge is left).
            let f = &self.frontier[(c & !FRONTIER_BIT) as usize];
            debug_assert_eq!((f.want, f.mask), self.constraints_around(p));
            return (f.want, f.mask);
        }
        self.constraints_around(p)
    }

    /// [`Board::constraints`] read from the four neighbours.
    fn constraints_around(&self, p: Pos) -> (u32, u32) {
        let mut want = 0u32;
        let mut mask = 0u32;
        for s in Side::ALL {
            if let Some(t) = self.at(p.step(s)) {
                let theirs = (t.edge_code >> (8 * s.opposite().index() as u32)) & 0xFF;
                want |= theirs << (8 * s.index() as u32);
                mask |= 0xFF << (8 * s.index() as u32);
            }
        }
        (want, mask)
    }

    /// Number of tiles among the 8 cells surrounding `p`.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
    pub fn surrounding_count(&self, p: Pos) -> u16 {
        p.surrounding()
            .iter()
            .filter(|q| self.is_occupied(**q))
            .count() as u16
    }

    /// The smallest rectangle holding every tile: `(min, max)` corners, or `None` if empty.
    pub fn bounds(&self) -> Option<(Pos, Pos)> {
        let first = self.placed.first()?.pos;
        Some(self.placed.iter().fold((first, first), |(lo, hi), t| {
            (
                Pos::new(lo.x.min(t.pos.x), lo.y.min(t.pos.y)),
                Pos::new(hi.x.max(t.pos.x), hi.y.max(t.pos.y)),
            )
        }))
    }

    /// [`Board::place_beside`] for tests that need only the index.
    #[cfg(test)]
    pub(crate) fn place(&mut self, tile: PlacedTile) -> PlacedIndex {
        self.place_beside(tile).0
    }

    /// Puts a tile on an empty cell within [`MAX_COORD`](crate::pos::MAX_COORD) and updates
    /// the frontier, which never reaches past the bound. Returns its index and the tiles
    /// beside it, per side (index `s` = side `s`): their index + 1, or 0 for none. The
    /// frontier update reads those four cells anyway, so the placement that joins the
    /// tile's segments to theirs does not look them up again.
    pub(crate) fn place_beside(&mut self, tile: PlacedTile) -> (PlacedIndex, [u32; 4]) {
        debug_assert!(tile.pos.in_bounds(), "callers check the bound");
        self.edits = self.edits.wrapping_add(1);
        self.ensure_room(tile.pos);
        let idx = self.placed.len() as PlacedIndex;
        let i = self.index(tile.pos).expect("room ensured");
        let c = self.cells[i];
        if c & FRONTIER_BIT != 0 {
            let k = (c & !FRONTIER_BIT) as usize;
            self.holes -= u32::from(self.frontier[k].is_hole());
            self.frontier.swap_remove(k);
            if let Some(moved) = self.frontier.get(k) {
                let j = self.index(moved.pos).expect("frontier cells are inside");
                self.cells[j] = FRONTIER_BIT | k as u32;
            }
        }
        self.cells[i] = idx as u32 + 1;
        self.placed.push(tile);
        if tile.ring {
            for q in tile.pos.surrounding() {
                // Inside: the grid keeps two cells of margin around every tile.
                if let Some(j) = self.index(q) {
                    self.near_sites[j] = self.near_sites[j].saturating_add(1);
                }
            }
        }
        // The four neighbours' cells, N E S W, from this one's: the grid keeps two cells of
        // margin around every tile (`ensure_room`), so each is inside, one row or column
        // away (rows of `width` cells). One call per side, in side order (the frontier's
        // order), each with its side's constants (no loop over an array of cells).
        let w = self.width as usize;
        let (p, code) = (tile.pos, tile.edge_code);
        let beside = [
            self.meet(i - w, p.step(Side::N), code, Side::N),
            self.meet(i + 1, p.step(Side::E), code, Side::E),
            self.meet(i + w, p.step(Side::S), code, Side::S),
            self.meet(i - 1, p.step(Side::W), code, Side::W),
        ];
        (idx, beside)
    }

    /// [`Board::place_beside`]'s work on the cell `j` (at `q`) across side `s` of a tile
    /// with edge codes `code` just placed: an empty cell within the bound joins the
    /// frontier, a frontier cell learns the tile's edge; returns the tile there (index + 1),
    /// or 0.
    #[inline(always)]
    fn meet(&mut self, j: usize, q: Pos, code: u32, s: Side) -> u32 {
        debug_assert_eq!(Some(j), self.index(q));
        let theirs = s.opposite().index() as u32 * 8;
        let edge = (code >> (8 * s.index() as u32)) & 0xFF;
        let c = self.cells[j];
        // Which of the three a neighbour cell is (empty, frontier, tile) follows no pattern,
        // so all three answers are computed and the right one kept, without a branch: the
        // new frontier entry is pushed whatever the cell and dropped again unless the cell
        // was empty (within the bound); a frontier cell's entry, or else the pushed one
        // (which already holds these bits), learns the edge.
        let n = self.frontier.len();
        self.frontier.push(FrontierCell {
            pos: q,
            want: edge << theirs,
            mask: 0xFF << theirs,
        });
        let empty = (c == EMPTY) & q.in_bounds();
        let frontier = c & FRONTIER_BIT != 0;
        let at = if frontier {
            (c & !FRONTIER_BIT) as usize
        } else {
            n
        };
        let f = &mut self.frontier[at];
        f.want |= edge << theirs;
        f.mask |= 0xFF << theirs;
        self.holes += u32::from(frontier & f.is_hole());
        self.cells[j] = if empty { FRONTIER_BIT | n as u32 } else { c };
        self.frontier.truncate(n + usize::from(empty));
        // A tile's cell holds its index + 1; an empty cell holds 0 (`EMPTY`).
        if frontier {
            0
        } else {
            c
        }
    }

    /// Turns the tile placed `i`-th into a variant of its kind (an overlay,
    /// [`crate::overlay`]): its kind, segment count and edge codes, and the constraints of
    /// the frontier cells beside it.
    pub(crate) fn set_variant(
        &mut self,
        i: PlacedIndex,
        kind: TileKindId,
        count: u8,
        added: u32,
        edge_code: u32,
    ) {
        self.edits = self.edits.wrapping_add(1);
        let t = &mut self.placed[i as usize];
        if t.split == t.segment_count {
            t.added = added;
        }
        t.kind = kind;
        t.segment_count = count;
        t.edge_code = edge_code;
        let pos = t.pos;
        for s in Side::ALL {
            let c = self.cell(pos.step(s));
            if c & FRONTIER_BIT != 0 {
                let theirs = s.opposite().index() as u32 * 8;
                let edge = (edge_code >> (8 * s.index() as u32)) & 0xFF;
                let f = &mut self.frontier[(c & !FRONTIER_BIT) as usize];
                f.want = (f.want & !(0xFF << theirs)) | edge << theirs;
            }
        }
    }

    /// Makes this board equal to `base` again by undoing what was placed since it was a
    /// copy of `base`: how a search bot's scratch game, refilled from the same position
    /// before every try, restores its board without copying the whole grid (issue 33;
    /// [`crate::GameState`]'s refill). The caller knows this board was a copy of `base` and
    /// has only had tiles placed or turned into variants since. Returns `false`, changing
    /// nothing, when undoing is not cheaper or not possible (the grid grew, a tile became a
    /// variant, many tiles were placed): the caller copies then.
    ///
    /// A placement writes its tile's cell, the four beside it (frontier codes), the cell of
    /// the frontier entry moved into the removed one's index (a frontier cell still, or a
    /// tile placed later), and `near_sites` around a tile with a centre site; `placed`
    /// only grows. So those cells come back from `base` (a frontier cell only if its index
    /// differs from `base`'s), and the short lists are copied.
    pub(crate) fn rewind_to(&mut self, base: &Board) -> bool {
        let (n0, n1) = (base.placed.len(), self.placed.len());
        let same_grid = (self.min_x, self.min_y, self.width, self.height)
            == (base.min_x, base.min_y, base.width, base.height);
        // Every placement counts one edit and adds a tile; a variant counts one and adds none.
        if !same_grid
            || n1 < n0
            || n1 - n0 > REWIND_TILES
            || self.edits.wrapping_sub(base.edits) as usize != n1 - n0
        {
            return false;
        }
        // A frontier cell at the same index in both lists has the same code in both, so
        // only the indices where the lists may differ are read, not the whole frontier (a
        // hundred cells and more with many expansions, at every playout of a search). A
        // placement swap-removes its cell's entry (the last entry moves into that index),
        // then pushes new cells at the end (and updates the edges of entries in place,
        // which the copy below restores); the list never gets shorter than `low`. Below
        // `low` an index gets another cell only by such a removal, at the index its cell
        // had: either that cell's index in `base`, or an index that got another cell
        // before in the same way. So every index below `low` whose cell differs is a
        // placed cell's index in `base`.
        let low = base.frontier.len().saturating_sub(n1 - n0);
        for k in low..self.frontier.len() {
            self.restore_frontier_cell(base, k);
        }
        for k in n0..n1 {
            let t = self.placed[k];
            // The placed cell's index in `base`'s frontier, when below `low`.
            if let Some(i) = self.index(t.pos) {
                let c = base.cells[i];
                let j = (c & !FRONTIER_BIT) as usize;
                if c & FRONTIER_BIT != 0 && j < low {
                    self.restore_frontier_cell(base, j);
                }
            }
            for q in [t.pos].into_iter().chain(Side::ALL.map(|s| t.pos.step(s))) {
                if let Some(i) = self.index(q) {
                    self.cells[i] = base.cells[i];
                }
            }
            if t.ring {
                for q in t.pos.surrounding() {
                    if let Some(i) = self.index(q) {
                        self.near_sites[i] = base.near_sites[i];
                    }
                }
            }
        }
        self.placed.truncate(n0);
        crate::copy::copy_in_pieces(&mut self.frontier, &base.frontier);
        self.edits = base.edits;
        self.holes = base.holes;
        true
    }

    /// Grows the grid so that `p` and its neighbours two cells away are inside.
    fn ensure_room(&mut self, p: Pos) {
        let margin = 2;
        let inside = p.x - margin >= self.min_x
            && p.y - margin >= self.min_y
            && p.x + margin < self.min_x + self.width
            && p.y + margin < self.min_y + self.height;
        if !inside {
            self.grow(p, margin);
        }
    }

    /// [`Self::ensure_room`]'s growth: rare (the grid doubles), and out of line so that
    /// placing a tile, which checks the room every time, stays short.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, p: Pos, margin: i32) {
        // Grow by half the size on every side (amortised doubling), and at least far
        // enough to hold `p`, keeping every old cell.
        let min_x = (p.x - margin).min(self.min_x - self.width / 2);
        let min_y = (p.y - margin).min(self.min_y - self.height / 2);
        let end_x = (p.x + margin + 1).max(self.min_x + self.width + self.width / 2);
        let end_y = (p.y + margin + 1).max(self.min_y + self.height + self.height / 2);
        let (new_w, new_h) = (end_x - min_x, end_y - min_y);
        let mut cells = vec![EMPTY; (new_w * new_h) as usize];
        let mut near_sites = vec![0u8; (new_w * new_h) as usize];
        for y in 0..self.height {
            for x in 0..self.width {
                let from = (y * self.width + x) as usize;
                let (nx, ny) = (x + self.min_x - min_x, y + self.min_y - min_y);
                let to = (ny * new_w + nx) as usize;
                cells[to] = self.cells[from];
                near_sites[to] = self.near_sites[from];
            }
        }
        debug_assert!(
            min_x > -GRID_REACH && min_y > -GRID_REACH && end_x < GRID_REACH && end_y < GRID_REACH,
            "the grid grows around tiles within MAX_COORD"
        );
        self.cells = cells;
        self.near_sites = near_sites;
        self.min_x = min_x;
        self.min_y = min_y;
        self.width = new_w;
        self.height = new_h;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile_at(x: i32, y: i32) -> PlacedTile {
        PlacedTile {
            kind: TileKindId(0),
            pos: Pos::new(x, y),
            rotation: Rotation::R0,
            first_segment: 0,
            segment_count: 0,
            split: 0,
            added: 0,
            edge_code: 0,
            sites: 0,
            ring: false,
        }
    }

    /// A mask's segments, in local order, past the split too; bits from the segment count
    /// on name no segment.
    #[test]
    fn segments_in_a_mask_are_its_bits_below_the_count() {
        let t = PlacedTile {
            first_segment: 5,
            segment_count: 4,
            split: 3,
            added: 20,
            ..tile_at(0, 0)
        };
        let nodes = |mask| t.segments_in(mask).map(|s| s.index()).collect::<Vec<_>>();
        assert_eq!(nodes(0b1101), [5, 7, 20]);
        assert_eq!(nodes(0), [] as [usize; 0]);
        assert_eq!(nodes(u32::MAX), [5, 6, 7, 20]);
        assert_eq!(nodes(0b1_0000), [] as [usize; 0]);
    }

    #[test]
    fn segments_are_the_consecutive_nodes_from_the_first() {
        let t = PlacedTile {
            first_segment: 5,
            segment_count: 3,
            split: 3,
            ..tile_at(0, 0)
        };
        let nodes: Vec<usize> = t.segments().map(|s| s.index()).collect();
        assert_eq!(nodes, [5, 6, 7]);
        assert_eq!(t.segment(2), SegmentId::new(7));
        assert!(t.has_segment(SegmentId::new(5)) && t.has_segment(SegmentId::new(7)));
        assert!(!t.has_segment(SegmentId::new(4)) && !t.has_segment(SegmentId::new(8)));
        assert_eq!(tile_at(0, 0).segments().len(), 0);
        // An overlay's segment added later lies elsewhere in the graph.
        let v = PlacedTile {
            segment_count: 4,
            added: 20,
            ..t
        };
        let nodes: Vec<usize> = v.segments().map(|s| s.index()).collect();
        assert_eq!(nodes, [5, 6, 7, 20]);
        assert!(v.has_segment(SegmentId::new(20)) && !v.has_segment(SegmentId::new(8)));
        // `local_of` inverts `segment`, the added segment included; other nodes are none.
        for local in 0..4 {
            assert_eq!(v.local_of(v.segment(local)), Some(local));
        }
        for other in [4, 8, 19, 21] {
            assert_eq!(v.local_of(SegmentId::new(other)), None, "node {other}");
        }
    }

    /// Any cell a caller names, up to the ends of `i32`, is either on the grid or
    /// "nothing there" (no wrap-around into the grid), before and after the grid grows.
    #[test]
    fn far_cells_are_empty() {
        let mut b = Board::new();
        b.place(tile_at(0, 0));
        for _ in 0..2 {
            for x in [
                i32::MIN,
                i32::MIN + 1,
                -GRID_REACH,
                -1 << 31 >> 1,
                i32::MAX,
                i32::MAX - 1,
            ] {
                for y in [i32::MIN, -1, 0, 1, i32::MAX] {
                    assert!(b.at(Pos::new(x, y)).is_none(), "({x}, {y})");
                    assert!(!b.is_occupied(Pos::new(y, x)), "({y}, {x})");
                }
            }
            assert!(b.at(Pos::new(0, 0)).is_some());
            // Grow the grid towards both corners of the bound.
            b.place(tile_at(crate::pos::MAX_COORD, crate::pos::MAX_COORD));
            b.place(tile_at(-crate::pos::MAX_COORD, -crate::pos::MAX_COORD));
        }
        assert!(b
            .at(Pos::new(crate::pos::MAX_COORD, crate::pos::MAX_COORD))
            .is_some());
        assert!(b
            .at(Pos::new(-crate::pos::MAX_COORD, -crate::pos::MAX_COORD))
            .is_some());
    }

    /// `site_tiles_around` counts, for every cell, the tiles with a centre site that can
    /// complete among its 8 surrounding cells, as a walk over those cells would, also after
    /// the grid grows; a tile whose site never completes (an acrobat space) is not counted.
    #[test]
    fn site_tiles_around_counts_the_surrounding_site_tiles() {
        let mut b = Board::new();
        let cloister = |x, y| PlacedTile {
            sites: 1,
            ring: true,
            ..tile_at(x, y)
        };
        b.place(tile_at(0, 0));
        b.place(cloister(1, 0));
        b.place(cloister(1, 1));
        b.place(PlacedTile {
            sites: 1,
            ..tile_at(0, 1)
        });
        // Far enough to grow the grid (24 cells wide at first) more than once.
        b.place(cloister(40, -30));
        b.place(tile_at(41, -30));
        for y in -33..4 {
            for x in -3..44 {
                let p = Pos::new(x, y);
                let walked = p
                    .surrounding()
                    .iter()
                    .filter(|q| b.at(**q).is_some_and(|t| t.ring))
                    .count();
                assert_eq!(usize::from(b.site_tiles_around(p)), walked, "({x}, {y})");
            }
        }
        assert_eq!(b.site_tiles_around(Pos::new(0, 0)), 2);
        assert_eq!(b.site_tiles_around(Pos::new(1, 0)), 1);
        assert_eq!(b.site_tiles_around(Pos::new(i32::MAX, 0)), 0);
    }

    /// `rewind_to` undoes placements exactly (cells, frontier order and holes,
    /// `near_sites`), and declines when the grid grew or a tile became a variant.
    #[test]
    fn rewind_undoes_the_placements_since_the_base() {
        let cloister = |x, y| PlacedTile {
            sites: 1,
            ring: true,
            edge_code: 0x0102_0304,
            ..tile_at(x, y)
        };
        let mut base = Board::new();
        for (x, y) in [(0, 0), (1, 0), (0, 1), (2, 0), (-1, 0), (0, -1), (2, 1)] {
            base.place(if (x + y) % 2 == 0 {
                cloister(x, y)
            } else {
                tile_at(x, y)
            });
        }
        let mut b = base.clone();
        // Fill a hole, take frontier cells from the middle of the list, add cloisters.
        for (x, y) in [(1, 1), (-1, 1), (3, 0), (1, -1), (-1, -1)] {
            b.place(cloister(x, y));
        }
        assert_ne!(b, base);
        assert!(b.rewind_to(&base));
        assert_eq!(b, base);
        // Nothing placed since: still the base.
        assert!(b.rewind_to(&base));
        assert_eq!(b, base);
        // A variant since the copy: declined, unchanged.
        b.place(tile_at(1, 1));
        b.set_variant(0, TileKindId(1), 0, 0, 7);
        let before = format!("{b:?}");
        assert!(!b.rewind_to(&base));
        assert_eq!(format!("{b:?}"), before);
        // A grown grid: declined.
        let mut b = base.clone();
        b.place(tile_at(30, 0));
        assert!(!b.rewind_to(&base));
    }

    /// `rewind_to` reads only the frontier indices a placement can change: after any
    /// number of placements up to its limit, on cells taken from anywhere in the frontier
    /// (its last entry or not, cells of the base or new ones), the board is the base again.
    #[test]
    fn rewind_restores_every_frontier_cell_a_placement_moved() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for round in 0..300 {
            let mut base = Board::new();
            base.place(tile_at(0, 0));
            for _ in 0..rng.random_range(0..40) {
                let f = base.frontier()[rng.random_range(0..base.frontier().len())].pos;
                base.place(tile_at(f.x, f.y));
            }
            let mut b = base.clone();
            for _ in 0..3 {
                for _ in 0..rng.random_range(0..=REWIND_TILES.min(12)) {
                    let f = b.frontier()[rng.random_range(0..b.frontier().len())].pos;
                    b.place(tile_at(f.x, f.y));
                }
                if b.rewind_to(&base) {
                    assert_eq!(b, base, "round {round}");
                } else {
                    // The grid grew: the caller copies instead.
                    b.clone_from(&base);
                }
            }
        }
    }
}
