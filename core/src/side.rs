//! Sides, half-edges and rotations of a square tile.
//!
//! Sides are numbered clockwise from north (N=0, E=1, S=2, W=3), so a clockwise
//! quarter turn adds one. Half-edges follow JCloisterZone's convention: seen from
//! the tile centre looking out through an edge, `L` is the left half and `R` the
//! right half (NL = west half of N, NR = east half of N, EL = north half of E, ...).
//! Half-edge `h` belongs to side `h / 2`, so a quarter turn adds two.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One of the four sides of a tile or cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Side {
    /// North, towards y - 1.
    N = 0,
    /// East, towards x + 1.
    E = 1,
    /// South, towards y + 1.
    S = 2,
    /// West, towards x - 1.
    W = 3,
}

impl Side {
    /// All sides in clockwise order from north.
    pub const ALL: [Side; 4] = [Side::N, Side::E, Side::S, Side::W];

    /// The side with index `i % 4` (N=0, E=1, S=2, W=3).
    #[inline]
    pub const fn from_index(i: u8) -> Side {
        match i & 3 {
            0 => Side::N,
            1 => Side::E,
            2 => Side::S,
            _ => Side::W,
        }
    }

    /// Index of the side (N=0 … W=3).
    #[inline]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The side facing this one across a shared border.
    #[inline]
    pub const fn opposite(self) -> Side {
        Side::from_index(self as u8 + 2)
    }

    /// This side after turning the tile by `r` clockwise.
    #[inline]
    pub const fn rotate(self, r: Rotation) -> Side {
        Side::from_index(self as u8 + r.0)
    }

    /// The side's letter (`N`, `E`, `S`, `W`).
    pub const fn letter(self) -> char {
        match self {
            Side::N => 'N',
            Side::E => 'E',
            Side::S => 'S',
            Side::W => 'W',
        }
    }

    /// Parses a side letter.
    pub fn from_letter(c: char) -> Option<Side> {
        match c {
            'N' => Some(Side::N),
            'E' => Some(Side::E),
            'S' => Some(Side::S),
            'W' => Some(Side::W),
            _ => None,
        }
    }
}

/// A clockwise rotation by a whole number of quarter turns (0..=3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rotation(u8);

impl Rotation {
    /// No rotation.
    pub const R0: Rotation = Rotation(0);
    /// A quarter turn clockwise.
    pub const R90: Rotation = Rotation(1);
    /// A half turn.
    pub const R180: Rotation = Rotation(2);
    /// Three quarter turns clockwise.
    pub const R270: Rotation = Rotation(3);
    /// The four rotations in increasing order.
    pub const ALL: [Rotation; 4] = [Rotation::R0, Rotation::R90, Rotation::R180, Rotation::R270];

    /// `q % 4` quarter turns clockwise.
    #[inline]
    pub const fn quarter_turns(q: u8) -> Rotation {
        Rotation(q & 3)
    }

    /// Number of clockwise quarter turns (0..=3).
    #[inline]
    pub const fn quarters(self) -> u8 {
        self.0
    }

    /// Rotation in degrees (0, 90, 180, 270).
    #[inline]
    pub const fn degrees(self) -> u16 {
        self.0 as u16 * 90
    }

    /// Parses degrees; only 0, 90, 180 and 270 are rotations.
    pub fn from_degrees(d: i64) -> Option<Rotation> {
        match d {
            0 => Some(Rotation(0)),
            90 => Some(Rotation(1)),
            180 => Some(Rotation(2)),
            270 => Some(Rotation(3)),
            _ => None,
        }
    }

    /// The rotation that undoes this one.
    #[inline]
    pub const fn inverse(self) -> Rotation {
        Rotation((4 - self.0) & 3)
    }
}

impl fmt::Display for Rotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.degrees())
    }
}

impl Serialize for Rotation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(self.degrees())
    }
}

impl<'de> Deserialize<'de> for Rotation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let deg = i64::deserialize(d)?;
        Rotation::from_degrees(deg).ok_or_else(|| {
            serde::de::Error::custom(format!("rotation must be 0, 90, 180 or 270, not {deg}"))
        })
    }
}

/// A set of sides as a 4-bit mask (bit `i` = side with index `i`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SideSet(pub u8);

impl SideSet {
    /// The empty set.
    pub const EMPTY: SideSet = SideSet(0);

    /// The set holding one side.
    #[inline]
    pub const fn of(side: Side) -> SideSet {
        SideSet(1 << side as u8)
    }

    /// Whether `side` is in the set.
    #[inline]
    pub const fn contains(self, side: Side) -> bool {
        self.0 & (1 << side as u8) != 0
    }

    /// Number of sides in the set.
    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The set after turning the tile by `r` clockwise.
    #[inline]
    pub const fn rotate(self, r: Rotation) -> SideSet {
        let m = self.0 as u16 & 0xF;
        let m = (m << r.0) | (m >> (4 - r.0));
        SideSet((m & 0xF) as u8)
    }

