//! # carcassonne-core
//!
//! The rules kernel of a Carcassonne engine: the vocabulary (sides, tiles, board,
//! features, figures, players), the base-game rules, and the hook API through which
//! expansions change the game without core knowing them.
//!
//! ```text
//! TileSetData ──▶ RulesetBuilder ──▶ Ruleset (Arc, shared) ──▶ Game::new ──▶ Game
//!   (serde)        + expansions        kinds, tiles,            seed,        decision()
//!                  + options           figures, bound hooks     players      actions() / apply()
//!                  declare → bind      (immutable)
//! ```
//!
//! A [`Game`] always waits on exactly one [`Decision`] and offers its legal [`Action`]s;
//! [`Game::apply`] takes only an offered action. Same seed + same actions = same game.
//!
//! Design choices and their costs:
//! - **No IO, no file formats, no global state.** Tile files are serde types
//!   ([`TileSetData`]); the host parses TOML. Each plugin gets its own copy of this
//!   crate, so a static here would silently split.
//! - **Features are a graph plus a union-find.** The graph ([`FeatureGraph`]) is what
//!   expansions read: segments and border edges in core's own vectors ([`Segments`], a
//!   tile's written in one go), given as a petgraph graph on demand
//!   ([`FeatureGraph::to_petgraph`]); the union-find keeps merging O(α) on the hot path.
//! - **Batched hooks.** Placement and deployment filters see the whole candidate list
//!   in one call, because a per-candidate call would cost more than a base-game turn.
//! - **Strength in half-units**, so ±½ modifiers stay exact integers.
#![deny(missing_docs)]

pub mod action;
pub mod board;
pub mod context;
mod copy;
pub mod declare;
pub mod engine;
pub mod event;
pub mod figure;
pub mod graph;
pub mod hooks;
pub mod kind;
pub mod offered;
pub mod options;
pub mod overlay;
pub mod player;
pub mod plugin;
pub mod pos;
pub mod prompt;
pub mod ruleset;
pub mod side;
pub mod slot;
pub mod state;
pub mod supply;
pub mod tile;

pub use action::{Action, CustomAction, ExpansionIndex, VerbId, VerbValue};
pub use board::{Board, FrontierCell, PlacedTile};
pub use context::{Ctx, View};
pub use declare::{binder, Binder, Binding, Declare};
pub use engine::{
    ActionError, Game, GameError, GameSetup, GameTemplate, KnownOffer, Position, PositionFigure,
    PositionSetting, MAX_PLAYERS,
};
pub use event::{ScoreEvent, ScoreSource};
pub use figure::{
    Figure, FigureId, FigureKindDef, FigureKindId, FigureLoc, KindMask, RemovalReason,
};
pub use graph::{
    BorderEdge, Borders, FeatureGraph, FeatureId, FeatureTotals, Link, SegmentId, SegmentMark,
    SegmentNode, Segments,
};
pub use hooks::{
    Award, BoundExpansion, DraftFeature, DrawVerdict, Expansion, FigureGate, HookError,
    HookFailure, HookGate, HookInfo, HookResult, HookSet, ScoreDraft, Stands, StartTile,
    TurnEndVerdict, Visible, Window, HOOKS,
};
pub use kind::{FeatureKindDef, FeatureKindId, Scoring, Shape};
pub use offered::Offered;
pub use options::{OptionDef, OptionType, OptionValue, Options};
pub use overlay::{Amendment, Overlay};
pub use player::{Player, PlayerId};
pub use pos::{ParsePosError, Pos, MAX_COORD};
pub use prompt::{Prompt, PromptCode, PromptKind};
pub use ruleset::{
    BaseRules, ExpansionMeta, FarmScoring, LabelId, Ruleset, RulesetBuilder, SetupError,
    ShutAnswer, FIGURE_COUNT_PREFIX, TILE_COPIES_PREFIX,
};
pub use side::{HalfEdge, HalfSet, Rotation, Side, SideSet};
pub use slot::{FigureSlot, GameSlot, PlayerSlot, SlotDef, SlotId, SlotRef, SlotRole, SlotScope};
pub use state::{Decision, DecisionKind, Discard, DiscardReason, GameState, PlacementCell};
pub use supply::{DrawMode, SupplyGroup, TileSupply};
pub use tile::{
    Segment, SegmentData, TileCatalog, TileData, TileDataError, TileKind, TileKindId, TileSetData,
};

/// The base game's tile file, in the project's tile schema (parsed by the host).
pub const BASE_TILES_TOML: &str = include_str!("../tiles/base.toml");

#[cfg(test)]
mod size_checks {
    #[test]
    fn action_is_small() {
        assert!(
            std::mem::size_of::<crate::Action>() <= 24,
            "{}",
            std::mem::size_of::<crate::Action>()
        );
    }
}
