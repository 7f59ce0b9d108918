//! What a script declares in `setup()`: [`Decl`] and the rules, guards, offers and reactions the host runs for it.

use super::*;

/// What a script declared in `setup()`: its state values, verbs, labels and guards.
#[derive(Debug)]
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
    /// `declare_prompt`: the words of the script's prompt codes (reactions asking with a
    /// code take them too).
    pub(crate) prompt_texts: Vec<(u16, String)>,
    /// A figure-scoped state added to every figure's strength (`strength_bonus`).
    pub(crate) strength_bonus: Option<usize>,
    /// Native placement rules (`keep_apart`, `keep_open_on`), checked when a tile is placed.
    pub(crate) apart: Vec<Apart>,
    /// Per hook: what the tile placed last must hold for the hook to run
    /// (`guard_placed_follower`, `guard_placed_in_line`), on top of its other guard.
    pub(crate) placed: [Option<PlacedGuard>; HOOK_COUNT],
    /// Prompts whose choices are the placed tiles, listed natively (`offer_tiles`).
    pub(crate) tile_prompts: Vec<TilePrompt>,
    /// Prompts whose choices are moves, listed and carried out natively (`offer_moves`):
    /// the prompt code, and the feature kinds (names, resolved at bind) the figure may go to.
    pub(crate) moves: Vec<(u16, Vec<String>)>,
    /// `follow_deployments`: a neutral figure led natively to new followers.
    pub(crate) follow: Option<Follow>,
    /// `tile_bonus_per_figure(kind, feature_kinds)`: the figure kind and the feature kinds
    /// (names, resolved at bind) where each such figure counts as one more tile.
    pub(crate) tile_bonus: Option<(String, Vec<String>)>,
}

// By hand: `Default` is derived for arrays of at most 32 items, and there are more hooks.
impl Default for Decl {
    fn default() -> Self {
        Decl {
            states: Vec::new(),
            game_slots: Vec::new(),
            verbs: Vec::new(),
            labels: Vec::new(),
            guards: std::array::from_fn(|_| None),
            not_final: [false; HOOK_COUNT],
            offers: Vec::new(),
            reactions: Vec::new(),
            prompt_texts: Vec::new(),
            strength_bonus: None,
            apart: Vec::new(),
            placed: std::array::from_fn(|_| None),
            tile_prompts: Vec::new(),
            moves: Vec::new(),
            follow: None,
            tile_bonus: None,
        }
    }
}

/// A declaration value fixed in `setup()` or taken from one of the expansion's options
/// when the rules are built (`#{option: "key"}` in the script).
#[derive(Clone, Debug)]
pub(crate) enum Setting<T> {
    Fixed(T),
    Option(String),
}

/// `follow_deployments(kind, options)`: at the end of every turn (after its scoring) the
/// neutral figure of `kind` goes to the first follower (by figure number) its placer has on
/// the tile placed this turn, when that tile is within `reach` of the figure, and the placer
/// scores what `award` names at final-scoring value.
#[derive(Clone, Debug)]
pub(crate) struct Follow {
    pub(crate) kind: String,
    /// `line` (the figure's row or column), `adjacent` (its tile or one beside it), `any`.
    pub(crate) reach: Setting<String>,
    /// Whether a follower on a field calls the figure.
    pub(crate) farmers: Setting<bool>,
    /// `area` (the unfinished features of `kinds` with a follower within `radius` of the
    /// tile), `own` (the calling follower's, if unfinished and of `kinds`) or `none`.
    pub(crate) award: Setting<String>,
    pub(crate) radius: i32,
    pub(crate) kinds: Vec<String>,
    /// The label the points are scored under (declared with `declare_label`).
    pub(crate) label: LabelId,
}

/// `keep_apart(kind, near, radius, reason)`: a tile with a feature of kind `kind` may not be
/// placed within `radius` cells (a square) of a placed tile with a feature of kind `near`.
/// Or, with `open_on`, a `keep_open_on` rule (`kind`, `near` and `radius` unused).
#[derive(Clone, Debug)]
pub struct Apart {
    pub(crate) kind: String,
    pub(crate) near: String,
    pub(crate) radius: i32,
    pub(crate) reason: String,
    pub(crate) open_on: Option<KeepOpen>,
}

/// `keep_open_on(state[, kinds])`: no tile may be placed where it would complete an
/// unfinished feature with a part on the tile of the segment a game-scoped state names
/// (segment + 1; 0: no tile, no rule).
#[derive(Clone, Debug)]
pub struct KeepOpen {
    /// The state (index into `Decl::states`, game-scoped).
    pub(crate) state: usize,
    /// The feature kinds kept open (names, resolved at bind); empty: every kind that
    /// completes and scores.
    pub(crate) kinds: Vec<String>,
}

/// A [`KeepOpen`] resolved against the ruleset.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeepOpenRule {
    pub(crate) slot: SlotId,
    /// A mask of feature kind ids (bit k: kind k is kept open).
    pub(crate) kinds: u64,
}

/// What the tile placed last must hold for a hook to run (`guard_placed_follower`,
/// `guard_placed_in_line`); both, when both are declared.
#[derive(Clone, Debug, Default)]
pub(crate) struct PlacedGuard {
    /// A follower of the player who placed it.
    pub(crate) follower: bool,
    /// It is in the row or column of a figure of this kind (a name, resolved at bind).
    pub(crate) in_line: Option<String>,
    /// Its tile kind has this tag (`guard_placed_tag`).
    pub(crate) tag: Option<String>,
    /// Its tile kind is one of these ids (`guard_placed_tile`).
    pub(crate) tiles: Option<Vec<String>>,
}

