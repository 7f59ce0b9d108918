//! Overlays: segments an expansion adds to tiles on the board, such as a bridge's road.
//!
//! An expansion declares an overlay ([`crate::Declare::segment_overlay`]): an edge segment
//! of some kind across some sides. When the ruleset is built, core makes a **variant** of
//! every tile kind whose sides there (in any rotation) are field edges
//! ([`crate::TileCatalog::add_variant`]). Adding the segment to a placed tile turns it
//! into that variant ([`crate::Ctx::add_overlay`]): its kind, edge codes and frontier
//! change and a new node joins the feature graph, merged with what its ends meet. An
//! overlay that `amends` also makes placements legal that fit only with it on the placed
//! tile or on the neighbour it faces ([`Amendment`]), while the player's slot is above 0.
//!
//! Any expansion may veto an overlay on a tile already on the board
//! ([`crate::BoundExpansion::allows_overlay`], bit [`crate::HookSet::ALLOWS_OVERLAY`]): core asks
//! it for the neighbour an amendment would change, and an expansion that offers overlays asks
//! it through [`crate::View::overlay_allowed`]. With no implementer loaded, neither costs
//! anything.

use crate::kind::FeatureKindId;
use crate::pos::Pos;
use crate::side::SideSet;
use crate::slot::PlayerSlot;
use crate::tile::TileKindId;

/// A declared overlay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overlay {
    /// The added segment's feature kind (an edge kind).
    pub kind: FeatureKindId,
    /// The sides it covers at rotation 0; every rotation of them makes variants.
    pub sides: SideSet,
    /// The added segment's tag (`bridge`).
    pub tag: String,
    /// If set, the overlay also amends placements while the active player's value of this
    /// slot is above 0.
    pub amends: Option<PlayerSlot>,
}

/// A placement made legal by an overlay added at once: the tile at `at` (the placed tile
/// itself or the neighbour it faces) becomes `variant` as the tile is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Amendment {
    /// The cell of the tile that gets the segment.
    pub at: Pos,
    /// Its new kind.
    pub variant: TileKindId,
}
