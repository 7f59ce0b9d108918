//! The hook API: how an expansion changes the game without core knowing it.
//!
//! An expansion is a value implementing [`Expansion`]: it declares what it brings and
//! binds to a complete ruleset ([`crate::declare`]), which yields its
//! [`BoundExpansion`], the immutable value whose hooks run games. Every hook has a
//! default that does nothing, so an expansion implements only what it changes. Hooks run
//! in the order expansions were added to the ruleset, and every hook that combines results
//! does so commutatively (filters only remove, strength deltas add up) or in that fixed
//! order, so games are deterministic.
//!
//! Hooks never get the game state directly: they read it through a [`View`] and change
//! it through a [`Ctx`], whose methods keep the invariants (figures conserved, scores
//! only through events, occupancy counts exact). The turn pipeline (rule A-16) calls:
//!
//! 1. `open_window(TurnStart)`; draw with `on_tile_drawn`; placements through
//!    `filter_placements` (one batched call per drawn tile, not one per candidate);
//! 2. `on_tile_placed`; the deployment step offers core deployments, then
//!    `deploy_step_actions` add alternatives and `filter_deploy_actions` may remove;
//! 3. `open_window(AfterDeploy)`, `open_window(BeforeScoring)`; scoring with
//!    `before_scoring` (may rewrite the draft) and `after_scoring`;
//!    `open_window(AfterScoring)`; `on_turn_end` (may ask for an extra turn); after
//!    the turn's last part, `open_window(AfterTurn)`;
//! 4. at the end: `open_window(BeforeFinalScoring)`, final feature and farm scoring
//!    (through `before_scoring` too), then `final_scoring` for bonuses.
//!
//! Windows are how decisions reach players other than the active one: a hook queues
//! [`Prompt`]s; the engine offers them one at a time, asking the owner for the legal
//! actions only when the prompt becomes current, so each player sees the earlier
//! choices. The owner handles the chosen action and may queue more prompts.
//!
//! Trade-off: hooks are plain Rust trait calls (a few ns). Per-candidate predicates
//! would dominate the base game's few-hundred-ns turn, which is why placement and
//! deployment filters are batched over the whole candidate list.

use crate::action::{Action, CustomAction};
use crate::context::{Ctx, View};
use crate::declare::{Binder, Declare};
use crate::figure::{FigureId, RemovalReason};
use crate::graph::{FeatureId, SegmentId};
use crate::kind::FeatureKindId;
use crate::offered::Offered;
use crate::player::PlayerId;
use crate::pos::Pos;
use crate::prompt::Prompt;
use crate::ruleset::Ruleset;
use crate::side::Rotation;
use crate::state::PlacementCell;
use crate::tile::TileKindId;

/// An error an expansion's hook reports; the engine adds the expansion and hook names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HookFailure(pub String);

impl From<String> for HookFailure {
    fn from(s: String) -> Self {
        HookFailure(s)
    }
}

impl From<&str> for HookFailure {
    fn from(s: &str) -> Self {
        HookFailure(s.to_string())
    }
}

/// Result of a hook.
pub type HookResult<T = ()> = Result<T, HookFailure>;

/// A hook failed; the game stops.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expansion `{expansion}`, hook `{hook}`: {message}")]
pub struct HookError {
    /// Expansion id.
    pub expansion: String,
    /// Hook name.
    pub hook: &'static str,
    /// What went wrong.
    pub message: String,
}

/// At most this many prompts wait in the queue at once: a hook that queues more fails.
pub const MAX_QUEUED_PROMPTS: usize = 256;

/// At most this many prompts are asked in one turn (final scoring counts as one turn): a
/// prompt that always asks again cannot run a game forever. Real rounds need a few dozen.
pub const MAX_PROMPTS_PER_TURN: u32 = 4096;

/// Points in the turn pipeline where expansions may queue prompts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Window {
    /// Start of a turn, before the draw.
    TurnStart,
    /// After the active player's deployment step, before scoring (Tactician).
    AfterDeploy,
    /// Just before scoring the completed features (redeployment rounds).
    BeforeScoring,
    /// After scoring (deployment into a virtual feature, figure moves).
    AfterScoring,
    /// After the last turn, before final scoring.
    BeforeFinalScoring,
    /// Just before the active player draws: after `TurnStart`, at the start of a second
    /// part of a turn ([`TurnEndVerdict::ExtraPart`]), and at the start of every turn played
    /// after the supply ran out ([`Ctx::set_more_turns`], [`Ctx::set_more_whole_turns`]). A
    /// prompt answered here may play a tile that is not in the supply instead of drawing
    /// ([`Ctx::play_tile_instead`]).
    BeforeDraw,
    /// After the whole turn, before the next player's: after `AfterScoring` and
    /// `on_turn_end` of the turn's last part, so once per turn even when a turn has a
    /// second part ([`TurnEndVerdict::ExtraPart`]). What happens "after the turn" (a
    /// bazaar's auction) asks its questions here.
    AfterTurn,
}

