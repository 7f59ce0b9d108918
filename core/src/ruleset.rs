//! The ruleset: everything fixed before a game starts (kinds, tiles, figures, options,
//! expansions), built once and shared by every game that uses it.

use crate::action::{ExpansionIndex, VerbId, VerbValue};
use crate::declare::{Binder, Binding, Declare};
use crate::figure::{FigureKindDef, FigureKindId};
use crate::hooks::{BoundExpansion, Expansion};
use crate::kind::{FeatureKindDef, FeatureKindId};
use crate::options::{OptionDef, OptionValue, Options};
use crate::prompt::Prompt;
use crate::slot::SlotDef;
use crate::tile::{TileCatalog, TileDataError, TileSetData};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Farm scoring edition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FarmScoring {
    /// 3rd edition (DEFAULT): each farm pays 3 per completed bordering city to its majority.
    Third,
    /// 2nd edition: farm by farm, but a city pays a given player at most once.
    Second,
    /// 1st edition: city by city, 4 points to the players with most farmers around it.
    First,
}

/// The base-game options, parsed once for the hot paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BaseRules {
    /// `farmScoring`.
    pub farm_scoring: FarmScoring,
    /// `smallCity` = `1st/2nd`: a completed 2-tile city scores 1 per tile and pennant.
    pub small_city_halved: bool,
    /// `farmers`: whether figures may be deployed on fields.
    pub farmers: bool,
}

/// Handle of a registered score label (points outside feature scoring: `king`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LabelId(pub u16);

/// Why a ruleset could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// A tile file is wrong.
    #[error(transparent)]
    Tiles(#[from] TileDataError),
    /// An option key nobody declared.
    #[error("unknown option `{key}` (known: {known})")]
    UnknownOption {
        /// The key.
        key: String,
        /// Declared keys.
        known: String,
    },
    /// An option value of the wrong type or out of range.
    #[error("option `{key}`: `{value}` is not allowed ({expected})")]
    BadOptionValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What is allowed.
        expected: String,
    },
    /// Something declared twice.
    #[error("{what} `{name}` is declared twice")]
    Duplicate {
        /// What kind of thing.
        what: &'static str,
        /// Its name.
        name: String,
    },
    /// An expansion refused the setup.
    #[error("expansion `{expansion}`: {message}")]
    Expansion {
        /// Expansion id.
        expansion: String,
        /// Its message.
        message: String,
    },
    /// A limit of the engine was exceeded.
    #[error("{0}")]
    Limit(String),
}

/// What a gate kept out of line waits for ([`BoundExpansion::hooks_once_supply_empty`],
/// [`BoundExpansion::hooks_while_holes`], [`crate::FigureGate`]); slot gates
/// ([`crate::HookGate`]) are kept in their own list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StateGate {
    /// No tile is left to draw ([`crate::TileSupply::remaining`] is 0).
    SupplyEmpty,
    /// The board has a hole ([`crate::Board::holes`] is not 0).
    Holes,
    /// Some player has fewer figures of the kind in supply than its `per_player`.
    FigureOut(crate::figure::FigureKindId, u8),
}

/// A gate as an expansion asks for it, before the build sorts it into its list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GateOn {
    /// A game slot of the expansion is not 0 (checked inline).
    Slot(crate::slot::SlotId),
    /// The supply or the figures (checked out of line).
    State(StateGate),
}

/// The windows that follow a placement in the same turn, whose implementers may say which
/// placed tile kinds they act after ([`BoundExpansion::opens_window_for`]).
const PLACED_WINDOWS: [crate::hooks::Window; 3] = [
    crate::hooks::Window::AfterDeploy,
    crate::hooks::Window::BeforeScoring,
    crate::hooks::Window::AfterScoring,
];

/// A gate the ruleset refuses, as the error of the expansion that asked for it.
#[cold]
fn gate_error(rules: &Ruleset, i: usize, from: &str, message: &str) -> SetupError {
    SetupError::Expansion {
        expansion: rules.expansions[i].id.clone(),
        message: format!("{from}: {message}"),
    }
}

/// The fixed rules of a game: vocabulary, tiles, options and expansions.
pub struct Ruleset {
    pub(crate) kinds: Vec<FeatureKindDef>,
    pub(crate) figures: Vec<FigureKindDef>,
    pub(crate) tiles: TileCatalog,
    pub(crate) option_defs: Vec<OptionDef>,
    pub(crate) options: Options,
    pub(crate) base: BaseRules,
    pub(crate) expansions: Vec<ExpansionMeta>,
    /// Each expansion's bound hooks, in load order.
    pub(crate) bound: Vec<Box<dyn BoundExpansion>>,
    /// Each expansion's [`BoundExpansion::hook_set`], read once at build.
    pub(crate) hook_sets: Vec<crate::hooks::HookSet>,
    /// The union of `hook_sets`.
    pub(crate) any_hooks: crate::hooks::HookSet,
    /// Every deployment filter keeps the pass ([`Ruleset::deploy_pass_kept`]).
    pub(crate) deploy_pass_kept: bool,
    /// The expansions whose prompts at the game's end may be passed unlisted (bit `i` =
    /// expansion `i`, the first 64 only): [`Ruleset::passes_at_end`].
    pub(crate) end_pass_owners: u64,
    /// Per hook bit: which expansions implement it (bit `i` = expansion `i`; bit 63
    /// also stands for every later one).
    pub(crate) hook_members: [u64; 32],
    /// Per pipeline hook bit: the implementers that gate it on a slot (as in `hook_members`).
    pub(crate) gated_members: [u64; 32],
    /// `(expansion, slot)` of every slot gate, grouped by hook bit (`gate_ranges`), so that a
    /// gated call reads only its own hook's gates (usually one).
    pub(crate) gates: Vec<(usize, crate::slot::SlotId)>,
    /// Per hook bit: the range of `gates` gating that hook.
    pub(crate) gate_ranges: [(usize, usize); 32],
    /// The gates on the supply or the figures (`hooks_once_supply_empty`, `figure_gates`),
    /// grouped the same way; read only for the implementers in `state_gated`.
    pub(crate) state_gates: Vec<(usize, StateGate)>,
    /// Per hook bit: the range of `state_gates` gating that hook.
    pub(crate) state_gate_ranges: [(usize, usize); 32],
    /// Per hook bit: the implementers with a gate in `state_gates` (as in `hook_members`).
    pub(crate) state_gated: [u64; 32],
    /// Per hook bit: the implementers that wait for the empty supply
    /// (`hooks_once_supply_empty`; bits as in `hook_members`), for [`Ruleset::all_shut`].
    pub(crate) supply_gated: [u64; 32],
    /// Per tile kind: bit `i` = expansion `i` filters its placements (bit 63: any of
    /// expansions 63 and up).
    pub(crate) placement_filters: Vec<u64>,
    /// Per tile kind: the implementers of `on_tile_placed` that act on it
    /// ([`BoundExpansion::on_tile_placed_for`]; bits as in `placement_filters`).
    pub(crate) placed_members: Vec<u64>,
    /// Per tile kind: the implementers of `open_window` for each of the windows after a
    /// placement (`PLACED_WINDOWS`) that act after a tile of that kind
    /// ([`BoundExpansion::opens_window_for`]; bits as in `placement_filters`).
    pub(crate) window_members: Vec<[u64; 3]>,
    /// Per window of `PLACED_WINDOWS`: whether some implementer said no for some tile kind
    /// (otherwise `window_members` is not read: every implementer is called).
    pub(crate) filtered_windows: [bool; 3],
    pub(crate) verbs: Vec<(ExpansionIndex, String)>,
    /// Per verb, the words declared for players (empty: none) and its value's meaning.
    pub(crate) verb_words: Vec<(String, VerbValue)>,
    /// Per verb, whether it is a draw by chance ([`crate::Declare::verb_by_chance`]): a
    /// look-up, since bots ask of every offer of a prompt (a bazaar's 21 bids).
    pub(crate) chance_verbs: Vec<bool>,
    /// Whether some verb is ([`Ruleset::has_chance_verbs`]).
    pub(crate) any_chance_verb: bool,
    /// Per (expansion, prompt tag), the words declared for players.
    pub(crate) prompt_texts: Vec<(ExpansionIndex, u16, String)>,
    pub(crate) labels: Vec<String>,
    pub(crate) slots: Vec<SlotDef>,
    /// Per feature kind: the follower kinds that may be deployed on it, in kind order
    /// (what every deployment step asks of every segment of the placed tile).
    pub(crate) followers_on: Vec<Vec<FigureKindId>>,
    /// `followers_on` as bit masks (bit `k` = figure kind `k`) for the deployment step's
    /// offers, 0 where core offers nothing (a kind not occupiable; a field without
    /// `farmers`); empty when a follower kind's id is 64 or more (then the lists are read).
    pub(crate) follower_masks: Vec<u64>,
    /// The union of `follower_masks`: the follower kinds core may offer at all.
    pub(crate) follower_kinds: u64,
    /// The follower kinds (bits as in `follower_masks`) whose figures occupy a feature.
    pub(crate) occupying_followers: u64,
    /// Per figure kind: where its figures start within a player's figures (the kinds
    /// before it, times their `per_player`).
    pub(crate) figure_offsets: Vec<u16>,
    /// Declared overlays ([`crate::overlay`]).
    pub(crate) overlays: Vec<crate::overlay::Overlay>,
    /// Per edge code (0 field, k + 1 edge kind k): bit `c` set when it may face edge code
    /// `c` without joining ([`Declare::edge_meets`]); empty in most games, which then
    /// match edges exactly.
    pub(crate) edge_meets: Vec<u128>,
    /// The segment tags carried into features' totals, bit `i` for tag `i`
    /// ([`crate::Declare::segment_mark`]).
    pub(crate) mark_tags: Vec<String>,
    /// Bit `c`: edge code `c` is of a kind that declared an `edge_meets` (a gate): only a
    /// side with such an edge on one of its two tiles can fit other than exactly.
    pub(crate) edge_declarers: u128,
    /// The declaring codes of `edge_declarers` each repeated in the four bytes of a word,
    /// while there are at most four (one gate kind is the usual case), for
    /// [`Ruleset::edges_declaring`]'s byte compare; empty with more.
    pub(crate) declarer_words: Vec<u32>,
    /// The slot of the first overlay that amends placements, if any.
    pub(crate) amends: Option<crate::slot::PlayerSlot>,
    /// The engine routines `View` and `Ctx` call: the builder's (the host's) copies.
    pub(crate) routines: crate::engine::Routines,
    /// Per hook bit: the implementers that wait for a hole on the board
    /// (`hooks_while_holes`; bits as in `hook_members`), for [`Ruleset::all_shut`].
    pub(crate) holes_gated: [u64; 32],
    /// Per hook bit: the implementers [`Ruleset::all_shut`] can find shut, those with a slot
    /// gate or waiting for the supply or a hole (never bit 63, which may stand for several).
    pub(crate) shut_gated: [u64; 32],
    /// Per tile kind, what the amended placement loop reads of it (empty when no overlay
    /// amends placements).
    pub(crate) amend_kinds: Vec<crate::engine::AmendKind>,
    /// Per hook bit: the conditions that together find every implementer shut, when there
    /// are some ([`Ruleset::quick_shut`]: `SHUT_BY_*` bits, a slot id in bits 16 and up;
    /// 0: none).
    pub(crate) shut_tests: [u32; 32],
    /// [`Ruleset::edges_exact`].
    pub(crate) edges_exact: bool,
}

