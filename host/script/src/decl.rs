//! What a script declares in `setup()`: [`Decl`] and the rules, guards, offers and reactions the host runs for it.

use super::*;

/// What a script declared in `setup()`: its state values, verbs, labels and guards.
#[derive(Debug, Default)]
pub struct Decl {
    pub(crate) states: Vec<(String, SlotScope, SlotId)>,
    /// The game-scoped ones, typed: what core gates hooks on ([`carcassonne_core::HookGate`]).
    pub(crate) game_slots: Vec<carcassonne_core::GameSlot>,
    pub(crate) verbs: Vec<(String, VerbId)>,
    pub(crate) labels: Vec<(String, LabelId)>,
    pub(crate) guards: [Option<Guard>; HOOK_COUNT],
    /// Scoring hooks called for scorings during play only (`guard_not_final`).
    pub(crate) not_final: [bool; HOOK_COUNT],
    pub(crate) offers: Vec<Offer>,
    pub(crate) reactions: Vec<Reaction>,
    /// A figure-scoped state added to every figure's strength (`strength_bonus`).
    pub(crate) strength_bonus: Option<usize>,
    /// Spacing rules (`keep_apart`), checked natively when a tile is placed.
    pub(crate) apart: Vec<Apart>,
    /// Prompts whose choices are moves, listed and carried out natively (`offer_moves`):
    /// the prompt code, and the feature kinds (names, resolved at bind) the figure may go to.
    pub(crate) moves: Vec<(u16, Vec<String>)>,
}

/// `keep_apart(kind, near, radius, reason)`: a tile with a feature of kind `kind` may not be
/// placed within `radius` cells (a square) of a placed tile with a feature of kind `near`.
#[derive(Clone, Debug)]
pub struct Apart {
    pub(crate) kind: String,
    pub(crate) near: String,
    pub(crate) radius: i32,
    pub(crate) reason: String,
}

/// An [`Apart`] rule resolved against the ruleset (`None`: no loaded expansion has the
/// kind, so the rule never applies).
#[derive(Clone, Debug)]
pub(crate) struct ApartRule {
    pub(crate) kind: Option<carcassonne_core::FeatureKindId>,
    pub(crate) near: Option<carcassonne_core::FeatureKindId>,
    pub(crate) radius: i32,
    pub(crate) reason: String,
}

impl ApartRule {
    pub(crate) fn concerns(&self, rules: &Ruleset, tile: TileKindId) -> bool {
        self.kind
            .is_some_and(|k| rules.tiles().get(tile).segments.iter().any(|s| s.kind == k))
    }

    /// The cells of the placed tiles with a `near` feature, into `out` (cleared first).
    pub(crate) fn near_cells(&self, view: View<'_>, out: &mut Vec<Pos>) {
        out.clear();
        let Some(near) = self.near else { return };
        for t in view.state.board().tiles() {
            if view
                .rules
                .tiles()
                .get(t.kind)
                .segments
                .iter()
                .any(|s| s.kind == near)
            {
                out.push(t.pos);
            }
        }
    }

    /// The first of `near` cells within the radius of `pos`.
    pub(crate) fn conflict(&self, near: &[Pos], pos: Pos) -> Option<Pos> {
        let r = self.radius as i64;
        near.iter().copied().find(|n| {
            (n.x as i64 - pos.x as i64).abs() <= r && (n.y as i64 - pos.y as i64).abs() <= r
        })
    }
}

/// When a guarded hook runs (`guard`, `guard_figure`, `guard_scoring_near` in `setup()`).
#[derive(Clone, Debug)]
pub(crate) enum Guard {
    /// While this declared state (index into `Decl::states`) is non-zero.
    State(usize),
    /// While a figure of this kind (a name, resolved at bind) is in play.
    Figure(String),
    /// Scoring hooks: when a scored feature has a part on a tile where a figure of this
    /// kind stands.
    ScoringNear(String),
    /// Scoring hooks: when a scored feature holds a figure of this kind.
    ScoringOn(String),
    /// Scoring hooks: when a scored feature holds the segment this declared state (index
    /// into `Decl::states`, player- or game-scoped) names as segment + 1.
    ScoringState(usize),
    /// When the tile placed last filled the area (cells as a [`area_bit`] mask) around the
    /// tile of a figure of this kind in play (`guard_area_full`).
    AreaFull(String, u128),
}

