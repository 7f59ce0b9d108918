//! Board cells.

use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A board cell: x grows east, y grows south (the north neighbour of `(x, y)` is `(x, y - 1)`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Pos {
    /// Column, growing east.
    pub x: i32,
    /// Row, growing south.
    pub y: i32,
}

impl Pos {
    /// The cell `(x, y)`.
    #[inline]
    pub const fn new(x: i32, y: i32) -> Pos {
        Pos { x, y }
    }

    /// The orthogonal neighbour across `side`.
    #[inline]
    pub const fn step(self, side: Side) -> Pos {
        match side {
            Side::N => Pos::new(self.x, self.y - 1),
            Side::E => Pos::new(self.x + 1, self.y),
            Side::S => Pos::new(self.x, self.y + 1),
            Side::W => Pos::new(self.x - 1, self.y),
        }
    }

    /// The 8 surrounding cells (orthogonal and diagonal), row by row from the north-west.
    pub fn surrounding(self) -> [Pos; 8] {
        let (x, y) = (self.x, self.y);
        [
            Pos::new(x - 1, y - 1),
            Pos::new(x, y - 1),
            Pos::new(x + 1, y - 1),
            Pos::new(x - 1, y),
            Pos::new(x + 1, y),
            Pos::new(x - 1, y + 1),
            Pos::new(x, y + 1),
            Pos::new(x + 1, y + 1),
        ]
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.x, self.y)
    }
}
