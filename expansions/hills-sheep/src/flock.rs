//! The shepherd's flock (HL-8 … HL-14): the bag of sheep and wolf tokens, growing a flock,
//! driving it home, the wolf, and fields closed around a shepherd.
//!
//! Each shepherd's flock is four figure slots (how many 1-, 2-, 3- and 4-sheep tokens it holds).
//! The bag is the box's 18 tokens minus those held by shepherds on the board (a scored or
//! scattered flock goes back into the bag, and so does a drawn wolf), so it needs no state of
//! its own. A draw takes index `random_below(bag size)` of the bag laid out in token order
//! (1, 2, 3, 4 sheep, wolf), from the game's seeded generator: the same seed and actions draw
//! the same tokens, so a record replays exactly.

use carcassonne_core::board::PlacedTile;
use carcassonne_core::graph::PlacedIndex;
use carcassonne_core::tile::{TileCatalog, TileKind};
use carcassonne_core::{
    Ctx, FeatureId, FeatureKindId, FigureId, FigureKindId, FigureLoc, FigureSlot, HalfEdge,
    HalfSet, HookFailure, HookResult, LabelId, PlayerId, RemovalReason, Rotation, SegmentId, Side,
    TileKindId, View,
};

/// HL-8: tokens in the box per kind: 1, 2, 3 and 4 sheep, then the wolf.
pub const BAG: [u32; 5] = [4, 5, 5, 2, 2];

/// What a draw from the bag gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    /// A token with this many sheep (1 to 4).
    Sheep(u8),
    /// The wolf.
    Wolf,
}

/// The ids the flock rules need.
#[derive(Clone, Debug)]
pub struct Flock {
    pub shepherd: FigureKindId,
    /// Tokens held per shepherd, by sheep count − 1.
    pub held: [FigureSlot; 4],
    pub label: LabelId,
    /// Per tile kind, its field half-edges per rotation ([`KindHalves`]).
    pub halves: Vec<KindHalves>,
}

/// A tile kind's half-edges covered by a field, board-oriented, per rotation (bit
/// `HalfEdge::index`), and whether it is a barrier; read once when the ruleset is bound so
/// that a placement's check of the fields facing the tile reads one byte per tile.
#[derive(Clone, Copy, Debug)]
pub struct KindHalves {
    pub fields: [u8; 4],
    pub barrier: bool,
    /// Its field segments (bit = local index; the first 16): the only ones whose
    /// features [`TileFeatures`] looks up.
    pub field_segs: u16,
}

impl KindHalves {
    /// Every kind of the catalog (variants included: they keep their base's fields).
    pub fn table(tiles: &TileCatalog) -> Vec<KindHalves> {
        (0..tiles.len())
            .map(|i| Self::of(tiles.get(TileKindId(i as u16))))
            .collect()
    }

    fn of(tk: &TileKind) -> KindHalves {
        let mut fields = [0u8; 4];
        for r in Rotation::ALL {
            for i in 0..8 {
                if tk.segment_on_half(r, HalfEdge::from_index(i)).is_some() {
                    fields[usize::from(r.quarters())] |= 1 << i;
                }
            }
        }
        let field_segs = tk
            .segments
            .iter()
            .take(16)
            .enumerate()
            .filter(|(_, s)| s.kind == FeatureKindId::FIELD)
            .fold(0u16, |m, (i, _)| m | 1 << i);
        KindHalves {
            fields,
            barrier: tk.barrier,
            field_segs,
        }
    }
}

