//! The magic portal (PD-22, PD-23): deployments on every other tile from a portal tile.

use crate::PdRules;

use carcassonne_core::{Action, FeatureKindId, FigureKindId, KindMask, PlacedTile, PlayerId, View};
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
        // Usually every open kind is wanted: then the bind-time masks of local segments.
        let which = usize::from(!v.rules.base().farmers);
        let all = wanted == open.0;
        // PD-5: never onto the dragon's tile (the deployment filter would remove them).
        let banned = self.banned_cell(v);
        let g = v.state.graph();
        for t in v.state.board().tiles() {
            let tk = t.kind.0 as usize;
            if t.pos == here.pos || Some(t.pos) == banned {
                continue;
            }
            // Each segment's kind from its tile kind's table, not its node (0 for a tile
            // figures may not be deployed on).
            let seg_kinds = &self.portal_seg_kinds[tk];
            let mut locals = if all {
                self.portal_locals[tk][which]
            } else if self.portal_locals[tk][0] != 0 {
                Self::locals_of(seg_kinds, usize::from(t.segment_count), wanted)
            } else {
                0
            };
            // In local order, as `t.segments()`.
            while locals != 0 {
                let i = locals.trailing_zeros() as usize;
                locals &= locals - 1;
                let kind = seg_kinds[i];
                let seg = t.segment(i);
                debug_assert!(i < usize::from(t.segment_count), "PD-22: a local segment");
                debug_assert_eq!(kind, g.segment(seg).kind, "PD-22: a segment's kind");
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

    /// The first `n` local segments (at most 16) whose kind in `kinds` is one of `wanted`
    /// (bits by feature kind id), as a bit mask by local index.
    #[inline]
    pub(crate) fn locals_of(kinds: &[FeatureKindId; 16], n: usize, wanted: u64) -> u16 {
        let mut m = 0u16;
        for (i, kind) in kinds.iter().take(n.min(16)).enumerate() {
            if wanted.checked_shr(u32::from(kind.0)).unwrap_or(0) & 1 != 0 {
                m |= 1 << i;
            }
        }
        m
    }
}
