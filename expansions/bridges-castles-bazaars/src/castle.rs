//! Castles (BCB-9 … BCB-12): a completed two-tile city with one follower becomes a castle
//! instead of scoring; the castle scores the first feature completed later in its
//! vicinity (the highest of several, chained from castle to castle as JCZ's
//! `CastleCapability.scoreCastles`), and its follower goes home. A castle still waiting at
//! the end scores nothing.
//!
//! As in JCZ, where the castle replaces the city with a feature of its own, the castle is
//! a virtual feature of kind `castle` (unscored: nothing scores it at the end) and its
//! follower moves onto it: the city, left without follower, scores for nobody, and no
//! rule about followers on tile features (a courier, a wagon, a tower's capture) reaches
//! the castle's follower.
//!
//! State: game slots per castle (`castle-<k>-a`, `-b`: its two city segments + 1;
//! `castle-<k>-v`: its virtual feature + 1; `castle-<k>-fig`: its follower + 1 while it
//! waits, 0 once scored), `castles-waiting` (gates `after_scoring`), and the player slot
//! `castles-used`.

use carcassonne_core::{
    Action, Ctx, CustomAction, ExpansionIndex, FeatureId, FeatureKindId, FigureId, FigureKindId,
    FigureLoc, GameSlot, HookResult, LabelId, PlayerId, PlayerSlot, Pos, RemovalReason, ScoreDraft,
    SegmentId, Side, TileCatalog, TileKindId, VerbId, View,
};

/// Castles on the board at most: 12 wooden castles in the box (BCB-1).
pub const MAX_CASTLES: usize = 12;

/// The castle rules' ids, bound to one ruleset.
pub struct Castles {
    /// Per castle: its two city segments + 1, and its follower + 1 while it waits.
    pub a: [GameSlot; MAX_CASTLES],
    pub b: [GameSlot; MAX_CASTLES],
    pub v: [GameSlot; MAX_CASTLES],
    pub fig: [GameSlot; MAX_CASTLES],
    /// Castles whose follower still waits (gates `after_scoring`).
    pub waiting: GameSlot,
    /// The virtual feature kind of castles.
    pub kind: FeatureKindId,
    /// Castles each player has placed.
    pub used: PlayerSlot,
    pub verb: VerbId,
    pub label: LabelId,
    /// Tile-kind-local segments that may be half of a castle (BCB-9): `base[kind][local]`.
    pub base: Vec<Vec<bool>>,
    /// The same as bits per tile kind (bit `local`): the segments [`Castles::cities`]
    /// looks at ([`Castles::base_bits`]).
    pub bases: Vec<u16>,
    /// Castles made so far (gates the farm bonus, BCB-12).
    pub made: GameSlot,
    /// Abbey & Mayor's figure kind `barn`, found by name at bind when that expansion is
    /// loaded: a barn's final scoring counts castles too (BCB-12 with AM-25).
    pub barn: Option<FigureKindId>,
    /// BCB-12 `castleEndEvent`: a castle still waiting at the end is reported as a 0-point
    /// `castle` scoring (JCZ's event).
    pub end_event: bool,
}

/// BCB-1: castles per player: 3 with 2–4 players, 2 with 5–6.
pub fn per_player(players: usize) -> i64 {
    if players < 5 {
        3
    } else {
        2
    }
}

/// A castle on the board.
#[derive(Clone, Copy, Debug)]
struct Castle {
    k: usize,
    a: SegmentId,
    b: SegmentId,
    /// Its virtual feature.
    v: SegmentId,
    /// Its follower while it waits.
    fig: Option<FigureId>,
}