impl Window {
    /// Every window, in the order a turn opens them (`BeforeFinalScoring` last). Hosts that
    /// bind a hook per window, and tests that walk them all, take this list instead of their own.
    pub const ALL: [Window; 7] = [
        Window::TurnStart,
        Window::BeforeDraw,
        Window::AfterDeploy,
        Window::BeforeScoring,
        Window::AfterScoring,
        Window::AfterTurn,
        Window::BeforeFinalScoring,
    ];
}

/// What to do with a drawn tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawVerdict {
    /// Play it.
    Keep,
    /// Put it back into the supply and draw again.
    Redraw,
    /// Remove it from the game and draw again.
    Discard,
}

/// What happens after a turn (or a part of a turn).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnEndVerdict {
    /// Next player.
    Next,
    /// The same player plays another part of this turn (a double turn); granted once.
    ExtraPart,
}

/// One feature being scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DraftFeature {
    /// The feature (valid during this scoring).
    pub feature: FeatureId,
    /// Its kind.
    pub kind: FeatureKindId,
    /// Distinct tiles.
    pub tiles: u32,
    /// Whether it is complete (false at final scoring of unfinished features and farms).
    pub complete: bool,
    /// Points each majority winner gets under the base rules.
    pub value: i32,
    /// Whether the figures on it go back to supply after scoring.
    pub return_figures: bool,
    /// Whether the feature is closed for later scoring (core's items always are; an
    /// expansion may add an item that is not, e.g. the loser of a challenge, which stays
    /// incomplete and scores normally if occupied again).
    pub closes: bool,
    /// Whether the feature is given up, not scored: its figures leave without points (the
    /// loser of a challenge, HS-6). A bonus paid for a feature's scoring (the ringmaster's,
    /// BT-13) skips it, as JCZ scores such a feature by no `ScoreFeature`.
    pub forfeit: bool,
}

/// Points for one player from one drafted feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Award {
    /// Index into [`ScoreDraft::features`].
    pub item: u16,
    /// Who scores.
    pub player: PlayerId,
    /// How much (0 is a valid award and still produces an event).
    pub points: i32,
    /// A bonus paid beside the feature's scoring (Under the Big Top's ringmaster, BT-13),
    /// not the player's scoring of the feature: the sets that change what a feature is worth
    /// (an inn, a castle by a farm, a pig) raise the other awards and leave bonuses alone.
    pub bonus: bool,
}

/// A scoring about to happen (or just applied): features and awards, editable by hooks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScoreDraft {
    /// Whether this is final scoring.
    pub final_scoring: bool,
    /// The player whose placement caused it.
    pub placer: Option<PlayerId>,
    /// Features scored.
    pub features: Vec<DraftFeature>,
    /// Awards, in order.
    pub awards: Vec<Award>,
}

impl ScoreDraft {
    /// Points this draft gives to `p`.
    pub fn points_of(&self, p: PlayerId) -> i32 {
        self.awards
            .iter()
            .filter(|a| a.player == p)
            .map(|a| a.points)
            .sum()
    }
}

/// A hook of an expansion called only while one of its game slots is not 0
/// ([`BoundExpansion::hook_gates`]): a hook that has nothing to do most of the time (the
/// Count's redeployment round while nobody is in the City, the builder's extra part while
/// no builder was reached) then costs the engine one slot read instead of a call into the
/// plugin. Only hooks the engine calls with a context in load order, and `free_actions`,
/// can be gated ([`HookSet::GATEABLE`]); the slot must be one of the expansion's own game
/// slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HookGate {
    /// The gated hooks (bits of [`HookSet::GATEABLE`]).
    pub hooks: HookSet,
    /// The hooks are called only while this slot is not 0.
    pub slot: crate::slot::GameSlot,
}

/// Hooks of an expansion called only while a figure of one player kind is out of its
/// owners' supply: some player holds fewer of `kind` than its `per_player`
/// ([`BoundExpansion::figure_gates`]; a barn's farm can be joined only once a barn is
/// down). Same rules as [`HookGate`]: only [`HookSet::GATEABLE`] hooks, and a gated hook
/// must do nothing while every figure of the kind is in supply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FigureGate {
    /// The gated hooks (bits of [`HookSet::GATEABLE`]).
    pub hooks: HookSet,
    /// The hooks are called only while a figure of this kind is out of supply.
    pub kind: crate::figure::FigureKindId,
}