impl Flock {
    /// Every shepherd on the board with its segment, in figure order. An iterator, not a
    /// list: it runs in several hooks of every turn, so it must not allocate.
    pub fn on_board<'a>(
        &self,
        v: &'a View<'_>,
    ) -> impl Iterator<Item = (FigureId, SegmentId)> + 'a {
        let shepherd = self.shepherd;
        (0..v.state.players().len()).flat_map(move |p| standing(shepherd, v, PlayerId(p as u8)))
    }

    /// [`Flock::on_board`] as a plain loop per seat: for the hooks of every turn, where
    /// the chained iterator's step was a call of its own.
    #[inline]
    pub fn each_on_board(&self, v: &View<'_>, mut f: impl FnMut(FigureId, SegmentId)) {
        for p in 0..v.state.players().len() {
            self.each_of_player(v, PlayerId(p as u8), &mut f);
        }
    }

    /// [`Flock::each_on_board`] for one player's shepherds.
    #[inline]
    pub fn each_of_player(
        &self,
        v: &View<'_>,
        p: PlayerId,
        mut f: impl FnMut(FigureId, SegmentId),
    ) {
        for (fig, seg) in standing(self.shepherd, v, p) {
            f(fig, seg);
        }
    }

    /// Whether any shepherd is on the board, from the supply counts (a shepherd that is
    /// not in its owner's supply stands on the board), without reading the figures.
    pub fn any_on_board(&self, v: &View<'_>) -> bool {
        let per = v.rules.figure_kind(self.shepherd).per_player;
        let n = v.state.players().len();
        (0..n as u8).any(|p| v.state.in_supply(PlayerId(p), self.shepherd) < per)
    }

    /// Whether the `AfterDeploy` window of player `p`'s turn (the tile `last` placed) has
    /// nothing to do, as in most turns: no shepherd of `p` stands on the tile (none was
    /// deployed: no draw), no shepherd's field is closed (no HL-13 check), and the tile
    /// has a segment of no field of `p`'s shepherds (no question). One pass over the
    /// shepherds, one root walk each, no list of the tile's features; `false` leaves every
    /// answer to the full check (also for a tile past the field mask's 16 segments and for a
    /// shepherd whose feature is no field, which the full check asks of [`extends`]).
    #[inline]
    pub fn quiet_turn(&self, v: &View<'_>, last: PlacedIndex, p: PlayerId) -> bool {
        let quiet = self.quiet_pass(v, last, p);
        debug_assert!(
            !quiet || self.quiet_by_full_check(v, last, p),
            "a turn found quiet has something to do"
        );
        quiet
    }

    /// [`Flock::quiet_turn`]'s pass.
    #[inline(never)]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn quiet_pass(&self, v: &View<'_>, last: PlacedIndex, p: PlayerId) -> bool {
        let g = v.state.graph();
        let placed = v.state.board().tile(last);
        let at = v.rules.figure_offset(self.shepherd);
        for q in 0..v.state.players().len() {
            let (_, mine) = v.state.figures_of(PlayerId(q as u8));
            for f in mine.get(at..).unwrap_or(&[]) {
                if f.kind != self.shepherd {
                    break;
                }
                let FigureLoc::On(seg) = f.loc else {
                    continue;
                };
                let field = g.feature_of(seg);
                if field_closed(v, field) {
                    return false;
                }
                if q != usize::from(p.0) {
                    continue;
                }
                if placed.has_segment(seg) || g.kind(field) != FeatureKindId::FIELD {
                    return false;
                }
                let Some(segs) = field_segs(&self.halves, v, placed) else {
                    return false;
                };
                if placed
                    .segments_in(u32::from(segs))
                    .any(|s| g.feature_of(s) == field)
                {
                    return false;
                }
            }
        }
        true
    }

    /// Whether the full check (`HsRules::turn_flocks` after the draw of a fresh shepherd)
    /// would find nothing to do, from its own tests: for debug builds' check of
    /// [`Flock::quiet_turn`].
    fn quiet_by_full_check(&self, v: &View<'_>, last: PlacedIndex, p: PlayerId) -> bool {
        let g = v.state.graph();
        let placed = v.state.board().tile(last);
        let mut closed = false;
        self.each_on_board(v, |_, s| closed |= field_closed(v, g.feature_of(s)));
        let mut joined = None;
        let mut busy = closed;
        for (_, seg) in self.of_player(v, p) {
            busy |= placed.has_segment(seg)
                || TileFeatures::in_slot(&mut joined, v, &self.halves, last).contains(
                    v,
                    last,
                    g.feature_of(seg),
                );
        }
        !busy
    }

    /// A player's shepherds on the board (one each, unless `figures.shepherd` gives more),
    /// in figure order.
    pub fn of_player<'a>(
        &self,
        v: &'a View<'_>,
        p: PlayerId,
    ) -> impl Iterator<Item = (FigureId, SegmentId)> + 'a {
        standing(self.shepherd, v, p)
    }

    /// Sheep in one shepherd's flock.
    pub fn sheep(&self, v: &View<'_>, f: FigureId) -> i64 {
        (0..4)
            .map(|k| v.get(self.held[k].of(f)) * (k as i64 + 1))
            .sum()
    }

    /// The bag now: tokens per kind (HL-8).
    fn bag(&self, v: &View<'_>) -> [u32; 5] {
        let mut bag = BAG;
        self.each_on_board(v, |f, _| {
            for (k, n) in bag.iter_mut().take(4).enumerate() {
                *n = n.saturating_sub(v.get(self.held[k].of(f)) as u32);
            }
        });
        bag
    }

    /// The bag's size now.
    pub fn bag_size(&self, v: &View<'_>) -> u32 {
        self.bag(v).iter().sum()
    }

    /// The token at index `k` of the bag laid out in token order (1, 2, 3, 4 sheep, wolf).
    pub fn token_at(&self, v: &View<'_>, k: u32) -> HookResult<Token> {
        token_in(self.bag(v), k)
    }

    /// HL-9: draws one token with the game's generator (the bag found once: the draw
    /// moves no figure).
    fn draw(&self, ctx: &mut Ctx<'_>) -> HookResult<Token> {
        let bag = self.bag(&ctx.view());
        let total: u32 = bag.iter().sum();
        if total == 0 {
            return Err(HookFailure("hills-sheep: the bag of sheep is empty".into()));
        }
        let k = ctx.random_below(total);
        token_in(bag, k)
    }

    /// Shepherds on the field of `seg`.
    fn on_field(&self, v: &View<'_>, field: FeatureId) -> Vec<FigureId> {
        let g = v.state.graph();
        self.on_board(v)
            .filter(|&(_, s)| g.feature_of(s) == field)
            .map(|(f, _)| f)
            .collect()
    }

    /// HL-9, HL-10: grows the flock of `shepherd` by one token; the wolf scatters every
    /// flock on its field and sends their shepherds home.
    pub fn grow(&self, ctx: &mut Ctx<'_>, shepherd: FigureId, seg: SegmentId) -> HookResult {
        let token = self.draw(ctx)?;
        self.add(ctx, shepherd, seg, token)
    }

    /// HL-9, HL-10: a drawn `token` joins the flock of `shepherd`, or (the wolf) scatters
    /// every flock on its field.
    pub fn add(
        &self,
        ctx: &mut Ctx<'_>,
        shepherd: FigureId,
        seg: SegmentId,
        token: Token,
    ) -> HookResult {
        match token {
            Token::Sheep(n) => {
                let slot = self.held[n as usize - 1].of(shepherd);
                let held = ctx.get(slot);
                ctx.set(slot, held + 1);
            }
            Token::Wolf => {
                let field = ctx.state().graph().feature_of(seg);
                for f in self.on_field(&ctx.view(), field) {
                    self.send_home(ctx, f)?;
                }
            }
        }
        Ok(())
    }

    /// HL-11, HL-12: every player with a shepherd on the field of `seg` scores all the sheep
    /// of the field's flocks (once per player); the shepherds go home, the tokens to the bag.
    pub fn drive_home(&self, ctx: &mut Ctx<'_>, seg: SegmentId) -> HookResult {
        let view = ctx.view();
        let field = view.state.graph().feature_of(seg);
        let shepherds = self.on_field(&view, field);
        let sheep: i64 = shepherds.iter().map(|&f| self.sheep(&view, f)).sum();
        let mut scored: Vec<PlayerId> = Vec::new();
        for &f in &shepherds {
            let owner = view.state.figure(f).owner;
            if !scored.contains(&owner) {
                scored.push(owner);
            }
        }
        for p in scored {
            ctx.award(p, sheep as i32, self.label);
        }
        for f in shepherds {
            self.send_home(ctx, f)?;
        }
        Ok(())
    }

    /// A shepherd back to its owner's supply, its tokens back in the bag.
    fn send_home(&self, ctx: &mut Ctx<'_>, f: FigureId) -> HookResult {
        self.clear(ctx, f);
        ctx.return_figure(f, RemovalReason::Expansion)
            .map_err(|e| HookFailure(e.to_string()))
    }

    /// Empties a shepherd's flock (its tokens go back to the bag).
    pub fn clear(&self, ctx: &mut Ctx<'_>, f: FigureId) {
        for k in 0..4 {
            ctx.set(self.held[k].of(f), 0);
        }
    }

    /// HL-13: drives home every flock whose field no tile can extend any more, except the
    /// fields of `except` (flocks whose owner still decides). Only a field the last placed
    /// tile joined or bordered can have closed since the last check, so only those count;
    /// the closed test comes first (one read of the field's totals), the tile's features
    /// only for a closed field.
    pub fn score_closed(&self, ctx: &mut Ctx<'_>, except: &[SegmentId]) -> HookResult {
        let Some(last) = ctx.state().last_placed() else {
            return Ok(());
        };
        if !self.any_on_board(&ctx.view()) {
            return Ok(());
        }
        self.score_closed_joined(ctx, except, last, &mut None)
    }

    /// [`Flock::score_closed`] with the features of the last placed tile `last` found at most
    /// once, into `joined`, shared with the caller (driving flocks home moves figures,
    /// never features, so they stay valid).
    pub fn score_closed_joined(
        &self,
        ctx: &mut Ctx<'_>,
        except: &[SegmentId],
        last: PlacedIndex,
        joined: &mut Option<TileFeatures>,
    ) -> HookResult {
        loop {
            // No shepherd on the board (all driven home): the loop below finds none.
            let view = ctx.view();
            let g = view.state.graph();
            // The first shepherd on the board, in figure order (as `on_board`), whose field
            // the tile joined and is now closed; a plain loop over the seats' shepherds.
            let mut closed = None;
            'seats: for p in 0..view.state.players().len() {
                for (_, s) in standing(self.shepherd, &view, PlayerId(p as u8)) {
                    let f = g.feature_of(s);
                    // The field's own test first: one read, cheaper than finding whether
                    // the tile touched it (the three tests read the state only).
                    let mut touched = || {
                        TileFeatures::in_slot(joined, &view, &self.halves, last)
                            .contains(&view, last, f)
                            || Bordered::of(&view, &self.halves, last).contains(f)
                    };
                    debug_assert_eq!(
                        touched(),
                        extends(&view, last, f) || borders(&view, last, f),
                        "the tables' answer differs from the walk over the segments"
                    );
                    if field_closed(&view, f)
                        && touched()
                        && !except.iter().any(|&e| g.feature_of(e) == f)
                    {
                        closed = Some(s);
                        break 'seats;
                    }
                }
            }
            match closed {
                Some(s) => self.drive_home(ctx, s)?,
                None => return Ok(()),
            }
        }
    }
}