impl Castles {
    fn castles<'v>(&'v self, v: &'v View<'_>) -> impl Iterator<Item = Castle> + 'v {
        (0..MAX_CASTLES).filter_map(move |k| {
            let a = v.get(self.a[k]);
            (a != 0).then(|| Castle {
                k,
                a: SegmentId::new(a as usize - 1),
                b: SegmentId::new(v.get(self.b[k]) as usize - 1),
                v: SegmentId::new(v.get(self.v[k]) as usize - 1),
                fig: match v.get(self.fig[k]) {
                    0 => None,
                    f => Some(FigureId(f as u16 - 1)),
                },
            })
        })
    }

    /// BCB-9: the two-tile cities on the tile just placed that `p` may turn into a castle:
    /// complete, unscored, of two one-sided segments that may hold a castle, with exactly
    /// one follower, `p`'s, and `p` has a castle left. Pushes `make-castle` actions.
    pub fn options(&self, v: &View<'_>, me: ExpansionIndex, p: PlayerId, out: &mut Vec<Action>) {
        if !self.has_castle_left(v, p) {
            return;
        }
        self.cities(v, |seg, fig| {
            if v.state.figure(fig).owner == p {
                out.push(Action::Custom(CustomAction {
                    expansion: me,
                    verb: self.verb,
                    figure: Some(fig),
                    segment: Some(seg),
                    value: 0,
                }));
            }
        });
    }

    /// The players [`Castles::options`] offers something to, as bits by player index:
    /// one pass over the placed tile for every player (BCB-9's question each turn).
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub fn askable(&self, v: &View<'_>) -> u64 {
        let mut mask = 0u64;
        self.cities(v, |_, fig| {
            let p = v.state.figure(fig).owner;
            if self.has_castle_left(v, p) {
                mask |= 1u64 << (p.0 & 63);
            }
        });
        mask
    }

    fn has_castle_left(&self, v: &View<'_>, p: PlayerId) -> bool {
        v.get(self.used.of(p)) < per_player(v.state.players().len())
    }

    /// [`Castles::base`] for a ruleset's tile kinds (BCB-9, JCZ `castle-base`): a city
    /// segment on one edge, not tagged `no-castle`.
    pub fn bases_of(tiles: &TileCatalog) -> Vec<Vec<bool>> {
        (0..tiles.len())
            .map(|i| {
                tiles
                    .get(TileKindId(i as u16))
                    .segments
                    .iter()
                    .map(|s| {
                        s.kind == FeatureKindId::CITY
                            && s.sides.len() == 1
                            && !s.tags.iter().any(|g| g == crate::NO_CASTLE_TAG)
                    })
                    .collect()
            })
            .collect()
    }

    /// [`Castles::bases`] from [`Castles::base`].
    pub fn base_bits(base: &[Vec<bool>]) -> Vec<u16> {
        base.iter()
            .map(|b| {
                b.iter()
                    .take(16)
                    .enumerate()
                    .fold(0, |m, (i, &x)| m | u16::from(x) << i)
            })
            .collect()
    }

    /// Calls `f(segment, follower)` for each city on the tile just placed that may become
    /// a castle (BCB-9), whoever owns its sole follower ([`cities`]).
    fn cities(&self, v: &View<'_>, f: impl FnMut(SegmentId, FigureId)) {
        cities(&self.base, &self.bases, v, f);
    }

    /// BCB-9: `make-castle` on the city of `seg`: the castle goes on it with its follower.
    pub fn make(
        &self,
        ctx: &mut Ctx<'_>,
        p: PlayerId,
        fig: FigureId,
        seg: SegmentId,
    ) -> HookResult {
        let v = ctx.view();
        let mut offered = Vec::new();
        self.options(&v, ctx.me(), p, &mut offered);
        let ok = offered.iter().any(
            |a| matches!(a, Action::Custom(c) if c.figure == Some(fig) && c.segment == Some(seg)),
        );
        if !ok {
            return Err("make-castle: that city cannot become a castle now (BCB-9)".into());
        }
        let g = v.state.graph();
        let f = g.feature_of(seg);
        let mut segs = g.members(f);
        let (a, b) = (segs.next(), segs.next());
        let (Some(a), Some(b)) = (a, b) else {
            return Err("make-castle: the city has not two segments".into());
        };
        let Some(k) = (0..MAX_CASTLES).find(|&k| v.get(self.a[k]) == 0) else {
            return Err("make-castle: every castle is on the board".into());
        };
        // [JCZ] the follower keeps its pointer's position (the city half it stood on):
        // the castle stands there for rules that look at the cells around a place.
        let FigureLoc::On(at) = v.state.figure(fig).loc else {
            return Err("make-castle: the follower is not on the city".into());
        };
        let cell = g.segment(at).pos;
        ctx.set(self.a[k], a.index() as i64 + 1);
        ctx.set(self.b[k], b.index() as i64 + 1);
        ctx.set(self.fig[k], i64::from(fig.0) + 1);
        let castle = ctx.add_virtual_feature_at(self.kind, k as u8, true, cell);
        ctx.set(self.v[k], castle.index() as i64 + 1);
        ctx.move_figure(fig, castle)?;
        // [JCZ] The castle replaces the city: the city is never scored and is no longer a
        // completed city for other rules (the King's award, KR-6; the Count's targets,
        // CO-10), though a farm bordering it still counts it (BCB-12).
        ctx.take_over_feature(f)?;
        let used = ctx.get(self.used.of(p));
        ctx.set(self.used.of(p), used + 1);
        let made = ctx.get(self.made);
        ctx.set(self.made, made + 1);
        let n = ctx.get(self.waiting);
        ctx.set(self.waiting, n + 1);
        Ok(())
    }

    /// A castle made this turn holds the tile just placed (JCZ leaves it out of this
    /// turn's castle scoring).
    fn made_this_turn(&self, v: &View<'_>, c: &Castle) -> bool {
        let Some(last) = v.state.last_placed() else {
            return false;
        };
        let placed = v.state.board().tile(last);
        placed.has_segment(c.a) || placed.has_segment(c.b)
    }

    fn tiles(v: &View<'_>, c: &Castle) -> [Pos; 2] {
        let g = v.state.graph();
        [g.segment(c.a).pos, g.segment(c.b).pos]
    }

    /// BCB-10: the castle's two cells and the cells beside them across its long axis.
    fn vicinity(v: &View<'_>, c: &Castle) -> [Pos; 6] {
        let [p, q] = Self::tiles(v, c);
        let (s1, s2) = if p.x == q.x {
            (Side::W, Side::E)
        } else {
            (Side::N, Side::S)
        };
        [p, q, p.step(s1), p.step(s2), q.step(s1), q.step(s2)]
    }

    /// BCB-11: after a placement's scoring, each waiting castle (not made this turn) with
    /// a scored feature in its vicinity scores the highest of them for its owner and its
    /// follower goes home; then castles beside a castle that scored score the same points,
    /// until none does (JCZ chains them). BCB-12: nothing at final scoring.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub fn after_scoring(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
        if draft.final_scoring {
            return Ok(());
        }
        let v = ctx.view();
        let g = v.state.graph();
        let this_turn: Vec<FeatureId> = self
            .castles(&v)
            .filter(|c| self.made_this_turn(&v, c))
            .map(|c| g.feature_of(c.a))
            .collect();
        // The scored features, highest first (JCZ sorts by points; ties keep draft order).
        let mut items: Vec<(i32, Vec<Pos>)> = draft
            .features
            .iter()
            .enumerate()
            .filter(|(_, it)| it.complete && !this_turn.contains(&it.feature))
            .map(|(i, it)| {
                // A 0-point award pays nobody (JCZ's event for a mayor without pennants,
                // `mayorEmptyCity=zero-points`): the castle then takes the base value, as
                // JCZ's castle takes the feature's points whoever wins it. A bonus beside the
                // scoring (the ringmaster's, BT-13) is not the feature's points.
                let awarded = draft
                    .awards
                    .iter()
                    .filter(|a| a.item as usize == i && a.points > 0 && !a.bonus)
                    .map(|a| a.points)
                    .max();
                let cells = g
                    .members(it.feature)
                    .map(|s| g.segment(s))
                    .filter(|n| !n.is_virtual())
                    .map(|n| n.pos)
                    .collect();
                (awarded.unwrap_or(it.value), cells)
            })
            .collect();
        items.sort_by_key(|(pts, _)| std::cmp::Reverse(*pts));
        let waiting: Vec<Castle> = self
            .castles(&v)
            .filter(|c| c.fig.is_some() && !self.made_this_turn(&v, c))
            .collect();
        let mut scored: Vec<(Castle, i32)> = Vec::new();
        for c in &waiting {
            let near = Self::vicinity(&v, c);
            if let Some((pts, _)) = items
                .iter()
                .find(|(_, cells)| cells.iter().any(|p| near.contains(p)))
            {
                scored.push((*c, *pts));
            }
        }
        // Chains: a castle scores the points of a castle that scored beside it.
        let mut next = 0;
        while next < scored.len() {
            let (done, pts) = scored[next];
            let cells = Self::tiles(&v, &done);
            for c in &waiting {
                if scored.iter().any(|(s, _)| s.k == c.k) {
                    continue;
                }
                if Self::vicinity(&v, c).iter().any(|p| cells.contains(p)) {
                    scored.push((*c, pts));
                }
            }
            next += 1;
        }
        for (c, pts) in scored {
            let Some(fig) = c.fig else { continue };
            let owner = ctx.state().figure(fig).owner;
            // A follower without strength there owns nothing: a mayor on a castle (AM-11;
            // JCZ `Mayor.getPower`: "mayor has no power on castles"); the castle scores for
            // nobody and the mayor still goes home.
            if ctx.view().strength(fig).map_err(|e| e.to_string())? > 0 {
                // A scoring the placement caused (CO-4 counts it) [JCZ `ScoreCastle`].
                ctx.award_scoring(owner, pts, self.label);
            }
            ctx.set(self.fig[c.k], 0);
            let n = ctx.get(self.waiting);
            ctx.set(self.waiting, n - 1);
            ctx.return_figure(fig, RemovalReason::Scored)
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// BCB-12: a farm scores one point more for each castle it borders than for a city (4
    /// instead of 3 under the 3rd edition's farms), to every farmer who scores it [JCZ
    /// `Field`: `castles`].
    pub fn farm_bonus(&self, v: &View<'_>, draft: &mut ScoreDraft) {
        // Most drafts (every placement's once a castle is made) hold no farm.
        if !draft
            .features
            .iter()
            .any(|item| item.kind == FeatureKindId::FIELD)
        {
            return;
        }
        let g = v.state.graph();
        let castles: Vec<FeatureId> = self.castles(v).map(|c| g.feature_of(c.a)).collect();
        for (i, item) in draft.features.iter_mut().enumerate() {
            if item.kind != FeatureKindId::FIELD {
                continue;
            }
            let n = v
                .completed_cities(item.feature)
                .iter()
                .filter(|f| castles.contains(f))
                .count() as i32;
            if n == 0 {
                continue;
            }
            item.value += n;
            // Each farmer's scoring of the farm, whatever other sets added to it before (a
            // pig, TB-20); not another set's bonus on the same item (Under the Big Top's
            // ringmaster, BT-13, also an outnumbered one's under `ringmasterBonus=every`).
            for a in draft.awards.iter_mut() {
                if a.item as usize == i && a.points > 0 && !a.bonus {
                    a.points += n;
                }
            }
        }
    }

    /// BCB-12 with AM-25: a barn's final scoring counts a castle bordering its farm one
    /// point more than a city too (5 instead of 4; JCZ `Field.getBarnPoints`: `castles`).
    /// Abbey & Mayor's own award counted the castle's city as a city (it stays complete for
    /// farms), so each barn owner of such a farm gets one point per castle, once per farm,
    /// here (after Abbey & Mayor's final scoring, by load order).
    pub fn barn_bonus(&self, ctx: &mut Ctx<'_>) {
        let Some(barn) = self.barn else {
            return;
        };
        let v = ctx.view();
        let g = v.state.graph();
        let castles: Vec<FeatureId> = self.castles(&v).map(|c| g.feature_of(c.a)).collect();
        if castles.is_empty() {
            return;
        }
        // The barns' farms in figure order, each with its owners (bit = seat).
        let mut farms: Vec<(FeatureId, u32)> = Vec::new();
        for fig in v.state.figures() {
            if let (true, FigureLoc::On(s)) = (fig.kind == barn, fig.loc) {
                let farm = g.feature_of(s);
                let bit = 1u32 << fig.owner.index();
                match farms.iter_mut().find(|(f, _)| *f == farm) {
                    Some((_, owners)) => *owners |= bit,
                    None => farms.push((farm, bit)),
                }
            }
        }
        let mut awards: Vec<(PlayerId, i32)> = Vec::new();
        for (farm, mut owners) in farms {
            let n = v
                .completed_cities(farm)
                .iter()
                .filter(|f| castles.contains(f))
                .count() as i32;
            while n > 0 && owners != 0 {
                awards.push((PlayerId(owners.trailing_zeros() as u8), n));
                owners &= owners - 1;
            }
        }
        for (p, n) in awards {
            ctx.award(p, n, self.label);
        }
    }

    /// BCB-12 under `castleEndEvent`: each castle still waiting scores 0 for its owner (the
    /// follower stays, as final scoring returns nobody).
    pub fn end_events(&self, ctx: &mut Ctx<'_>) {
        if !self.end_event {
            return;
        }
        let v = ctx.view();
        let owners: Vec<PlayerId> = self
            .castles(&v)
            .filter_map(|c| c.fig)
            .map(|f| v.state.figure(f).owner)
            .collect();
        for p in owners {
            ctx.award(p, 0, self.label);
        }
    }

    /// BCB-9: a castle's follower taken off by another rule leaves the castle empty.
    pub fn on_figure_removed(&self, ctx: &mut Ctx<'_>, figure: FigureId) {
        for k in 0..MAX_CASTLES {
            if ctx.get(self.fig[k]) == i64::from(figure.0) + 1 {
                ctx.set(self.fig[k], 0);
                let n = ctx.get(self.waiting);
                ctx.set(self.waiting, n - 1);
            }
        }
    }

    /// The castles: a badge on both city halves (`C` waits for a feature, `c` has
    /// scored), and the castle itself, with its follower, under the heading `Castles`.
    pub fn describe(&self, v: &View<'_>, out: &mut Vec<carcassonne_core::Visible>) {
        for c in self.castles(v) {
            let name = if c.fig.is_some() { "C" } else { "c" };
            for segment in [c.a, c.b] {
                out.push(carcassonne_core::Visible::Place {
                    group: "Castles (C waiting, c scored)".into(),
                    name: name.into(),
                    segment,
                });
            }
            let [p, q] = Self::tiles(v, &c);
            let state = if c.fig.is_some() { "waiting" } else { "scored" };
            out.push(carcassonne_core::Visible::Place {
                group: "Castles".into(),
                name: format!("castle {},{}–{},{} ({state})", p.x, p.y, q.x, q.y),
                segment: c.v,
            });
        }
    }
}

