//! What hills and vineyards change in a scoring (HL-4, HL-5, HL-6, HL-7).

use carcassonne_core::graph::{PlacedIndex, VIRTUAL_TILE};
use carcassonne_core::{FeatureKindId, FigureLoc, ScoreDraft, View, MAX_PLAYERS};

/// HL-4: how a tie is broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiebreaker {
    /// The tied players with at least one follower on a hill tile of the feature win.
    AtLeastOne,
    /// The tied players with the most followers on hill tiles of the feature win.
    Count,
}

/// Per tile kind: (hill, vineyard).
pub struct TileMarks(pub Vec<(bool, bool)>);

impl TileMarks {
    fn at(&self, v: &View<'_>, idx: PlacedIndex) -> (bool, bool) {
        let kind = v.state.board().tile(idx).kind;
        self.0.get(kind.0 as usize).copied().unwrap_or_default()
    }

    /// Whether the placed tile `idx` is a hill.
    pub fn hill(&self, v: &View<'_>, idx: PlacedIndex) -> bool {
        self.at(v, idx).0
    }

    /// HL-6, HL-7: +3 per vineyard among the 8 tiles around each completed monastic site
    /// of the draft, to every award of it that scores points.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub fn vineyards(&self, v: &View<'_>, monastic: &[FeatureKindId], draft: &mut ScoreDraft) {
        let g = v.state.graph();
        let board = v.state.board();
        for (i, item) in draft.features.iter_mut().enumerate() {
            if !item.complete || !monastic.contains(&item.kind) {
                continue;
            }
            let node = g.segment(item.feature.segment());
            if node.tile == VIRTUAL_TILE {
                continue;
            }
            let n = node
                .pos
                .surrounding()
                .iter()
                .filter_map(|&q| board.index_at(q))
                .filter(|&t| self.at(v, t).1)
                .count() as i32;
            if n == 0 {
                continue;
            }
            item.value += 3 * n;
            // The cloister's scoring, not another set's bonus on it (the ringmaster's, BT-13).
            for a in draft.awards.iter_mut() {
                if a.item as usize == i && a.points > 0 && !a.bonus {
                    a.points += 3 * n;
                }
            }
        }
    }

    /// HL-4, HL-5: among the players sharing a feature's points, only those with the most
    /// hill presence (a follower on a hill tile of the feature) keep them.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    pub fn break_ties(&self, v: &View<'_>, rule: Tiebreaker, draft: &mut ScoreDraft) {
        // No feature shared: no tie to break (most scorings of a turn).
        if draft.awards.len() < 2 {
            return;
        }
        let g = v.state.graph();
        // The seats sharing each feature's points (bit = seat), in one pass over the awards
        // instead of one per feature (a final scoring has many of each). Breaking one
        // feature's tie removes awards of that feature only.
        let mut sharing = vec![0u8; draft.features.len()];
        // A bonus beside the scoring (the ringmaster's, BT-13) is no share of the feature's
        // points: it makes no tie and loses none.
        for a in draft.awards.iter().filter(|a| !a.bonus) {
            if let Some(m) = sharing.get_mut(a.item as usize) {
                if a.player.index() < MAX_PLAYERS {
                    *m |= 1 << a.player.index();
                }
            }
        }
        for (i, &seats) in sharing.iter().enumerate() {
            if seats.count_ones() < 2 {
                continue;
            }
            let shares = |p: usize| p < MAX_PLAYERS && seats & (1 << p) != 0;
            let feature = draft.features[i].feature;
            let mut on_hill = [0u32; MAX_PLAYERS];
            for fig in v.state.figures() {
                let FigureLoc::On(seg) = fig.loc else {
                    continue;
                };
                if fig.is_neutral()
                    || !shares(fig.owner.index())
                    || !v.rules.figure_kind(fig.kind).follower
                    || !v.state.occupies(fig.kind)
                    || g.feature_of(seg) != feature
                {
                    continue;
                }
                let tile = g.segment(seg).tile;
                if tile != VIRTUAL_TILE && self.hill(v, tile) {
                    on_hill[fig.owner.index()] += 1;
                }
            }
            if rule == Tiebreaker::AtLeastOne {
                on_hill.iter_mut().for_each(|n| *n = (*n).min(1));
            }
            let best = on_hill.iter().copied().max().unwrap_or(0);
            if best == 0 {
                continue;
            }
            draft
                .awards
                .retain(|a| a.bonus || a.item as usize != i || on_hill[a.player.index()] == best);
        }
    }
}
