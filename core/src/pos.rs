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

/// The board's bound: every tile lies within `-MAX_COORD..=MAX_COORD` on both axes. A
/// real game never comes near it (a few hundred tiles); it keeps the dense grid small and
/// coordinate arithmetic far from overflow whatever a record or save says.
pub const MAX_COORD: i32 = 512;

impl Pos {
    /// Whether a tile may lie on this cell ([`MAX_COORD`]).
    #[inline]
    pub const fn in_bounds(self) -> bool {
        self.x >= -MAX_COORD && self.x <= MAX_COORD && self.y >= -MAX_COORD && self.y <= MAX_COORD
    }

    /// The cell `(x, y)`.
    #[inline]
    pub const fn new(x: i32, y: i32) -> Pos {
        Pos { x, y }
    }

    /// The orthogonal neighbour across `side`.
    #[inline]
    pub const fn step(self, side: Side) -> Pos {
        // Wrapping: a cell named by hostile input may sit at the ends of `i32`; such cells
        // are never on the board, so where their neighbour lands does not matter.
        match side {
            Side::N => Pos::new(self.x, self.y.wrapping_sub(1)),
            Side::E => Pos::new(self.x.wrapping_add(1), self.y),
            Side::S => Pos::new(self.x, self.y.wrapping_add(1)),
            Side::W => Pos::new(self.x.wrapping_sub(1), self.y),
        }
    }

    /// The 8 surrounding cells (orthogonal and diagonal), row by row from the north-west.
    pub fn surrounding(self) -> [Pos; 8] {
        let (x, y) = (self.x, self.y);
        let (w, e) = (x.wrapping_sub(1), x.wrapping_add(1));
        let (n, s) = (y.wrapping_sub(1), y.wrapping_add(1));
        [
            Pos::new(w, n),
            Pos::new(x, n),
            Pos::new(e, n),
            Pos::new(w, y),
            Pos::new(e, y),
            Pos::new(w, s),
            Pos::new(x, s),
            Pos::new(e, s),
        ]
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.x, self.y)
    }
}