/// Calls `f(segment, follower)` for each city on the tile just placed that may become a
/// castle (BCB-9), whoever owns its sole follower: only the tile's castle-base segments
/// (`bases`, bits of `base` per kind: [`Castles::base_bits`]), in segment order, since
/// every segment of a castle's city is one, the placed tile's too.
fn cities(base: &[Vec<bool>], bases: &[u16], v: &View<'_>, mut f: impl FnMut(SegmentId, FigureId)) {
    let Some(last) = v.state.last_placed() else {
        return;
    };
    let placed = v.state.board().tile(last);
    let mut bits = bases.get(usize::from(placed.kind.0)).copied().unwrap_or(0);
    while bits != 0 {
        let local = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        if local >= usize::from(placed.segment_count) {
            break;
        }
        city_at(base, v, placed.segment(local), &mut f);
    }
}

/// [`cities`] over every segment of the tile just placed: the reference in tests.
#[cfg(test)]
fn cities_scanned(base: &[Vec<bool>], v: &View<'_>, mut f: impl FnMut(SegmentId, FigureId)) {
    let Some(last) = v.state.last_placed() else {
        return;
    };
    for seg in v.state.board().tile(last).segments() {
        city_at(base, v, seg, &mut f);
    }
}

/// `f(seg, follower)` if the city of segment `seg` (of the tile just placed) may become
/// a castle (BCB-9).
#[inline(always)]
fn city_at(
    base: &[Vec<bool>],
    v: &View<'_>,
    seg: SegmentId,
    f: &mut impl FnMut(SegmentId, FigureId),
) {
    let g = v.state.graph();
    if g.segment(seg).kind != FeatureKindId::CITY {
        return;
    }
    let feature = g.feature_of(seg);
    let t = g.totals(feature);
    if !t.complete() || t.scored || t.segments != 2 || g.tile_count(feature) != 2 {
        return;
    }
    if !g.members(feature).all(|s| is_base(base, v, s)) {
        return;
    }
    if let Some(fig) = sole_follower(v, feature) {
        f(seg, fig);
    }
}

