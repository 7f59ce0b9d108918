//! The tile supply: ordered groups of face-down tiles.
//!
//! Tiles sit in named groups in a fixed order; draws take from the *active* groups only.
//! When every active group is empty the next group in order becomes active. The base game
//! uses a single group; an expansion can prepend groups that must be used up first
//! (River II's fork, river and lake) or keep tiles aside in an inactive group.

use crate::tile::TileKindId;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A group of tiles in the supply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SupplyGroup {
    /// Name (`default`, `river`, …).
    pub name: String,
    /// Tiles in the group.
    pub tiles: Vec<TileKindId>,
    /// Whether draws may take from it.
    pub active: bool,
}

/// How tiles are taken from a group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DrawMode {
    /// Uniformly at random with the game's RNG (a shuffled stack).
    #[default]
    Random,
    /// In stored order (scenarios and positions with a known draw order).
    InOrder,
    /// The table chooses: the game stops at a [`DecisionKind::Draw`] and the caller names
    /// the tile (`Action::Draw`), as when the engine follows a game played with real tiles
    /// or imported from another program, or when a search explores chance nodes.
    ///
    /// [`DecisionKind::Draw`]: crate::DecisionKind::Draw
    Chosen,
}

/// The face-down tiles.
#[derive(Clone, Debug)]
pub struct TileSupply {
    /// Groups in activation order.
    pub groups: Vec<SupplyGroup>,
    /// How draws pick a tile.
    pub mode: DrawMode,
    /// Draws left before the stack counts as empty (`None`: no cap). Every draw counts,
    /// discarded ones included: a short game, or an imported game that stopped early.
    pub draws_left: Option<u32>,
    /// Tiles of the stack that are never drawn (hidden face down, as under Hills & Sheep's
    /// hills; JCZ's `hiddenUnderHills`): the stack counts as empty when no more tiles than
    /// these are left. Unlike a cap it follows the stack, so tiles put back later (a set
    /// aside group) are drawable again.
    pub hidden: u32,
}

impl TileSupply {
    /// A supply with one active group.
    pub fn single(tiles: Vec<TileKindId>, mode: DrawMode) -> TileSupply {
        TileSupply {
            groups: vec![SupplyGroup {
                name: "default".into(),
                tiles,
                active: true,
            }],
            mode,
            draws_left: None,
            hidden: 0,
        }
    }

    /// The first tile whose kind is not one of the `kinds` kinds of the ruleset, if any.
    /// Asked after every hook that had the supply for writing (a hill hiding a tile, a
    /// bazaar's auction): each group is first read for its largest kind, a loop without a
    /// branch a tile, and searched only if that one is unknown.
    pub fn unknown_kind(&self, kinds: usize) -> Option<TileKindId> {
        self.groups
            .iter()
            .filter(|g| usize::from(g.tiles.iter().fold(0, |m, t| m.max(t.0))) >= kinds)
            .find_map(|g| g.tiles.iter().find(|t| usize::from(t.0) >= kinds))
            .copied()
    }

    /// Copies of `kind` in the active groups: how likely a draw is to take it.
    pub fn copies_left(&self, kind: TileKindId) -> u32 {
        self.groups
            .iter()
            .filter(|g| g.active)
            .map(|g| g.tiles.iter().filter(|t| **t == kind).count() as u32)
            .sum()
    }

    /// Tiles that can still be drawn: those in all groups less the hidden ones
    /// ([`TileSupply::hidden`]), capped by [`TileSupply::draws_left`].
    pub fn remaining(&self) -> usize {
        let tiles = self.tiles().saturating_sub(self.hidden as usize);
        self.draws_left.map_or(tiles, |n| tiles.min(n as usize))
    }

    /// Tiles in all groups, the hidden ones included.
    pub fn tiles(&self) -> usize {
        self.groups.iter().map(|g| g.tiles.len()).sum()
    }

    /// Whether no tile can be drawn any more (`remaining() == 0`), without summing every
    /// group when none is hidden.
    #[inline]
    pub fn is_exhausted(&self) -> bool {
        self.draws_left == Some(0)
            || match self.hidden {
                0 => self.groups.iter().all(|g| g.tiles.is_empty()),
                h => self.tiles() <= h as usize,
            }
    }

