//! Players.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A seat at the table; seat 0 plays first, then clockwise (index + 1 modulo the player count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PlayerId(pub u8);

impl PlayerId {
    /// The owner of neutral figures: no seat (seats are 0..8, so it never indexes one).
    pub const NEUTRAL: PlayerId = PlayerId(u8::MAX);

    /// Seat index.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == PlayerId::NEUTRAL {
            f.write_str("nobody (neutral)")
        } else {
            write!(f, "player {}", self.0)
        }
    }
}

/// A player's public state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Display name.
    pub name: String,
    /// Current score.
    pub score: i32,
}