/// Whether segment `s` may be half of a castle (one side, no `no-castle` tag: `base`).
fn is_base(base: &[Vec<bool>], v: &View<'_>, s: SegmentId) -> bool {
    let node = v.state.graph().segment(s);
    if node.is_virtual() {
        return false;
    }
    let kind = v.state.board().tile(node.tile).kind;
    base.get(kind.0 as usize)
        .and_then(|k| k.get(node.local as usize))
        .copied()
        .unwrap_or(false)
}

/// The one follower on feature `f`, if exactly one stands there.
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
fn sole_follower(v: &View<'_>, f: FeatureId) -> Option<FigureId> {
    let g = v.state.graph();
    let mut found = None;
    for (i, fig) in v.state.figures().iter().enumerate() {
        let FigureLoc::On(s) = fig.loc else { continue };
        if fig.is_neutral() || !v.rules.figure_kind(fig.kind).follower || g.feature_of(s) != f {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some(FigureId(i as u16));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{next, rules};
    use carcassonne_core::{Game, GameSetup};

    /// [`cities`] (only the placed tile's castle-base segments, [`Castles::base_bits`])
    /// finds the cities [`cities_scanned`] (every segment of the tile) finds, in the same
    /// order, at every decision of seeded random games of the set.
    #[test]
    fn cities_by_base_bits_match_every_segment() {
        let rules = rules();
        let base = Castles::bases_of(rules.tiles());
        let bases = Castles::base_bits(&base);
        let mut found = 0;
        for seed in 0..40u64 {
            let setup = GameSetup::new(vec!["A".into(), "B".into()], seed);
            let mut game = Game::new(rules.clone(), &setup).unwrap();
            let mut pick = seed.wrapping_mul(6364136223846793005).wrapping_add(9);
            while !game.is_over() {
                let v = game.view();
                let (mut fast, mut slow) = (Vec::new(), Vec::new());
                cities(&base, &bases, &v, |s, f| fast.push((s, f)));
                cities_scanned(&base, &v, |s, f| slow.push((s, f)));
                assert_eq!(fast, slow);
                found += fast.len();
                pick = next(pick);
                let i = (pick >> 33) as usize % game.action_count();
                game.play_offered(i).unwrap();
            }
        }
        assert!(found > 20, "only {found} castle cities found");
    }
}