/// The token at index `k` of `bag` laid out in token order (1, 2, 3, 4 sheep, wolf).
fn token_in(bag: [u32; 5], mut k: u32) -> HookResult<Token> {
    for (i, n) in bag.iter().enumerate() {
        if k < *n {
            return Ok(if i == 4 {
                Token::Wolf
            } else {
                Token::Sheep(i as u8 + 1)
            });
        }
        k -= n;
    }
    Err(HookFailure(format!(
        "hills-sheep: the bag holds no token {k} (it is empty or smaller)"
    )))
}

/// The shepherds (figures of kind `shepherd`) of player `p` on the board with their
/// segments, in figure order: read from the player's block of figures, where a kind's
/// figures follow one another from `Ruleset::figure_offset`.
#[inline]
fn standing<'a>(
    shepherd: FigureKindId,
    v: &'a View<'_>,
    p: PlayerId,
) -> impl Iterator<Item = (FigureId, SegmentId)> + 'a {
    let (base, mine) = v.state.figures_of(p);
    let at = v.rules.figure_offset(shepherd).min(mine.len());
    mine[at..]
        .iter()
        .take_while(move |f| f.kind == shepherd)
        .enumerate()
        .filter_map(move |(i, f)| match f.loc {
            FigureLoc::On(seg) => Some((FigureId((base + at + i) as u16), seg)),
            _ => None,
        })
}