/// The hooks an expansion implements ([`Expansion::hooks`]): the engine calls only
/// those in the turn pipeline, so an expansion pays nothing for hooks it leaves alone.
/// The bits of the pipeline hooks come from the hook table ([`HOOKS`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HookSet(pub u32);

impl HookSet {
    /// No pipeline hook.
    pub const NONE: HookSet = HookSet(0);
    /// Every hook (the default: always correct, never the fastest).
    pub const ALL: HookSet = HookSet(u32::MAX);

    /// [`Expansion::open_window`] for one window.
    pub const fn window(w: Window) -> HookSet {
        HookSet(1 << (16 + w as u32))
    }

    /// Both sets.
    pub const fn with(self, other: HookSet) -> HookSet {
        HookSet(self.0 | other.0)
    }

    /// Whether any hook of `other` is in the set.
    #[inline]
    pub const fn has(self, other: HookSet) -> bool {
        self.0 & other.0 != 0
    }
}

impl std::ops::BitOr for HookSet {
    type Output = HookSet;
    fn bitor(self, rhs: HookSet) -> HookSet {
        self.with(rhs)
    }
}

/// One hook of the [`Expansion`] trait, as the hook table declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookInfo {
    /// The method's name.
    pub name: &'static str,
    /// Its pipeline bit ([`HookSet::NONE`] for hooks that are always called: setup,
    /// prompts, custom actions, settings).
    pub set: HookSet,
    /// Its parameters after `&self`.
    pub params: &'static [&'static str],
}

