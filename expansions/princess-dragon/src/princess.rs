//! The princess (PD-19 … PD-21): followers the princess on the placed tile may remove.

use crate::PdRules;

use carcassonne_core::{Action, CustomAction, FeatureId, FigureId, FigureLoc, PlacedTile, View};
use smallvec::SmallVec;

impl PdRules {
    /// PD-19: followers the princess on the tile just placed may remove.
    // Only on a princess tile (a few turns a game): out of the step's common code.
    #[cold]
    #[inline(never)]
    pub(crate) fn princess_targets(&self, v: &View<'_>, t: &PlacedTile, out: &mut Vec<Action>) {
        let mask = self.princess_segs[t.kind.0 as usize];
        if mask == 0 {
            return;
        }
        let g = v.state.graph();
        let mut seen = SmallVec::<[FeatureId; 8]>::new();
        for local in 0..8u32 {
            if mask & (1 << local) == 0 {
                continue;
            }
            let feat = g.feature_of(t.segment(local as usize));
            if seen.as_slice().contains(&feat) {
                continue;
            }
            seen.push(feat);
            for (i, f) in v.state.figures().iter().enumerate() {
                let FigureLoc::On(seg) = f.loc else {
                    continue;
                };
                if g.feature_of(seg) == feat && v.rules.figure_kind(f.kind).follower {
                    out.push(Action::Custom(CustomAction {
                        expansion: self.me,
                        verb: self.ids.princess,
                        figure: Some(FigureId(i as u16)),
                        segment: Some(seg),
                        value: 0,
                    }));
                }
            }
        }
    }
}