/// [`Ruleset::shut_tests`]: some implementer waits for the empty supply (shut while tiles
/// are left).
const SHUT_BY_SUPPLY: u32 = 1;
/// Some implementer waits for a hole (shut while the board has none).
const SHUT_BY_HOLES: u32 = 2;
/// One implementer gates the hook on the game slot whose id is in bits 16 and up (shut while
/// it reads 0).
const SHUT_BY_SLOT: u32 = 4;
/// With [`SHUT_BY_HOLES`]: some implementer that waits for a hole has no slot gate on the
/// hook, so a hole on the board (the supply's condition holding) opens it: the test's "no"
/// is then exact, and [`Ruleset::all_shut`] need not go gate by gate.
const OPEN_BY_HOLES: u32 = 8;
/// With [`SHUT_BY_SLOT`]: the slot is that implementer's only slot gate on the hook, so the
/// slot not 0 (the other conditions holding) opens it: an exact "no", as above.
const OPEN_BY_SLOT: u32 = 16;
/// With [`SHUT_BY_HOLES`] and no other implementer left for a slot: the one implementer that
/// waits for a hole has one slot gate on the hook, its id in bits 16 and up; with a hole on
/// the board (the supply's condition holding) that slot alone answers (Abbey & Mayor's abbey
/// window, gated on a hole and on `abbey-live`).
const HOLES_THEN_SLOT: u32 = 32;
/// The conditions of a test on one thing each ([`SHUT_BY_SUPPLY`], [`SHUT_BY_HOLES`],
/// [`SHUT_BY_SLOT`]); a test with none of them is none, or one on two slots ([`TWO_SLOTS`]).
const ONE_THING: u32 = SHUT_BY_SUPPLY | SHUT_BY_HOLES | SHUT_BY_SLOT;
/// Without any of [`ONE_THING`]: the hook's two implementers each gate it on a game slot,
/// whose ids are in bits 20 and up and in bits 8 to 19 (shut while both read 0): the
/// nine's `BeforeScoring` window, the Count's redeployment (`in-city`) and the dragon's
/// flight (`flight-pending`).
const TWO_SLOTS: u32 = 64;
/// With [`TWO_SLOTS`]: the first slot is its implementer's only slot gate on the hook, so
/// that slot not 0 opens it (an exact "no", as [`OPEN_BY_SLOT`]).
const OPEN_BY_FIRST: u32 = 128;
/// With [`TWO_SLOTS`]: the same for the second slot.
const OPEN_BY_SECOND: u32 = 16;
/// The largest slot id a [`TWO_SLOTS`] test holds (12 bits each).
const TWO_SLOTS_MAX: u16 = 0xfff;

impl std::fmt::Debug for Ruleset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ruleset")
            .field(
                "expansions",
                &self
                    .expansions
                    .iter()
                    .map(|e| e.id().to_string())
                    .collect::<Vec<_>>(),
            )
            .field("tiles", &self.tiles.len())
            .field("options", &self.options)
            .finish()
    }
}

impl Ruleset {
    /// Starts building a ruleset with the base game's kinds, figure and options.
    pub fn builder() -> RulesetBuilder {
        RulesetBuilder::new()
    }

    /// Feature kinds, indexed by [`FeatureKindId`].
    pub fn kinds(&self) -> &[FeatureKindDef] {
        &self.kinds
    }

    /// A feature kind.
    #[inline]
    pub fn kind(&self, k: FeatureKindId) -> &FeatureKindDef {
        &self.kinds[k.0 as usize]
    }

    /// Finds a feature kind by name.
    pub fn kind_named(&self, name: &str) -> Option<FeatureKindId> {
        self.kinds
            .iter()
            .position(|k| k.name == name)
            .map(|i| FeatureKindId(i as u8))
    }

    /// Figure kinds, indexed by [`FigureKindId`].
    pub fn figure_kinds(&self) -> &[FigureKindDef] {
        &self.figures
    }

    /// A figure kind.
    #[inline]
    pub fn figure_kind(&self, k: FigureKindId) -> &FigureKindDef {
        &self.figures[k.0 as usize]
    }

    /// Finds a figure kind by name.
    pub fn figure_named(&self, name: &str) -> Option<FigureKindId> {
        self.figures
            .iter()
            .position(|k| k.name == name)
            .map(|i| FigureKindId(i as u8))
    }

    /// The tile catalog.
    pub fn tiles(&self) -> &TileCatalog {
        &self.tiles
    }

    /// Declared options.
    pub fn option_defs(&self) -> &[OptionDef] {
        &self.option_defs
    }

    /// Chosen option values (defaults filled in).
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Parsed base-game options.
    pub fn base(&self) -> &BaseRules {
        &self.base
    }

    /// Each expansion's hook set, in load order.
    pub fn hook_sets(&self) -> &[crate::hooks::HookSet] {
        &self.hook_sets
    }

    /// Whether a deployment step always offers [`crate::Action::Pass`], and its filters
    /// judge each action by itself: every expansion that filters the step's offer says so
    /// ([`BoundExpansion::keeps_deploy_pass`]). Core always offers the pass.
    pub fn deploy_pass_kept(&self) -> bool {
        self.deploy_pass_kept
    }

