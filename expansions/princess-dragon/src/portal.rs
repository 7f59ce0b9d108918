//! The magic portal (PD-22, PD-23): deployments on every other tile from a portal tile.

use crate::PdRules;

use carcassonne_core::{Action, FigureKindId, KindMask, PlacedTile, PlayerId, View};
use smallvec::SmallVec;

impl PdRules {
    /// PD-22: portal deployments on the other tiles.
    // Only on a portal tile (a few turns a game): out of the step's common code.
    #[cold]
    #[inline(never)]
    pub(crate) fn portal_targets(
        &self,
        v: &View<'_>,
        here: &PlacedTile,
        player: PlayerId,
        out: &mut Vec<Action>,
    ) {
        if !self.portal[here.kind.0 as usize] {
            return;
        }
        // The follower kinds in supply, with where each may go, in kind order.
        let mut kinds = SmallVec::<[(FigureKindId, KindMask); 16]>::new();
        let mut any = 0u64;
        for (k, d) in v.rules.figure_kinds().iter().enumerate() {
            let k = FigureKindId(k as u8);
            if d.follower && v.state.in_supply(player, k) > 0 {
                kinds.push((k, d.deploy_on));
                any |= d.deploy_on.0;
            }
        }
        let kinds = kinds.as_slice();
        // Occupiable kinds (fields only with farmers), never a tower top, where some
        // follower in supply may go.
        let open = if v.rules.base().farmers {
            self.portal_kinds
        } else {
            self.portal_kinds_no_fields
        };
        let wanted = open.0 & any;
        if wanted == 0 {
            return;
        }
        // PD-5: never onto the dragon's tile (the deployment filter would remove them).
        let banned = self.banned_cell(v);
        let g = v.state.graph();
        for t in v.state.board().tiles() {
            let tk = t.kind.0 as usize;
            if t.pos == here.pos || !self.deployable[tk] || Some(t.pos) == banned {
                continue;
            }
            for seg in t.segments() {
                let kind = g.segment(seg).kind;
                if wanted.checked_shr(u32::from(kind.0)).unwrap_or(0) & 1 == 0 {
                    continue;
                }
                let tot = g.totals(g.feature_of(seg));
                if tot.occupants > 0 || tot.scored || tot.complete() {
                    continue;
                }
                for (k, on) in kinds {
                    if on.contains(kind) {
                        out.push(Action::Deploy {
                            figure: *k,
                            segment: seg,
                        });
                    }
                }
            }
        }
    }
}