    /// Drops empty groups and activates the next one when none is active; `false` when no
    /// draw is left (the supply is empty or the cap is reached).
    fn prepare_draw(&mut self) -> bool {
        if self.is_exhausted() {
            return false;
        }
        if self.groups.iter().any(|g| g.tiles.is_empty()) {
            self.drop_empty_groups();
        }
        match self.groups.iter().any(|g| g.active) {
            true => true,
            false => match self.groups.first_mut() {
                Some(g) => {
                    g.active = true;
                    true
                }
                None => false,
            },
        }
    }

    /// Drops the groups drawn empty (a few times a game), out of line: [`Self::draw`] runs
    /// every turn.
    #[cold]
    #[inline(never)]
    fn drop_empty_groups(&mut self) {
        self.groups.retain(|g| !g.tiles.is_empty());
    }

    fn count_draw(&mut self) {
        if let Some(n) = &mut self.draws_left {
            *n -= 1;
        }
    }

    /// Draws a tile, or `None` when the supply is exhausted. In [`DrawMode::Chosen`] the
    /// caller chooses instead ([`TileSupply::choices`], [`TileSupply::take_chosen`]).
    #[inline]
    pub fn draw(&mut self, rng: &mut ChaCha8Rng) -> Option<TileKindId> {
        // Nearly every draw: one active group holding more tiles than are hidden, and no
        // cap (the base game's whole stack; Hills & Sheep's once a hill hides a tile). The
        // general path then finds nothing to drop or activate, counts nothing and picks the
        // same index from the same random draw, so this is the same draw without its walks
        // over the groups (`tests::the_single_group_draw_is_the_general_draw`).
        if let [g] = self.groups.as_mut_slice() {
            if g.active
                && g.tiles.len() > self.hidden as usize
                && self.draws_left.is_none()
                && self.mode != DrawMode::InOrder
            {
                let k = rng.random_range(0..g.tiles.len() as u32) as usize;
                return Some(g.tiles.swap_remove(k));
            }
        }
        self.draw_general(rng)
    }

    /// [`Self::draw`] for any supply: groups dropped or activated, the cap counted, the
    /// pick over every active group.
    #[inline(never)]
    fn draw_general(&mut self, rng: &mut ChaCha8Rng) -> Option<TileKindId> {
        if !self.prepare_draw() {
            return None;
        }
        self.count_draw();
        match self.mode {
            DrawMode::InOrder => {
                let g = self.groups.iter_mut().find(|g| g.active)?;
                Some(g.tiles.remove(0))
            }
            DrawMode::Random | DrawMode::Chosen => {
                let total: usize = self
                    .groups
                    .iter()
                    .filter(|g| g.active)
                    .map(|g| g.tiles.len())
                    .sum();
                let mut k = rng.random_range(0..total as u32) as usize;
                for g in self.groups.iter_mut().filter(|g| g.active) {
                    if k < g.tiles.len() {
                        return Some(g.tiles.swap_remove(k));
                    }
                    k -= g.tiles.len();
                }
                None
            }
        }
    }

    /// The distinct tile kinds that can be drawn now (from the active groups), ascending;
    /// empty when no draw is left.
    pub fn choices(&mut self, out: &mut Vec<TileKindId>) {
        out.clear();
        if !self.prepare_draw() {
            return;
        }
        for g in self.groups.iter().filter(|g| g.active) {
            out.extend_from_slice(&g.tiles);
        }
        out.sort_unstable();
        out.dedup();
    }

    /// Draws one copy of `tile` from the first active group that holds it (a chosen draw);
    /// `false`, and no change, when no active group holds it or no draw is left.
    pub fn take_chosen(&mut self, tile: TileKindId) -> bool {
        if !self.prepare_draw() {
            return false;
        }
        for g in self.groups.iter_mut().filter(|g| g.active) {
            if let Some(i) = g.tiles.iter().position(|t| *t == tile) {
                g.tiles.remove(i);
                self.count_draw();
                return true;
            }
        }
        false
    }

    /// Puts a tile back into the first active group (a redraw).
    pub fn put_back(&mut self, tile: TileKindId) {
        match self.groups.iter_mut().find(|g| g.active) {
            Some(g) => g.tiles.push(tile),
            None => self.groups.insert(
                0,
                SupplyGroup {
                    name: "default".into(),
                    tiles: vec![tile],
                    active: true,
                },
            ),
        }
    }