/// The half-edges of a [`HalfSet`] on `side` (`HalfEdge` index = 2 × side + 0/1).
#[inline]
fn on_side(halves: HalfSet, side: Side) -> bool {
    halves.0 & (0b11 << (2 * side.index())) != 0
}

/// Whether `field` has a half-edge facing the placed tile `last`, segment by segment: what
/// [`Bordered`] answers from the tile kinds' tables (checked against it in debug builds).
fn borders(v: &View<'_>, last: PlacedIndex, field: FeatureId) -> bool {
    let board = v.state.board();
    let g = v.state.graph();
    let pos = board.tile(last).pos;
    Side::ALL.into_iter().any(|side| {
        board.at(pos.step(side)).is_some_and(|n| {
            n.segments()
                .any(|s| g.feature_of(s) == field && on_side(g.segment(s).halves, side.opposite()))
        })
    })
}

/// The features with a half-edge facing one placed tile without the tile joining them: a
/// tile whose edges fit anything (an abbey, AM-1) closes a field's last open side all the
/// same (HL-13; JCZ checks every field with a shepherd after each placement). Found once per
/// check, not once per shepherd; at most one per half-edge of the tile.
struct Bordered {
    feats: [FeatureId; 8],
    n: usize,
}

impl Bordered {
    /// A neighbour's segments facing the tile are read from its kind's half-edge table
    /// (tile kinds give each half-edge at most one field, and an overlay's variant keeps
    /// its base's fields and half-edge table: `TileCatalog::add_variant` adds one edge
    /// segment with no half-edges). A facing segment on a half-edge where the placed
    /// tile has a field was joined to it by the placement (core's `place_tile`, unless
    /// the placed tile is a barrier; variants are never made of barrier tiles): its
    /// feature is one of the tile's, which [`TileFeatures`] holds, so it is skipped.
    fn of(v: &View<'_>, halves: &[KindHalves], last: PlacedIndex) -> Self {
        let board = v.state.board();
        let g = v.state.graph();
        let tiles = v.rules.tiles();
        // A kind's fields per rotation: from the table, or (a kind added after it was
        // built) from the kind itself.
        let of = |t: &PlacedTile| {
            let k = match halves.get(usize::from(t.kind.0)) {
                Some(&k) => k,
                None => KindHalves::of(tiles.get(t.kind)),
            };
            (k.fields[usize::from(t.rotation.quarters())], k.barrier)
        };
        let t = board.tile(last);
        // The half-edges where the placed tile has a field, so joined (none for a barrier).
        let cover = match of(t) {
            (_, true) => 0,
            (fields, false) => fields,
        };
        let mut out = Bordered {
            feats: [FeatureId(0); 8],
            n: 0,
        };
        for side in Side::ALL {
            let both = 0b11 << (2 * side.index());
            if cover & both == both {
                continue;
            }
            let Some(n) = board.at(t.pos.step(side)) else {
                continue;
            };
            let (facing, _) = of(n);
            for i in 0..2 {
                let h = HalfEdge::from_index(2 * side.index() + i);
                let hn = h.facing();
                if cover & (1 << h.index()) != 0 || facing & (1 << hn.index()) == 0 {
                    continue;
                }
                if let Some(b) = tiles.get(n.kind).segment_on_half(n.rotation, hn) {
                    out.feats[out.n] = g.feature_of(n.segment(usize::from(b)));
                    out.n += 1;
                }
            }
        }
        out
    }

