//! Actions: everything a player can decide, as plain data.

use crate::figure::{FigureId, FigureKindId};
use crate::graph::SegmentId;
use crate::pos::Pos;
use crate::side::Rotation;
use crate::tile::TileKindId;
use std::fmt;

/// Index of an expansion in the ruleset's load order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ExpansionIndex(pub u8);

/// A verb registered by an expansion at setup (`take-token`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VerbId(pub u16);

/// What a verb's [`CustomAction::value`] means to a player, so hosts can say it
/// ([`crate::Declare::verb_value`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VerbValue {
    /// A number worth showing (how many, which one); not shown when 0.
    #[default]
    Number,
    /// An internal detail (a side, a corner, an index the target already shows).
    Hidden,
    /// A figure kind's id.
    FigureKind,
    /// A figure kind held by a player: seat in the low 8 bits, kind id above them.
    FigureKindOfSeat,
    /// A corner of the tile just placed, clockwise from the north-west: 0 NW, 1 NE, 2 SE,
    /// 3 SW.
    Corner,
    /// Points (a bid, a price): always shown, 0 included.
    Points,
    /// A place in a row the expansion shows, from 0 (said from 1: "no. 1").
    Index,
    /// A tile kind's id (a tile the table names, as in a chosen draw).
    TileKind,
}

impl VerbValue {
    /// By name, as scripts and manifests write it (`number`, `hidden`, `figure-kind`,
    /// `figure-kind-of-seat`, `corner`, `points`, `index`, `tile-kind`).
    pub fn named(name: &str) -> Option<VerbValue> {
        Some(match name {
            "number" => VerbValue::Number,
            "hidden" => VerbValue::Hidden,
            "figure-kind" => VerbValue::FigureKind,
            "figure-kind-of-seat" => VerbValue::FigureKindOfSeat,
            "corner" => VerbValue::Corner,
            "points" => VerbValue::Points,
            "index" => VerbValue::Index,
            "tile-kind" => VerbValue::TileKind,
            _ => return None,
        })
    }
}

/// An action defined by an expansion. The fields are generic slots; the verb says what
/// they mean. Records write the verb by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CustomAction {
    /// The expansion that offered it and handles it.
    pub expansion: ExpansionIndex,
    /// What to do.
    pub verb: VerbId,
    /// A figure the action is about.
    pub figure: Option<FigureId>,
    /// A segment the action targets (a cell is named by any segment of its tile).
    pub segment: Option<SegmentId>,
    /// A free integer argument.
    pub value: i32,
}

/// A decision a player can take. The game only accepts actions it offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Place the drawn tile.
    Place {
        /// Cell.
        pos: Pos,
        /// Rotation.
        rotation: Rotation,
    },
    /// Put a figure of this kind from the player's supply onto a segment.
    Deploy {
        /// Figure kind.
        figure: FigureKindId,
        /// Target segment.
        segment: SegmentId,
    },
    /// Move a figure already in play onto a segment (offered by expansions, e.g. redeployment).
    Move {
        /// The figure.
        figure: FigureId,
        /// Target segment.
        segment: SegmentId,
    },
    /// Decline the current decision.
    Pass,
    /// Draw this tile ([`DrawMode::Chosen`](crate::DrawMode::Chosen) games only).
    Draw {
        /// The tile kind drawn.
        tile: TileKindId,
    },
    /// An expansion's own action.
    Custom(CustomAction),
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Place { pos, rotation } => write!(f, "place at {pos} rotation {rotation}"),
            Action::Deploy { figure, segment } => {
                write!(
                    f,
                    "deploy figure kind {} on segment {}",
                    figure.0,
                    segment.index()
                )
            }
            Action::Move { figure, segment } => {
                write!(f, "move figure {} to segment {}", figure.0, segment.index())
            }
            Action::Pass => write!(f, "pass"),
            Action::Draw { tile } => write!(f, "draw tile kind {}", tile.0),
            Action::Custom(c) => write!(f, "expansion {} verb {}", c.expansion.0, c.verb.0),
        }
    }
}