/// The hook table: every hook is declared once here, and this one entry makes the trait
/// method with its default, its [`HookSet`] bit (`bit NAME = n` defines
/// `HookSet::NAME`; `set NAME` shares one), the panic guard's forwarding
/// ([`crate::plugin::GuardedHooks`]), and its row in [`HOOKS`] (which tools such as the
/// script host's table and the docs read). Adding a hook is one entry plus its docs.
macro_rules! expansion_hooks {
    ($(
        $(#[$doc:meta])*
        [$($kind:ident $bit:ident $(= $n:expr)?)?]
        fn $name:ident(&self $(, $arg:ident : $ty:ty)* $(,)?) -> $ret:ty $default:block
    )*) => {
        impl HookSet {
            $($(expansion_hooks!(@bit $kind $bit $(= $n)?);)?)*
        }

        /// Every hook in declaration order: [`Expansion::declare`], then every hook of
        /// [`BoundExpansion`].
        pub const HOOKS: &[HookInfo] = &[
            HookInfo {
                name: "declare",
                set: HookSet::NONE,
                params: &["declare"],
            },
            $(HookInfo {
                name: stringify!($name),
                set: expansion_hooks!(@set $($bit)?),
                params: &[$(stringify!($arg)),*],
            }),*
        ];

        /// An expansion bound to one ruleset: its hooks, with the ids and parsed options
        /// it needs, immutable and shared by every game of the ruleset on every thread.
        ///
        /// Every hook has a default: "no change" for the pipeline hooks, an error for
        /// `apply_setting` and `apply_action` (an expansion that offers no setting or
        /// custom action is never asked to apply one). Every hook can fail; a failure
        /// stops that one game, naming the expansion, the hook and the reason.
        ///
        /// Hooks must be deterministic functions of their inputs and the game state (use
        /// [`Ctx::random_below`] for randomness). Per-game data goes in state slots
        /// ([`crate::Declare::game_slot`] and its siblings), which are saved with the game.
        #[allow(unused_variables)]
        pub trait BoundExpansion: Send + Sync {
            /// The pipeline hooks this expansion implements (default: all), asked once
            /// when the ruleset is built. Listing exactly the hooks in use lets the engine
            /// skip the others; a hook missing from the set is never called. Prompts,
            /// custom actions, settings and `describe` are always called.
            fn hook_set(&self) -> HookSet {
                HookSet::ALL
            }

            /// Hooks of the set to call only while a game slot is not 0 (default: none),
            /// asked once with [`BoundExpansion::hook_set`]. A gated hook must do nothing
            /// while its slot is 0: the engine then skips the call.
            fn hook_gates(&self) -> Vec<HookGate> {
                Vec::new()
            }

            /// Hooks of the set to call only once no tile is left to draw
            /// ([`crate::TileSupply::remaining`] is 0; default: none), asked once with
            /// [`BoundExpansion::hook_set`]; only bits of [`HookSet::GATEABLE`]. Such a hook
            /// must do nothing while tiles remain: the engine then skips the call. With
            /// [`BoundExpansion::hook_gates`] on the same hook, every gate must be open.
            fn hooks_once_supply_empty(&self) -> HookSet {
                HookSet::NONE
            }

            /// Hooks of the set to call only while the board has a hole, an empty cell with
            /// a tile on each side, where only a barrier tile fits ([`crate::Board::holes`];
            /// default: none), asked once with [`BoundExpansion::hook_set`]; only bits of
            /// [`HookSet::GATEABLE`]. Such a hook must do nothing while the board has no
            /// hole: the engine then skips the call. With other gates on the same hook,
            /// every gate must be open.
            fn hooks_while_holes(&self) -> HookSet {
                HookSet::NONE
            }

            /// Hooks of the set to call only while a figure of a player kind is out of its
            /// owners' supply ([`FigureGate`]; default: none), asked once with
            /// [`BoundExpansion::hook_set`].
            fn figure_gates(&self) -> Vec<FigureGate> {
                Vec::new()
            }

            /// Whether [`BoundExpansion::on_tile_placed`] has anything to do when a tile of kind
            /// `tile` is placed (default: every kind), asked once per tile kind when the
            /// ruleset is built. Saying no for the kinds the hook ignores (every tile but a
            /// tower foundation, a hill) lets the engine skip the call on most placements. The
            /// hook must then do nothing, and change nothing, for a tile of such a kind.
            fn on_tile_placed_for(&self, rules: &Ruleset, tile: TileKindId) -> bool {
                true
            }

            /// Whether [`BoundExpansion::open_window`] has anything to do in `window` in a
            /// turn whose placed tile ([`crate::GameState::last_placed`], as it lies when the
            /// window opens) is of kind `tile` (default: every kind). Asked once per tile kind
            /// when the ruleset is built, for the windows that follow a placement
            /// ([`Window::AfterDeploy`], [`Window::BeforeScoring`], [`Window::AfterScoring`])
            /// that are in the hook set. Saying no for the kinds a window ignores (a castle
            /// question after a tile with a castle base only) lets the engine skip the call in
            /// most turns. The hook must then do nothing, and change nothing, in that window
            /// after a tile of such a kind.
            fn opens_window_for(&self, rules: &Ruleset, window: Window, tile: TileKindId) -> bool {
                true
            }

            /// Whether [`BoundExpansion::filter_deploy_actions`] always leaves
            /// [`Action::Pass`] in a deployment step's offer, and judges each action by
            /// itself (default: no), asked once when the ruleset is built. When every
            /// deployment filter of a ruleset says so ([`Ruleset::deploy_pass_kept`]), a
            /// search's playout may pass a deployment step without listing it
            /// ([`crate::Game::apply_passing_deploy`]), or choose among the tile's own
            /// deployments that the filters leave ([`crate::Game::apply_tile_deploy`]):
            /// what a filter keeps of part of the offer must then be kept of the whole.
            /// Say yes only if no option of yours ever removes the pass, or removes an
            /// action because of another one offered beside it (a rule that makes an
            /// action compulsory does both).
            fn keeps_deploy_pass(&self) -> bool {
                false
            }

            /// Whether [`BoundExpansion::filter_prompt_actions`] never takes
            /// [`Action::Pass`] out of a prompt's offer (default: no), asked once when the
            /// ruleset is built. A ruleset passes the prompts of the game's end unlisted
            /// ([`Ruleset::passes_at_end`]) only when every prompt filter says so.
            fn keeps_prompt_pass(&self) -> bool {
                false
            }

            /// Whether every prompt this expansion raises once the game is ending (from
            /// the `BeforeFinalScoring` window on, [`crate::GameState::in_final_scoring`])
            /// offers [`Action::Pass`] (default: no), asked once when the ruleset is built.
            /// Then a search that values a position by ending the game there may answer
            /// those prompts with the pass without listing them
            /// ([`crate::Game::end_now_passing`]), which is one legal way to end the game.
            /// Say no if such a prompt can ever offer nothing, or a choice without the pass
            /// (a chance draw, a compulsory move).
            fn offers_pass_at_end(&self) -> bool {
                false
            }

            $(
                $(#[$doc])*
                fn $name(&self $(, $arg: $ty)*) -> $ret $default
            )*
        }

        impl<B: BoundExpansion> BoundExpansion for crate::plugin::GuardedHooks<B> {
            fn hook_set(&self) -> HookSet {
                self.guarded_hook_set()
            }
            fn hook_gates(&self) -> Vec<HookGate> {
                self.guarded_hook_gates()
            }
            fn hooks_once_supply_empty(&self) -> HookSet {
                self.guarded_hooks_once_supply_empty()
            }
            fn hooks_while_holes(&self) -> HookSet {
                self.guarded_hooks_while_holes()
            }
            fn figure_gates(&self) -> Vec<FigureGate> {
                self.guarded_figure_gates()
            }
            fn on_tile_placed_for(&self, rules: &Ruleset, tile: TileKindId) -> bool {
                // A panic there means "yes": the hook is called for that kind.
                self.run(|e| Ok(e.on_tile_placed_for(rules, tile)))
                    .unwrap_or(true)
            }
            fn opens_window_for(&self, rules: &Ruleset, window: Window, tile: TileKindId) -> bool {
                // A panic there means "yes", as above.
                self.run(|e| Ok(e.opens_window_for(rules, window, tile)))
                    .unwrap_or(true)
            }
            fn keeps_deploy_pass(&self) -> bool {
                // A panic there means "no": the step is always listed.
                self.run(|e| Ok(e.keeps_deploy_pass())).unwrap_or(false)
            }
            fn keeps_prompt_pass(&self) -> bool {
                // A panic there means "no", as above.
                self.run(|e| Ok(e.keeps_prompt_pass())).unwrap_or(false)
            }
            fn offers_pass_at_end(&self) -> bool {
                // A panic there means "no", as above.
                self.run(|e| Ok(e.offers_pass_at_end())).unwrap_or(false)
            }
            $(
                crate::plugin::guarded_forward! { $name ($($arg: $ty),*) -> $ret }
            )*
        }

        /// A boxed bound expansion is one, calling through the box (what the panic guard
        /// wraps when a [`crate::Binder`] hands back a box: [`crate::plugin::GuardedHooks`]).
        impl BoundExpansion for Box<dyn BoundExpansion> {
            fn hook_set(&self) -> HookSet {
                (**self).hook_set()
            }
            fn hook_gates(&self) -> Vec<HookGate> {
                (**self).hook_gates()
            }
            fn hooks_once_supply_empty(&self) -> HookSet {
                (**self).hooks_once_supply_empty()
            }
            fn hooks_while_holes(&self) -> HookSet {
                (**self).hooks_while_holes()
            }
            fn figure_gates(&self) -> Vec<FigureGate> {
                (**self).figure_gates()
            }
            fn on_tile_placed_for(&self, rules: &Ruleset, tile: TileKindId) -> bool {
                (**self).on_tile_placed_for(rules, tile)
            }
            fn opens_window_for(&self, rules: &Ruleset, window: Window, tile: TileKindId) -> bool {
                (**self).opens_window_for(rules, window, tile)
            }
            fn keeps_deploy_pass(&self) -> bool {
                (**self).keeps_deploy_pass()
            }
            fn keeps_prompt_pass(&self) -> bool {
                (**self).keeps_prompt_pass()
            }
            fn offers_pass_at_end(&self) -> bool {
                (**self).offers_pass_at_end()
            }
            $(
                fn $name(&self $(, $arg: $ty)*) -> $ret {
                    (**self).$name($($arg),*)
                }
            )*
        }
    };
    (@bit bit $bit:ident = $n:expr) => {
        #[doc = concat!("Bit of the hook set for `", stringify!($bit), "`.")]
        pub const $bit: HookSet = HookSet(1 << $n);
    };
    (@bit set $bit:ident) => {};
    (@set $bit:ident) => { HookSet::$bit };
    (@set) => { HookSet::NONE };
}

/// A Carcassonne expansion as a plugin or script provides it: who it is, and how it
/// joins a ruleset ([`crate::declare`]: declare, then bind). The value keeps nothing
/// about any ruleset, so one value serves every ruleset it is added to.
pub trait Expansion: Send + Sync {
    /// Stable id (`count`, `river2`, …).
    fn id(&self) -> &str;

    /// Version (semver). Plugins exported with [`crate::export_expansion!`] report their
    /// crate's version; records store it.
    fn version(&self) -> &str {
        "0.0.0"
    }

    /// Declares kinds, figures, tiles, options, verbs, labels and state slots, and returns
    /// the [`Binder`] that makes the bound hooks once the ruleset is complete.
    fn declare(&self, declare: &mut Declare<'_>) -> HookResult<Box<dyn Binder>>;
}

/// Hands the hook table (the one place a hook is declared) to another macro:
/// `for_each_hook!(my_macro)` expands to `my_macro! { … }` with every hook as the table
/// writes it, in table order: its doc comment, `[bit NAME = n]` (its own [`HookSet`] bit),
/// `[set NAME]` (it shares that bit) or `[]` (called without a bit), then
/// `fn name(&self, arg: Type, …) -> Ret { default }`. Core generates [`BoundExpansion`],
/// the [`HookSet`] bits, [`HOOKS`] and the plugin guard's forwarding from it; a host that
/// binds hooks another way (the script host) generates its checks from it, so a new hook
/// is one entry here. Types are named as in this module (`Ctx<'_>`, `View<'_>`, …): a
/// macro that emits them must have them in scope.
#[macro_export]
macro_rules! for_each_hook {
    ($($callback:tt)*) => {
        $($callback)*! {
            /// A new game: arrange the tile supply and start layout, set initial state.
            [set GAME_START]
            fn prepare_game(&self, ctx: &mut Ctx<'_>, start: &mut Vec<StartTile>) -> HookResult {
                Ok(())
            }

            /// The start layout (or a [`crate::Position`]'s tiles) is on the board and no
            /// figure is placed yet: create virtual features, link start tiles to them.
            [bit GAME_START = 11]
            fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
                Ok(())
            }

            /// Sets part of this expansion's state from a [`crate::Position`] (scenario tests,
            /// imports): `key`/`value` are the expansion's own vocabulary. Unknown keys must fail.
            []
            fn apply_setting(&self, ctx: &mut Ctx<'_>, key: &str, value: &str) -> HookResult {
                Err(HookFailure(format!(
                    "this expansion has no position setting `{key}`"
                )))
            }

            /// A tile was drawn for the active player. Prompts queued here are asked before the
            /// tile is placed ([`crate::GameState::revealed_tile`]); an answer may send it back
            /// with [`Ctx::return_drawn_tile`] (a redraw the player chooses).
            [bit ON_TILE_DRAWN = 0]
            fn on_tile_drawn(&self, ctx: &mut Ctx<'_>, tile: TileKindId) -> HookResult<DrawVerdict> {
                Ok(DrawVerdict::Keep)
            }

            /// Removes illegal candidates from the edge-legal placements of the drawn tile: one
            /// entry per cell, bit `q` of `rotations` = turned by `q` quarter turns. Clear the
            /// bits of illegal placements; the engine ignores any bit that was not edge-legal.
            [bit FILTER_PLACEMENTS = 1]
            fn filter_placements(
                &self,
                view: View<'_>,
                player: PlayerId,
                tile: TileKindId,
                cells: &mut [PlacementCell],
            ) -> HookResult {
                Ok(())
            }

            /// Whether the tile at `pos`, already on the board, may become `variant`, one of
            /// its overlay variants ([`crate::overlay`]; a bridge): `false` vetoes it. Asked,
            /// in load order until one says no, for core's amended placements (the neighbour
            /// that gets the overlay) and by expansions before they offer or lay an overlay
            /// ([`View::overlay_allowed`]); never for the tile being placed. Only the
            /// expansions whose hook set has the bit are asked: without any, overlays cost
            /// nothing more. While an implementer is loaded, amended placements are not
            /// remembered between asks ([`View::placements_of`]), since the answer may
            /// depend on figures.
            [bit ALLOWS_OVERLAY = 14]
            fn allows_overlay(&self, view: View<'_>, pos: Pos, variant: TileKindId) -> HookResult<bool> {
                Ok(true)
            }

            /// The drawn tile was placed (its segments are in the graph).
            [bit ON_TILE_PLACED = 2]
            fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: Pos) -> HookResult {
                Ok(())
            }

            /// Whether [`Expansion::filter_placements`] can remove placements of tile kind `tile`
            /// (asked once per tile kind when the ruleset is built; default: every kind). Saying
            /// no for the kinds a filter ignores (non-river tiles for a river rule) lets the
            /// engine skip the filter, and its bookkeeping, on most draws. An error fails the
            /// ruleset's build.
            []
            fn filters_tile(&self, rules: &Ruleset, tile: TileKindId) -> HookResult<bool> {
                Ok(true)
            }

            /// Adds alternatives to the active player's deployment step.
            [bit DEPLOY_STEP_ACTIONS = 3]
            fn deploy_step_actions(
                &self,
                view: View<'_>,
                player: PlayerId,
                out: &mut Vec<Action>,
            ) -> HookResult {
                Ok(())
            }

            /// Removes deployment-step actions the expansion forbids (run after all
            /// additions, in load order). It can only remove ([`Offered`]).
            [bit FILTER_DEPLOY_ACTIONS = 4]
            fn filter_deploy_actions(
                &self,
                view: View<'_>,
                player: PlayerId,
                actions: &mut Offered<'_>,
            ) -> HookResult {
                Ok(())
            }

            /// Applies one of this expansion's custom actions chosen in the deployment step
            /// (or offered by `free_actions`).
            []
            fn apply_action(
                &self,
                ctx: &mut Ctx<'_>,
                player: PlayerId,
                action: CustomAction,
            ) -> HookResult {
                Err(HookFailure(
                    "this expansion offers no custom actions".into(),
                ))
            }

            /// A window opens: queue prompts with [`Ctx::prompt`]. (Its bits are per window:
            /// [`HookSet::window`].)
            []
            fn open_window(&self, ctx: &mut Ctx<'_>, window: Window) -> HookResult {
                Ok(())
            }

            /// Lists the legal actions of this expansion's prompt (empty = skip the prompt).
            []
            fn prompt_actions(&self, view: View<'_>, prompt: Prompt, out: &mut Vec<Action>) -> HookResult {
                Ok(())
            }

            /// Removes actions another expansion's prompt offers that this expansion forbids (a
            /// redeployment onto the tile where Princess & Dragon's dragon stands, say). Called
            /// after the owner's `prompt_actions`, in load order, for every expansion whose hook
            /// set has it (the owner included); it can only remove ([`Offered`]). A prompt left
            /// with no action is skipped, as one that offered none; one filtered down to
            /// [`Action::Pass`] alone is answered with that pass without asking (the owner's
            /// `apply_prompt` sees it).
            [bit FILTER_PROMPT_ACTIONS = 12]
            fn filter_prompt_actions(
                &self,
                view: View<'_>,
                prompt: Prompt,
                actions: &mut Offered<'_>,
            ) -> HookResult {
                Ok(())
            }

            /// Free actions (TW-13's ransom: "at any moment at which the game waits for a
            /// decision of his"): this expansion's custom actions that `player` may take
            /// besides answering a prompt of *another* expansion. Added to that prompt's offer
            /// when it is asked; one is applied by this expansion's `apply_action`, and then
            /// the prompt is asked again (its actions computed afresh). Offer exactly what
            /// `apply_action` accepts now. May be gated ([`HookGate`]): while its gate is
            /// shut the engine does not ask.
            [bit FREE_ACTIONS = 13]
            fn free_actions(
                &self,
                view: View<'_>,
                player: PlayerId,
                out: &mut Vec<Action>,
            ) -> HookResult {
                Ok(())
            }

            /// Applies the answer to this expansion's prompt.
            []
            fn apply_prompt(&self, ctx: &mut Ctx<'_>, prompt: Prompt, action: Action) -> HookResult {
                Ok(())
            }

            /// Strength change in half-units for a figure (summed over expansions). A failure
            /// fails the action that needed the strength, in this game only.
            [bit STRENGTH_DELTA = 5]
            fn strength_delta(&self, view: View<'_>, figure: FigureId) -> HookResult<i32> {
                Ok(0)
            }

            /// Rewrites a scoring before it is applied.
            [bit BEFORE_SCORING = 6]
            fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
                Ok(())
            }

            /// Sees a scoring after it was applied.
            [bit AFTER_SCORING = 7]
            fn after_scoring(&self, ctx: &mut Ctx<'_>, draft: &ScoreDraft) -> HookResult {
                Ok(())
            }

            /// A figure left the board (scored, eaten, captured, …).
            [bit ON_FIGURE_REMOVED = 8]
            fn on_figure_removed(
                &self,
                ctx: &mut Ctx<'_>,
                figure: FigureId,
                reason: RemovalReason,
            ) -> HookResult {
                Ok(())
            }

            /// A figure came onto `segment`: deployed from supply, moved or redeployed
            /// there, in the deployment step, in answer to a prompt, by an expansion's
            /// [`Ctx::deploy`], [`Ctx::move_figure`] or [`Ctx::place_neutral`], or set up by
            /// a [`crate::Position`] (after `start_game`). With `on_figure_removed`, an
            /// expansion sees every change of where figures stand.
            [bit ON_FIGURE_PLACED = 15]
            fn on_figure_placed(
                &self,
                ctx: &mut Ctx<'_>,
                figure: FigureId,
                segment: SegmentId,
            ) -> HookResult {
                Ok(())
            }

            /// A turn (or a part of a double turn) ends.
            [bit ON_TURN_END = 9]
            fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
                Ok(TurnEndVerdict::Next)
            }

            /// Final bonuses, after features and farms were scored.
            [bit FINAL_SCORING = 10]
            fn final_scoring(&self, ctx: &mut Ctx<'_>) -> HookResult {
                Ok(())
            }

            /// Why this expansion refuses `action`, an action the game did not offer (asked only
            /// on that error path, in load order; the first reason is reported in
            /// [`crate::ActionError::Refused`]). `None`: the refusal is not this expansion's doing.
            /// A reason names the rule (`FE-2 a landing within 2 cells of (1,0)`).
            []
            fn explain_refusal(
                &self,
                view: View<'_>,
                player: PlayerId,
                action: Action,
            ) -> HookResult<Option<String>> {
                Ok(None)
            }

            /// What this expansion shows of its state to people and other programs (titles and
            /// their holders, neutral figures), so that renderers and other tools draw it without
            /// knowing the expansion. Asked by tools, never by the turn pipeline.
            []
            fn describe(&self, view: View<'_>, out: &mut Vec<Visible>) -> HookResult {
                Ok(())
            }
        }
    };
}

