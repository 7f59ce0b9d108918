//! The ringmaster's bonus (BT-12, BT-13).

use carcassonne_core::{Award, FigureKindId, FigureLoc, PlayerId, Pos, ScoreDraft, View};

use crate::circus::near;
use crate::TileMarks;

/// BT-13: points per circus or acrobat tile around the ringmaster.
pub const BONUS: i32 = 2;

/// The ringmaster's ids.
#[derive(Clone, Copy, Debug)]
pub struct Ringmaster {
    pub kind: FigureKindId,
    /// BT-13 `ringmasterBonus=every` [FCZ]: every ringmaster on a scored feature earns the
    /// bonus, whether or not his owner has the majority.
    pub every: bool,
}

impl Ringmaster {
    /// BT-13: for each ringmaster on a drafted feature whose owner scores it (has the
    /// majority, even for 0 points: BT-18), +2 per circus and +2 per acrobat tile on the 3×3
    /// around him; under `every` (BT-19) for each ringmaster on a drafted feature.
    pub fn bonus(&self, v: &View<'_>, marks: &TileMarks, draft: &mut ScoreDraft) {
        if draft.features.is_empty() {
            return;
        }
        let g = v.state.graph();
        // The awards core and earlier hooks made: the bonuses pushed below are not asked
        // whether their owner scores (no list of them kept aside, no allocation per call).
        let scored = draft.awards.len();
        // Each seat's ringmasters read from its block of figures (seat by seat, as figure
        // ids run), not found by a kind test over every figure of the game.
        let seats = (0..v.state.players().len()).map(|p| PlayerId(p as u8));
        for f in seats.flat_map(|p| v.figures_of_kind(p, self.kind)) {
            let FigureLoc::On(seg) = f.loc else { continue };
            let feature = g.feature_of(seg);
            // A feature given up (a challenge's loser, HS-6) is not scored: no bonus.
            let Some(item) = draft
                .features
                .iter()
                .position(|d| d.feature == feature && !d.forfeit)
            else {
                continue;
            };
            let scores = self.every
                || draft.awards[..scored]
                    .iter()
                    .any(|a| a.item as usize == item && a.player == f.owner);
            let node = g.segment(seg);
            if !scores || node.is_virtual() {
                continue;
            }
            let points = BONUS * marked_around(v, marks, node.pos);
            if points > 0 {
                draft.awards.push(Award {
                    item: item as u16,
                    player: f.owner,
                    points,
                    bonus: true,
                });
            }
        }
    }
}

/// Circus spaces plus acrobat spaces on the tiles of the 3×3 around `at`.
pub(crate) fn marked_around(v: &View<'_>, marks: &TileMarks, at: Pos) -> i32 {
    let board = v.state.board();
    let mut n = 0;
    for dy in -1..=1 {
        for dx in -1..=1 {
            let p = Pos {
                x: at.x + dx,
                y: at.y + dy,
            };
            debug_assert!(near(p, at));
            if let Some(i) = board.index_at(p) {
                let (c, a) = marks.of(board.tile(i).kind);
                n += i32::from(c) + i32::from(a);
            }
        }
    }
    n
}
