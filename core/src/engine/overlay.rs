//! Overlays on the board ([`crate::overlay`]): adding a variant's segment to a placed tile,
//! whether it fits, and the placements it makes legal.

use super::lanes::Lanes;
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
    let code = rules.tiles().get(variant).edge_code(t.rotation);
    // On a board where every tile matches its neighbours exactly, the variant needs a
    // look only where it differs from the tile (its overlay's ends): two cells, not four.
    if rules.edges_exact() {
        return ends_fit(&st.board, at, code, t.edge_code, None);
    }
    let (want, mask) = st.board.constraints(at);
    code & mask == want
}

/// Whether every expansion that vets overlays ([`HookSet::ALLOWS_OVERLAY`]) lets the tile
/// at `at` (on the board) become `variant`: asked in load order until one says no. Free
/// when no expansion has the hook (the check is inlined, the asking is not).
#[inline(always)]
pub(crate) fn overlay_allowed(
    rules: &Ruleset,
    st: &GameState,
    at: Pos,
    variant: TileKindId,
) -> Result<bool, HookError> {
    let members = rules.hook_members(HookSet::ALLOWS_OVERLAY);
    if members == 0 {
        return Ok(true);
    }
    ask_allows_overlay(rules, st, members, at, variant)
}

/// [`overlay_allowed`] with implementers (`members`): each asked in load order until one
/// says no.
#[inline(never)]
fn ask_allows_overlay(
    rules: &Ruleset,
    st: &GameState,
    members: u64,
    at: Pos,
    variant: TileKindId,
) -> Result<bool, HookError> {
    let mut allowed = true;
    read_members(
        rules,
        st,
        members,
        |i| rules.hook_sets()[i].has(HookSet::ALLOWS_OVERLAY),
        "allows_overlay",
        |e, v| {
            if allowed {
                allowed = e.allows_overlay(v, at, variant)?;
            }
            Ok(())
        },
    )?;
    Ok(allowed)
}

