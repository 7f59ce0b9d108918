//! Acrobat spaces and pyramids (BT-7 … BT-11, BT-14).
//!
//! An acrobat space is a segment of the plugin's own centre-site kind `acrobats` on each
//! acrobat tile (`tiles.toml`): unscored, never complete, so core neither scores it nor joins
//! it to anything (BT-9), and its feature is that one segment, whose `occupants` count is the
//! pyramid's size. Core's own deployment step offers every follower kind on an empty space of
//! the tile just placed; the deployment filter keeps only the small follower there (BT-8), and
//! the plugin adds the small follower on every space of the 3×3 around the tile just placed
//! that holds fewer than three meeples, and `score-pyramid` for each full pyramid (BT-10).

use carcassonne_core::{
    Action, Ctx, CustomAction, ExpansionIndex, FeatureKindId, FigureKindId, FigureLoc, GameSlot,
    HookFailure, HookResult, LabelId, PlayerId, Pos, RemovalReason, SegmentId, VerbId, View,
};

use crate::circus::near;
use crate::ringmaster::{marked_around, BONUS};
use crate::TileMarks;

/// BT-8, BT-10: meeples in a full pyramid.
pub const PYRAMID: u16 = 3;
/// BT-10, BT-11: points per meeple in a scored pyramid.
pub const POINTS: i32 = 5;

/// The acrobat rules bound to one ruleset.
#[derive(Clone, Copy, Debug)]
pub struct Acrobats {
    /// BT-7 … BT-11 are played (option `acrobats`); off, no figure may stand on a space.
    pub enabled: bool,
    /// The `acrobats` feature kind.
    pub kind: FeatureKindId,
    /// `score-pyramid`.
    pub verb: VerbId,
    /// Score label of a pyramid's points.
    pub label: LabelId,
    /// Score label of a ringmaster's bonus in a pyramid (BT-14).
    pub bonus_label: LabelId,
    pub ringmaster: FigureKindId,
    pub me: ExpansionIndex,
    /// Acrobat spaces on the board.
    pub spaces: GameSlot,
    /// The first [`TRACKED`] spaces' segments (index + 1), in placement order, so that a
    /// deployment step reads a few slots instead of the 3×3 and every figure.
    pub tracked: [GameSlot; TRACKED],
    /// Bit `i`: the tracked space `i` may hold a full pyramid. Set when a meeple arriving
    /// there makes three (`on_figure_placed`), cleared when it is scored; a meeple leaving
    /// otherwise only lowers a pyramid, so the set stays a superset of the full ones, and
    /// a step whose player has no small follower reads these spaces alone.
    pub full: GameSlot,
}

/// Acrobat spaces remembered in slots; past them (doubled packs) the board is searched.
pub const TRACKED: usize = 16;

impl Acrobats {
    /// Records the acrobat spaces of the start board (a scenario's position included).
    pub fn count_spaces(&self, ctx: &mut Ctx<'_>, marks: &TileMarks) {
        let view = ctx.view();
        let segs: Vec<SegmentId> = view
            .state
            .board()
            .tiles()
            .iter()
            .filter_map(|t| marks.space(t.kind).map(|l| t.segment(usize::from(l))))
            .collect();
        ctx.set(self.spaces, 0);
        ctx.set(self.full, 0);
        for seg in segs {
            self.add_space(ctx, seg);
        }
    }

    /// An acrobat space came onto the board.
    pub fn add_space(&self, ctx: &mut Ctx<'_>, seg: SegmentId) {
        let n = ctx.get(self.spaces);
        if let Some(&slot) = self.tracked.get(n as usize) {
            ctx.set(slot, seg.index() as i64 + 1);
        }
        ctx.set(self.spaces, n + 1);
    }

    /// A figure came onto `seg` (`on_figure_placed`): if it made a full pyramid on a
    /// tracked space, the space joins the set [`Acrobats::full`].
    pub fn arrived(&self, ctx: &mut Ctx<'_>, seg: SegmentId) {
        let v = ctx.view();
        if !self.is_space(&v, seg) || self.height(&v, seg) < PYRAMID {
            return;
        }
        if let Some(i) = self.tracked_index(&v, seg) {
            let full = v.get(self.full) | 1 << i;
            ctx.set(self.full, full);
        }
    }

    /// The index among the tracked spaces of the space `seg`, if it is tracked.
    fn tracked_index(&self, v: &View<'_>, seg: SegmentId) -> Option<usize> {
        let n = (v.get(self.spaces) as usize).min(TRACKED);
        let mark = seg.index() as i64 + 1;
        self.tracked[..n]
            .iter()
            .position(|&slot| v.get(slot) == mark)
    }

    /// Whether any acrobat space is on the board.
    pub fn any(&self, v: &View<'_>) -> bool {
        v.get(self.spaces) != 0
    }

    /// Whether `seg` is an acrobat space.
    fn is_space(&self, v: &View<'_>, seg: SegmentId) -> bool {
        let g = v.state.graph();
        seg.index() < g.len() && g.segment(seg).kind == self.kind
    }

