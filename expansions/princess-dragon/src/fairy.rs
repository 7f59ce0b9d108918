//! The fairy (PD-13 … PD-18): where it stands and where its owner may move it.

use crate::{cell_value, PdRules};
use std::collections::BTreeSet;

use carcassonne_core::{Action, CustomAction, FigureId, FigureLoc, PlayerId, Pos, SegmentId, View};

impl PdRules {
    /// The follower the fairy stands beside, if any (still on the board).
    #[inline]
    pub(crate) fn fairy_follower(&self, v: &View<'_>) -> Option<(FigureId, SegmentId)> {
        let f = v.get(self.ids.fairy_figure);
        if f <= 0 {
            return None;
        }
        let id = FigureId((f - 1) as u16);
        match v.state.figures().get(id.0 as usize)?.loc {
            FigureLoc::On(seg) => Some((id, seg)),
            _ => None,
        }
    }

    /// The fairy's tile (PD-14): its follower's tile, else where it was left.
    #[inline]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub(crate) fn fairy_cell(&self, v: &View<'_>) -> Option<Pos> {
        if v.get(self.ids.fairy) == 0 {
            return None;
        }
        if let Some((_, seg)) = self.fairy_follower(v) {
            if let Some(p) = self.seg_cell(v, seg) {
                return Some(p);
            }
        }
        Some(Pos::new(
            v.get(self.ids.fairy_x) as i32,
            v.get(self.ids.fairy_y) as i32,
        ))
    }

    /// The fairy's move (PD-13): beside a follower (its figure and segment) or, when it moves
    /// by tile (PD-18), onto a cell (`value`).
    fn fairy_move(
        &self,
        figure: Option<FigureId>,
        segment: Option<SegmentId>,
        value: i32,
    ) -> Action {
        Action::Custom(CustomAction {
            expansion: self.me,
            verb: self.ids.move_fairy,
            figure,
            segment,
            value,
        })
    }

    /// Fairy moves of `player` (PD-13, PD-18). Inlined into the deployment step's hook:
    /// one function a step, in the guards' section.
    #[inline(always)]
    pub(crate) fn fairy_moves(&self, v: &View<'_>, player: PlayerId, out: &mut Vec<Action>) {
        if !self.fairy {
            return;
        }
        let current = v.get(self.ids.fairy_figure) - 1;
        if !self.on_tile && self.promotions_disc.is_none() {
            // The common case, asked at every deployment step: beside any own follower on
            // a tile (or a quarter under `cocQuarterFigures=jcz`) but the current one, in
            // figure order; the same offers as the general loop below, in one pass.
            let g = v.state.graph();
            let (first, mine) = v.state.figures_of(player);
            for (j, f) in mine.iter().enumerate() {
                let i = first + j;
                let FigureLoc::On(seg) = f.loc else {
                    continue;
                };
                if i as i64 == current || !self.follower[f.kind.0 as usize] {
                    continue;
                }
                let n = g.segment(seg);
                if n.is_virtual() && !(self.coc_jcz && Some(n.kind) == self.quarter_kind) {
                    continue;
                }
                out.push(self.fairy_move(Some(FigureId(i as u16)), Some(seg), 0));
            }
            return;
        }
        self.fairy_moves_general(v, player, current, out);
    }

    /// [`Self::fairy_moves`] when the fairy moves by tile (PD-18) or Promotions' discs count
    /// (PR-8): rare set-ups, kept out of the deployment step's common code.
    #[cold]
    #[inline(never)]
    fn fairy_moves_general(
        &self,
        v: &View<'_>,
        player: PlayerId,
        current: i64,
        out: &mut Vec<Action>,
    ) {
        // The fairy's tile matters only when it moves by tile (PD-18).
        let here = if self.on_tile {
            self.fairy_cell(v)
        } else {
            None
        };
        // PR-8: never onto a tile with a downgraded follower of any player.
        let downgraded = self.promoted_cells(v, false);
        let mut cells = BTreeSet::new();
        // The player's own figures, in figure order, as the common case reads them.
        let (first, mine) = v.state.figures_of(player);
        for (j, f) in mine.iter().enumerate() {
            let i = first + j;
            let FigureLoc::On(seg) = f.loc else {
                continue;
            };
            if !self.follower[f.kind.0 as usize] {
                continue;
            }
            let Some(cell) = self.seg_cell(v, seg) else {
                continue;
            };
            if downgraded.contains(&cell) {
                continue;
            }
            if self.on_tile {
                if Some(cell) != here {
                    cells.insert(cell);
                }
            } else if i as i64 != current {
                out.push(self.fairy_move(Some(FigureId(i as u16)), Some(seg), 0));
            }
        }
        for cell in cells {
            out.push(self.fairy_move(None, Self::cell_segment(v, cell), cell_value(cell)));
        }
    }
}
