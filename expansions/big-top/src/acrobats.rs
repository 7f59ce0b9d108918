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
    Action, Ctx, CustomAction, ExpansionIndex, FeatureKindId, FigureKindId, FigureLoc, HookFailure,
    HookResult, LabelId, PlayerId, Pos, RemovalReason, SegmentId, VerbId, View,
};

use crate::ringmaster::{marked_around, BONUS};
use crate::TileMarks;

/// BT-8, BT-10: meeples in a full pyramid.
pub const PYRAMID: u16 = 3;
/// BT-10, BT-11: points per meeple in a scored pyramid.
pub const POINTS: i32 = 5;

/// The acrobat rules bound to one ruleset.
#[derive(Clone, Copy, Debug)]
pub struct Acrobats {
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
}

impl Acrobats {
    /// Whether `seg` is an acrobat space.
    fn is_space(&self, v: &View<'_>, seg: SegmentId) -> bool {
        let g = v.state.graph();
        seg.index() < g.len() && g.segment(seg).kind == self.kind
    }

    /// Meeples standing on the acrobat space `seg` (its feature is that one segment).
    fn height(&self, v: &View<'_>, seg: SegmentId) -> u16 {
        let g = v.state.graph();
        g.totals(g.feature_of(seg)).occupants
    }

    /// The acrobat space on the tile at `pos`, if that tile has one.
    fn space_at(&self, v: &View<'_>, marks: &TileMarks, pos: Pos) -> Option<SegmentId> {
        let board = v.state.board();
        let tile = board.tile(board.index_at(pos)?);
        marks
            .space(tile.kind)
            .map(|local| tile.segment(usize::from(local)))
    }

    /// BT-8, BT-10: a small follower onto each acrobat space of the 3×3 around the tile just
    /// placed that holds fewer than three meeples; `score-pyramid` for each full pyramid.
    pub fn offers(
        &self,
        v: &View<'_>,
        marks: &TileMarks,
        p: PlayerId,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let Some(last) = v.state.last_placed() else {
            return Ok(());
        };
        let at = v.state.board().tile(last).pos;
        if v.state.in_supply(p, FigureKindId::SMALL_FOLLOWER) > 0 {
            for q in std::iter::once(at).chain(at.surrounding()) {
                let Some(seg) = self.space_at(v, marks, q) else {
                    continue;
                };
                let deploy = Action::Deploy {
                    figure: FigureKindId::SMALL_FOLLOWER,
                    segment: seg,
                };
                if self.height(v, seg) < PYRAMID && !out.contains(&deploy) {
                    out.push(deploy);
                }
            }
        }
        // BT-10: any full pyramid on the board, in figure order (deterministic).
        for f in v.state.figures() {
            let FigureLoc::On(seg) = f.loc else { continue };
            if !self.is_space(v, seg) || self.height(v, seg) < PYRAMID {
                continue;
            }
            let score = Action::Custom(CustomAction {
                expansion: self.me,
                verb: self.verb,
                figure: None,
                segment: Some(seg),
                value: 0,
            });
            if !out.contains(&score) {
                out.push(score);
            }
        }
        Ok(())
    }

    /// BT-8: whether an offered deployment or move onto an acrobat space breaks the rules:
    /// only a small follower is deployed there, onto a space with fewer than three meeples;
    /// no figure is moved there (no rule of the set moves one there).
    pub fn bars(&self, v: &View<'_>, a: &Action) -> bool {
        match *a {
            Action::Deploy { figure, segment } => {
                self.is_space(v, segment)
                    && (figure != FigureKindId::SMALL_FOLLOWER
                        || self.height(v, segment) >= PYRAMID)
            }
            Action::Move { segment, .. } => self.is_space(v, segment),
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
        self.score(ctx, marks, seg, true)
    }

    /// BT-11: at the end every occupied acrobat space scores, in segment order.
    pub fn score_final(&self, ctx: &mut Ctx<'_>, marks: &TileMarks) -> HookResult {
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