    /// BT-20 `bridgeAcrobats=barred`: whether the space `seg` is on a tile with a bridge.
    fn closed(&self, v: &View<'_>, marks: &TileMarks, seg: SegmentId) -> bool {
        marks.any_closed()
            && v.state
                .board()
                .at(v.state.graph().segment(seg).pos)
                .is_some_and(|t| marks.closed(t.kind))
    }

    /// BT-20 `bridgeAcrobats=barred`: whether the tile at `pos` has an acrobat space with a
    /// meeple on it.
    pub fn occupied_at(&self, v: &View<'_>, marks: &TileMarks, pos: Pos) -> bool {
        v.state.board().at(pos).is_some_and(|t| {
            marks
                .space(t.kind)
                .is_some_and(|l| self.height(v, t.segment(usize::from(l))) > 0)
        })
    }

    /// Meeples standing on the acrobat space `seg` (its feature is that one segment).
    #[inline(always)]
    fn height(&self, v: &View<'_>, seg: SegmentId) -> u16 {
        let g = v.state.graph();
        g.totals(g.feature_of(seg)).occupants
    }

    /// BT-8, BT-10: a small follower onto each acrobat space of the 3×3 around the tile just
    /// placed (of the whole board when the tile is a magic portal, `portal` by tile kind)
    /// that holds fewer than three meeples; `score-pyramid` for each full pyramid anywhere;
    /// both in the order the spaces were placed.
    pub fn offers(
        &self,
        v: &View<'_>,
        marks: &TileMarks,
        portal: &[bool],
        p: PlayerId,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let n = v.get(self.spaces) as usize;
        if n == 0 || !self.enabled {
            return Ok(());
        }
        let Some(last) = v.state.last_placed() else {
            return Ok(());
        };
        let can_deploy = v.state.in_supply(p, FigureKindId::SMALL_FOLLOWER) > 0;
        let barred = marks.any_closed();
        let slots = self.tracked.get(..n);
        if let (false, Some(slots)) = (can_deploy, slots) {
            // Most steps: only pyramids to score, among the spaces that may be full (the
            // tile just placed does not matter).
            let mut maybe = v.get(self.full) as u32;
            while maybe != 0 {
                let i = maybe.trailing_zeros() as usize;
                maybe &= maybe - 1;
                let Some(&slot) = slots.get(i) else { break };
                let seg = SegmentId::new(v.get(slot) as usize - 1);
                if self.height(v, seg) >= PYRAMID && !(barred && self.closed(v, marks, seg)) {
                    out.push(self.score_pyramid(seg));
                }
            }
            return Ok(());
        }
        let tile = v.state.board().tile(last);
        let anywhere = portal.get(tile.kind.0 as usize).copied().unwrap_or(false);
        let Some(slots) = slots else {
            return self.offers_on_board(v, marks, p, tile.pos, anywhere, out);
        };
        // At most 16 spaces, read from their slots in one loop; the full pyramids are
        // marked by their slot's bit and offered after it (no list to keep).
        let g = v.state.graph();
        let mut full = 0u32;
        for (i, &slot) in slots.iter().enumerate() {
            // A slot is set with its count (`add_space`), so 0 (no segment) never shows.
            let Some(seg) = (v.get(slot) as usize).checked_sub(1).map(SegmentId::new) else {
                continue;
            };
            if barred && self.closed(v, marks, seg) {
                continue;
            }
            if self.height(v, seg) >= PYRAMID {
                full |= 1 << i;
                continue;
            }
            if anywhere || near(g.segment(seg).pos, tile.pos) {
                self.offer_deploy(seg, out);
            }
        }
        while full != 0 {
            let i = full.trailing_zeros() as usize;
            full &= full - 1;
            let seg = SegmentId::new(v.get(slots[i]) as usize - 1);
            out.push(self.score_pyramid(seg));
        }
        Ok(())
    }

    /// [`Acrobats::offers`] past [`TRACKED`] spaces (doubled packs): the spaces found on the
    /// board, in placement order.
    #[cold]
    #[inline(never)]
    fn offers_on_board(
        &self,
        v: &View<'_>,
        marks: &TileMarks,
        p: PlayerId,
        at: Pos,
        anywhere: bool,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let can_deploy = v.state.in_supply(p, FigureKindId::SMALL_FOLLOWER) > 0;
        let mut full = Vec::new();
        for t in v.state.board().tiles() {
            let Some(seg) = marks.space(t.kind).map(|l| t.segment(usize::from(l))) else {
                continue;
            };
            if self.closed(v, marks, seg) {
                continue;
            }
            if self.height(v, seg) >= PYRAMID {
                full.push(seg);
            } else if can_deploy && (anywhere || near(v.state.graph().segment(seg).pos, at)) {
                self.offer_deploy(seg, out);
            }
        }
        out.extend(full.into_iter().map(|seg| self.score_pyramid(seg)));
        Ok(())
    }