for_each_hook!(expansion_hooks);

impl HookSet {
    /// The hooks a [`HookGate`] may gate: the ones the engine calls with a context, for
    /// every implementer in load order (`on_tile_drawn`, `on_tile_placed`, the scoring
    /// hooks, `on_figure_removed`, `on_figure_placed`, `on_turn_end`, `final_scoring`,
    /// every window), and `free_actions` (asked of every implementer at each deployment
    /// step and prompt; a shut gate means the expansion has no free action to add then).
    pub const GATEABLE: HookSet = HookSet(
        HookSet::FREE_ACTIONS.0
            | HookSet::ON_TILE_DRAWN.0
            | HookSet::ON_TILE_PLACED.0
            | HookSet::BEFORE_SCORING.0
            | HookSet::AFTER_SCORING.0
            | HookSet::ON_FIGURE_REMOVED.0
            | HookSet::ON_FIGURE_PLACED.0
            | HookSet::ON_TURN_END.0
            | HookSet::FINAL_SCORING.0
            | 0xFFFF_0000,
    );
}

/// What a [`Visible::NeutralFigure`] stands on, so renderers place it without knowing
/// the expansion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stands {
    /// On its segment's feature, beside any figure there (the fairy by a follower, the
    /// Count in his quarter).
    OnSegment,
    /// On the whole tile of its segment: drawn in the tile's corner (the dragon).
    OnTile,
}

