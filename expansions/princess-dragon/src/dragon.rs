//! The dragon (PD-5 … PD-12): where it stands, where a flight may step, what it eats, and
//! the deployments its tile bans (PD-5); Promotions' upgraded figures it may spare (PR-4).

use crate::{err, pack, unpack, PdPrompt, PdRules, MAX_STEPS};

use carcassonne_core::{
    Action, Ctx, CustomAction, FeatureId, FigureId, FigureLoc, HookResult, HookSet, Offered,
    PlacedTile, Pos, RemovalReason, SegmentId, Side, SlotRef, View, Window,
};
use smallvec::SmallVec;

impl PdRules {
    /// The window in which a marked flight starts (PD-6): before scoring, or after it under
    /// the option that moves the flight there.
    pub(crate) fn flight_window(&self) -> Window {
        if self.after_scoring {
            Window::AfterScoring
        } else {
            Window::BeforeScoring
        }
    }

    /// The dragon's cell, once it is in play. Always inlined: the deployment filter and
    /// each dragon step read it (a call cost more than its three slot reads).
    #[inline(always)]
    pub(crate) fn dragon_cell(&self, v: &View<'_>) -> Option<Pos> {
        (v.get(self.ids.dragon) != 0).then(|| {
            Pos::new(
                v.get(self.ids.dragon_x) as i32,
                v.get(self.ids.dragon_y) as i32,
            )
        })
    }

    /// Whether `c` is one of the `visited` cells (packed slot values, see [`pack`]).
    #[inline]
    fn stood_on(visited: &[i64], c: Pos) -> bool {
        let p = pack(c);
        // `pack` is exact (`unpack(pack(c)) == Some(c)`) for these cells: compare packed.
        if p > 0 && (-4096..61440).contains(&c.y) {
            visited.contains(&p)
        } else {
            Self::stood_on_far(visited, c)
        }
    }

    /// [`Self::stood_on`] for cells far out, where packed values may alias.
    #[cold]
    #[inline(never)]
    fn stood_on_far(visited: &[i64], c: Pos) -> bool {
        visited.iter().any(|&x| unpack(x) == Some(c))
    }

    /// PD-8: the legal steps of the dragon at step `k` of its flight (the cells it stood
    /// on are `visited[0..k]`: the start and the `k - 1` steps made; the later entries are
    /// zero).
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub(crate) fn dragon_steps(&self, v: &View<'_>, k: usize, out: &mut Vec<Action>) {
        let Some(d) = self.dragon_cell(v) else {
            return;
        };
        let fairy = self.fairy_cell(v);
        // The cells stood on, packed as in their slots (no allocation: asked at every step).
        let mut packed = [0i64; MAX_STEPS + 1];
        let k = k.min(MAX_STEPS + 1);
        for (slot, to) in self.ids.visited[..k].iter().zip(&mut packed) {
            *to = v.get(*slot);
        }
        let visited = &packed[..k];
        let board = v.state.board();
        // PD-8 d, AP-9: tiles with an upgraded figure of any player (only with Promotions).
        let upgraded = (self.promotions_disc.is_some() && !self.upgraded_immune)
            .then(|| self.promoted_cells(v, true));
        for s in Side::ALL {
            let c = d.step(s);
            let Some(t) = board.at(c) else {
                continue;
            };
            let kind = t.kind.0 as usize;
            if self.no_dragon[kind] || Some(c) == fairy || Self::stood_on(visited, c) {
                continue;
            }
            if upgraded.as_ref().is_some_and(|u| u.contains(&c)) {
                continue;
            }
            // The tile's first segment names the cell (`segment_at(c, 0)`).
            let segment = t.segments().next();
            out.push(Action::Custom(CustomAction {
                expansion: self.me,
                verb: self.ids.move_dragon,
                figure: None,
                segment,
                value: i32::from(s.index()),
            }));
        }
    }

    /// Promotions (PR-4): `Some(true)` for an upgraded figure, `Some(false)` for a
    /// downgraded one, `None` without a disc (or without Promotions).
    fn promoted(&self, v: &View<'_>, f: FigureId) -> Option<bool> {
        let slot = self.promotions_disc?;
        let disc = v.get(SlotRef::untyped(slot, f.0 as usize));
        disc_promotion(disc, v.state.figure(f).owner)
    }