    /// A small follower onto the space `seg`, unless offered already (core's own offer on
    /// the tile just placed).
    #[inline]
    fn offer_deploy(&self, seg: SegmentId, out: &mut Vec<Action>) {
        let deploy = Action::Deploy {
            figure: FigureKindId::SMALL_FOLLOWER,
            segment: seg,
        };
        if !out.contains(&deploy) {
            out.push(deploy);
        }
    }

    /// BT-10: `score-pyramid` on the space `seg`.
    fn score_pyramid(&self, seg: SegmentId) -> Action {
        Action::Custom(CustomAction {
            expansion: self.me,
            verb: self.verb,
            figure: None,
            segment: Some(seg),
            value: 0,
        })
    }

    /// BT-8: whether an offered deployment or move onto an acrobat space breaks the rules:
    /// only a small follower is deployed there, onto a space with fewer than three meeples;
    /// no claiming figure is moved there (a wagon, a redeployment); none onto a space on a
    /// tile with a bridge under `bridgeAcrobats=barred` (BT-20). Figures that share (a
    /// fairy beside an acrobat) follow their own rules.
    pub fn bars(&self, v: &View<'_>, marks: &TileMarks, a: &Action) -> bool {
        match *a {
            Action::Deploy { figure, segment } => {
                self.is_space(v, segment)
                    && (!self.enabled
                        || figure != FigureKindId::SMALL_FOLLOWER
                        || self.height(v, segment) >= PYRAMID
                        || self.closed(v, marks, segment))
            }
            Action::Move { figure, segment } => {
                self.is_space(v, segment)
                    && v.state
                        .figures()
                        .get(figure.0 as usize)
                        .is_some_and(|f| v.state.occupies(f.kind))
            }
            _ => false,
        }
    }

    /// BT-10: the active player scores the full pyramid on `c.segment`; its meeples return.
    pub fn apply(&self, ctx: &mut Ctx<'_>, marks: &TileMarks, c: CustomAction) -> HookResult {
        let view = ctx.view();
        let Some(seg) = c.segment.filter(|&s| self.is_space(&view, s)) else {
            return Err(HookFailure(
                "score-pyramid: the target is not an acrobat space".into(),
            ));
        };
        if self.height(&view, seg) < PYRAMID {
            return Err(HookFailure("score-pyramid: the pyramid is not full".into()));
        }
        if self.closed(&view, marks, seg) {
            return Err(HookFailure(
                "score-pyramid: the pyramid stands on a tile with a bridge (bridgeAcrobats=barred)"
                    .into(),
            ));
        }
        self.score(ctx, marks, seg, true)?;
        let v = ctx.view();
        if let Some(i) = self.tracked_index(&v, seg) {
            let full = v.get(self.full) & !(1 << i);
            ctx.set(self.full, full);
        }
        Ok(())
    }

    /// BT-11: at the end every occupied acrobat space scores, in segment order.
    pub fn score_final(&self, ctx: &mut Ctx<'_>, marks: &TileMarks) -> HookResult {
        if !self.enabled {
            return Ok(());
        }
        let view = ctx.view();
        let mut spaces: Vec<SegmentId> = view
            .state
            .figures()
            .iter()
            .filter_map(|f| match f.loc {
                FigureLoc::On(seg) if self.is_space(&view, seg) => Some(seg),
                _ => None,
            })
            .collect();
        spaces.sort_unstable_by_key(|s| s.index());
        spaces.dedup();
        for seg in spaces {
            self.score(ctx, marks, seg, false)?;
        }
        Ok(())
    }

    /// BT-10, BT-11, BT-14: 5 points per meeple to its owner; a ringmaster in it adds +2 per
    /// circus and acrobat tile around it; `send_back` returns the meeples (not at the end).
    fn score(
        &self,
        ctx: &mut Ctx<'_>,
        marks: &TileMarks,
        seg: SegmentId,
        send_back: bool,
    ) -> HookResult {
        let view = ctx.view();
        let pos = view.state.graph().segment(seg).pos;
        let mut per_player = vec![0i32; view.state.players().len()];
        let mut bonus = Vec::new();
        let mut here = Vec::new();
        for (i, f) in view.state.figures().iter().enumerate() {
            if f.loc != FigureLoc::On(seg) || !view.state.occupies(f.kind) {
                continue;
            }
            here.push(carcassonne_core::FigureId(i as u16));
            if let Some(n) = per_player.get_mut(f.owner.0 as usize) {
                *n += 1;
            }
            if f.kind == self.ringmaster {
                bonus.push((f.owner, BONUS * marked_around(&view, marks, pos)));
            }
        }
        for (p, n) in per_player.into_iter().enumerate() {
            if n > 0 {
                ctx.award(PlayerId(p as u8), POINTS * n, self.label);
            }
        }
        for (p, points) in bonus {
            if points > 0 {
                ctx.award(p, points, self.bonus_label);
            }
        }
        if send_back {
            for f in here {
                ctx.return_figure(f, RemovalReason::Expansion)
                    .map_err(|e| HookFailure(e.to_string()))?;
            }
        }
        Ok(())
    }
}