    /// Removes one copy of `tile` from the supply, if there is one.
    pub fn take(&mut self, tile: TileKindId) -> bool {
        for g in &mut self.groups {
            if let Some(i) = g.tiles.iter().position(|t| *t == tile) {
                g.tiles.remove(i);
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Hidden tiles are never drawn, and tiles put back later are drawable again (Hills &
    /// Sheep's hills before Princess & Dragon's dragon tiles return, HL-2, PD-3).
    #[test]
    fn hidden_tiles_follow_the_stack() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut s = TileSupply::single(vec![TileKindId(0); 3], DrawMode::Random);
        s.hidden = 1;
        assert_eq!(s.remaining(), 2);
        assert!(s.draw(&mut rng).is_some());
        assert!(s.draw(&mut rng).is_some());
        assert!(s.is_exhausted());
        assert_eq!(s.remaining(), 0);
        assert_eq!(s.draw(&mut rng), None, "the hidden tile is never drawn");
        assert_eq!(s.tiles(), 1);
        // Two tiles come back: two draws, the hidden one stays.
        s.put_back(TileKindId(1));
        s.put_back(TileKindId(1));
        assert_eq!(s.remaining(), 2);
        assert!(!s.is_exhausted());
        assert!(s.draw(&mut rng).is_some());
        assert!(s.draw(&mut rng).is_some());
        assert_eq!(s.draw(&mut rng), None);
        // A draw cap still wins when lower.
        let mut c = TileSupply::single(vec![TileKindId(0); 5], DrawMode::InOrder);
        c.hidden = 1;
        c.draws_left = Some(2);
        assert_eq!(c.remaining(), 2);
    }

    /// `unknown_kind` finds the first tile of a kind past the ruleset's, in group order,
    /// whichever group and place it has, and none when every kind is known.
    #[test]
    fn unknown_kind_is_the_first_unknown_tile() {
        let group = |tiles: &[u16]| SupplyGroup {
            name: "g".into(),
            tiles: tiles.iter().map(|&t| TileKindId(t)).collect(),
            active: true,
        };
        let mut s = TileSupply::single(vec![TileKindId(3), TileKindId(0)], DrawMode::Random);
        assert_eq!(s.unknown_kind(4), None);
        assert_eq!(s.unknown_kind(3), Some(TileKindId(3)));
        s.groups.push(group(&[]));
        s.groups.push(group(&[1, 9, 2, 12]));
        assert_eq!(s.unknown_kind(13), None);
        assert_eq!(s.unknown_kind(10), Some(TileKindId(12)));
        assert_eq!(s.unknown_kind(5), Some(TileKindId(9)));
        assert_eq!(s.unknown_kind(2), Some(TileKindId(3)));
        assert_eq!(
            TileSupply::single(Vec::new(), DrawMode::Random).unknown_kind(0),
            None
        );
    }

    /// The single-group fast path of `draw` takes the tile the general path takes, with
    /// the same random draws, until the stack is empty (every stack size, both random
    /// modes), and leaves the supply as the general path does.
    #[test]
    fn the_single_group_draw_is_the_general_draw() {
        for mode in [DrawMode::Random, DrawMode::Chosen] {
            for hidden in 0..4u32 {
                for n in 0..30u16 {
                    let tiles = (0..n).map(|i| TileKindId(i % 7)).collect();
                    let mut fast = TileSupply::single(tiles, mode);
                    fast.hidden = hidden;
                    let mut general = fast.clone();
                    let mut rf = ChaCha8Rng::seed_from_u64(u64::from(n));
                    let mut rg = rf.clone();
                    let mut drawn = 0;
                    loop {
                        let (a, b) = (fast.draw(&mut rf), general.draw_general(&mut rg));
                        assert_eq!(a, b, "{mode:?} {hidden} {n}");
                        assert_eq!(fast.groups, general.groups);
                        assert_eq!(rf.get_word_pos(), rg.get_word_pos());
                        if a.is_none() {
                            break;
                        }
                        drawn += 1;
                    }
                    // The hidden tiles are never drawn (HS hills).
                    assert_eq!(drawn, usize::from(n).saturating_sub(hidden as usize));
                }
            }
        }
    }
}
