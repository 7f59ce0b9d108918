//! A small set of features, inline up to one barn per player: the barn farms and the farms
//! a scoring looked at, with no heap allocation in the common case.

use carcassonne_core::FeatureId;

/// A few features (the farms of the barns on the board, the farms a scoring looked at):
/// inline up to [`FeatureSet::INLINE`] (one barn per player), spilling onto the heap only
/// beyond that.
#[derive(Default)]
pub(crate) struct FeatureSet {
    inline: [Option<FeatureId>; FeatureSet::INLINE],
    len: usize,
    spill: Vec<FeatureId>,
}

impl FeatureSet {
    const INLINE: usize = 8;

    pub(crate) fn push(&mut self, f: FeatureId) {
        if self.len < Self::INLINE {
            self.inline[self.len] = Some(f);
            self.len += 1;
        } else {
            self.spill.push(f);
        }
    }

    pub(crate) fn contains(&self, f: &FeatureId) -> bool {
        self.inline[..self.len].contains(&Some(*f)) || self.spill.contains(f)
    }

    /// How many entries are `f`.
    pub(crate) fn count(&self, f: &FeatureId) -> usize {
        self.inline[..self.len]
            .iter()
            .filter(|x| **x == Some(*f))
            .count()
            + self.spill.iter().filter(|x| *x == f).count()
    }

    pub(crate) fn to_vec(&self) -> Vec<FeatureId> {
        self.inline[..self.len]
            .iter()
            .flatten()
            .copied()
            .chain(self.spill.iter().copied())
            .collect()
    }
}