/// A guard resolved against the ruleset.
#[derive(Clone, Copy, Debug)]
pub(crate) enum GuardCheck {
    Open,
    Slot(SlotScope, SlotId),
    /// `None`: no loaded expansion declares the kind, so the hook never runs.
    Figure(Option<carcassonne_core::FigureKindId>),
    /// Checked against the draft ([`BoundScript::scoring_near`]); `None` as above.
    ScoringNear(Option<carcassonne_core::FigureKindId>),
    /// Checked against the draft ([`BoundScript::scoring_near`]); `None` as above.
    ScoringOn(Option<carcassonne_core::FigureKindId>),
    /// Checked against the draft ([`BoundScript::scoring_near`]).
    ScoringState(SlotScope, SlotId),
    /// The tile placed last filled this area (an [`area_bit`] mask) around a figure of the
    /// kind; `None` as above.
    AreaFull(Option<carcassonne_core::FigureKindId>, u128),
}

/// A deployment-step action the host offers natively (declared with `offer`,
/// `offer_per_figure` or `offer_per_segment`): no script call until a player chooses it.
#[derive(Debug)]
pub struct Offer {
    pub(crate) verb: VerbId,
    /// Player-scoped state that must be non-zero for the active player.
    pub(crate) player_state: usize,
    /// Per figure: the figure-scoped state that must be 0, and the roles that qualify.
    pub(crate) per_figure: Option<(usize, Vec<String>)>,
    /// Per segment (`offer_per_segment`): the feature kinds (names, resolved at bind) of
    /// the segments of the tile just placed it is offered on, while unfinished.
    pub(crate) per_segment: Option<Vec<String>>,
    /// Player-scoped states of the chooser set when the action is chosen.
    pub(crate) effects: Vec<(usize, i64)>,
    /// `offer_protect`: (expansion id, game-scoped state) holding figure id + 1 of a figure
    /// this per-figure offer skips unless the chooser owns it.
    pub(crate) protect: Vec<(String, String)>,
}

/// An out-of-turn deployment the host runs natively (declared with `reaction_deploy`):
/// in `window`, every player other than the active one whose `player_state` is non-zero
/// is asked, in `order`, whether to deploy a follower on the tile just placed.
#[derive(Debug)]
pub struct Reaction {
    pub(crate) window: Window,
    pub(crate) player_state: usize,
    pub(crate) fewest_points_first: bool,
    pub(crate) code: u16,
    /// Player-scoped states of the deploying player set when he deploys.
    pub(crate) effects: Vec<(usize, i64)>,
}

/// A script expansion's prompts: the script's own `(code, arg)`, or one of the
/// reactions the host runs natively.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScriptPrompt {
    /// `prompt(player, code, arg)` from the script (`code` 0..=[`MAX_SCRIPT_PROMPT_CODE`]).
    Script { code: u16, arg: i32 },
    /// The `index`-th declared `reaction_deploy`.
    Reaction(u16),
}

/// The largest prompt code a script may use.
pub(crate) const MAX_SCRIPT_PROMPT_CODE: u16 = 0x7FFF;

impl PromptKind for ScriptPrompt {
    fn encode(self) -> PromptCode {
        match self {
            ScriptPrompt::Script { code, arg } => PromptCode { tag: code, arg },
            ScriptPrompt::Reaction(i) => PromptCode {
                tag: 0x8000 | i,
                arg: 0,
            },
        }
    }

    fn decode(c: PromptCode) -> Option<ScriptPrompt> {
        Some(if c.tag & 0x8000 == 0 {
            ScriptPrompt::Script {
                code: c.tag,
                arg: c.arg,
            }
        } else {
            ScriptPrompt::Reaction(c.tag & 0x7FFF)
        })
    }
}

/// Which figures a per-figure offer accepts: followers by the feature kind they stand
/// on, other figures by their kind.
#[derive(Debug, Default)]
pub(crate) struct RoleMatch {
    pub(crate) feature_kinds: u64,
    pub(crate) figure_kinds: Vec<carcassonne_core::FigureKindId>,
}

impl Decl {
    pub(crate) fn state(&self, name: &str) -> Option<(SlotScope, SlotId)> {
        self.states
            .iter()
            .find(|(n, ..)| n == name)
            .map(|(_, s, id)| (*s, *id))
    }
    pub(crate) fn verb(&self, name: &str) -> Option<VerbId> {
        self.verbs.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
    pub(crate) fn label(&self, name: &str) -> Option<LabelId> {
        self.labels.iter().find(|(n, _)| n == name).map(|(_, l)| *l)
    }
}

/// Offsets from -4 to 4 on both axes that a `guard_area_full` area may cover.
pub(crate) const AREA_REACH: i32 = 4;

/// The bit of offset (dx, dy) in an area mask (a 9x9 grid around the figure's tile), if it is
/// within [`AREA_REACH`].
pub(crate) fn area_bit(dx: i32, dy: i32) -> Option<u128> {
    let r = AREA_REACH;
    ((-r..=r).contains(&dx) && (-r..=r).contains(&dy))
        .then(|| 1u128 << ((dy + r) * (2 * r + 1) + dx + r))
}