    /// The cells where a figure of the wanted promotion stands (none without Promotions), in
    /// figure order, a cell once per figure. Found once for all the candidates of a step:
    /// asked per candidate, the scan of every figure was a fifth of a decision's time with
    /// the nine and both fan scripts (docs/speed-log.md, thirty-fifth stop). The discs are
    /// read as one slice, and a figure only where a disc is (few: one per player).
    #[inline(never)]
    pub(crate) fn promoted_cells(&self, v: &View<'_>, upgraded: bool) -> SmallVec<[Pos; 8]> {
        let mut cells = SmallVec::new();
        let Some(slot) = self.promotions_disc else {
            return cells;
        };
        for (i, &disc) in v.state.slot_values(slot).iter().enumerate() {
            // Most figures have no disc: their figure is not read.
            if disc <= 0 {
                continue;
            }
            let f = v.state.figure(FigureId(i as u16));
            if disc_promotion(disc, f.owner) != Some(upgraded) {
                continue;
            }
            if let FigureLoc::On(s) = f.loc {
                if let Some(cell) = self.seg_cell(v, s) {
                    cells.push(cell);
                }
            }
        }
        cells
    }

    /// The cell no figure may be deployed on now (PD-5), if any. Always inlined: the
    /// deployment filter asks at every step, and as a call of its own it cost more cache
    /// misses than instructions; the `volcano-only` option's test stays out of line.
    #[inline(always)]
    pub(crate) fn banned_cell(&self, v: &View<'_>) -> Option<Pos> {
        let d = self.dragon_cell(v)?;
        if !self.volcano_only {
            return Some(d);
        }
        self.banned_volcano(v, d)
    }

    /// [`Self::banned_cell`] under `dragonTileDeploy=volcano-only`: the dragon's cell only
    /// while its volcano is the tile just placed.
    #[cold]
    #[inline(never)]
    fn banned_volcano(&self, v: &View<'_>, d: Pos) -> Option<Pos> {
        let t = v.state.board().tile(v.state.last_placed()?);
        (t.pos == d && self.volcano[t.kind.0 as usize]).then_some(d)
    }

    /// PD-5: whether `a` puts a figure onto the tile `cell` (one tile per cell, and
    /// virtual segments lie on no tile): a deployment onto a segment there, or a move onto
    /// a feature all of whose segments lie there (a move names a feature, CO-10: one with
    /// segments on other tiles is entered through those). A segment of `cell` exists, so
    /// the feature lookup is safe.
    // Inlined into the filters' loops over every offer (most are not on the tile): the walk
    // over a moved figure's feature stays out of line.
    #[inline(always)]
    pub(crate) fn onto_banned(v: &View<'_>, a: &Action, cell: &PlacedTile) -> bool {
        match *a {
            Action::Deploy { segment, .. } => cell.has_segment(segment),
            Action::Move { segment, .. } => {
                cell.has_segment(segment) && Self::feature_within(v, segment, cell)
            }
            _ => false,
        }
    }

    /// Whether every segment of `segment`'s feature is on `cell`.
    #[inline(never)]
    fn feature_within(v: &View<'_>, segment: SegmentId, cell: &PlacedTile) -> bool {
        let g = v.state.graph();
        g.members(g.feature_of(segment))
            .all(|s| cell.has_segment(s))
    }

    /// Whether an expansion other than this one adds actions to the deployment step.
    #[inline]
    fn others_offer(&self, v: &View<'_>) -> bool {
        let members = v.rules.hook_members(HookSet::DEPLOY_STEP_ACTIONS);
        // Bit 63 stands for every expansion from 63 on: then others may offer.
        self.me.0 >= 63 || members & !(1u64 << self.me.0) != 0
    }

