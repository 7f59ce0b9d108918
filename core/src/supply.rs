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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawMode {
    /// Uniformly at random with the game's RNG (a shuffled stack).
    Random,
    /// In stored order (scenarios and imported games with a known draw order).
    InOrder,
}

/// The face-down tiles.
#[derive(Clone, Debug)]
pub struct TileSupply {
    /// Groups in activation order.
    pub groups: Vec<SupplyGroup>,
    /// How draws pick a tile.
    pub mode: DrawMode,
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
        }
    }

    /// Tiles left in all groups.
    pub fn remaining(&self) -> usize {
        self.groups.iter().map(|g| g.tiles.len()).sum()
    }

    /// Draws a tile, or `None` when the supply is exhausted.
    pub fn draw(&mut self, rng: &mut ChaCha8Rng) -> Option<TileKindId> {
        self.groups.retain(|g| !g.tiles.is_empty());
        if !self.groups.iter().any(|g| g.active) {
            self.groups.first_mut()?.active = true;
        }
        match self.mode {
            DrawMode::InOrder => {
                let g = self.groups.iter_mut().find(|g| g.active)?;
                Some(g.tiles.remove(0))
            }
            DrawMode::Random => {
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