/// A [`PlacedGuard`] resolved against the ruleset (`in_line: Some(None)`: no loaded
/// expansion declares the kind, so the hook never runs).
#[derive(Clone, Debug, Default)]
pub(crate) struct PlacedCheck {
    /// `guard_placed_follower`: the follower kinds (bit k of the mask: kind k).
    pub(crate) follower: Option<[u64; 4]>,
    pub(crate) in_line: Option<Option<carcassonne_core::FigureKindId>>,
    /// `guard_placed_tag`, `guard_placed_tile`: per tile kind, whether the hook may run
    /// after it was placed.
    pub(crate) tagged: Option<Box<[bool]>>,
}

/// `offer_tiles(code, verb, except_state)`: the choices of the script's prompts with this
/// code are `verb` once per placed tile (its first segment in `action.segment`), in
/// placement order, but the tile of the segment the game-scoped state names (segment + 1).
#[derive(Clone, Debug)]
pub struct TilePrompt {
    pub(crate) code: u16,
    pub(crate) verb: VerbId,
    pub(crate) except: usize,
    /// `offer_tiles(code, verb, except_state, #{lead, figure_state})`: the answer is
    /// carried out natively.
    pub(crate) lead: Option<TileLead>,
}

/// An `offer_tiles` prompt whose answer the engine carries out: the neutral figure kind
/// `kind` (resolved at bind) goes to the chosen tile, the prompt's `except` state becomes
/// the chosen segment + 1, and `figure_state` (if any) the figure + 1 (0: none stands there).
#[derive(Clone, Debug)]
pub struct TileLead {
    pub(crate) kind: String,
    pub(crate) figure_state: Option<usize>,
}

/// An [`Apart`] rule resolved against the ruleset (`None`: no loaded expansion has the
/// kind, so the rule never applies).
#[derive(Clone, Debug)]
pub(crate) struct ApartRule {
    pub(crate) kind: Option<carcassonne_core::FeatureKindId>,
    pub(crate) near: Option<carcassonne_core::FeatureKindId>,
    pub(crate) radius: i32,
    pub(crate) reason: String,
    pub(crate) open_on: Option<KeepOpenRule>,
}

impl ApartRule {
    /// The rule of a declaration, resolved against the ruleset.
    pub(crate) fn resolve(a: &Apart, decl: &Decl, rules: &Ruleset) -> ApartRule {
        let open_on = a.open_on.as_ref().map(|o| {
            let mut kinds = 0u64;
            for name in &o.kinds {
                if let Some(k) = rules.kind_named(name) {
                    kinds |= 1 << k.0;
                }
            }
            if o.kinds.is_empty() {
                // Every kind that completes and scores (a river only once opened).
                for (i, k) in rules.kinds().iter().enumerate().take(64) {
                    if k.completes && k.scoring != carcassonne_core::Scoring::Unscored {
                        kinds |= 1 << i;
                    }
                }
            }
            KeepOpenRule {
                slot: decl.states[o.state].2,
                kinds,
            }
        });
        ApartRule {
            kind: rules.kind_named(&a.kind),
            near: rules.kind_named(&a.near),
            radius: a.radius,
            reason: a.reason.clone(),
            open_on,
        }
    }

    pub(crate) fn concerns(&self, rules: &Ruleset, tile: TileKindId) -> bool {
        // A `keep_open_on` rule concerns every tile (its cells are checked by
        // [`BoundScript::keep_open_cells`]).
        self.open_on.is_some()
            || self
                .kind
                .is_some_and(|k| rules.tiles().get(tile).segments.iter().any(|s| s.kind == k))
    }

    /// The cells of the placed tiles with a `near` feature, into `out` (cleared first).
    pub(crate) fn near_cells(&self, view: View<'_>, out: &mut Vec<Pos>) {
        out.clear();
        let (Some(near), None) = (self.near, self.open_on) else {
            return;
        };
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
/// `offer_per_figure`, `offer_per_segment` or `offer_per_corner`): no script call until a player chooses it.
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
    /// Per junction (`offer_per_corner`): the feature kinds that must cover the corners of
    /// the four tiles meeting at a corner of the tile just placed.
    pub(crate) per_corner: Option<Vec<String>>,
    /// What choosing the action does natively: player-scoped states of the chooser set,
    /// and (`offer_prompt`) a prompt asked.
    pub(crate) effects: Effects,
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
    pub(crate) effects: Effects,
}

/// What a native offer or reaction does for its player when chosen, without a script call.
#[derive(Debug, Default)]
pub struct Effects {
    /// Player-scoped states (index into `Decl::states`) set to a value.
    pub(crate) sets: Vec<(usize, i64)>,
    /// `offer_prompt`: the script prompt code asked next (with arg 0).
    pub(crate) prompt: Option<u16>,
    /// `deploy`: a figure of this kind goes from the player's supply onto the offered
    /// segment (or, for a corner offer, the junction's segment, [`crate::api::junction_anchor`]).
    pub(crate) deploy: Option<String>,
    /// `deployed_state`: a figure-scoped state (index into `Decl::states`) set to 1 on it.
    pub(crate) deployed_state: Option<usize>,
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