    /// PD-5 in the deployment step: removes whatever puts a figure onto the dragon's tile.
    /// Core offers deployments on the placed tile only, and this expansion's own offers
    /// never name the dragon's tile (the portal skips it); so without another expansion's
    /// offers, only a step on the dragon's tile itself can hold one.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub(crate) fn remove_banned_deploys(&self, v: &View<'_>, actions: &mut Offered<'_>) {
        let Some(d) = self.banned_cell(v) else {
            return;
        };
        if !self.others_offer(v) {
            if let Some(i) = v.state.last_placed() {
                if v.state.board().tile(i).pos != d {
                    return;
                }
            }
        }
        self.remove_onto(v, d, actions);
    }

    /// PD-5: removes from `actions` whatever puts a figure onto the dragon's tile.
    pub(crate) fn remove_banned(&self, v: &View<'_>, actions: &mut Offered<'_>) {
        if let Some(d) = self.banned_cell(v) {
            self.remove_onto(v, d, actions);
        }
    }

    /// Removes from `actions` whatever puts a figure onto the tile at `d`. Most offers put
    /// nothing there: one pass finds the first that does, if any. Inlined: the deployment
    /// filter runs it at every step once the dragon is in play, and a call of its own cost
    /// more cache lines than the scan.
    #[inline(always)]
    fn remove_onto(&self, v: &View<'_>, d: Pos, actions: &mut Offered<'_>) {
        let Some(&cell) = v.state.board().at(d) else {
            return;
        };
        if cell.segment_count == 0 {
            return;
        }
        let found = if cell.split == cell.segment_count {
            // No overlay on the tile (the usual case): its segments are one node range. A
            // move onto the tile is found here and judged by the removal itself (its feature
            // may reach other tiles): one test per offer in the scan.
            let (first, n) = (cell.first_segment as usize, usize::from(cell.split));
            actions.iter().any(|a| match *a {
                Action::Deploy { segment, .. } | Action::Move { segment, .. } => {
                    segment.index().wrapping_sub(first) < n
                }
                _ => false,
            })
        } else {
            actions.iter().any(|a| Self::onto_banned(v, a, &cell))
        };
        // Whatever the tile's own test removes must be found (checked in debug and test
        // builds).
        if cfg!(any(test, debug_assertions)) {
            let exact = actions.iter().any(|a| Self::onto_banned(v, a, &cell));
            assert!(found || !exact, "PD-5: offers onto the dragon's tile");
        }
        if found {
            Self::drop_onto(v, &cell, actions);
        }
    }

    /// The removal itself, rare (an offer onto the dragon's tile): out of the scan's code.
    #[cold]
    #[inline(never)]
    fn drop_onto(v: &View<'_>, cell: &PlacedTile, actions: &mut Offered<'_>) {
        actions.retain(|a| !Self::onto_banned(v, a, cell));
    }

    pub(crate) fn set_dragon(&self, ctx: &mut Ctx<'_>, p: Pos) {
        ctx.set(self.ids.dragon, 1);
        ctx.set(self.ids.dragon_x, i64::from(p.x));
        ctx.set(self.ids.dragon_y, i64::from(p.y));
    }

    /// PD-10, PD-11: the dragon enters `cell`.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub(crate) fn eat(&self, ctx: &mut Ctx<'_>, cell: Pos) -> HookResult {
        let v = ctx.view();
        // The figures on the tile are those on its segments' nodes (no graph lookup).
        let Some(&on_tile) = v.state.board().at(cell) else {
            return Ok(());
        };
        // Most steps find nobody: one pass before any bookkeeping, each figure's test as
        // arithmetic with no early exit (whether a figure stands, and where, follows no
        // pattern: branches on them were mispredicted). A figure off the board reads no
        // segment (`usize::MAX`, in no range); the ranges are `PlacedTile::has_segment`'s.
        let (first, split) = (on_tile.first_segment as usize, usize::from(on_tile.split));
        let added = on_tile.added as usize;
        let extra = usize::from(on_tile.segment_count - on_tile.split);
        let hit = if extra == 0 {
            // No overlay on the tile (the usual case): its segments are one range.
            Self::any_in(v.state.figures(), first, split)
        } else {
            Self::any_in(v.state.figures(), first, split)
                | Self::any_in(v.state.figures(), added, extra)
        };
        // The tile's own test must agree (checked in debug and test builds).
        if cfg!(any(test, debug_assertions)) {
            let exact = v
                .state
                .figures()
                .iter()
                .any(|f| matches!(f.loc, FigureLoc::On(s) if on_tile.has_segment(s)));
            assert_eq!(hit, exact, "PD-10: figures on the dragon's tile");
        }
        if !hit {
            return Ok(());
        }
        let g = v.state.graph();
        let orphans = self.builder.is_some() || self.pig.is_some();
        let mut victims = SmallVec::<[FigureId; 16]>::new();
        let mut features = SmallVec::<[FeatureId; 16]>::new();
        for (i, f) in v.state.figures().iter().enumerate() {
            let FigureLoc::On(seg) = f.loc else {
                continue;
            };
            if !on_tile.has_segment(seg) || Some(f.kind) == self.barn {
                continue;
            }
            if self.tower_top_immune && Some(g.segment(seg).kind) == self.tower_kind {
                continue;
            }
            // AP-9 `enter-but-immune`: an upgraded figure is not eaten.
            if self.promoted(&v, FigureId(i as u16)) == Some(true) {
                continue;
            }
            victims.push(FigureId(i as u16));
            if orphans && self.follower[f.kind.0 as usize] {
                features.push(g.feature_of(seg));
            }
        }
        for &f in victims.as_slice() {
            ctx.return_figure(f, RemovalReason::Expansion)
                .map_err(err)?;
        }
        self.return_orphans(ctx, features.as_slice())
    }

    /// Whether a figure stands on a node in `first..first + len`. Each figure's test is
    /// arithmetic with no early exit (whether a figure stands, and where, follows no
    /// pattern: branches on them were mispredicted). A figure off the board reads no
    /// segment (`usize::MAX`, in no range).
    #[inline(always)]
    fn any_in(figures: &[carcassonne_core::Figure], first: usize, len: usize) -> bool {
        let mut hit = false;
        for f in figures {
            let s = match f.loc {
                FigureLoc::On(s) => s.index(),
                _ => usize::MAX,
            };
            hit |= s.wrapping_sub(first) < len;
        }
        hit
    }

    /// PD-12: builders and pigs on `features` whose owner has no follower left there.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub(crate) fn return_orphans(&self, ctx: &mut Ctx<'_>, features: &[FeatureId]) -> HookResult {
        if features.is_empty() || (self.builder.is_none() && self.pig.is_none()) {
            return Ok(());
        }
        let v = ctx.view();
        let g = v.state.graph();
        let figs = v.state.figures();
        let mut orphans = Vec::new();
        for (i, f) in figs.iter().enumerate() {
            let FigureLoc::On(seg) = f.loc else {
                continue;
            };
            if Some(f.kind) != self.builder && Some(f.kind) != self.pig {
                continue;
            }
            let feat = g.feature_of(seg);
            if !features.contains(&feat) {
                continue;
            }
            let kept = figs.iter().any(|o| {
                o.owner == f.owner
                    && v.rules.figure_kind(o.kind).follower
                    && matches!(o.loc, FigureLoc::On(s) if g.feature_of(s) == feat)
            });
            if !kept {
                orphans.push(FigureId(i as u16));
            }
        }
        for f in orphans {
            ctx.return_figure(f, RemovalReason::Expansion)
                .map_err(err)?;
        }
        Ok(())
    }

    /// PD-6: a flight marked by a dragon tile starts.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub(crate) fn start_flight(&self, ctx: &mut Ctx<'_>) {
        if ctx.get(self.ids.pending) == 0 {
            return;
        }
        ctx.set(self.ids.pending, 0);
        let Some(d) = self.dragon_cell(&ctx.view()) else {
            return;
        };
        for s in self.ids.visited {
            ctx.set(s, 0);
        }
        ctx.set(self.ids.visited[0], pack(d));
        ctx.set(self.ids.steps, 0);
        let active = ctx.state().active_player();
        ctx.prompt_next(active, PdPrompt::DragonStep(1));
    }
}

/// Promotions (PR-4) of a figure of `owner` with disc slot value `disc` (the disc's owner +
/// 1, 0 for none): upgraded by its owner's disc, downgraded by another player's.
#[inline]
fn disc_promotion(disc: i64, owner: carcassonne_core::PlayerId) -> Option<bool> {
    (disc > 0).then(|| disc - 1 == i64::from(owner.0))
}