    #[inline]
    fn contains(&self, field: FeatureId) -> bool {
        self.feats[..self.n].contains(&field)
    }
}

/// Whether every half-edge of a field faces a placed tile (HL-13): no placement can extend it.
/// Core counts a field's half-edges facing an empty cell (`FeatureTotals::open`), so this
/// is one read, not a walk of the field's segments (checked against the walk in debug
/// builds).
#[inline]
pub fn field_closed(v: &View<'_>, field: FeatureId) -> bool {
    let closed = v.state.graph().totals(field).open == 0;
    debug_assert_eq!(
        closed,
        field_closed_walk(v, field),
        "the field's open half-edges counted differ from the walk's"
    );
    closed
}

/// [`field_closed`] segment by segment: a look beyond each half-edge.
fn field_closed_walk(v: &View<'_>, field: FeatureId) -> bool {
    let board = v.state.board();
    v.state.graph().open_halves(field, |p| board.is_occupied(p)) == 0
}

/// The field segments of the placed tile `t` (bit = local index, in the order
/// `PlacedTile::segments` lists them), from its kind's [`KindHalves`]; `None` for a tile
/// with more segments than the mask's 16 bits (the tile parser allows none).
#[inline]
pub fn field_segs(halves: &[KindHalves], v: &View<'_>, t: &PlacedTile) -> Option<u16> {
    if t.segment_count > 16 {
        return None;
    }
    Some(match halves.get(usize::from(t.kind.0)) {
        Some(k) => k.field_segs,
        None => KindHalves::of(v.rules.tiles().get(t.kind)).field_segs,
    })
}

