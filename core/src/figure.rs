//! Figures: kinds registered at setup, and the figures themselves.

use crate::graph::SegmentId;
use crate::kind::FeatureKindId;
use crate::player::PlayerId;
use serde::{Deserialize, Serialize};

/// Index of a registered figure kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FigureKindId(pub u8);

impl FigureKindId {
    /// The base game's small follower (always id 0).
    pub const SMALL_FOLLOWER: FigureKindId = FigureKindId(0);
}

/// A set of feature kinds as a bit mask (bit k = kind k), used for "may stand on".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindMask(pub u64);

impl KindMask {
    /// Every kind.
    pub const ALL: KindMask = KindMask(u64::MAX);

    /// Whether kind `k` is in the mask.
    #[inline]
    pub const fn contains(self, k: FeatureKindId) -> bool {
        self.0 & (1 << k.0) != 0
    }

    /// The mask with kind `k` added.
    pub const fn with(self, k: FeatureKindId) -> KindMask {
        KindMask(self.0 | (1 << k.0))
    }
}

/// A registered figure kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FigureKindDef {
    /// Name used in records and output (`small-follower`).
    pub name: String,
    /// Copies each player owns.
    pub per_player: u8,
    /// Base strength in half-units (a small follower is 2, a big follower 4).
    pub strength: i32,
    /// Feature kinds the figure may be deployed onto from supply in the normal action step.
    pub deploy_on: KindMask,
    /// Whether it is a follower (deployed in the action step, counts for majorities with
    /// its strength).
    pub follower: bool,
    /// Whether it goes back to supply when its feature is scored (a follower does; a fan
    /// figure may stay).
    #[serde(default = "yes")]
    pub returns: bool,
    /// How renderers draw it: a shape name (`meeple`, `pawn`, `disc`, …) or `path:<SVG
    /// path data>` in a box from -1 to 1; empty for the renderer's own choice.
    #[serde(default)]
    pub look: String,
    /// Copies that belong to nobody (a neutral figure: the Courier, a herald). A kind is
    /// either a player's (`per_player` > 0) or neutral (`neutral` > 0). Neutral figures
    /// start off the board; only expansions place and move them, they never count for a
    /// majority and never make a feature occupied, and they are never in a player's supply.
    #[serde(default)]
    pub neutral: u8,
    /// Whether the figure shares features: it may stand on a feature that holds other
    /// figures, and it neither makes its feature occupied nor counts for a majority
    /// (strength 0 whatever `strength` says). Neutral figures always share.
    #[serde(default)]
    pub shares: bool,
    /// The colour renderers draw it in (`#rrggbb`); empty for the renderer's choice (the
    /// owner's seat colour, or the neutral colour for a neutral figure).
    #[serde(default)]
    pub colour: String,
}

fn yes() -> bool {
    true
}

impl FigureKindDef {
    /// The base game's small follower: 7 per player, strength 1 (2 half-units), any occupiable kind.
    pub fn small_follower() -> FigureKindDef {
        FigureKindDef {
            name: "small-follower".into(),
            per_player: 7,
            strength: 2,
            deploy_on: KindMask::ALL,
            follower: true,
            returns: true,
            look: String::new(),
            neutral: 0,
            shares: false,
            colour: String::new(),
        }
    }

    /// Whether its figures belong to nobody.
    #[inline]
    pub const fn is_neutral(&self) -> bool {
        self.neutral > 0
    }

    /// Whether its figures make the feature they stand on occupied and count for its
    /// majority (a player's figure that does not share).
    #[inline]
    pub const fn occupies(&self) -> bool {
        !self.shares && self.neutral == 0
    }
}

/// Index of a figure in the game (stable for the whole game).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FigureId(pub u16);

/// Where a figure is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FigureLoc {
    /// In its owner's supply.
    Supply,
    /// On a segment of the feature graph (a tile segment or a virtual feature).
    On(SegmentId),
    /// Out of the game.
    Removed,
}

/// A figure, owned by a player or neutral ([`PlayerId::NEUTRAL`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figure {
    /// Owner: a seat, or [`PlayerId::NEUTRAL`] for a neutral figure (never a seat index:
    /// check [`Figure::is_neutral`] before indexing by it).
    pub owner: PlayerId,
    /// Kind.
    pub kind: FigureKindId,
    /// Number of this figure among its owner's figures of the same kind (1-based), as in
    /// JCloisterZone's meeple ids `<player>.<kind>.<k>`.
    pub ordinal: u8,
    /// Where it is.
    pub loc: FigureLoc,
}

impl Figure {
    /// Whether it belongs to nobody (a neutral figure).
    #[inline]
    pub const fn is_neutral(&self) -> bool {
        self.owner.0 == PlayerId::NEUTRAL.0
    }

    /// Its owner's seat, `None` for a neutral figure.
    #[inline]
    pub const fn seat(&self) -> Option<PlayerId> {
        if self.is_neutral() {
            None
        } else {
            Some(self.owner)
        }
    }
}

/// Why a figure left the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RemovalReason {
    /// Its feature was scored.
    Scored,
    /// An expansion's rule took it off (eaten, captured, challenge lost, …).
    Expansion,
}
