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
        // Arithmetic, not a `match`: for a side known only at run time (one computed from
        // an edge mismatch, a figure's walk) the match compiled to an indirect jump whose
        // target followed no pattern. N, E, S, W (0…3) give dx 0, 1, 0, -1 and dy -1, 0, 1, 0.
        let i = side as i32;
        let dx = (i & 1) * (2 - i);
        let dy = ((i & 1) ^ 1) * (i - 1);
        Pos::new(self.x.wrapping_add(dx), self.y.wrapping_add(dy))
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

/// Text that names no cell ([`Pos::parse`]); says what was read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a cell `x,y`")]
pub struct ParsePosError(pub String);

impl From<ParsePosError> for crate::hooks::HookFailure {
    fn from(e: ParsePosError) -> Self {
        crate::hooks::HookFailure(e.to_string())
    }
}

impl Pos {
    /// Reads a cell as people write it in position settings and scenarios: `x,y` or
    /// `(x,y)`, spaces allowed around each part (`1,-2`, `( 1, -2 )`); the inverse of
    /// [`Display`](fmt::Display). Expansions name cells in settings this one way.
    pub fn parse(text: &str) -> Result<Pos, ParsePosError> {
        let bad = || ParsePosError(text.to_string());
        let t = text.trim();
        let t = match t.strip_prefix('(') {
            Some(inner) => inner.strip_suffix(')').ok_or_else(bad)?,
            None => t,
        };
        let (x, y) = t.split_once(',').ok_or_else(bad)?;
        let x = x.trim().parse().map_err(|_| bad())?;
        let y = y.trim().parse().map_err(|_| bad())?;
        Ok(Pos::new(x, y))
    }
}

impl std::str::FromStr for Pos {
    type Err = ParsePosError;

    fn from_str(text: &str) -> Result<Pos, ParsePosError> {
        Pos::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_spellings_and_round_trips_display() {
        assert_eq!(Pos::parse("1,-2"), Ok(Pos::new(1, -2)));
        assert_eq!(Pos::parse(" ( 1 , -2 ) "), Ok(Pos::new(1, -2)));
        assert_eq!("0,0".parse::<Pos>(), Ok(Pos::new(0, 0)));
        let p = Pos::new(-7, 12);
        assert_eq!(Pos::parse(&p.to_string()), Ok(p));
    }

    /// x grows east and y grows south; a cell at the ends of `i32` wraps instead of
    /// overflowing.
    #[test]
    fn steps_to_each_orthogonal_neighbour() {
        let p = Pos::new(3, -5);
        assert_eq!(p.step(Side::N), Pos::new(3, -6));
        assert_eq!(p.step(Side::E), Pos::new(4, -5));
        assert_eq!(p.step(Side::S), Pos::new(3, -4));
        assert_eq!(p.step(Side::W), Pos::new(2, -5));
        for side in Side::ALL {
            assert_eq!(p.step(side).step(side.opposite()), p, "{side:?}");
        }
        let far = Pos::new(i32::MAX, i32::MIN);
        assert_eq!(far.step(Side::E), Pos::new(i32::MIN, i32::MIN));
        assert_eq!(far.step(Side::N), Pos::new(i32::MAX, i32::MAX));
    }

    #[test]
    fn rejects_what_is_not_a_cell() {
        for bad in [
            "",
            "1",
            "1,",
            ",2",
            "1,2,3",
            "(1,2",
            "1,2)",
            "a,b",
            "1;2",
            "99999999999,0",
        ] {
            let e = Pos::parse(bad).unwrap_err();
            assert_eq!(e.to_string(), format!("`{bad}` is not a cell `x,y`"));
        }
    }
}