    /// Whether a prompt of `owner` asked once the game is ending is passed without being
    /// listed in a game ended by [`crate::Game::end_now_passing`]: the owner offers the
    /// pass at every such prompt ([`BoundExpansion::offers_pass_at_end`]) and no prompt
    /// filter takes it out ([`BoundExpansion::keeps_prompt_pass`]). Only the first 64
    /// expansions can be.
    #[inline]
    pub fn passes_at_end(&self, owner: ExpansionIndex) -> bool {
        owner.0 < 64 && self.end_pass_owners & (1 << owner.0) != 0
    }

    /// Where the figures of `kind` start within each player's figures
    /// ([`crate::GameState::figures_of`]): a player's figures are laid out kind by kind in
    /// declaration order, `per_player` of each.
    #[inline]
    pub fn figure_offset(&self, kind: FigureKindId) -> usize {
        self.figure_offsets
            .get(kind.0 as usize)
            .map_or(0, |&o| o as usize)
    }

    /// The follower kinds that may be deployed on features of `kind`, in kind order.
    #[inline]
    pub fn followers_on(&self, kind: FeatureKindId) -> &[FigureKindId] {
        self.followers_on
            .get(kind.0 as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// Per feature kind, the follower kinds core's deployment step may offer on it as a
    /// bit mask (bit `k` = figure kind `k`), with the union of all of them and the ones that
    /// occupy; `None` when a follower kind's id is 64 or more.
    #[inline]
    pub(crate) fn follower_masks(&self) -> Option<(&[u64], u64, u64)> {
        (!self.follower_masks.is_empty()).then_some((
            self.follower_masks.as_slice(),
            self.follower_kinds,
            self.occupying_followers,
        ))
    }

    /// The expansions (bit `i` = expansion `i`; bit 63 also stands for every later one)
    /// whose placement filter applies to tile kind `tile`.
    #[inline]
    pub fn placement_filters(&self, tile: crate::tile::TileKindId) -> u64 {
        self.placement_filters
            .get(tile.0 as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The implementers of `on_tile_placed` (bit `i` = expansion `i`; bit 63 also stands
    /// for every later one) that act on a placed tile of kind `tile`
    /// ([`BoundExpansion::on_tile_placed_for`]).
    #[inline]
    pub fn tile_placed_members(&self, tile: crate::tile::TileKindId) -> u64 {
        self.placed_members
            .get(tile.0 as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The implementers of `open_window(window)` to call now (bits as in
    /// [`Ruleset::hook_members`]): for the windows after a placement, those that act after
    /// a tile of the kind of `state`'s last placed tile
    /// ([`BoundExpansion::opens_window_for`]); for the other windows, or with no tile
    /// placed, every implementer.
    #[inline]
    pub fn window_members(
        &self,
        window: crate::hooks::Window,
        state: &crate::state::GameState,
    ) -> u64 {
        let all = self.hook_members(crate::hooks::HookSet::window(window));
        let Some(w) = PLACED_WINDOWS.iter().position(|&p| p == window) else {
            return all;
        };
        if !self.filtered_windows[w] {
            return all;
        }
        state
            .last_placed()
            .and_then(|i| {
                let kind = state.board().tile(i).kind;
                self.window_members.get(kind.0 as usize)
            })
            .map_or(all, |m| m[w])
    }

    /// The expansions implementing one hook (bit `i` = expansion `i`; bit 63 also
    /// stands for every later one). `hook` must be a single hook of [`crate::HookSet`].
    #[inline]
    pub fn hook_members(&self, hook: crate::hooks::HookSet) -> u64 {
        self.hook_members[(hook.0.trailing_zeros() & 31) as usize]
    }

    /// The implementers of `hook` (one bit, as in [`Ruleset::hook_members`]) that gate it
    /// on a slot ([`crate::HookGate`]).
    #[inline]
    pub fn gated_members(&self, hook: crate::hooks::HookSet) -> u64 {
        self.gated_members[(hook.0.trailing_zeros() & 31) as usize]
    }

    /// Whether expansion `expansion`'s gates on `hook` are all open in `state` (true when
    /// it has none).
    #[inline(always)]
    pub fn gates_open(
        &self,
        hook: crate::hooks::HookSet,
        expansion: usize,
        state: &crate::state::GameState,
    ) -> bool {
        let b = (hook.0.trailing_zeros() & 31) as usize;
        let (start, end) = self.gate_ranges[b];
        self.gates[start..end]
            .iter()
            .all(|&(e, slot)| e != expansion || state.slot(slot, 0) != 0)
            && (self.state_gated[b] & (1 << expansion.min(63)) == 0
                || self.state_gates_open(b, expansion, state))
    }

    /// Whether every implementer in `members` of `hook` (one bit; `members` not 0) is shut:
    /// waits for the empty supply while tiles are left, for a hole while the board has none,
    /// or has a shut slot gate (figure gates are not read: `false` then). A caller skips the
    /// dispatch when so: with no hook run, nothing can open a gate during it, so the result
    /// is the same, without the call and the gate checks per implementer (Abbey & Mayor's
    /// abbey hooks, shut nearly every turn). Out of line: one copy, off the base game's
    /// path, which never reaches it (the callers test for implementers first), and off the
    /// hot section, whose functions keep their places. The usual answer comes from the test
    /// chosen at build ([`Ruleset::shut_tests`]: two to four loads, no register saved);
    /// the rest gate by gate ([`Ruleset::all_shut_by_gates`]).
    #[inline(never)]
    pub(crate) fn all_shut(
        &self,
        hook: crate::hooks::HookSet,
        members: u64,
        state: &crate::state::GameState,
    ) -> bool {
        let b = (hook.0.trailing_zeros() & 31) as usize;
        // With a test, every implementer of the hook waits for one of its conditions; its
        // "no" is exact too when a hole or the slot opened an implementer that has no other
        // gate (Abbey & Mayor's abbey window while the board has a hole), for the whole
        // set of implementers only (a placed window may ask about some of them).
        if let Some(shut) = self.quick_verdict(self.shut_tests[b], state) {
            if shut || members == self.hook_members[b] {
                debug_assert_eq!(shut, self.all_shut_by_gates(b, members, state));
                return shut;
            }
        }
        // An implementer no gate can shut (Princess & Dragon's `TurnStart` window): the
        // first answer of `all_shut_by_gates`, here without its frame.
        if members & !self.shut_gated[b] != 0 {
            return false;
        }
        self.all_shut_by_gates(b, members, state)
    }

    /// [`Ruleset::quick_shut`] with its exact "no": `Some(true)` when the test `t` finds
    /// every implementer shut, `Some(false)` when a hole or the slot opens one whose only
    /// gate it is ([`OPEN_BY_HOLES`], [`OPEN_BY_SLOT`]), `None` when it cannot tell (no
    /// test, the supply's short test failed, or the opened implementer has other gates).
    #[inline(always)]
    fn quick_verdict(&self, t: u32, state: &crate::state::GameState) -> Option<bool> {
        if t & ONE_THING == 0 {
            if t & TWO_SLOTS == 0 {
                return None;
            }
            let (first, second) = Self::two_slots(t, state);
            if first != Some(&0) {
                return (t & OPEN_BY_FIRST != 0).then_some(false);
            }
            if second != Some(&0) {
                return (t & OPEN_BY_SECOND != 0).then_some(false);
            }
            return Some(true);
        }
        if t & SHUT_BY_SUPPLY != 0 && !Self::tiles_left(state) {
            return None;
        }
        if t & SHUT_BY_HOLES != 0 && state.board.holes() != 0 {
            if t & OPEN_BY_HOLES != 0 {
                return Some(false);
            }
            return (t & HOLES_THEN_SLOT != 0).then(|| Self::test_slot(t, state) == Some(&0));
        }
        if t & SHUT_BY_SLOT != 0 && Self::test_slot(t, state) != Some(&0) {
            return (t & OPEN_BY_SLOT != 0).then_some(false);
        }
        Some(true)
    }

    /// The supply's condition of [`Ruleset::quick_shut`]: tiles in the first group beyond
    /// the hidden ones and no cap reached, so not exhausted ([`crate::TileSupply::is_exhausted`]
    /// sums every group; the rare other cases are left to the gates).
    #[inline(always)]
    fn tiles_left(state: &crate::state::GameState) -> bool {
        let s = &state.supply;
        s.draws_left != Some(0)
            && s.groups
                .first()
                .is_some_and(|g| g.tiles.len() > s.hidden as usize)
    }

    /// The slot of test `t` (bits 16 and up), read as `GameState::slot` does without its
    /// two bounds checks' panics (the slot is the ruleset's own: always there).
    #[inline(always)]
    fn test_slot(t: u32, state: &crate::state::GameState) -> Option<&i64> {
        state
            .slot_offsets
            .get((t >> 16) as usize)
            .and_then(|&o| state.slots.get(o as usize))
    }

    /// The two slots of a [`TWO_SLOTS`] test, read as [`Ruleset::test_slot`].
    #[inline(always)]
    fn two_slots(t: u32, state: &crate::state::GameState) -> (Option<&i64>, Option<&i64>) {
        let read = |id: u32| {
            state
                .slot_offsets
                .get(id as usize)
                .and_then(|&o| state.slots.get(o as usize))
        };
        (read(t >> 20), read((t >> 8) & u32::from(TWO_SLOTS_MAX)))
    }

    /// [`Ruleset::all_shut`] gate by gate, for hook bit `b`: an implementer without such a
    /// gate first (Princess & Dragon's `TurnStart` window), then the supply and the holes
    /// (one number each), then the slots for what is left.
    #[inline(never)]
    fn all_shut_by_gates(&self, b: usize, members: u64, state: &crate::state::GameState) -> bool {
        if members & !self.shut_gated[b] != 0 {
            return false;
        }
        let mut open = members;
        if open & self.supply_gated[b] != 0 && !state.supply.is_exhausted() {
            open &= !self.supply_gated[b];
        }
        if open & self.holes_gated[b] != 0 && state.board.holes() == 0 {
            open &= !self.holes_gated[b];
        }
        if open == 0 {
            return true;
        }
        let (start, end) = self.gate_ranges[b];
        for &(e, slot) in &self.gates[start..end] {
            if state.slot(slot, 0) == 0 {
                open &= !(1 << e.min(63));
            }
        }
        open == 0
    }

    /// Whether the test chosen at build for `hook` (one bit; [`Ruleset::shut_tests`]) finds
    /// every implementer of it shut in `state` (`false`: no test, or not found so).
    #[inline(always)]
    pub(crate) fn quick_shut_hook(
        &self,
        hook: crate::hooks::HookSet,
        state: &crate::state::GameState,
    ) -> bool {
        self.quick_shut(
            self.shut_tests[(hook.0.trailing_zeros() & 31) as usize],
            state,
        )
    }

    /// Whether the test `t` of a hook bit ([`Ruleset::shut_tests`]) finds every implementer
    /// of that hook shut in `state`: each of its conditions holds (tiles are left, the board
    /// has no hole, the slot reads 0), and each implementer waits for one of them. `false`
    /// says nothing (no test, or a condition does not hold): ask gate by gate.
    #[inline(always)]
    fn quick_shut(&self, t: u32, state: &crate::state::GameState) -> bool {
        // A test on two slots ([`TWO_SLOTS`]) answers in `all_shut` only: here, where most
        // hooks have no test, it would cost their calls a register save.
        if t & ONE_THING == 0 {
            return false;
        }
        if t & SHUT_BY_SUPPLY != 0 && !Self::tiles_left(state) {
            return false;
        }
        if t & SHUT_BY_HOLES != 0 && state.board.holes() != 0 {
            return false;
        }
        if t & SHUT_BY_SLOT != 0 && Self::test_slot(t, state) != Some(&0) {
            return false;
        }
        true
    }

    /// The test of hook bit `b` ([`Ruleset::shut_tests`]), from the gates sorted at build:
    /// the supply if some implementer waits for it, then the holes if some of the others
    /// wait for a hole, then the slot gate of the one implementer left, if it has one; or,
    /// with two implementers that wait for neither, a slot gate of each ([`TWO_SLOTS`]).
    /// None (0) when the implementers are not covered so, or with bit 63 among them (it
    /// may stand for several).
    fn shut_test(&self, b: usize) -> u32 {
        let members = self.hook_members[b];
        if members == 0 || members & (1 << 63) != 0 || members & !self.shut_gated[b] != 0 {
            return 0;
        }
        let mut t = 0;
        let mut left = members;
        if left & self.supply_gated[b] != 0 {
            t |= SHUT_BY_SUPPLY;
            left &= !self.supply_gated[b];
        }
        let (start, end) = self.gate_ranges[b];
        let slot_gates = |e: usize| self.gates[start..end].iter().filter(|g| g.0 == e).count();
        if left & self.holes_gated[b] != 0 {
            t |= SHUT_BY_HOLES;
            let holed = left & self.holes_gated[b];
            let mut m = holed;
            while m != 0 {
                if slot_gates(m.trailing_zeros() as usize) == 0 {
                    t |= OPEN_BY_HOLES;
                }
                m &= m - 1;
            }
            left &= !self.holes_gated[b];
            let one = holed.trailing_zeros() as usize;
            if t & OPEN_BY_HOLES == 0 && left == 0 && holed.count_ones() == 1 {
                if let Some(&(_, slot)) = self.gates[start..end].iter().find(|g| g.0 == one) {
                    if slot_gates(one) == 1 {
                        t |= HOLES_THEN_SLOT | u32::from(slot.0) << 16;
                    }
                }
            }
        }
        if left == 0 {
            return t;
        }
        if left.count_ones() == 1 {
            let one = left.trailing_zeros() as usize;
            if let Some(&(_, slot)) = self.gates[start..end].iter().find(|g| g.0 == one) {
                if slot_gates(one) == 1 {
                    t |= OPEN_BY_SLOT;
                }
                return t | SHUT_BY_SLOT | u32::from(slot.0) << 16;
            }
        }
        if t == 0 && left.count_ones() == 2 {
            let first = left.trailing_zeros() as usize;
            let second = (left & (left - 1)).trailing_zeros() as usize;
            let gate = |e: usize| self.gates[start..end].iter().find(|g| g.0 == e);
            if let (Some(&(_, a)), Some(&(_, b))) = (gate(first), gate(second)) {
                if a.0 <= TWO_SLOTS_MAX && b.0 <= TWO_SLOTS_MAX {
                    let mut t = TWO_SLOTS | u32::from(a.0) << 20 | u32::from(b.0) << 8;
                    if slot_gates(first) == 1 {
                        t |= OPEN_BY_FIRST;
                    }
                    if slot_gates(second) == 1 {
                        t |= OPEN_BY_SECOND;
                    }
                    return t;
                }
            }
        }
        0
    }

    /// For tests: per hook bit with a test ([`Ruleset::shut_tests`]), in bit order, the
    /// test's answers and the answer gate by gate in `state` (see [`ShutAnswer`]).
    #[doc(hidden)]
    pub fn shut_answers(&self, state: &crate::state::GameState) -> Vec<ShutAnswer> {
        (0..32)
            .filter(|&b| self.shut_tests[b] != 0)
            .map(|b| ShutAnswer {
                hook: crate::hooks::HookSet(1 << b),
                quick: self.quick_shut(self.shut_tests[b], state),
                verdict: self.quick_verdict(self.shut_tests[b], state),
                gates: self.all_shut_by_gates(b, self.hook_members[b], state),
            })
            .collect()
    }

    /// [`Ruleset::gates_open`] for the gates on the supply and the figures (few hooks have
    /// them: out of line, so that slot gates stay as cheap as before).
    #[inline(never)]
    fn state_gates_open(
        &self,
        b: usize,
        expansion: usize,
        state: &crate::state::GameState,
    ) -> bool {
        let (start, end) = self.state_gate_ranges[b];
        self.state_gates[start..end].iter().all(|&(e, on)| {
            e != expansion
                || match on {
                    StateGate::SupplyEmpty => state.supply.is_exhausted(),
                    StateGate::Holes => state.board.holes() > 0,
                    // Each player's count of `kind`, stepping through the counts (players
                    // times kinds) rather than indexing per player: a short loop with no
                    // bounds check, as this runs at every placement of a game with a barn.
                    StateGate::FigureOut(kind, per) => {
                        let counts = &state.in_supply;
                        let mut i = kind.0 as usize;
                        while i < counts.len() {
                            if counts[i] < per {
                                return true;
                            }
                            i += state.figure_kinds.max(1);
                        }
                        false
                    }
                }
        })
    }

    /// Whether any expansion implements one of `hooks`.
    #[inline]
    pub fn any_hooks(&self, hooks: crate::hooks::HookSet) -> bool {
        self.any_hooks.has(hooks)
    }

    /// Loaded expansions (id and version) in hook order.
    pub fn expansions(&self) -> &[ExpansionMeta] {
        &self.expansions
    }

    /// Each expansion's bound hooks, in the order of [`Ruleset::expansions`].
    pub fn bound(&self) -> &[Box<dyn BoundExpansion>] {
        &self.bound
    }

    /// Index of a loaded expansion by id.
    pub fn expansion_index(&self, id: &str) -> Option<ExpansionIndex> {
        self.expansions
            .iter()
            .position(|e| e.id() == id)
            .map(|i| ExpansionIndex(i as u8))
    }

    /// Registered verbs: owner and name.
    pub fn verbs(&self) -> &[(ExpansionIndex, String)] {
        &self.verbs
    }

    /// The words declared for a verb ([`crate::Declare::verb_in_words`]), if any.
    pub fn verb_text(&self, verb: VerbId) -> Option<&str> {
        self.verb_words
            .get(verb.0 as usize)
            .map(|(t, _)| t.as_str())
            .filter(|t| !t.is_empty())
    }

    /// Whether `verb` is a draw by chance ([`crate::Declare::verb_by_chance`]).
    #[inline]
    pub fn verb_by_chance(&self, verb: VerbId) -> bool {
        self.chance_verbs.get(verb.0 as usize) == Some(&true)
    }

    /// Whether some verb is a draw by chance (most rulesets have none: bots skip the check).
    #[inline(always)]
    pub fn has_chance_verbs(&self) -> bool {
        self.any_chance_verb
    }

    /// What a verb's action value means ([`crate::Declare::verb_value`]).
    pub fn verb_value(&self, verb: VerbId) -> VerbValue {
        self.verb_words
            .get(verb.0 as usize)
            .map_or(VerbValue::Number, |(_, v)| *v)
    }

    /// The words declared for a prompt's question ([`crate::Declare::prompt_in_words`]).
    pub fn prompt_text(&self, prompt: Prompt) -> Option<&str> {
        let tag = prompt.code().tag;
        self.prompt_texts
            .iter()
            .find(|(o, t, text)| *o == prompt.owner && *t == tag && !text.is_empty())
            .map(|(_, _, text)| text.as_str())
    }

    /// A verb by owner and name.
    pub fn verb_named(&self, owner: ExpansionIndex, name: &str) -> Option<VerbId> {
        self.verbs
            .iter()
            .position(|(o, n)| *o == owner && n == name)
            .map(|i| VerbId(i as u16))
    }

    /// Registered score labels.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Declared state slots.
    pub fn slots(&self) -> &[SlotDef] {
        &self.slots
    }

    /// Declared overlays ([`crate::overlay`]).
    pub fn overlays(&self) -> &[crate::overlay::Overlay] {
        &self.overlays
    }

    /// Whether an expansion lets different edges face each other
    /// ([`Declare::edge_meets`]): placements are then matched side by side.
    #[inline]
    pub fn loose_edges(&self) -> bool {
        !self.edge_meets.is_empty()
    }

    /// The segment tags carried into features' totals, in bit order
    /// ([`crate::Declare::segment_mark`]).
    pub fn segment_mark_tags(&self) -> &[String] {
        &self.mark_tags
    }

    /// The mark of segment tag `tag`, if some expansion asked for it
    /// ([`crate::Declare::segment_mark`]).
    pub fn segment_mark(&self, tag: &str) -> Option<crate::graph::SegmentMark> {
        let bit = self.mark_tags.iter().position(|t| t == tag)?;
        Some(crate::graph::SegmentMark(1 << bit))
    }

    /// Whether every placed tile matches each neighbour's edge exactly: no tile kind is a
    /// barrier (the abbey meets any edge) and no edges are declared to meet
    /// ([`Ruleset::loose_edges`]). Every placement and overlay is checked against its
    /// neighbours, so a tile changed in place (a variant, a bridge) then needs a look only
    /// where it differs from the tile it replaces.
    #[inline]
    pub fn edges_exact(&self) -> bool {
        self.edges_exact
    }

    /// Whether a tile whose edges turned as placed are `code` fits a cell whose
    /// neighbours ask `(want, mask)` ([`crate::Board::constraints`]): equal edges, or a
    /// pair declared with [`Declare::edge_meets`].
    #[inline]
    pub fn edges_fit(&self, code: u32, want: u32, mask: u32) -> bool {
        // Only the sides whose edges differ need a look at the table.
        let mut diff = (code & mask) ^ want;
        while diff != 0 {
            let shift = diff.trailing_zeros() & !7;
            if !self.edges_meet((code >> shift) as u8, (want >> shift) as u8) {
                return false;
            }
            diff &= !(0xFF << shift);
        }
        true
    }

    /// Whether any of the four edge codes packed in `code` is of a kind that declared an
    /// `edge_meets`: without one on either tile of a side, that side fits only exactly.
    #[inline]
    pub fn edges_declaring(&self, code: u32) -> bool {
        if !self.declarer_words.is_empty() {
            // Few declaring codes: a byte-wise compare per code, as cheap as the exact
            // match it guards.
            return self
                .declarer_words
                .iter()
                .any(|w| shared_byte_marks(code, *w) != 0);
        }
        (0..4).any(|s| {
            let c = (code >> (8 * s)) as u8;
            c < 128 && self.edge_declarers & (1 << c) != 0
        })
    }

    /// Whether any of `wants` ([`crate::board::FrontierCell::want`]) has a declaring edge
    /// ([`Ruleset::edges_declaring`]). With one declaring code (one gate kind), one pass
    /// without a branch a cell: asked at every draw of a game with `edge_meets`, where the
    /// answer is nearly always no.
    #[inline]
    pub fn any_declaring(&self, mut wants: impl Iterator<Item = u32>) -> bool {
        if let [w] = self.declarer_words.as_slice() {
            return wants.fold(0, |marks, want| marks | shared_byte_marks(want, *w)) != 0;
        }
        wants.any(|w| self.edges_declaring(w))
    }

    /// Whether edges of codes `mine` and `theirs` were declared to face each other
    /// without joining ([`Declare::edge_meets`]).
    #[inline]
    pub fn edges_meet(&self, mine: u8, theirs: u8) -> bool {
        self.edge_meets
            .get(mine as usize)
            .is_some_and(|bits| theirs < 128 && bits & (1 << theirs) != 0)
    }

    /// Whether an edge of code `mine` facing an edge of code `theirs` joins the two
    /// segments (equal non-field codes, not declared to meet without joining).
    #[inline]
    pub fn edges_join(&self, mine: u8, theirs: u8) -> bool {
        mine != 0 && mine == theirs && !self.edges_meet(mine, mine)
    }
}

/// Not 0 exactly when some byte of `code` equals the same byte of `word` (a byte of their
/// XOR is zero: the classic zero-byte test), without a branch per byte.
#[inline(always)]
fn shared_byte_marks(code: u32, word: u32) -> u32 {
    let x = code ^ word;
    x.wrapping_sub(0x0101_0101) & !x & 0x8080_8080
}

/// Who an expansion of a ruleset is (its hooks are in [`Ruleset::bound`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpansionMeta {
    id: String,
    version: String,
}

impl ExpansionMeta {
    /// Stable id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Version.
    pub fn version(&self) -> &str {
        &self.version
    }
}

/// The deployment step's per-feature-kind follower masks (`Ruleset::follower_masks`): the
/// masks, their union and the occupying kinds among them; all empty or 0 when a follower
/// kind's id does not fit a `u64`'s bits.
fn follower_masks(
    kinds: &[FeatureKindDef],
    figures: &[FigureKindDef],
    followers_on: &[Vec<FigureKindId>],
    farmers: bool,
) -> (Vec<u64>, u64, u64) {
    if followers_on.iter().flatten().any(|f| f.0 >= 64) {
        return (Vec::new(), 0, 0);
    }
    let masks: Vec<u64> = followers_on
        .iter()
        .zip(kinds)
        .map(|(list, def)| {
            if !def.occupiable || (def.shape == crate::kind::Shape::Field && !farmers) {
                return 0;
            }
            list.iter().fold(0, |m, f| m | 1 << f.0)
        })
        .collect();
    let all = masks.iter().fold(0, |m, k| m | k);
    let occupying = (0..64)
        .filter(|&k| all & (1 << k) != 0 && figures.get(k).is_some_and(|d| d.occupies()))
        .fold(0, |m, k| m | 1 << k);
    (masks, all, occupying)
}

/// Builds a [`Ruleset`]; see [`Ruleset::builder`].
pub struct RulesetBuilder {
    kinds: Vec<FeatureKindDef>,
    figures: Vec<FigureKindDef>,
    tile_sets: Vec<TileSetData>,
    option_defs: Vec<OptionDef>,
    chosen: BTreeMap<String, OptionValue>,
    chosen_text: BTreeMap<String, String>,
    expansions: Vec<Arc<dyn Expansion>>,
    extra_options: Vec<OptionDef>,
}

impl RulesetBuilder {
    fn new() -> RulesetBuilder {
        RulesetBuilder {
            kinds: FeatureKindDef::base_kinds(),
            figures: vec![FigureKindDef::small_follower()],
            tile_sets: Vec::new(),
            option_defs: vec![
                OptionDef::choice(
                    "farmScoring",
                    &["3rd", "2nd", "1st"],
                    "A-13/A-14 farm scoring edition",
                ),
                OptionDef::choice(
                    "smallCity",
                    &["normal", "1st/2nd"],
                    "A-15 value of a completed 2-tile city",
                ),
                OptionDef::flag(
                    "farmers",
                    true,
                    "whether followers may be deployed on fields",
                ),
            ],
            chosen: BTreeMap::new(),
            chosen_text: BTreeMap::new(),
            expansions: Vec::new(),
            extra_options: Vec::new(),
        }
    }

    /// Adds a tile set (checked when the ruleset is built, after expansions declared their kinds).
    pub fn tiles(mut self, data: TileSetData) -> Self {
        self.tile_sets.push(data);
        self
    }

    /// Adds an expansion; hooks run in the order expansions are added. The same value
    /// may join any number of rulesets.
    pub fn expansion(mut self, e: Arc<dyn Expansion>) -> Self {
        self.expansions.push(e);
        self
    }

    /// Declares an option on behalf of an expansion (its key already namespaced, e.g. from
    /// a manifest). Declaring a key twice is an error at [`RulesetBuilder::build`].
    pub fn declare_option(mut self, def: OptionDef) -> Self {
        self.extra_options.push(def);
        self
    }

    /// Chooses an option value.
    pub fn option(mut self, key: &str, value: OptionValue) -> Self {
        self.chosen_text.remove(key);
        self.chosen.insert(key.to_string(), value);
        self
    }

    /// Chooses an option value as text (`on`, `2nd`, `3`), typed by its declaration when
    /// the ruleset is built, so a caller needs no declarations to pass user input on.
    pub fn option_text(mut self, key: &str, text: &str) -> Self {
        self.chosen.remove(key);
        self.chosen_text.insert(key.to_string(), text.to_string());
        self
    }

    /// Runs every expansion's setup, checks the tiles and the options.
    pub fn build(mut self) -> Result<Ruleset, SetupError> {
        if self.expansions.len() > u8::MAX as usize {
            return Err(SetupError::Limit("at most 255 expansions".into()));
        }
        for def in std::mem::take(&mut self.extra_options) {
            if self.option_defs.iter().any(|d| d.key == def.key) {
                return Err(SetupError::Duplicate {
                    what: "option",
                    name: def.key,
                });
            }
            self.option_defs.push(def);
        }
        let mut verbs = Vec::new();
        let mut verb_words = Vec::new();
        let mut chance_verbs = Vec::new();
        let mut prompt_texts = Vec::new();
        let mut labels = Vec::new();
        let mut slots = Vec::new();
        let mut overlays = Vec::new();
        let mut edge_meets = Vec::new();
        let mut mark_tags = Vec::new();
        let expansions = std::mem::take(&mut self.expansions);
        let mut metas = Vec::with_capacity(expansions.len());
        let mut binders: Vec<Box<dyn Binder>> = Vec::with_capacity(expansions.len());
        for (i, e) in expansions.iter().enumerate() {
            let id = e.id().to_string();
            if metas.iter().any(|m: &ExpansionMeta| m.id == id) {
                return Err(SetupError::Duplicate {
                    what: "expansion",
                    name: id,
                });
            }
            let mut d = Declare {
                me: ExpansionIndex(i as u8),
                id: &id,
                kinds: &mut self.kinds,
                figures: &mut self.figures,
                tile_sets: &mut self.tile_sets,
                option_defs: &mut self.option_defs,
                verbs: &mut verbs,
                verb_words: &mut verb_words,
                chance_verbs: &mut chance_verbs,
                prompt_texts: &mut prompt_texts,
                labels: &mut labels,
                slots: &mut slots,
                overlays: &mut overlays,
                edge_meets: &mut edge_meets,
                mark_tags: &mut mark_tags,
            };
            binders.push(e.declare(&mut d).map_err(|message| SetupError::Expansion {
                expansion: id.clone(),
                message: message.0,
            })?);
            metas.push(ExpansionMeta {
                id,
                version: e.version().to_string(),
            });
        }
        if self.kinds.len() > 64 {
            return Err(SetupError::Limit("at most 64 feature kinds".into()));
        }
        self.declare_size_options();
        for (key, text) in std::mem::take(&mut self.chosen_text) {
            let value = match self.option_defs.iter().find(|d| d.key == key) {
                Some(def) => OptionValue::parse(&def.ty, &text).ok_or_else(|| {
                    SetupError::BadOptionValue {
                        key: key.clone(),
                        value: text.clone(),
                        expected: describe(&def.ty),
                    }
                })?,
                // Unknown keys are reported below with the known ones.
                None => OptionValue::Str(text),
            };
            self.chosen.insert(key, value);
        }
        let mut options = Options::default();
        for (key, value) in &self.chosen {
            let def = self
                .option_defs
                .iter()
                .find(|d| &d.key == key)
                .ok_or_else(|| SetupError::UnknownOption {
                    key: key.clone(),
                    known: self
                        .option_defs
                        .iter()
                        .map(|d| d.key.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                })?;
            if !value.fits(&def.ty) {
                return Err(SetupError::BadOptionValue {
                    key: key.clone(),
                    value: value.to_string(),
                    expected: describe(&def.ty),
                });
            }
        }
        for def in &self.option_defs {
            let v = self
                .chosen
                .get(&def.key)
                .cloned()
                .unwrap_or_else(|| def.default.clone());
            options.0.insert(def.key.clone(), v);
        }
        let mut tiles = self.apply_size_options(&options)?;
        add_variants(&mut tiles, &overlays, &self.kinds);
        tiles.mark_segments(&mark_tags);
        let amends = overlays.iter().find_map(|o| o.amends);
        let base = BaseRules {
            farm_scoring: match options.str("farmScoring") {
                "2nd" => FarmScoring::Second,
                "1st" => FarmScoring::First,
                _ => FarmScoring::Third,
            },
            small_city_halved: options.str("smallCity") == "1st/2nd",
            farmers: options.flag("farmers"),
        };
        let followers_on = (0..self.kinds.len())
            .map(|k| {
                let kind = FeatureKindId(k as u8);
                (0..self.figures.len())
                    .filter(|&f| {
                        let takes = &self.kinds[k].takes;
                        self.figures[f].follower
                            && self.figures[f].neutral == 0
                            && self.figures[f].deploy_on.contains(kind)
                            && (takes.is_empty() || takes.contains(&self.figures[f].name))
                    })
                    .map(|f| FigureKindId(f as u8))
                    .collect()
            })
            .collect::<Vec<Vec<FigureKindId>>>();
        let (follower_masks, follower_kinds, occupying_followers) =
            follower_masks(&self.kinds, &self.figures, &followers_on, base.farmers);
        let figure_offsets = self
            .figures
            .iter()
            .scan(0u16, |at, def| {
                let start = *at;
                *at = at.saturating_add(u16::from(def.per_player));
                Some(start)
            })
            .collect();
        let amend_kinds = crate::engine::AmendKind::table(&tiles, &overlays);
        let edges_exact = edge_meets.is_empty()
            && (0..tiles.len()).all(|i| !tiles.get(crate::tile::TileKindId(i as u16)).barrier);
        // One code of each pair marks where the side-by-side match is needed: a side
        // fits other than exactly only with both codes of a pair facing, so either one
        // would do. The declaring kind (the gate) is taken, or the other kind when the
        // pair was declared field first: the field's code 0 is never taken, as every
        // cell has field or empty sides.
        let declarers = edge_meets.iter().fold(0u128, |m, &(a, b)| {
            let c = if a != 0 { a } else { b };
            m | if c != 0 && c < 128 { 1u128 << c } else { 0 }
        });
        let mut rules = Ruleset {
            followers_on,
            follower_masks,
            follower_kinds,
            occupying_followers,
            figure_offsets,
            hook_members: [0; 32],
            gated_members: [0; 32],
            gates: Vec::new(),
            gate_ranges: [(0, 0); 32],
            state_gates: Vec::new(),
            state_gate_ranges: [(0, 0); 32],
            state_gated: [0; 32],
            supply_gated: [0; 32],
            placement_filters: Vec::new(),
            placed_members: Vec::new(),
            window_members: Vec::new(),
            filtered_windows: [false; 3],
            hook_sets: Vec::new(),
            any_hooks: crate::hooks::HookSet::NONE,
            deploy_pass_kept: true,
            end_pass_owners: 0,
            kinds: self.kinds,
            figures: self.figures,
            tiles,
            option_defs: self.option_defs,
            options,
            base,
            expansions: metas,
            bound: Vec::new(),
            any_chance_verb: !chance_verbs.is_empty(),
            chance_verbs: {
                let mut by_verb = vec![false; verbs.len()];
                for v in &chance_verbs {
                    by_verb[v.0 as usize] = true;
                }
                by_verb
            },
            verbs,
            verb_words,
            prompt_texts,
            labels,
            slots,
            overlays,
            amends,
            routines: crate::engine::Routines::HERE,
            holes_gated: [0; 32],
            shut_gated: [0; 32],
            amend_kinds,
            shut_tests: [0; 32],
            edges_exact,
            edge_meets: meets_table(&edge_meets),
            mark_tags,
            edge_declarers: declarers,
            declarer_words: if declarers.count_ones() <= 4 {
                (0..128u32)
                    .filter(|c| declarers >> c & 1 != 0)
                    .map(|c| c * 0x0101_0101)
                    .collect()
            } else {
                Vec::new()
            },
        };
        // Bind: every expansion reads the complete vocabulary and options once.
        let mut bound = Vec::with_capacity(binders.len());
        for (i, b) in binders.into_iter().enumerate() {
            let binding = Binding {
                rules: &rules,
                me: ExpansionIndex(i as u8),
                id: rules.expansions[i].id(),
            };
            bound.push(b.bind(&binding).map_err(|m| SetupError::Expansion {
                expansion: rules.expansions[i].id.clone(),
                message: format!("bind: {}", m.0),
            })?);
        }
        rules.bound = bound;
        // What each expansion hooks.
        let hook_sets: Vec<crate::hooks::HookSet> =
            rules.bound.iter().map(|e| e.hook_set()).collect();
        for (i, h) in hook_sets.iter().enumerate() {
            rules.any_hooks = rules.any_hooks | *h;
            for (b, m) in rules.hook_members.iter_mut().enumerate() {
                if h.0 & (1 << b) != 0 {
                    *m |= 1 << i.min(63);
                }
            }
        }
        // Per gated hook bit: (bit, expansion, condition), slot gates and the others apart.
        let mut slot_gates: Vec<(u8, usize, crate::slot::SlotId)> = Vec::new();
        let mut state_gates: Vec<(u8, usize, StateGate)> = Vec::new();
        for (i, (e, h)) in rules.bound.iter().zip(&hook_sets).enumerate() {
            // Every gate of the expansion as (hooks, condition, what asked for it).
            let mut asked: Vec<(crate::hooks::HookSet, GateOn, &str)> = Vec::new();
            let once_empty = e.hooks_once_supply_empty();
            asked.push((
                once_empty,
                GateOn::State(StateGate::SupplyEmpty),
                "hooks_once_supply_empty",
            ));
            asked.push((
                e.hooks_while_holes(),
                GateOn::State(StateGate::Holes),
                "hooks_while_holes",
            ));
            for gate in e.figure_gates() {
                // A kind set to 0 per player (`figures.barn=0`, a JCZ set-up) keeps its
                // gate shut all game: nothing of it is ever out.
                let Some(per) = rules
                    .figures
                    .get(gate.kind.0 as usize)
                    .map(|d| d.per_player)
                else {
                    return Err(gate_error(
                        &rules,
                        i,
                        "figure_gates",
                        "gates on a figure kind that is not declared",
                    ));
                };
                asked.push((
                    gate.hooks,
                    GateOn::State(StateGate::FigureOut(gate.kind, per)),
                    "figure_gates",
                ));
            }
            for gate in e.hook_gates() {
                let slot = gate.slot.id();
                let own = rules.slots.get(slot.0 as usize).is_some_and(|d| {
                    d.expansion.0 as usize == i && d.scope == crate::slot::SlotScope::Game
                });
                if !own {
                    return Err(gate_error(
                        &rules,
                        i,
                        "hook_gates",
                        "gates on a slot that is not one of its own game slots",
                    ));
                }
                asked.push((gate.hooks, GateOn::Slot(slot), "hook_gates"));
            }
            for (hooks, on, from) in asked {
                if hooks.0 & !crate::hooks::HookSet::GATEABLE.0 != 0 {
                    let m = "gates a hook the engine cannot gate (HookSet::GATEABLE)";
                    return Err(gate_error(&rules, i, from, m));
                }
                if hooks.0 & !h.0 != 0 {
                    return Err(gate_error(
                        &rules,
                        i,
                        from,
                        "gates a hook outside its hook set",
                    ));
                }
                for b in 0..32u8 {
                    if hooks.0 & (1 << b) != 0 {
                        rules.gated_members[b as usize] |= 1 << i.min(63);
                        let bit = 1 << i.min(63);
                        match on {
                            GateOn::Slot(slot) => {
                                rules.shut_gated[b as usize] |= bit;
                                slot_gates.push((b, i, slot));
                            }
                            GateOn::State(g) => {
                                rules.state_gated[b as usize] |= bit;
                                let waits = match g {
                                    StateGate::SupplyEmpty => Some(&mut rules.supply_gated),
                                    StateGate::Holes => Some(&mut rules.holes_gated),
                                    // Not read by `all_shut`.
                                    StateGate::FigureOut(..) => None,
                                };
                                if let Some(waits) = waits {
                                    waits[b as usize] |= bit;
                                    rules.shut_gated[b as usize] |= bit;
                                }
                                state_gates.push((b, i, g));
                            }
                        }
                    }
                }
            }
        }
        // `all_shut` never answers for bit 63, which may stand for several expansions.
        for m in &mut rules.shut_gated {
            *m &= !(1 << 63);
        }
        // Grouped by hook bit (stable: load order within a bit).
        slot_gates.sort_by_key(|g| g.0);
        state_gates.sort_by_key(|g| g.0);
        rules.gate_ranges = bit_ranges(&slot_gates);
        rules.state_gate_ranges = bit_ranges(&state_gates);
        rules.gates = slot_gates.into_iter().map(|(_, i, s)| (i, s)).collect();
        rules.state_gates = state_gates.into_iter().map(|(_, i, g)| (i, g)).collect();
        rules.shut_tests = std::array::from_fn(|b| rules.shut_test(b));
        // Whether every expansion with the filter hook `bit` makes the pass promise `keeps`.
        let filters_keep = |bit: crate::hooks::HookSet, keeps: fn(&dyn BoundExpansion) -> bool| {
            rules
                .bound
                .iter()
                .zip(&hook_sets)
                .all(|(e, h)| !h.has(bit) || keeps(e.as_ref()))
        };
        rules.deploy_pass_kept = filters_keep(crate::hooks::HookSet::FILTER_DEPLOY_ACTIONS, |e| {
            e.keeps_deploy_pass()
        });
        // The end's prompts are passed unlisted only if no prompt filter could take the
        // pass out of an offer.
        let prompt_pass_kept = filters_keep(crate::hooks::HookSet::FILTER_PROMPT_ACTIONS, |e| {
            e.keeps_prompt_pass()
        });
        rules.end_pass_owners = if prompt_pass_kept {
            rules
                .bound
                .iter()
                .take(64)
                .enumerate()
                .filter(|(_, e)| e.offers_pass_at_end())
                .fold(0, |m, (i, _)| m | 1 << i)
        } else {
            0
        };
        rules.hook_sets = hook_sets;
        let mut filters = vec![0u64; rules.tiles.len()];
        for (i, (e, hooks)) in rules.bound.iter().zip(&rules.hook_sets).enumerate() {
            if !hooks.has(crate::hooks::HookSet::FILTER_PLACEMENTS) {
                continue;
            }
            for (id, _) in rules.tiles.iter() {
                let filters_it = e
                    .filters_tile(&rules, id)
                    .map_err(|m| SetupError::Expansion {
                        expansion: rules.expansions[i].id.clone(),
                        message: format!("filters_tile: {}", m.0),
                    })?;
                if filters_it {
                    filters[id.0 as usize] |= 1 << i.min(63);
                }
            }
        }
        rules.placement_filters = filters;
        let mut placed = vec![0u64; rules.tiles.len()];
        for (i, (e, hooks)) in rules.bound.iter().zip(&rules.hook_sets).enumerate() {
            if !hooks.has(crate::hooks::HookSet::ON_TILE_PLACED) {
                continue;
            }
            for (id, _) in rules.tiles.iter() {
                if e.on_tile_placed_for(&rules, id) {
                    placed[id.0 as usize] |= 1 << i.min(63);
                }
            }
        }
        rules.placed_members = placed;
        let mut windows = vec![[0u64; 3]; rules.tiles.len()];
        for (w, &window) in PLACED_WINDOWS.iter().enumerate() {
            let bit = crate::hooks::HookSet::window(window);
            for (i, (e, hooks)) in rules.bound.iter().zip(&rules.hook_sets).enumerate() {
                if !hooks.has(bit) {
                    continue;
                }
                for (id, _) in rules.tiles.iter() {
                    if e.opens_window_for(&rules, window, id) {
                        windows[id.0 as usize][w] |= 1 << i.min(63);
                    }
                }
            }
        }
        for (w, &window) in PLACED_WINDOWS.iter().enumerate() {
            let all = rules.hook_members(crate::hooks::HookSet::window(window));
            rules.filtered_windows[w] = windows.iter().any(|m| m[w] != all);
        }
        rules.window_members = windows;
        Ok(rules)
    }
}

/// Per hook bit `b`, the range of the entries of `list` (sorted by bit) that gate bit `b`.
fn bit_ranges<T>(list: &[(u8, usize, T)]) -> [(usize, usize); 32] {
    let mut ranges = [(0, 0); 32];
    for (b, r) in ranges.iter_mut().enumerate() {
        let b = b as u8;
        *r = (
            list.partition_point(|g| g.0 < b),
            list.partition_point(|g| g.0 <= b),
        );
    }
    ranges
}

/// Prefix of the option that sets how many figures of a per-player kind each player has
/// (`figures.small-follower`), declared for every such kind with its declared count as
/// the default.
pub const FIGURE_COUNT_PREFIX: &str = "figures.";

/// Prefix of the option that sets how many copies of a tile set are in the supply
/// (`tiles.abbey-mayor`), declared for every tile set, default 1; 0 keeps its tile kinds
/// known (placeable when an expansion hands one out) but none in the supply.
pub const TILE_COPIES_PREFIX: &str = "tiles.";

/// Most figures of one kind per player (`figures.<kind>`).
const MAX_FIGURES_PER_KIND: i64 = 32;

/// Most copies of one tile set (`tiles.<set>`).
const MAX_TILE_SET_COPIES: i64 = 8;

impl RulesetBuilder {
    /// Declares the size options once every figure kind and tile set is known: a game may
    /// have another number of any player figure, or of any tile set (JCloisterZone lets
    /// each element be switched on alone, with its count, and a set be taken several
    /// times). They are ordinary options, so records carry them.
    fn declare_size_options(&mut self) {
        let mut defs: Vec<OptionDef> = Vec::new();
        for f in self.figures.iter().filter(|f| f.per_player > 0) {
            defs.push(OptionDef {
                key: format!("{FIGURE_COUNT_PREFIX}{}", f.name),
                ty: crate::options::OptionType::Int {
                    min: 0,
                    max: MAX_FIGURES_PER_KIND.max(i64::from(f.per_player)),
                },
                default: OptionValue::Int(i64::from(f.per_player)),
                description: format!("how many `{}` figures each player has", f.name),
            });
        }
        for set in &self.tile_sets {
            defs.push(OptionDef {
                key: format!("{TILE_COPIES_PREFIX}{}", set.set),
                ty: crate::options::OptionType::Int {
                    min: 0,
                    max: MAX_TILE_SET_COPIES,
                },
                default: OptionValue::Int(1),
                description: format!(
                    "copies of the tile set `{}` in the supply (0: its tiles only where an expansion hands them out)",
                    set.set
                ),
            });
        }
        for def in defs {
            // A set named twice (two files of one set) gets one option.
            if !self.option_defs.iter().any(|d| d.key == def.key) {
                self.option_defs.push(def);
            }
        }
    }

    /// Applies the size options: the figure counts, and the tile catalog with each set's
    /// counts multiplied by its copies.
    fn apply_size_options(&mut self, options: &Options) -> Result<TileCatalog, SetupError> {
        for f in self.figures.iter_mut().filter(|f| f.per_player > 0) {
            let n = options.int(&format!("{FIGURE_COUNT_PREFIX}{}", f.name));
            f.per_player = u8::try_from(n).unwrap_or(f.per_player);
        }
        let mut tiles = TileCatalog::default();
        for set in &self.tile_sets {
            let copies = options.int(&format!("{TILE_COPIES_PREFIX}{}", set.set));
            if copies == 1 {
                tiles.add_set(set, &self.kinds)?;
                continue;
            }
            let mut set = set.clone();
            for t in &mut set.tiles {
                t.count = t.count.saturating_mul(u16::try_from(copies).unwrap_or(1));
            }
            tiles.add_set(&set, &self.kinds)?;
        }
        Ok(tiles)
    }
}

/// Every overlay's variants of every tile kind, in catalog order, then overlay order, then
/// rotation order (so variant ids depend on nothing but the ruleset).
fn add_variants(
    tiles: &mut TileCatalog,
    overlays: &[crate::overlay::Overlay],
    kinds: &[FeatureKindDef],
) {
    if overlays.is_empty() {
        return;
    }
    let plain: Vec<_> = tiles.defined().map(|(id, _)| id).collect();
    for id in plain {
        for o in overlays {
            let mut done: Vec<crate::side::SideSet> = Vec::new();
            for r in crate::side::Rotation::ALL {
                let sides = o.sides.rotate(r);
                if !done.contains(&sides) {
                    done.push(sides);
                    tiles.add_variant(id, o.kind, &kinds[o.kind.0 as usize], sides, &o.tag);
                }
            }
        }
    }
}

fn describe(ty: &crate::options::OptionType) -> String {
    match ty {
        crate::options::OptionType::Choice(c) => format!("one of {}", c.join(", ")),
        crate::options::OptionType::Bool => "true or false".into(),
        crate::options::OptionType::Int { min, max } => format!("an integer from {min} to {max}"),
    }
}

/// The [`Ruleset::edge_meets`] table of the declared pairs of edge codes, both ways
/// (empty: none).
fn meets_table(pairs: &[(u8, u8)]) -> Vec<u128> {
    let mut t = Vec::new();
    for &(a, b) in pairs {
        for (x, y) in [(a, b), (b, a)] {
            if (x as usize) >= t.len() {
                t.resize(x as usize + 1, 0);
            }
            if y < 128 {
                t[x as usize] |= 1 << y;
            }
        }
    }
    t
}

/// For tests ([`Ruleset::shut_answers`]): one hook's shut test against its gates.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct ShutAnswer {
    /// The hook.
    pub hook: crate::hooks::HookSet,
    /// The quick test found every implementer shut (then `gates` must be true too).
    pub quick: bool,
    /// The test's exact answer for every implementer, if it has one (then it equals
    /// `gates`): what `all_shut` returns without the gates.
    pub verdict: Option<bool>,
    /// Every implementer found shut gate by gate.
    pub gates: bool,
}
