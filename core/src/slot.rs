//! Expansion state slots: integers an expansion declares and the game state stores, so
//! per-game data is saved, cloned and compared with the game, never kept in the
//! expansion. Handles are typed by scope, so a player slot cannot be read for a figure.

use crate::action::ExpansionIndex;
use crate::figure::FigureId;
use crate::player::PlayerId;

/// Scope of an expansion state slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotScope {
    /// One value per game.
    Game,
    /// One value per player.
    Player,
    /// One value per figure.
    Figure,
}

/// What a slot's value means to tools that know no expansion (renderers): declared with
/// the slot, so that they need not guess it from the slot's name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SlotRole {
    /// The expansion's own state (a renderer shows a figure slot off its default as a
    /// marker on the figure).
    #[default]
    State,
    /// A figure slot holding the tile corner its figure stands on: 0 none, 1 NW, 2 NE,
    /// 3 SE, 4 SW (Abbey & Mayor's barn). Declared with [`crate::Declare::figure_corner_slot`].
    FigureCorner,
}

/// A declared integer state slot of an expansion (saved with the game state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotDef {
    /// Declaring expansion.
    pub expansion: ExpansionIndex,
    /// Name, unique within the expansion.
    pub name: String,
    /// Scope.
    pub scope: SlotScope,
    /// Initial value.
    pub default: i64,
    /// What the value means outside the expansion.
    pub role: SlotRole,
}

/// Untyped handle of a declared state slot (the typed ones wrap it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotId(pub u16);

/// A slot with one value per game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameSlot(pub(crate) SlotId);

/// A slot with one value per player: [`PlayerSlot::of`] picks the player's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlayerSlot(pub(crate) SlotId);

/// A slot with one value per figure: [`FigureSlot::of`] picks the figure's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FigureSlot(pub(crate) SlotId);

/// One value of a slot: what [`crate::Ctx::get`] reads and [`crate::Ctx::set`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlotRef {
    pub(crate) slot: SlotId,
    pub(crate) index: usize,
}

impl SlotRef {
    /// A value by untyped handle and index (player or figure index, 0 for game slots).
    /// For hosts whose slots are named at run time (scripts); they check the scope
    /// themselves. Native expansions use the typed handles.
    pub fn untyped(slot: SlotId, index: usize) -> SlotRef {
        SlotRef { slot, index }
    }
}

impl GameSlot {
    /// The untyped handle.
    pub fn id(self) -> SlotId {
        self.0
    }
}

impl PlayerSlot {
    /// The player's value.
    pub fn of(self, player: PlayerId) -> SlotRef {
        SlotRef {
            slot: self.0,
            index: player.0 as usize,
        }
    }

    /// The untyped handle.
    pub fn id(self) -> SlotId {
        self.0
    }
}

impl FigureSlot {
    /// The figure's value.
    pub fn of(self, figure: FigureId) -> SlotRef {
        SlotRef {
            slot: self.0,
            index: figure.0 as usize,
        }
    }

    /// The untyped handle.
    pub fn id(self) -> SlotId {
        self.0
    }
}

impl From<GameSlot> for SlotRef {
    fn from(s: GameSlot) -> SlotRef {
        SlotRef {
            slot: s.0,
            index: 0,
        }
    }
}