/// Something an expansion shows of its state ([`Expansion::describe`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Visible {
    /// A title a player holds (the King): listed under `group` (`King & Robber`).
    Title {
        /// Heading of the titles of this kind.
        group: String,
        /// The title (`King`).
        name: String,
        /// Icon name for renderers (`crown`, `mask`).
        icon: String,
        /// Who holds it, if anyone.
        holder: Option<PlayerId>,
        /// A short detail (`largest city: 5 tiles`), or empty.
        detail: String,
    },
    /// A neutral figure standing on a segment, often a virtual feature (the Count).
    NeutralFigure {
        /// Its name (`count`).
        name: String,
        /// Icon name for renderers.
        icon: String,
        /// Where it stands.
        segment: SegmentId,
        /// Whether it stands on the segment or on its whole tile (how renderers place it).
        stands: Stands,
    },
    /// A name for one of this expansion's off-board features, shown under a heading (the
    /// `castle` under `City of Carcassonne`).
    Place {
        /// Heading of the places of this group.
        group: String,
        /// The place's name.
        name: String,
        /// Its segment.
        segment: SegmentId,
    },
    /// How another program names one of this expansion's off-board features, so that an
    /// importer or exporter needs no knowledge of the expansion: JCloisterZone (`scheme`
    /// `jcz`) points at the castle as `{position of tile CO/7, feature Quarter, location
    /// QUARTER_CASTLE}`.
    ForeignName {
        /// The program (`jcz`).
        scheme: String,
        /// Our segment.
        segment: SegmentId,
        /// The tile id whose position the program's pointer carries.
        tile: String,
        /// The program's feature class.
        feature: String,
        /// The program's location.
        location: String,
    },
}

/// A tile of the start layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartTile {
    /// Kind.
    pub kind: TileKindId,
    /// Cell.
    pub pos: Pos,
    /// Rotation.
    pub rotation: Rotation,
}