    /// The sides in the set, clockwise from north.
    pub fn iter(self) -> impl Iterator<Item = Side> {
        Side::ALL.into_iter().filter(move |s| self.contains(*s))
    }

    /// Parses letters such as `"NW"` (any order, no repeats).
    pub fn parse(text: &str) -> Option<SideSet> {
        let mut set = 0u8;
        for c in text.chars() {
            let bit = 1 << Side::from_letter(c)? as u8;
            if set & bit != 0 {
                return None;
            }
            set |= bit;
        }
        Some(SideSet(set))
    }

    /// JCloisterZone's canonical name of the set (`N`, `NS`, `WE`, `NW`, `_S`, `NWSE`, …).
    pub fn jcz_name(self) -> String {
        let names: &[&str; 16] = &[
            "", "N", "E", "NE", "S", "NS", "SE", "_W", "W", "NW", "WE", "_S", "SW", "_E", "_N",
            "NWSE",
        ];
        names[(self.0 & 0xF) as usize].to_string()
    }
}

/// One of the eight half-edges of a tile (fields touch the border by half-edges).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HalfEdge(u8);

impl HalfEdge {
    /// Names in index order: NL NR EL ER SL SR WL WR.
    pub const NAMES: [&'static str; 8] = ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"];

    /// The half-edge with index `i % 8`.
    #[inline]
    pub const fn from_index(i: u8) -> HalfEdge {
        HalfEdge(i & 7)
    }

    /// Index in `NL NR EL ER SL SR WL WR` order.
    #[inline]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The side this half-edge lies on.
    #[inline]
    pub const fn side(self) -> Side {
        Side::from_index(self.0 / 2)
    }

    /// The half-edge of the neighbouring tile that touches this one (NL↔SR, NR↔SL, EL↔WR, ER↔WL).
    #[inline]
    pub const fn facing(self) -> HalfEdge {
        // Same half, opposite side, and L/R swap because the neighbour looks the other way.
        HalfEdge(((self.0 + 4) & 7) ^ 1)
    }

    /// Parses a name such as `"NL"`.
    pub fn parse(name: &str) -> Option<HalfEdge> {
        HalfEdge::NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| HalfEdge(i as u8))
    }
}

/// A set of half-edges as an 8-bit mask (bit `i` = half-edge with index `i`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HalfSet(pub u8);

impl HalfSet {
    /// The empty set.
    pub const EMPTY: HalfSet = HalfSet(0);

    /// Whether `h` is in the set.
    #[inline]
    pub const fn contains(self, h: HalfEdge) -> bool {
        self.0 & (1 << h.0) != 0
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The set after turning the tile by `r` clockwise (each quarter turn moves two half-edges).
    #[inline]
    pub const fn rotate(self, r: Rotation) -> HalfSet {
        HalfSet(self.0.rotate_left(2 * r.0 as u32))
    }

    /// The half-edges in the set, in index order.
    pub fn iter(self) -> impl Iterator<Item = HalfEdge> {
        (0..8u8)
            .filter(move |i| self.0 & (1 << i) != 0)
            .map(HalfEdge)
    }

    /// JCloisterZone's notation: names joined by dots in `NL.NR.EL.ER.SL.SR.WL.WR` order.
    pub fn jcz_name(self) -> String {
        self.iter()
            .map(|h| HalfEdge::NAMES[h.0 as usize])
            .collect::<Vec<_>>()
            .join(".")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotations_move_north_to_east() {
        assert_eq!(Side::N.rotate(Rotation::R90), Side::E);
        assert_eq!(Side::W.rotate(Rotation::R90), Side::N);
        assert_eq!(
            SideSet::of(Side::N).rotate(Rotation::R270),
            SideSet::of(Side::W)
        );
        let nl = HalfEdge::parse("NL").unwrap();
        assert_eq!(
            HalfSet(1 << nl.index()).rotate(Rotation::R90),
            HalfSet(1 << HalfEdge::parse("EL").unwrap().index())
        );
    }

    #[test]
    fn facing_half_edges_match_jcz() {
        let pairs = [("NL", "SR"), ("NR", "SL"), ("EL", "WR"), ("ER", "WL")];
        for (a, b) in pairs {
            let (a, b) = (HalfEdge::parse(a).unwrap(), HalfEdge::parse(b).unwrap());
            assert_eq!(a.facing(), b);
            assert_eq!(b.facing(), a);
        }
    }

    #[test]
    fn jcz_side_names() {
        assert_eq!(SideSet::parse("WE").unwrap().jcz_name(), "WE");
        assert_eq!(SideSet::parse("ESW").unwrap().jcz_name(), "_N");
        assert_eq!(SideSet::parse("NS").unwrap().jcz_name(), "NS");
    }
}