/// Turns the tile at `at` into `variant` (checked by [`overlay_fits`] first): the added
/// segments become nodes of the feature graph, joined with the segments their sides face.
/// Returns the first added node.
///
/// Written for a short path (it runs once in a few dozen decisions, so its code is never
/// in the cache): the board and the graph taken for writing once each, their copies out of
/// line ([`crate::state::unshared_mut`]), the added segments' sides from the kind, the
/// fit looked at on the overlay's ends only ([`overlay_fits`]).
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
    // A variant's own variants are none (`TileCatalog::add_variant`), so the tile is of its
    // base kind: its segments all its kind's, the added ones from `segment_count` on.
    debug_assert_eq!(t.split, t.segment_count);
    let vk = rules.tiles().get(variant);
    let first = st.graph.len() as u32;
    let count = u8::try_from(vk.segments.len()).unwrap_or(u8::MAX);
    crate::state::unshared_mut(&mut st.board).set_variant(
        idx,
        variant,
        count,
        first,
        vk.edge_code(t.rotation),
    );
    let added = &vk.segments[usize::from(t.segment_count).min(vk.segments.len())..];
    let mut g = st.graph.edit();
    for (i, seg) in added.iter().enumerate() {
        g.add_segment(
            SegmentNode {
                kind: seg.kind,
                pos: at,
                tile: idx,
                local: t.segment_count + i as u8,
                sides: seg.sides.rotate(t.rotation),
                halves: seg.halves.rotate(t.rotation),
                pennants: seg.pennants,
                anchored: false,
            },
            FeatureTotals {
                open: seg.sides.len() as u16,
                completable: rules.kind(seg.kind).completes,
                marks: vk
                    .templates(Rotation::R0)
                    .get(usize::from(t.segment_count) + i)
                    .map_or(0, |t| t.marks),
                ..FeatureTotals::default()
            },
        );
    }
    for (i, seg) in added.iter().enumerate() {
        let a = node(first + i as u32);
        for s in seg.sides.rotate(t.rotation).iter() {
            let Some(n) = st.board.at(at.step(s)) else {
                continue;
            };
            let nk = rules.tiles().get(n.kind);
            if nk.barrier {
                g.close_edge(a);
            } else if let Some(b) = nk.segment_on_side(n.rotation, s.opposite()) {
                if nk.segments[usize::from(b)].kind == seg.kind {
                    g.join(a, n.segment(usize::from(b)), true);
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
/// variants first, then in side order. The neighbour's variant must also be allowed by
/// every expansion that vets overlays ([`overlay_allowed`]); the tile's own, not yet on the
/// board, is not asked about.
pub(crate) fn amendment(
    rules: &Ruleset,
    st: &GameState,
    tk: &crate::tile::TileKind,
    pos: Pos,
    rot: Rotation,
    (want, mask): (u32, u32),
) -> Result<Option<Amendment>, HookError> {
    let code = tk.edge_code(rot);
    for &v in &tk.variants {
        if rules.tiles().get(v).edge_code(rot) & mask == want {
            return Ok(Some(Amendment {
                at: pos,
                variant: v,
            }));
        }
    }
    let diff = (code ^ want) & mask;
    let shift = diff.trailing_zeros() & !7;
    let byte = 0xFFu32 << shift;
    if diff == 0 || diff & !byte != 0 || want & byte != 0 {
        return Ok(None);
    }
    let side = Side::from_index((shift / 8) as u8);
    let at = pos.step(side);
    let edge = (code >> shift) & 0xFF;
    Ok(neighbour_variant(rules, st, at, side.opposite(), edge)?
        .map(|variant| Amendment { at, variant }))
}

/// The first variant of the tile at `at` (none if the cell is empty) that shows `edge` on
/// its side `facing`, still fits its own neighbours and is allowed ([`overlay_allowed`]):
/// the neighbour half of [`amendment`] and [`neighbour_amends`].
fn neighbour_variant(
    rules: &Ruleset,
    st: &GameState,
    at: Pos,
    facing: Side,
    edge: u32,
) -> Result<Option<TileKindId>, HookError> {
    let Some(n) = st.board.at(at) else {
        return Ok(None);
    };
    variant_of_neighbour(rules, st, at, n, facing, edge)
}

/// [`neighbour_variant`] for the tile `n` found at `at`.
#[inline(never)]
fn variant_of_neighbour(
    rules: &Ruleset,
    st: &GameState,
    at: Pos,
    n: &crate::board::PlacedTile,
    facing: Side,
    edge: u32,
) -> Result<Option<TileKindId>, HookError> {
    let theirs = 8 * facing.index() as u32;
    // On a board where every tile matches its neighbours exactly
    // ([`Ruleset::edges_exact`]), a variant needs a look only where it differs from the
    // tile: its overlay's far end.
    let exact = rules.edges_exact();
    // The neighbour's own constraints only for a variant that shows the edge (most
    // neighbours have none).
    let mut fit = None;
    for &v in &rules.tiles().get(n.kind).variants {
        let vc = rules.tiles().get(v).edge_code(n.rotation);
        if (vc >> theirs) & 0xFF == edge
            && if exact {
                ends_fit(&st.board, at, vc, n.edge_code, Some(facing))
            } else {
                let (w, m) = *fit.get_or_insert_with(|| st.board.constraints(at));
                vc & m == w
            }
            && overlay_allowed(rules, st, at, v)?
        {
            return Ok(Some(v));
        }
    }
    Ok(None)
}

/// Whether the edge code `code` of the tile at `at` (now `was`) matches the tiles beside
/// it on the sides where the two differ, but `facing` (an empty cell asked about, if
/// any): on a board where every tile matches its neighbours exactly, whether all of `code`
/// does ([`Board::constraints`](crate::Board::constraints)), for a look at one or two
/// cells instead of four.
#[inline(always)]
fn ends_fit(board: &crate::Board, at: Pos, code: u32, was: u32, facing: Option<Side>) -> bool {
    let skip = facing.map_or(0, |f| 1 << (8 * f.index() as u32));
    let mut changed = byte_ones(code ^ was) & !skip;
    let mut fits = true;
    while changed != 0 && fits {
        let shift = changed.trailing_zeros();
        changed &= changed - 1;
        let s = Side::from_index((shift / 8) as u8);
        if let Some(t) = board.at(at.step(s)) {
            fits =
                (t.edge_code >> (8 * s.opposite().index() as u32)) & 0xFF == (code >> shift) & 0xFF;
        }
    }
    // Callers ask only on exact boards, where this is the whole constraints' answer.
    debug_assert_eq!(fits, {
        let (want, mask) = board.constraints(at);
        code & mask == want
    });
    fits
}

/// The legal cells of `tk` when an overlay amends placements ([`amending`]): those where
/// it fits by its edges, with the rotations an overlay makes legal added. Returns the
/// number of (cell, rotation) pairs.
///
/// The same answer as asking [`amendment`] for every (cell, rotation) the plain edges
/// reject, at a fraction of the cost (it runs at every placement while a player holds an
/// overlay; see [`cells_with`]). A kind with more than two variants (several overlays)
/// asks [`amendment`] per placement.
pub(crate) fn amended_cells(
    rules: &Ruleset,
    st: &GameState,
    tile: TileKindId,
    out: &mut Vec<PlacementCell>,
) -> Result<usize, HookError> {
    out.clear();
    let tk = rules.tiles().get(tile);
    let Some(a) = rules.amend_kinds.get(usize::from(tile.0)) else {
        return amended_cells_general(rules, st, tk, out);
    };
    match (tk.variants.len(), a.single_bits) {
        (0, true) => cells_with::<0>(rules, st, a, out),
        (1, true) => cells_with::<1>(rules, st, a, out),
        (2, true) => cells_with::<2>(rules, st, a, out),
        _ => amended_cells_general(rules, st, tk, out),
    }
}

/// Per tile kind, what the amended placement loop reads of it ([`cells_with`],
/// [`neighbour_amends`]), made once with the ruleset ([`AmendKind::table`]) instead of
/// from the kind and its variants at every enumeration.
#[derive(Clone, Copy)]
pub(crate) struct AmendKind {
    /// The kind's edge codes per rotation.
    codes: [u32; 4],
    /// Its first two variants' edge codes per rotation (0 past its variants).
    own: [[u32; 4]; 2],
    /// Per rotation, the bytes where the kind shows an edge some overlay adds.
    overlay_bytes: [u32; 4],
    /// Per rotation, the edge codes of all its variants or'ed: a side whose byte has no
    /// bit of an edge shows that edge in none of them ([`neighbour_amends`]' first test).
    shows: [u32; 4],
    /// Whether every overlay's edge code is a single bit ([`KindCodes::single_bits`]).
    single_bits: bool,
}

impl AmendKind {
    /// The table for a ruleset's tile kinds (every kind, variants included) and overlays;
    /// empty when no overlay amends placements (the loop never runs then).
    pub(crate) fn table(
        tiles: &crate::tile::TileCatalog,
        overlays: &[crate::overlay::Overlay],
    ) -> Vec<AmendKind> {
        if overlays.iter().all(|o| o.amends.is_none()) {
            return Vec::new();
        }
        let single_bits = overlays
            .iter()
            .all(|o| (u32::from(o.kind.0) + 1).is_power_of_two());
        (0..tiles.len())
            .map(|i| {
                let tk = tiles.get(TileKindId(i as u16));
                let rotated = |k: TileKindId| Rotation::ALL.map(|r| tiles.get(k).edge_code(r));
                let codes = Rotation::ALL.map(|r| tk.edge_code(r));
                let mut own = [[0; 4]; 2];
                let mut shows = [0; 4];
                for (j, &v) in tk.variants.iter().enumerate() {
                    let vc = rotated(v);
                    if let Some(o) = own.get_mut(j) {
                        *o = vc;
                    }
                    for (s, c) in shows.iter_mut().zip(vc) {
                        *s |= c;
                    }
                }
                let overlay_bytes = codes.map(|code| {
                    overlays.iter().fold(0, |bytes, o| {
                        bytes | bytes_equal(code, u32::from(o.kind.0) + 1)
                    })
                });
                AmendKind {
                    codes,
                    own,
                    overlay_bytes,
                    shows,
                    single_bits,
                }
            })
            .collect()
    }
}

/// [`amended_cells`] for a kind with `N` variants. Per cell, the four rotations at once
/// ([`KindCodes::lanes_of`]): the plain fit, the own variants' fits (their codes read once per
/// call), and whether a neighbour's variant could help: every mismatch on a side where the
/// neighbour shows a field and the tile an overlay's edge. Only those few are checked for
/// being one side and look at the neighbour, whose answer is kept for the cell's other
/// rotations.
fn cells_with<const N: usize>(
    rules: &Ruleset,
    st: &GameState,
    a: &AmendKind,
    out: &mut Vec<PlacementCell>,
) -> Result<usize, HookError> {
    let kind = KindCodes::<N>::with(a.codes, std::array::from_fn(|i| a.own[i]), a.overlay_bytes);
    let codes = kind.codes;
    let frontier = st.board.frontier();
    if N == 0 && kind.overlay_bytes == [0; 4] {
        // No own variant and no edge an overlay adds: nothing to amend, the plain match
        // (what the loop below gives then, for less).
        return Ok(plain_cells(frontier, out, &codes));
    }
    // `write_cells`' loop, written as `plain_cells`' is: a cell read by one load, its `pos`
    // written back from that register, the lanes' fits counted by subtraction (the few
    // rotations a neighbour's variant adds counted apart).
    let mut cells = CellWriter::new(out, frontier.len());
    let mut fits = Lanes::splat(0);
    let mut added = 0usize;
    for f in frontier {
        let v = Lanes::load(f.words());
        let (fit, mut ask) = kind.lanes_of(v);
        fits = fits.sub(fit);
        let mut rotations = fit.bits();
        if ask != 0 {
            let (want, mask) = (f.want, f.mask);
            // Per side (a byte each): the edge last asked of that neighbour (0: none) and
            // the answer; two registers, not a list zeroed in memory per cell.
            let mut asked = Asked::default();
            while ask != 0 {
                let q = ask.trailing_zeros() as usize;
                ask &= ask - 1;
                let diff = (codes[q] ^ want) & mask;
                // The whole mismatch must be one side (the side of the lowest one).
                if diff & !(0xFFu32 << (diff.trailing_zeros() & 24)) != 0 {
                    continue;
                }
                let side = (diff.trailing_zeros() / 8) as usize;
                let edge = (codes[q] >> (8 * side)) & 0xFF;
                // (On an error `out` is left empty: its length is still 0.)
                if neighbour_amends(rules, st, f.pos, side, edge, &mut asked)? {
                    rotations |= 1 << q;
                    added += 1;
                }
            }
        }
        // SAFETY: one call per frontier cell, so at most `frontier.len()` calls; words 0
        // and 1 of a frontier cell are its `pos` (`FrontierCell::words`).
        unsafe { cells.put_words(v, rotations) };
    }
    cells.finish();
    // (`ask` excludes the rotations that fit already, so `added` counts new pairs only.)
    Ok(fits.sum() as usize + added)
}

/// Adds the cell at `pos` to `out` if any rotation fits; returns how many do.
#[inline(always)]
fn push_cell(out: &mut Vec<PlacementCell>, pos: Pos, rotations: u8) -> usize {
    if rotations == 0 {
        return 0;
    }
    let cell = PlacementCell { pos, rotations };
    out.push(cell);
    cell.rotation_count()
}

/// A tile kind's edge codes per rotation for [`cells_with`], read once per call: its own,
/// its `N` variants', and the bytes where it shows an edge some overlay adds (only there can
/// a neighbour's variant meet it).
struct KindCodes<const N: usize> {
    codes: [u32; 4],
    own: [[u32; 4]; N],
    overlay_bytes: [u32; 4],
    /// `overlay_bytes` with the bits of the tile's edge there cleared: a cell whose want
    /// has none of them shows, on each of those sides, that edge or a field. Relies on
    /// every overlay's edge code being a single bit ([`AmendKind::single_bits`]; else
    /// [`amended_cells`] asks per placement).
    loose: [u32; 4],
}

impl<const N: usize> KindCodes<N> {
    /// The codes, the own variants' and the overlay's bytes as given.
    fn with(codes: [u32; 4], own: [[u32; 4]; N], overlay_bytes: [u32; 4]) -> Self {
        Self {
            codes,
            own,
            overlay_bytes,
            loose: std::array::from_fn(|q| overlay_bytes[q] & !codes[q]),
        }
    }

    /// One frontier cell (`want`, `mask`), the four rotations at once (bit q: q quarter
    /// turns): the rotations that fit by the plain edges or an own variant's, and, of the
    /// others, those whose mismatches all lie on sides where the neighbour shows a field
    /// (edge code 0) and the tile an overlay's edge: the candidates for a neighbour's
    /// variant, still to be checked for being one side. On the tile's overlay edges the
    /// cell must want that edge or a field: with single-bit edge codes (`single_bits`),
    /// none of the other bits (`loose`), so no per-side field mask is needed. (The loop
    /// asks [`KindCodes::lanes_of`], this with the cell's words; tests ask this.)
    #[cfg(test)]
    fn lanes(&self, want: u32, mask: u32) -> (u8, u8) {
        let (fit, ask) = self.lanes_of(Lanes::load(&[0, 0, want, mask]));
        (fit.bits(), ask)
    }

    /// `KindCodes::lanes` of a cell read as its four words (`want` in lane 2, `mask` in
    /// lane 3, [`FrontierCell::words`](crate::board::FrontierCell::words)), the fits as
    /// all-ones lanes ([`Lanes::eq`]).
    #[inline(always)]
    fn lanes_of(&self, cell: Lanes) -> (Lanes, u8) {
        let (w, m, zero) = (cell.lane2(), cell.lane3(), Lanes::splat(0));
        let diff = Lanes::new(&self.codes).xor(w).and(m);
        let mut fit = diff.eq(zero);
        for vc in &self.own {
            fit = fit.or(Lanes::new(vc).and(m).eq(w));
        }
        let ask = diff.and_not(Lanes::new(&self.overlay_bytes)).eq_bits(zero)
            & Lanes::new(&self.loose).and(w).eq_bits(zero);
        (fit, ask & !fit.bits())
    }

    /// [`KindCodes::lanes`] one rotation after another, written apart from it: the
    /// reference in tests.
    #[cfg(test)]
    fn lanes_scalar(&self, want: u32, mask: u32, field: u32) -> (u8, u8) {
        let mut fits = exact_rotations(&self.codes, want, mask);
        for vc in &self.own {
            fits |= exact_rotations(vc, want, mask);
        }
        let mut ask = 0u8;
        for q in 0..4 {
            let diff = (self.codes[q] ^ want) & mask;
            ask |= u8::from(diff & !(field & self.overlay_bytes[q]) == 0) << q;
        }
        (fits, ask & !fits)
    }
}

/// `0xFF` in each byte of the result where `code`'s byte is `e`, 0 elsewhere (none for an
/// `e` past a byte), without a branch per byte.
#[inline(always)]
fn bytes_equal(code: u32, e: u32) -> u32 {
    if e > 0xFF {
        return 0;
    }
    (!byte_ones(code ^ (e * 0x0101_0101)) & 0x0101_0101) * 0xFF
}

/// Bit 0 of each byte of the result: whether that byte of `x` is not 0.
#[inline(always)]
fn byte_ones(x: u32) -> u32 {
    let mut t = x | (x >> 4);
    t |= t >> 2;
    t |= t >> 1;
    t & 0x0101_0101
}

/// The neighbours' answers one cell of [`cells_with`] got so far, a byte per side: the
/// edge last asked of that side (0: none) and whether its neighbour amends it.
#[derive(Clone, Copy, Default)]
struct Asked {
    edges: u32,
    yes: u32,
}

/// Whether a variant of the neighbour on `side` of the empty cell `pos` shows `edge` (not
/// 0) towards it ([`neighbour_variant`]); `asked` keeps each side's answer per edge for the
/// cell's other rotations. Inlined into the loop: its first test rejects most asks.
#[inline(always)]
fn neighbour_amends(
    rules: &Ruleset,
    st: &GameState,
    pos: Pos,
    side: usize,
    edge: u32,
    asked: &mut Asked,
) -> Result<bool, HookError> {
    let shift = 8 * side as u32;
    if (asked.edges >> shift) & 0xFF == edge {
        return Ok(asked.yes >> shift & 1 == 1);
    }
    // The tile's edge where the cell wants a field: an overlay's, never the field's.
    debug_assert_ne!(edge, 0);
    let s = Side::from_index(side as u8);
    let at = pos.step(s);
    let fits = match st.board.at(at) {
        // Most neighbours have no variant showing any bit of `edge` (not 0) there: one
        // read of the table instead of their kind and its variants'.
        Some(n)
            if rules.amend_kinds[usize::from(n.kind.0)].shows
                [usize::from(n.rotation.quarters())]
                >> (8 * s.opposite().index() as u32)
                & edge
                != 0 =>
        {
            variant_of_neighbour(rules, st, at, n, s.opposite(), edge)?.is_some()
        }
        _ => false,
    };
    asked.edges = asked.edges & !(0xFF << shift) | edge << shift;
    asked.yes = asked.yes & !(1 << shift) | u32::from(fits) << shift;
    Ok(fits)
}

/// [`amended_cells`] by [`amendment`] per placement: for kinds with many variants.
#[cold]
fn amended_cells_general(
    rules: &Ruleset,
    st: &GameState,
    tk: &crate::tile::TileKind,
    out: &mut Vec<PlacementCell>,
) -> Result<usize, HookError> {
    let mut count = 0;
    for f in st.board.frontier() {
        let mut rotations = 0u8;
        for r in Rotation::ALL {
            let fits = tk.edge_code(r) & f.mask == f.want
                || amendment(rules, st, tk, f.pos, r, (f.want, f.mask))?.is_some();
            rotations |= u8::from(fits) << r.quarters();
        }
        count += push_cell(out, f.pos, rotations);
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{binder, BoundExpansion, Ctx, Declare, Expansion, HookResult};

    /// An amending road overlay across N–S that every player may always use.
    struct Planks;

    struct PlanksRules {
        left: crate::slot::PlayerSlot,
    }

    impl Expansion for Planks {
        fn id(&self) -> &str {
            "planks"
        }

        fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn crate::Binder>> {
            let left = d.player_slot("planks", 0);
            d.segment_overlay(FeatureKindId::ROAD, "NS", "plank", Some(left))
                .map_err(|e| e.to_string())?;
            Ok(binder(move |_| Ok(PlanksRules { left })))
        }
    }

    /// Roads may face cities without joining ([`Declare::edge_meets`]), and nothing else.
    struct RoadsMeetCities;

    impl Expansion for RoadsMeetCities {
        fn id(&self) -> &str {
            "roads-meet-cities"
        }

        fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn crate::Binder>> {
            d.edge_meets(FeatureKindId::ROAD, FeatureKindId::CITY)
                .map_err(|e| e.to_string())?;
            Ok(binder(|_| Ok(NoRules)))
        }
    }

    struct NoRules;

    impl BoundExpansion for NoRules {}

    impl BoundExpansion for PlanksRules {
        /// No placement filter (so `View::placements_of` may remember answers).
        fn hook_set(&self) -> crate::HookSet {
            crate::HookSet::GAME_START
        }

        fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
            for p in 0..ctx.state().players().len() {
                ctx.set(self.left.of(PlayerId(p as u8)), 1);
            }
            Ok(())
        }
    }

    /// The base game with the planks.
    fn planks_rules() -> Arc<Ruleset> {
        let base: crate::TileSetData = toml::from_str(crate::BASE_TILES_TOML).unwrap();
        Arc::new(
            Ruleset::builder()
                .tiles(base)
                .expansion(Arc::new(Planks))
                .build()
                .unwrap(),
        )
    }

    /// The next value of the tests' linear congruential generator.
    /// Every tile kind of `rules`, variants included.
    fn every_kind(rules: &Ruleset) -> Vec<TileKindId> {
        (0..rules.tiles().len())
            .map(|i| TileKindId(i as u16))
            .collect()
    }

    fn next(pick: u64) -> u64 {
        pick.wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
    }

    /// The fast enumeration of amended placements answers as [`amendment`] asked per
    /// placement, for every tile kind, at every decision of seeded random games (BCB-7's
    /// placements, expansion-agnostic).
    #[test]
    fn amended_cells_match_amendment_per_placement() {
        let rules = planks_rules();
        let kinds: Vec<TileKindId> = rules
            .tiles()
            .defined()
            .filter(|(_, k)| !k.barrier)
            .map(|(id, _)| id)
            .collect();
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        let mut amended = 0;
        for seed in 0..6u64 {
            let setup = crate::GameSetup::new(vec!["A".into(), "B".into()], seed);
            let mut game = crate::Game::new(rules.clone(), &setup).unwrap();
            let mut pick = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            while !game.is_over() {
                let st = game.state();
                for &k in &kinds {
                    let tk = rules.tiles().get(k);
                    let n = amended_cells(&rules, st, k, &mut fast).unwrap();
                    slow.clear();
                    let m = amended_cells_general(&rules, st, tk, &mut slow).unwrap();
                    assert_eq!((n, &fast), (m, &slow), "kind {}", tk.id);
                    let plain: usize = st
                        .board
                        .frontier()
                        .iter()
                        .map(|f| {
                            Rotation::ALL
                                .iter()
                                .filter(|r| tk.edge_code(**r) & f.mask == f.want)
                                .count()
                        })
                        .sum();
                    amended += n - plain;
                }
                pick = next(pick);
                let i = (pick >> 33) as usize % game.action_count();
                game.play_offered(i).unwrap();
            }
        }
        assert!(
            amended > 1000,
            "only {amended} amended placements were compared"
        );
    }

    /// [`ends_fit`] (the sides where a neighbour's variant differs from it: all of them, as
    /// [`overlay_fits`] asks, or all but the empty cell asked from) answers as the variant's
    /// whole constraints ([`Board::constraints`](crate::Board::constraints)) for every
    /// placed tile with variants, each variant and each empty side it could be asked from,
    /// at every decision of seeded random games (exact edges, no barrier:
    /// [`Ruleset::edges_exact`]); and the ruleset is exact only without a barrier kind.
    #[test]
    fn variant_ends_fit_as_the_whole_constraints() {
        let rules = planks_rules();
        assert!(rules.edges_exact());
        let tiles = rules.tiles();
        let (mut fitting, mut failing) = (0, 0);
        for seed in 0..6u64 {
            let setup = crate::GameSetup::new(vec!["A".into(), "B".into()], seed);
            let mut game = crate::Game::new(rules.clone(), &setup).unwrap();
            let mut pick = seed.wrapping_mul(6364136223846793005).wrapping_add(3);
            while !game.is_over() {
                let st = game.state();
                for t in st.board.tiles() {
                    for &v in &tiles.get(t.kind).variants {
                        let vc = tiles.get(v).edge_code(t.rotation);
                        let (w, m) = st.board.constraints(t.pos);
                        let whole = vc & m == w;
                        // `overlay_fits`' question: every side.
                        let ends = ends_fit(&st.board, t.pos, vc, t.edge_code, None);
                        assert_eq!(ends, whole, "tile at {}", t.pos);
                        for facing in Side::ALL {
                            if st.board.is_occupied(t.pos.step(facing)) {
                                continue;
                            }
                            let ends = ends_fit(&st.board, t.pos, vc, t.edge_code, Some(facing));
                            assert_eq!(ends, whole, "tile at {}", t.pos);
                            fitting += usize::from(ends);
                            failing += usize::from(!ends);
                        }
                    }
                }
                pick = next(pick);
                let i = (pick >> 33) as usize % game.action_count();
                game.play_offered(i).unwrap();
            }
        }
        assert!(
            fitting > 1000 && failing > 1000,
            "{fitting} fitting, {failing} failing"
        );
        // A catalog with a barrier kind (an abbey) is not exact.
        let base: crate::TileSetData = toml::from_str(crate::BASE_TILES_TOML).unwrap();
        let abbey: crate::TileSetData = toml::from_str(
            "schema = 1\nset = \"abbey-test\"\n[[tile]]\nid = \"T/A\"\ncount = 0\n\
             edges = \"XXXX\"\nfeatures = [{ kind = \"cloister\" }]\n",
        )
        .unwrap();
        let with_abbey = Ruleset::builder()
            .tiles(base)
            .tiles(abbey)
            .expansion(Arc::new(Planks))
            .build()
            .unwrap();
        assert!(!with_abbey.amend_kinds.is_empty());
        assert!(!with_abbey.edges_exact());
        // Nor one whose edges may meet other than exactly.
        let with_meets = Ruleset::builder()
            .tiles(toml::from_str(crate::BASE_TILES_TOML).unwrap())
            .expansion(Arc::new(Planks))
            .expansion(Arc::new(RoadsMeetCities))
            .build()
            .unwrap();
        assert!(with_meets.loose_edges() && !with_meets.edges_exact());
    }

    /// The ruleset's [`AmendKind`] table holds, for every tile kind (variants included)
    /// and rotation, the kind's and its variants' edge codes and the overlay's bytes as
    /// the catalog gives them, and its `shows` rejects only what no variant shows: for
    /// every side and edge code, a variant showing that edge there has a bit of it in
    /// `shows`. None without an amending overlay.
    #[test]
    fn amend_kinds_match_the_catalog() {
        let rules = planks_rules();
        let tiles = rules.tiles();
        assert_eq!(rules.amend_kinds.len(), tiles.len());
        let road = u32::from(FeatureKindId::ROAD.0) + 1;
        let mut shown = 0;
        for (i, a) in rules.amend_kinds.iter().enumerate() {
            let tk = tiles.get(TileKindId(i as u16));
            for r in Rotation::ALL {
                let q = usize::from(r.quarters());
                let code = tk.edge_code(r);
                assert_eq!(a.codes[q], code, "kind {}", tk.id);
                assert_eq!(a.overlay_bytes[q], bytes_equal(code, road));
                for (j, &v) in tk.variants.iter().enumerate() {
                    let vc = tiles.get(v).edge_code(r);
                    if j < 2 {
                        assert_eq!(a.own[j][q], vc);
                    }
                    for side in 0..4 {
                        let e = (vc >> (8 * side)) & 0xFF;
                        if e != 0 {
                            assert_ne!((a.shows[q] >> (8 * side)) & e, 0, "kind {}", tk.id);
                            shown += 1;
                        }
                    }
                }
                if tk.variants.is_empty() {
                    assert_eq!(a.shows[q], 0);
                }
            }
        }
        assert!(shown > 100, "only {shown} variant edges checked");
        let base: crate::TileSetData = toml::from_str(crate::BASE_TILES_TOML).unwrap();
        let plain = Ruleset::builder().tiles(base).build().unwrap();
        assert!(plain.amend_kinds.is_empty());
    }

    /// [`KindCodes::lanes`] (four lanes at once, without a field mask) answers as
    /// [`KindCodes::lanes_scalar`] (with one) for random cells: edge codes of a few kinds
    /// (so that sides match often), overlay edges of single-bit codes, masks of whole
    /// sides, one or two own variants.
    #[test]
    fn cell_lanes_match_the_scalar_answer() {
        let mut pick = 7u64;
        let mut word = |bytes: &[u32]| {
            let mut w = 0u32;
            for shift in [0, 8, 16, 24] {
                pick = next(pick);
                w |= bytes[(pick >> 33) as usize % bytes.len()] << shift;
            }
            w
        };
        let (mut fitting, mut asked) = (0, 0);
        for _ in 0..20_000 {
            // Overlay bytes where the tile shows a single-bit edge (1 or 2), as overlays'
            // edges are when `lanes` is asked.
            let codes: [u32; 4] = std::array::from_fn(|_| word(&[0, 1, 2, 3]));
            let overlay_bytes =
                codes.map(|c| (bytes_equal(c, 1) | bytes_equal(c, 2)) & word(&[0, 0xFF, 0xFF]));
            let own: [[u32; 4]; 2] =
                std::array::from_fn(|_| std::array::from_fn(|_| word(&[0, 1, 2, 3])));
            let two = KindCodes::<2>::with(codes, own, overlay_bytes);
            let one = KindCodes::<1>::with(codes, [own[0]], overlay_bytes);
            let mask = word(&[0, 0xFF, 0xFF]);
            let want = word(&[0, 1, 2, 3]) & mask;
            let field = mask & !(byte_ones(want) * 0xFF);
            let fast = one.lanes(want, mask);
            assert_eq!(fast, one.lanes_scalar(want, mask, field));
            let fast = two.lanes(want, mask);
            assert_eq!(fast, two.lanes_scalar(want, mask, field));
            fitting += usize::from(fast.0 != 0);
            asked += usize::from(fast.1 != 0);
        }
        assert!(
            fitting > 1000 && asked > 1000,
            "{fitting} fitting, {asked} asked"
        );
    }

    /// [`bytes_equal`] marks exactly the bytes equal to `e`, as a byte-by-byte compare
    /// does, for codes made of a few edge values (so bytes match often) and every `e`
    /// up to one past a byte.
    #[test]
    fn bytes_equal_marks_the_matching_bytes() {
        let mut pick = 11u64;
        let mut marked = 0;
        for _ in 0..5_000 {
            let mut code = 0u32;
            for shift in [0, 8, 16, 24] {
                pick = next(pick);
                code |= [0u32, 1, 2, 3, 0x80, 0xFF][(pick >> 33) as usize % 6] << shift;
            }
            for e in [0u32, 1, 2, 3, 0x7F, 0x80, 0xFF, 0x100, 0x101] {
                let mut want = 0u32;
                for shift in [0, 8, 16, 24] {
                    if (code >> shift) & 0xFF == e {
                        want |= 0xFF << shift;
                    }
                }
                assert_eq!(bytes_equal(code, e), want, "code {code:#x}, e {e:#x}");
                marked += usize::from(want != 0);
            }
        }
        assert!(marked > 5_000, "only {marked} codes had a matching byte");
    }

    /// `View::read_placements_of` ([`read_placements`], the memo read in place) gives what
    /// a fresh enumeration gives, for every tile kind at every decision of seeded games
    /// with an amending overlay: asked first with the memo holding another kind's answer,
    /// then with it holding this one's; and `Ctx::play_tile_instead`'s check of a
    /// (cell, rotation) through it accepts exactly the offered ones, cells off the
    /// frontier refused.
    #[test]
    fn read_placements_match_fresh_ones() {
        let rules = planks_rules();
        let kinds = every_kind(&rules);
        let (mut fresh, mut memo) = (Vec::new(), Vec::new());
        let (mut yes, mut no) = (0, 0);
        for seed in 0..2u64 {
            let setup = crate::GameSetup::new(vec!["A".into(), "B".into()], seed);
            let mut game = crate::Game::new(rules.clone(), &setup).unwrap();
            let mut pick = seed.wrapping_mul(6364136223846793005).wrapping_add(3);
            while !game.is_over() {
                let st = &game.state;
                for (i, &k) in kinds.iter().enumerate() {
                    placements_into(&rules, st, k, &mut fresh, &mut Vec::new()).unwrap();
                    // Odd kinds: the memo holds this kind's answer before the asks.
                    if i % 2 == 1 {
                        placements_remembered(&rules, st, k, &mut memo).unwrap();
                    }
                    let mut read = None;
                    read_placements(&rules, st, k, &mut |cells, n| {
                        read = Some((cells.to_vec(), n));
                    })
                    .unwrap();
                    let n = fresh.iter().map(PlacementCell::rotation_count).sum();
                    assert_eq!(read, Some((fresh.clone(), n)), "kind {}", k.0);
                    let far = Pos::new(900, -900);
                    for pos in st.board.frontier().iter().map(|f| f.pos).chain([far]) {
                        let want = fresh
                            .iter()
                            .find(|c| c.pos == pos)
                            .map_or(0, |c| c.rotations);
                        for r in Rotation::ALL {
                            let mut offered = false;
                            read_placements(&rules, st, k, &mut |cells, _| {
                                offered = cells
                                    .iter()
                                    .any(|c| c.pos == pos && c.rotations >> r.quarters() & 1 == 1);
                            })
                            .unwrap();
                            assert_eq!(
                                offered,
                                want >> r.quarters() & 1 == 1,
                                "kind {} at {pos} turned {r}",
                                k.0
                            );
                            yes += usize::from(offered);
                            no += usize::from(!offered);
                        }
                    }
                }
                pick = next(pick);
                let i = (pick >> 33) as usize % game.action_count();
                game.play_offered(i).unwrap();
            }
        }
        assert!(yes > 1_000 && no > 1_000, "{yes} offered, {no} not");
    }

    /// `View::placements_of` gives a remembered answer only while it holds: the same as
    /// computing it afresh, asked twice, for every tile kind at every decision of seeded
    /// games with an amending overlay, on the game's own state (whose memo lives on while
    /// tiles are placed: each decision first asks the kind the previous one asked last), and
    /// on a copy once the active player's overlays ran out right after the kind was asked
    /// (same board, amendment off). Fails if the board or the amending flag leaves the key.
    #[test]
    fn remembered_placements_match_fresh_ones() {
        let rules = planks_rules();
        let kinds = every_kind(&rules);
        let slot = rules.amends.expect("the planks amend placements").id();
        let (mut memo, mut fresh) = (Vec::new(), Vec::new());
        let (mut asked, mut stale_board, mut stale_flag) = (0, 0, 0);
        let mut last: Option<Vec<PlacementCell>> = None;
        for seed in 0..4u64 {
            let setup = crate::GameSetup::new(vec!["A".into(), "B".into()], seed);
            let mut game = crate::Game::new(rules.clone(), &setup).unwrap();
            let mut pick = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            while !game.is_over() {
                let mut check = |st: &GameState, k: TileKindId| {
                    let view = View {
                        rules: &rules,
                        state: st,
                    };
                    for _ in 0..2 {
                        let n = view.placements_of(k, &mut memo).unwrap();
                        let m =
                            placements_into(&rules, st, k, &mut fresh, &mut Vec::new()).unwrap();
                        assert_eq!((n, &memo), (m, &fresh), "kind {}", k.0);
                        asked += 1;
                    }
                    fresh.clone()
                };
                // The previous decision asked the last kind last: a memo keyed without the
                // board would give its old answer here.
                for (i, &k) in kinds.iter().rev().chain(&kinds).enumerate() {
                    let now = check(&game.state, k);
                    if i == 0 {
                        stale_board += usize::from(last.as_ref().is_some_and(|l| *l != now));
                    }
                    last = Some(now);
                }
                let mut st = game.state.clone();
                let o = st.slot_offsets[slot.0 as usize] as usize + st.active.index();
                for &k in &kinds {
                    st.slots[o] = 1;
                    let on = check(&st, k);
                    st.slots[o] = 0;
                    let off = check(&st, k);
                    stale_flag += usize::from(on != off);
                }
                pick = next(pick);
                let i = (pick >> 33) as usize % game.action_count();
                game.play_offered(i).unwrap();
            }
        }
        assert!(asked > 10_000, "only {asked} answers compared");
        // Often enough for a stale answer to be caught.
        assert!(
            stale_board > 50,
            "the board changed only {stale_board} answers"
        );
        assert!(
            stale_flag > 50,
            "amending changed only {stale_flag} answers"
        );
    }
}