/// The features of the field segments of one placed tile, found once per hook instead of
/// once per shepherd asked about ([`extends`] walks every segment of the tile to its root).
/// Only fields: shepherds stand on fields (a feature of another kind is asked of
/// [`extends`]), and each look-up is a walk to the root of the union-find.
pub struct TileFeatures {
    feats: [FeatureId; TileFeatures::INLINE],
    n: usize,
    /// The tile has more segments than its kind's field mask covers: ask [`extends`].
    spill: bool,
}

impl TileFeatures {
    const INLINE: usize = 16;

    /// The features of the field segments of the placed tile `last` (from its kind's
    /// [`KindHalves::field_segs`]), found into `slot` unless they are there already. Found
    /// in place: a list built beside and moved in was read back in wider loads than it was
    /// written in, which stalled on every first question.
    pub fn in_slot<'s>(
        slot: &'s mut Option<TileFeatures>,
        v: &View<'_>,
        halves: &[KindHalves],
        last: PlacedIndex,
    ) -> &'s TileFeatures {
        match slot {
            Some(found) => found,
            None => {
                let t = v.state.board().tile(last);
                let segs = field_segs(halves, v, t);
                let out = slot.insert(TileFeatures {
                    feats: [FeatureId(0); Self::INLINE],
                    n: 0,
                    spill: segs.is_none(),
                });
                let mut segs = segs.unwrap_or(0);
                let g = v.state.graph();
                // At most 16 (the mask's bits), as many as the list holds.
                while segs != 0 {
                    let i = segs.trailing_zeros() as usize;
                    segs &= segs - 1;
                    out.feats[out.n] = g.feature_of(t.segment(i));
                    out.n += 1;
                }
                out
            }
        }
    }

    /// Whether the tile `last` these were taken from has a segment of `field`
    /// ([`extends`]).
    #[inline]
    pub fn contains(&self, v: &View<'_>, last: PlacedIndex, field: FeatureId) -> bool {
        if self.spill || v.state.graph().kind(field) != FeatureKindId::FIELD {
            return extends(v, last, field);
        }
        self.feats[..self.n].contains(&field)
    }
}

/// Whether the tile at `last` (a placed-tile index) has a segment of `field`.
pub fn extends(v: &View<'_>, last: PlacedIndex, field: FeatureId) -> bool {
    let g = v.state.graph();
    v.state
        .board()
        .tile(last)
        .segments()
        .any(|s| g.feature_of(s) == field)
}
