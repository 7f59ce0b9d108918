//! The rules kernel: the turn pipeline as an explicit state machine (rule A-16).
//!
//! [`Game`] always waits on exactly one [`Decision`]; [`Game::apply`] accepts only an
//! action from [`Game::actions`] and otherwise returns an error with the state untouched.
//! Everything between two decisions (draws, discards, scoring, windows without
//! prompts) runs inside `advance`, resuming from the stored [`Stage`].
//!
//! The game API lives here; the rest is split by job: [`pipeline`] (the state machine
//! between decisions), [`placement`] (tiles on the board, legal placements and deployments),
//! [`scoring`] (drafts, majorities, farms, final scoring) and [`dispatch`] (calling hooks).
//!
//! The functions that run at every turn (here and in the board, graph and state) are
//! placed together (`link_section = ".text.carcassonne_hot"`, on Linux: an ELF section name,
//! which Mach-O would refuse): adjacent, their cache lines spread evenly over the instruction
//! cache's sets, so they do not evict each other wherever the rest of the code lands. Rare
//! paths stay out of them (`#[inline(never)]`). The large per-turn functions reached from
//! more than one place (`play_tile`, `place_tile`) are `#[inline(never)]` too: a
//! profile-guided build inlined each into one caller and kept a second copy for the others,
//! both hot in some games.

mod chance;
mod dispatch;
mod known;
mod lanes;
mod overlay;
mod pipeline;
mod placement;
mod scoring;
mod snapshot;

pub use known::KnownOffer;
pub(crate) use scoring::returns_from;

use crate::action::{Action, ExpansionIndex};
use crate::board::PlacedTile;
use crate::context::{Ctx, View};
use crate::event::ScoreSource;
use crate::figure::{Figure, FigureId, FigureKindId, FigureLoc, RemovalReason};
use crate::graph::{FeatureGraph, FeatureId, FeatureTotals, PlacedIndex, SegmentNode};
use crate::hooks::{
    Award, BoundExpansion, DraftFeature, DrawVerdict, HookError, HookResult, HookSet, ScoreDraft,
    StartTile, TurnEndVerdict, Window,
};
use crate::kind::{FeatureKindId, Scoring, Shape};
use crate::player::{Player, PlayerId};
use crate::pos::Pos;
use crate::ruleset::{FarmScoring, Ruleset};
use crate::side::{HalfEdge, Rotation, Side};
use crate::state::{Decision, DecisionKind, GameState, PlacementCell, Stage};
use crate::supply::{DrawMode, TileSupply};
use crate::tile::TileKindId;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::sync::Arc;

pub(crate) use self::dispatch::*;
pub(crate) use self::overlay::*;
pub(crate) use self::pipeline::*;
pub(crate) use self::placement::*;
pub(crate) use self::scoring::*;

/// The engine routines hooks reach through [`View`] and [`Ctx`] that are big or call hooks,
/// as pointers taken where the ruleset is built ([`crate::ruleset::RulesetBuilder::build`]),
/// so in the host. Otherwise each plugin runs its own copy, compiled in from `View`'s
/// methods, beside the host's: two copies of one routine, both hot, compete for the
/// instruction cache. Host and plugins are built from the same source (the plugin
/// fingerprint checks it), so the types agree.
#[derive(Clone, Copy)]
pub(crate) struct Routines {
    pub(crate) completed_by_last_placement: fn(&Ruleset, &GameState, &mut Vec<FeatureId>),
    pub(crate) placements:
        fn(&Ruleset, &GameState, TileKindId, &mut Vec<PlacementCell>) -> Result<usize, HookError>,
    pub(crate) read_placements: ReadPlacements,
    pub(crate) farm_cities: fn(&Ruleset, &FeatureGraph, FeatureId, &mut Vec<FeatureId>),
    pub(crate) add_overlay:
        fn(&Ruleset, &mut GameState, Pos, TileKindId) -> Result<crate::graph::SegmentId, String>,
    pub(crate) return_figure:
        fn(&Ruleset, &mut GameState, FigureId, RemovalReason) -> Result<(), HookError>,
    pub(crate) hold_figure:
        fn(&Ruleset, &mut GameState, FigureId, RemovalReason) -> Result<bool, HookError>,
    pub(crate) figure_placed:
        fn(&Ruleset, &mut GameState, FigureId, crate::graph::SegmentId) -> Result<(), HookError>,
}

/// [`Routines::read_placements`]: a tile kind's placements handed to a reader in place.
type ReadPlacements = fn(
    &Ruleset,
    &GameState,
    TileKindId,
    &mut dyn FnMut(&[PlacementCell], usize),
) -> Result<(), HookError>;

impl Routines {
    /// This binary's routines: what the ruleset's builder stores.
    pub(crate) const HERE: Routines = Routines {
        completed_by_last_placement,
        placements: placements_remembered,
        read_placements,
        farm_cities,
        add_overlay,
        return_figure,
        hold_figure,
        figure_placed,
    };
}

/// Most players a game can seat.
pub const MAX_PLAYERS: usize = 8;

/// Players, seed and table conventions of a new game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameSetup {
    /// Player names in seat order (seat 0 starts).
    pub players: Vec<String>,
    /// Seed of the game's RNG (tile draws and anything random in expansions).
    pub seed: u64,
    /// How tiles are drawn: `Random` (the default) or `Chosen` (the game asks, see
    /// [`DecisionKind::Draw`]). `InOrder` is for positions and acts like `Random` here.
    pub draws: DrawMode,
    /// At most this many draws (discarded tiles included), then the stack counts as empty.
    pub draw_limit: Option<u32>,
    /// The start layout, replacing the one the rules and expansions lay (an imported game
    /// whose program laid the start tiles elsewhere). Each tile takes one copy out of the
    /// supply, like the usual layout.
    pub start: Option<Vec<StartTile>>,
}

impl GameSetup {
    /// Random draws, the usual start layout, no draw cap.
    pub fn new(players: Vec<String>, seed: u64) -> GameSetup {
        GameSetup {
            players,
            seed,
            ..GameSetup::default()
        }
    }
}

/// A figure in a [`Position`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PositionFigure {
    /// Owner ([`PlayerId::NEUTRAL`] for a neutral figure).
    pub player: PlayerId,
    /// Kind.
    pub kind: FigureKindId,
    /// Cell of the tile.
    pub pos: Pos,
    /// Local segment index on that tile.
    pub segment: u8,
}

/// An unchecked description of a game position (scenario tests, imports).
/// [`Game::from_position`] checks it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Position {
    /// Player names in seat order.
    pub players: Vec<String>,
    /// Scores (missing = 0).
    pub scores: Vec<i32>,
    /// Whose turn it is.
    pub active: u8,
    /// Tiles on the board, placed in this order (need not be connected; edges must match).
    pub tiles: Vec<StartTile>,
    /// Figures on the board.
    pub figures: Vec<PositionFigure>,
    /// The tiles still to draw, drawn in this order.
    pub draws: Vec<TileKindId>,
    /// RNG seed.
    pub seed: u64,
    /// Expansion state, applied in order through [`Expansion::apply_setting`] after the
    /// tiles and figures are placed.
    pub settings: Vec<PositionSetting>,
}

/// One piece of expansion state in a [`Position`] (`count`, `count`, `market`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PositionSetting {
    /// Expansion id.
    pub expansion: String,
    /// The expansion's key.
    pub key: String,
    /// The value, in the expansion's own notation.
    pub value: String,
}

/// Why a game could not be created.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// Wrong number of players.
    #[error("a game needs 1 to {MAX_PLAYERS} players, not {0}")]
    Players(usize),
    /// The tile set has no start tile.
    #[error("no tile kind is marked as start tile")]
    NoStartTile,
    /// A position is not possible.
    #[error("invalid position: {0}")]
    Position(String),
    /// An expansion hook failed.
    #[error(transparent)]
    Hook(#[from] HookError),
}

/// Why an action was refused (the game state is unchanged).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// The action is not among the offered ones.
    #[error("{action} is not a legal action now ({decision})")]
    NotOffered {
        /// The refused action.
        action: Action,
        /// What the game waits for.
        decision: String,
    },
    /// An expansion's rule forbids the action, and says why.
    #[error("{action} is refused by `{expansion}`: {reason}")]
    Refused {
        /// The refused action.
        action: Action,
        /// The expansion whose rule forbids it.
        expansion: String,
        /// Its reason.
        reason: String,
    },
    /// An offered index out of range.
    #[error("action index {index} is out of range (only {len} offered)")]
    BadIndex {
        /// Index given.
        index: usize,
        /// Number offered.
        len: usize,
    },
    /// An expansion hook failed while applying it; the state was rolled back.
    #[error(transparent)]
    Hook(#[from] HookError),
}

/// A game: shared rules plus the state. (`Clone` is in `snapshot.rs`.)
#[derive(Debug)]
pub struct Game {
    rules: Arc<Ruleset>,
    state: GameState,
    /// Snapshot before every action, to roll back a failing hook (see [`Game::set_checkpoints`]).
    checkpoints: bool,
    /// A hook failed with checkpoints off: the state is inconsistent, the game is stopped.
    broken: Option<HookError>,
    /// The checkpoint's buffers, kept between actions so that taking a checkpoint refills
    /// them (`clone_from`) instead of allocating a whole state per action. Not part of the
    /// game: a clone starts without it.
    spare: Option<Box<GameState>>,
}

impl Game {
    /// Starts a game: start layout, shuffled supply, first draw.
    pub fn new(rules: Arc<Ruleset>, setup: &GameSetup) -> Result<Game, GameError> {
        let state = set_up(&rules, setup)?;
        let mut game = Game::wrap(rules, state);
        game.advance()?;
        Ok(game)
    }

    /// Builds a game from a position description, checking it.
    pub fn from_position(rules: Arc<Ruleset>, p: &Position) -> Result<Game, GameError> {
        let mut state = empty_state(&rules, &p.players, p.seed)?;
        for (i, s) in p.scores.iter().enumerate() {
            let pl = state
                .players
                .get_mut(i)
                .ok_or_else(|| GameError::Position(format!("score for missing player {i}")))?;
            pl.score = *s;
        }
        if p.active as usize >= state.players.len() {
            return Err(GameError::Position(format!(
                "active player {} does not exist",
                p.active
            )));
        }
        state.active = PlayerId(p.active);
        for t in &p.tiles {
            if t.kind.0 as usize >= rules.tiles().len() {
                return Err(GameError::Position(format!(
                    "unknown tile kind {}",
                    t.kind.0
                )));
            }
            check_fits(&rules, &state, t)?;
            place_tile(&rules, &mut state, t.kind, t.pos, t.rotation);
        }
        // The tiles to draw are in the supply before `start_game`, as in `Game::new`, so an
        // expansion that holds tiles back (Princess & Dragon's dragon tiles, PD-3) sees them.
        state.supply = TileSupply::single(p.draws.clone(), DrawMode::InOrder);
        each(
            &rules,
            &mut state,
            HookSet::GAME_START,
            "start_game",
            |e, ctx| e.start_game(ctx),
        )?;
        for f in &p.figures {
            let seg = state.segment_at(f.pos, f.segment).ok_or_else(|| {
                GameError::Position(format!("no segment {} on a tile at {}", f.segment, f.pos))
            })?;
            let neutral = f.player == PlayerId::NEUTRAL;
            if (f.player.index() >= state.players.len() && !neutral)
                || f.kind.0 as usize >= rules.figure_kinds().len()
                || neutral != rules.figure_kind(f.kind).is_neutral()
            {
                return Err(GameError::Position(format!(
                    "figure of unknown player or kind at {}",
                    f.pos
                )));
            }
            if !rules.kind(state.graph.segment(seg).kind).occupiable {
                return Err(GameError::Position(format!(
                    "segment {} at {} cannot hold figures",
                    f.segment, f.pos
                )));
            }
            if neutral {
                let mut ctx = Ctx {
                    rules: &rules,
                    state: &mut state,
                    me: ExpansionIndex(0),
                };
                ctx.place_neutral(f.kind, seg)
                    .map_err(|e| GameError::Position(format!("at {}: {}", f.pos, e.0)))?;
                continue;
            }
            let id = state.deploy(&rules, f.player, f.kind, seg).ok_or_else(|| {
                GameError::Position(format!(
                    "player {} has no figure left for {}",
                    f.player.0, f.pos
                ))
            })?;
            figure_placed(&rules, &mut state, id, seg)?;
        }
        for set in &p.settings {
            let ix = rules.expansion_index(&set.expansion).ok_or_else(|| {
                GameError::Position(format!(
                    "setting `{}` for expansion `{}`, which is not loaded",
                    set.key, set.expansion
                ))
            })?;
            one(&rules, &mut state, ix, "apply_setting", |e, ctx| {
                e.apply_setting(ctx, &set.key, &set.value)
            })?;
        }
        let mut game = Game::wrap(rules, state);
        game.advance()?;
        Ok(game)
    }

    fn wrap(rules: Arc<Ruleset>, state: GameState) -> Game {
        Game {
            rules,
            state,
            checkpoints: true,
            broken: None,
            spare: None,
        }
    }

    /// Whether to snapshot the state before each action so that a failing expansion hook
    /// leaves the game exactly as it was (the default). Without checkpoints (bulk
    /// simulation, where a snapshot per action would cost more than the turn itself) a
    /// failing hook stops the game: that action and every later one return the error.
    pub fn set_checkpoints(&mut self, on: bool) {
        self.checkpoints = on;
    }

    /// Makes this game a lookahead copy that stops when a tile is next to be drawn in turn
    /// `from_turn` or later ([`GameState::turn`]; `None`: never): the turns before play on,
    /// the last one to its end (its scoring, its end-of-turn hooks, the next turn's start
    /// windows), then the copy offers nothing and its decision reads `GameOver`
    /// (`is_over()` stays false: the look ended, not the game; [`Game::end_now`] ends it
    /// there). A bot values a move by the scores at that point, which no draw changes, and
    /// saves the draw and the next tile's legal placements, the dearest part of a step with
    /// many expansions (issue 33). A copy made with `clone_from` takes the source's setting.
    pub fn set_stop_before_draw(&mut self, from_turn: Option<u32>) {
        self.state.stop_before_draw = from_turn;
    }

    /// Whether this lookahead copy stopped before a draw ([`Game::set_stop_before_draw`]).
    pub fn stopped_before_draw(&self) -> bool {
        self.state.stage == Stage::Draw && self.state.decision.kind == DecisionKind::GameOver
    }

    /// Makes this game a copy that stops when the placement of turn `from_turn` or a later
    /// one is about to be scored (`None`: never): everything asked before the scoring
    /// (the deployment step, the `AfterDeploy` and `BeforeScoring` windows and their
    /// prompts) is asked as usual; then the copy offers nothing and its decision reads
    /// `GameOver` (`is_over()` stays false). Scores and figures are those before the
    /// scoring. The JCZ importer shows a save that ends before its turn's commit so (JCZ
    /// scores after the commit).
    pub fn set_stop_before_scoring(&mut self, from_turn: Option<u32>) {
        self.state.stop_before_scoring = from_turn;
    }

    /// Whether this copy stopped before a scoring ([`Game::set_stop_before_scoring`]).
    pub fn stopped_before_scoring(&self) -> bool {
        self.state.stage == Stage::Score && self.state.decision.kind == DecisionKind::GameOver
    }

    /// Replaces the game's random generator by one seeded from `seed`. Everything on the
    /// table stays; only what is still hidden changes: the order of the tiles to come (and
    /// any later random draw an expansion makes). Search bots call it on their copies to
    /// sample a draw order they cannot know (determinization) instead of reading the real
    /// one from the cloned generator.
    pub fn reseed(&mut self, seed: u64) {
        self.state.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    /// Whether no random number has been drawn since the game was seeded or last
    /// [`reseed`](Game::reseed)ed (no tile drawn, no expansion's chance). Until then the
    /// game is the same whatever the seed: a search that reseeds its copies knows that the
    /// position, and so its offer, is the same in every determinization.
    pub fn generator_untouched(&self) -> bool {
        self.state.rng.get_word_pos() == 0
    }

    /// Ends the game here, as if the last tile had just been played: pending prompts are
    /// dropped and the end of the game runs now (the `BeforeFinalScoring` window, then the
    /// final scoring of unfinished features, farms and expansions' bonuses, A-12, A-13).
    /// Search bots call it on a copy to value a position by the scores it would end with
    /// today instead of playing it out. If the window asks a question, that decision is
    /// pending as usual and the game ends after it. A failing hook stops the game (as
    /// without checkpoints) and is returned.
    pub fn end_now(&mut self) -> Result<(), HookError> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        if self.is_over() {
            return Ok(());
        }
        self.state.prompts.clear();
        self.state.revealed = None;
        self.state.stage = Stage::BeforeFinal;
        let r = self.advance();
        if let Err(e) = &r {
            self.broken = Some(e.clone());
        }
        r
    }

    /// Ends the game here as [`Game::end_now`] does, but every prompt asked from then on
    /// whose expansion offers the pass at the game's end ([`Ruleset::passes_at_end`]) is
    /// answered with [`Action::Pass`] without its offer being listed: the game ends as it
    /// would if every such question were passed. Other prompts are asked as usual. A
    /// search's playout values a position so without paying for the end's choices (the
    /// Count's final round, CO-18, lists every incomplete feature for each follower in
    /// the city). Debug builds list each passed prompt and check that it offers the pass.
    pub fn end_now_passing(&mut self) -> Result<(), HookError> {
        self.state.end_passing = true;
        self.end_now()
    }

    /// The hook failure that stopped this game, if any (only without checkpoints).
    pub fn failure(&self) -> Option<&HookError> {
        self.broken.as_ref()
    }

    /// The rules.
    pub fn rules(&self) -> &Arc<Ruleset> {
        &self.rules
    }

    /// The state.
    pub fn state(&self) -> &GameState {
        &self.state
    }

    /// Read access as hooks see it.
    pub fn view(&self) -> View<'_> {
        View {
            rules: &self.rules,
            state: &self.state,
        }
    }

    /// The pending decision.
    pub fn decision(&self) -> Decision {
        self.state.decision
    }

    /// The legal actions for the pending decision (empty once the game is over).
    pub fn actions(&self) -> &[Action] {
        self.state.offered()
    }

    /// Number of legal actions (cheaper than `actions().len()` in a tile step).
    pub fn action_count(&self) -> usize {
        self.state.offered_len()
    }

    /// The pending decision in words, with player and tile names (for error messages).
    pub fn describe_decision(&self) -> String {
        describe_decision(&self.rules, &self.state)
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.state.stage == Stage::Over
    }

    /// Writes into `out` the legal placements the active player would have for `tile`
    /// on the current board (edge matching plus expansion filters). Used by tools and
    /// benchmarks; the game itself offers placements for the drawn tile in [`Game::actions`].
    pub fn placements_for(&self, tile: TileKindId, out: &mut Vec<Action>) -> Result<(), HookError> {
        let mut cells = Vec::new();
        self.placement_cells_for(tile, &mut cells)?;
        out.clear();
        for c in &cells {
            c.push_placements(out);
        }
        Ok(())
    }

    /// Like [`Game::placements_for`], by cell with a rotation mask; returns the number of
    /// (cell, rotation) pairs. Allocation-free once `out` has grown.
    pub fn placement_cells_for(
        &self,
        tile: TileKindId,
        out: &mut Vec<PlacementCell>,
    ) -> Result<usize, HookError> {
        placements_into(&self.rules, &self.state, tile, out, &mut Vec::new())
    }

    /// Applies an offered action. Anything else is refused and changes nothing.
    pub fn apply(&mut self, action: Action) -> Result<(), ActionError> {
        if let Some(e) = &self.broken {
            return Err(ActionError::Hook(e.clone()));
        }
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        if !self.state.is_offered(&action) {
            return Err(self.refusal(action));
        }
        self.apply_checked(action)
    }

    /// Why `action`, which is not offered, is refused: the first expansion that claims it
    /// gives its reason; else the generic refusal naming the decision.
    fn refusal(&self, action: Action) -> ActionError {
        let player = self.state.decision.player;
        let refused = first_answer(&self.rules, &self.state, "explain_refusal", |e, v| {
            e.explain_refusal(v, player, action)
        });
        match refused {
            Ok(Some((i, reason))) => ActionError::Refused {
                action,
                expansion: self.rules.expansions()[i].id().to_string(),
                reason,
            },
            Err(e) => ActionError::Hook(e),
            Ok(None) => ActionError::NotOffered {
                action,
                decision: describe_decision(&self.rules, &self.state),
            },
        }
    }

    /// Applies the `index`-th offered action (what bots use: no search).
    pub fn apply_offered(&mut self, index: usize) -> Result<(), ActionError> {
        self.play_offered(index).map(|_| ())
    }

    /// [`Game::apply_offered`], passing a deployment step that the action leads to without
    /// listing its offer, when the ruleset keeps the pass in every deployment step
    /// ([`Ruleset::deploy_pass_kept`]; otherwise the step is offered as usual). The game
    /// goes on as if [`Action::Pass`] had been chosen from the listed offer. A search's
    /// playout that means to pass uses it to skip the listing (with the nine official
    /// expansions, a tower, portal and barn offer costs several thousand instructions).
    pub fn apply_passing_deploy(&mut self, index: usize) -> Result<(), ActionError> {
        self.apply_next_offer(index, crate::state::NextOffer::Pass)
    }

    /// [`Game::apply_offered`], answering a deployment step that the action leads to from
    /// the tile's own deployments, without listing what expansions add to the step: core's
    /// deployments on the tile just placed and the pass, through every deployment filter,
    /// and of those the one at `pick`'s share (`pick / 2⁶⁴` of the way along; a uniform
    /// `pick` chooses uniformly). Only where the ruleset keeps the pass in every step
    /// ([`Ruleset::deploy_pass_kept`]), whose filters judge each action by itself, so that
    /// the choice is one the listed step offers; otherwise the step is offered as usual.
    /// The game goes on as if that action had been chosen from the listed offer. A search's
    /// playout uses it to deploy on the tile it placed without listing every tower, portal
    /// target and barn of a nine-expansion step.
    pub fn apply_tile_deploy(&mut self, index: usize, pick: u64) -> Result<(), ActionError> {
        self.apply_next_offer(index, crate::state::NextOffer::Pick(pick))
    }

    fn apply_next_offer(
        &mut self,
        index: usize,
        how: crate::state::NextOffer,
    ) -> Result<(), ActionError> {
        self.state.next_offer = how;
        let r = self.play_offered(index).map(|_| ());
        self.state.next_offer = crate::state::NextOffer::Listed;
        r
    }

    /// Applies the `index`-th offered action and returns it: what a game loop that keeps
    /// a record needs, without looking the action up twice (for a tile step that walks
    /// the placements).
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
    pub fn play_offered(&mut self, index: usize) -> Result<Action, ActionError> {
        let action = self.offered_action(index)?;
        self.apply_checked(action)?;
        Ok(action)
    }

    /// The `index`-th offered action, unless the game is stopped or there is none.
    #[inline]
    fn offered_action(&self, index: usize) -> Result<Action, ActionError> {
        if let Some(e) = &self.broken {
            return Err(ActionError::Hook(e.clone()));
        }
        self.state
            .offered_at(index)
            .ok_or_else(|| ActionError::BadIndex {
                index,
                len: self.state.offered_len(),
            })
    }

    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
    fn apply_checked(&mut self, action: Action) -> Result<(), ActionError> {
        // Core's own steps cannot fail once an action is known to be offered; only hooks
        // can, so a snapshot is only needed when expansions are loaded.
        let snapshot = (self.checkpoints && !self.rules.expansions().is_empty()).then(|| {
            let mut s = match self.spare.take() {
                Some(s) => s,
                None => return Box::new(self.state.clone()),
            };
            GameState::clone_from(&mut s, &self.state);
            s
        });
        // A copy starts without the placement-action cache; a restored state gets it back
        // if it had it, so a rollback leaves the state exactly as it was.
        let cached = self.state.placement_actions.get().is_some();
        match self.step(action) {
            Ok(()) => {
                self.spare = snapshot;
                Ok(())
            }
            Err(e) => {
                self.roll_back(snapshot, cached, &e);
                Err(ActionError::Hook(e))
            }
        }
    }

    /// After a hook failed in [`Self::apply_checked`]: the state before the action comes
    /// back from `snapshot`, or without one the game is poisoned. Out of line (rare).
    #[cold]
    #[inline(never)]
    fn roll_back(&mut self, snapshot: Option<Box<GameState>>, cached: bool, e: &HookError) {
        match snapshot {
            Some(mut s) => {
                std::mem::swap(&mut self.state, &mut *s);
                self.spare = Some(s);
                if cached {
                    // Always the expansion of `placements`, which were restored.
                    let list = self.state.placement_action_list();
                    self.state.placement_actions = std::sync::OnceLock::from(list);
                }
            }
            None if !self.rules.expansions().is_empty() => self.broken = Some(e.clone()),
            None => {}
        }
    }

    fn step(&mut self, action: Action) -> Result<(), HookError> {
        let Game { rules, state, .. } = self;
        let rules: &Ruleset = rules;
        let player = state.decision.player;
        match state.decision.kind {
            DecisionKind::Draw => {
                let Action::Draw { tile } = action else {
                    unreachable!("only draws are offered when the table draws")
                };
                if chosen_draw(rules, state, tile)? {
                    return Ok(());
                }
            }
            DecisionKind::PlaceTile { tile } => {
                let Action::Place { pos, rotation } = action else {
                    unreachable!("only placements are offered in the tile step")
                };
                play_tile(rules, state, player, tile, pos, rotation)?;
            }
            DecisionKind::Deploy { .. } => {
                state.deploy_choice = Some(action);
                match action {
                    Action::Deploy { figure, segment } => {
                        if let Some(f) = state.deploy(rules, player, figure, segment) {
                            figure_placed(rules, state, f, segment)?;
                        }
                    }
                    Action::Move { figure, segment } => {
                        state.move_figure(figure, segment);
                        figure_placed(rules, state, figure, segment)?;
                    }
                    Action::Pass => {}
                    Action::Custom(c) => {
                        one(rules, state, c.expansion, "apply_action", |e, ctx| {
                            e.apply_action(ctx, player, c)
                        })?
                    }
                    Action::Place { .. } | Action::Draw { .. } => {
                        unreachable!("no placement or draw is offered in the deployment step")
                    }
                }
            }
            // Another expansion's custom action is one of its free actions: applied, the
            // prompt is asked again (`BoundExpansion::free_actions`).
            DecisionKind::Prompt(p) => match action {
                Action::Custom(c) if c.expansion != p.owner => {
                    one(rules, state, c.expansion, "apply_action", |e, ctx| {
                        e.apply_action(ctx, player, c)
                    })?;
                    state.prompts.push_front(p);
                }
                _ => one(rules, state, p.owner, "apply_prompt", |e, ctx| {
                    e.apply_prompt(ctx, p, action)
                })?,
            },
            DecisionKind::GameOver => unreachable!("checked by apply"),
        }
        advance(rules, state)
    }

    /// Runs the pipeline until a decision with at least one action is pending.
    fn advance(&mut self) -> Result<(), HookError> {
        advance(&self.rules, &mut self.state)
    }
}

/// The tile the table chose to draw ([`DecisionKind::Draw`]: replays of JCZ saves), out of
/// line: random play never draws so. `true` when it is offered at once (no prompt first).
#[cold]
#[inline(never)]
fn chosen_draw(
    rules: &Ruleset,
    state: &mut GameState,
    tile: TileKindId,
) -> Result<bool, HookError> {
    let taken = state.supply.take_chosen(tile);
    debug_assert!(taken, "offered draws are in the active groups");
    if consider_drawn(rules, state, tile, &mut 0)? {
        if state.prompts.is_empty() {
            state.offer_tile(tile);
            return Ok(true);
        }
        // Prompts queued when it was drawn come first (see `Stage::Reveal`).
        state.revealed = Some(tile);
        state.stage = Stage::Reveal;
    }
    // Discarded or sent back: the table draws again (stage is still `Draw`).
    Ok(false)
}

/// A new game's state before its first draw: players and figures, the supply, the start
/// layout (expansions' `prepare_game`, then each start tile placed), `start_game`.
fn set_up(rules: &Ruleset, setup: &GameSetup) -> Result<GameState, GameError> {
    let mut state = empty_state(rules, &setup.players, setup.seed)?;
    let mut tiles = Vec::with_capacity(128);
    let mut start = None;
    for (id, kind) in rules.tiles().iter() {
        if kind.start && start.is_none() {
            start = Some(id);
        }
        tiles.extend(std::iter::repeat_n(id, kind.count as usize));
    }
    let start = start.ok_or(GameError::NoStartTile)?;
    state.supply = TileSupply::single(tiles, DrawMode::Random);
    let mut layout = vec![StartTile {
        kind: start,
        pos: Pos::new(0, 0),
        rotation: Rotation::R0,
    }];
    each(
        rules,
        &mut state,
        HookSet::GAME_START,
        "prepare_game",
        |e, ctx| e.prepare_game(ctx, &mut layout),
    )?;
    if let Some(given) = &setup.start {
        layout.clone_from(given);
    }
    if setup.draws == DrawMode::Chosen {
        state.supply.mode = DrawMode::Chosen;
    }
    state.supply.draws_left = setup.draw_limit;
    // Each start tile takes one copy out of the supply (after expansions changed
    // the layout, so a replaced start tile stays in the pack).
    for t in &layout {
        if t.kind.0 as usize >= rules.tiles().len() {
            return Err(GameError::Position(format!(
                "unknown start tile kind {}",
                t.kind.0
            )));
        }
        check_fits(rules, &state, t)?;
        place_tile(rules, &mut state, t.kind, t.pos, t.rotation);
        state.supply.take(t.kind);
    }
    each(
        rules,
        &mut state,
        HookSet::GAME_START,
        "start_game",
        |e, ctx| e.start_game(ctx),
    )?;
    Ok(state)
}

/// The set-up of many games that differ only in their seed, done once: a simulation of
/// thousands of games with the same players and expansions starts each from a copy of it
/// instead of laying out the start tiles again (the Count's City of Carcassonne alone is
/// thirteen tiles). The games are the ones [`Game::new`] makes, byte for byte: the copy is
/// used only when the set-up drew nothing from the game's random generator (so nothing in
/// it depends on the seed); otherwise every game is set up afresh.
#[derive(Clone, Debug)]
pub struct GameTemplate {
    rules: Arc<Ruleset>,
    setup: GameSetup,
    /// The set-up state, when it does not depend on the seed.
    state: Option<GameState>,
    /// Tiles in the ruleset's supply (what [`GameState::reserve_for_game`] sizes for).
    tiles: usize,
}

impl GameTemplate {
    /// Sets up once for `setup` (its seed is only used to check the set-up; each game
    /// brings its own). Fails as [`Game::new`] would.
    pub fn new(rules: Arc<Ruleset>, setup: &GameSetup) -> Result<GameTemplate, GameError> {
        let state = set_up(&rules, setup)?;
        // No random number drawn: the state is the same for every seed but for the
        // generator itself, which `game` replaces.
        let seed_free = state.rng.get_word_pos() == 0;
        let tiles = rules.tiles().iter().map(|(_, k)| k.count as usize).sum();
        Ok(GameTemplate {
            tiles,
            rules,
            setup: setup.clone(),
            state: seed_free.then_some(state),
        })
    }

    /// The ruleset.
    pub fn rules(&self) -> &Arc<Ruleset> {
        &self.rules
    }

    /// The set-up (with the seed it was made with).
    pub fn setup(&self) -> &GameSetup {
        &self.setup
    }

    /// The game [`Game::new`] would start with this set-up and `seed`.
    pub fn game(&self, seed: u64) -> Result<Game, GameError> {
        let state = match &self.state {
            Some(state) => {
                let mut state = state.clone();
                state.rng = ChaCha8Rng::seed_from_u64(seed);
                state.reserve_for_game(self.tiles);
                state
            }
            None => set_up(
                &self.rules,
                &GameSetup {
                    seed,
                    ..self.setup.clone()
                },
            )?,
        };
        let mut game = Game::wrap(Arc::clone(&self.rules), state);
        game.advance()?;
        Ok(game)
    }

    /// The game [`GameTemplate::game`] would return for `seed`, written into `game` (a
    /// finished game, of this template or any other) with its buffers reused: what a
    /// simulation that plays game after game on one thread uses. The result is the same
    /// game in every observable way (checkpoints on, not broken).
    pub fn game_into(&self, seed: u64, game: &mut Game) -> Result<(), GameError> {
        let Some(state) = &self.state else {
            *game = self.game(seed)?;
            return Ok(());
        };
        if !Arc::ptr_eq(&game.rules, &self.rules) {
            game.rules = Arc::clone(&self.rules);
        }
        game.state.refill_from(state, false);
        game.state.rng = ChaCha8Rng::seed_from_u64(seed);
        game.state.reserve_for_game(self.tiles);
        game.checkpoints = true;
        game.broken = None;
        game.advance()?;
        Ok(())
    }
}

fn empty_state(rules: &Ruleset, names: &[String], seed: u64) -> Result<GameState, GameError> {
    if names.is_empty() || names.len() > MAX_PLAYERS {
        return Err(GameError::Players(names.len()));
    }
    let kinds = rules.figure_kinds();
    let per_player: usize = kinds.iter().map(|d| d.per_player as usize).sum();
    let neutral: usize = kinds.iter().map(|d| d.neutral as usize).sum();
    let mut figures = Vec::with_capacity(names.len() * per_player + neutral);
    let mut in_supply = Vec::with_capacity(names.len() * kinds.len());
    for p in 0..names.len() {
        for (k, def) in kinds.iter().enumerate() {
            in_supply.push(def.per_player);
            for n in 0..def.per_player {
                figures.push(Figure {
                    owner: PlayerId(p as u8),
                    kind: FigureKindId(k as u8),
                    ordinal: n + 1,
                    loc: FigureLoc::Supply,
                });
            }
        }
    }
    // Neutral figures follow every player's, so each player's stay contiguous.
    for (k, def) in kinds.iter().enumerate() {
        for n in 0..def.neutral {
            figures.push(Figure {
                owner: PlayerId::NEUTRAL,
                kind: FigureKindId(k as u8),
                ordinal: n + 1,
                loc: FigureLoc::Supply,
            });
        }
    }
    let tiles: usize = rules.tiles().iter().map(|(_, k)| k.count as usize).sum();
    let mut state = GameState {
        players: names
            .iter()
            .map(|n| Player {
                name: n.clone(),
                score: 0,
            })
            .collect(),
        active: PlayerId(0),
        turn: 0,
        board: Default::default(),
        graph: FeatureGraph::default(),
        figures,
        in_supply,
        figure_kinds: kinds.len(),
        figures_per_player: per_player,
        sharing: crate::state::SharingKinds::of(kinds),
        supply: TileSupply::single(Vec::new(), DrawMode::Random),
        rng: ChaCha8Rng::seed_from_u64(seed),
        stage: Stage::TurnStart,
        decision: Decision {
            player: PlayerId(0),
            kind: DecisionKind::GameOver,
        },
        offered: Vec::new(),
        placements: Vec::new(),
        placement_count: 0,
        placement_actions: std::sync::OnceLock::new(),
        offered_key: None,
        prompts: VecDeque::new(),
        turn_prompts: 0,
        prompt_overflow: false,
        supply_touched: false,
        last_placed: None,
        last_overlay: None,
        last_placer: None,
        deploy_choice: None,
        open_window: None,
        extra_part: false,
        revealed: None,
        instead: None,
        score_anyway: false,
        more_turns: false,
        whole_turns: false,
        stop_before_draw: None,
        stop_before_scoring: None,
        end_passing: false,
        next_offer: crate::state::NextOffer::Listed,
        known_at: None,
        known_offer: Vec::new(),
        events: Vec::new(),
        part_events: 0,
        candidates: Vec::new(),
        completed: Vec::new(),
        final_strengths: Vec::new(),
        final_cities: Vec::new(),
        placement_memo: Default::default(),
        copy_base: Default::default(),
        discards: Vec::new(),
        slots: Vec::new(),
        slot_offsets: Vec::new(),
        draft: ScoreDraft::default(),
        final_scoring: false,
    };
    state.reserve_for_game(tiles);
    state.init_slots(rules);
    Ok(state)
}

fn describe_decision(rules: &Ruleset, st: &GameState) -> String {
    let who = &st.players[st.decision.player.index()].name;
    match st.decision.kind {
        DecisionKind::PlaceTile { tile } => {
            format!("{who} must place tile {}", rules.tiles().get(tile).id)
        }
        DecisionKind::Deploy { .. } => format!("{who} may deploy a figure or pass"),
        DecisionKind::Prompt(p) => format!(
            "{who} must answer a prompt of expansion `{}`",
            rules.expansions()[p.owner.0 as usize].id()
        ),
        DecisionKind::Draw => format!("the table must draw the tile {who} places next"),
        DecisionKind::GameOver => "the game is over".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tile step's `offered_at` walks the cells from the nearer end: at every decision of
    /// seeded games (2–4 players), every index answers the action at that index of the full
    /// list (`offered`, built cell by cell from the start), and one past the end `None`;
    /// `offered_iter` (which builds no list) gives that list.
    #[test]
    fn offered_at_and_offered_iter_match_the_offered_list() {
        let base: crate::TileSetData = toml::from_str(crate::BASE_TILES_TOML).unwrap();
        let rules = Arc::new(Ruleset::builder().tiles(base).build().unwrap());
        let mut tile_steps = 0;
        for seed in 0..6u64 {
            let names = (0..2 + seed % 3).map(|p| format!("P{p}")).collect();
            let mut game = Game::new(Arc::clone(&rules), &GameSetup::new(names, seed)).unwrap();
            let mut pick = seed;
            while !game.is_over() {
                let st = game.state();
                let all = st.offered().to_vec();
                assert_eq!(all.len(), game.action_count());
                tile_steps +=
                    usize::from(matches!(st.decision.kind, DecisionKind::PlaceTile { .. }));
                for (i, a) in all.iter().enumerate() {
                    assert_eq!(st.offered_at(i), Some(*a), "index {i} of {}", all.len());
                }
                assert_eq!(st.offered_at(all.len()), None);
                assert!(st.offered_iter().eq(all.iter().copied()));
                pick = pick
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let i = (pick >> 33) as usize % game.action_count();
                assert_eq!(game.play_offered(i).unwrap(), all[i]);
            }
        }
        assert!(tile_steps > 400);
    }

    /// A search keeps a node's offer only while no chance has come since its reseed
    /// (`generator_untouched`): a reseeded game is untouched through the turn's placement
    /// and deployment step, and touched once the next turn's tile is drawn.
    #[test]
    fn a_drawn_tile_touches_the_generator() {
        let base: crate::TileSetData = toml::from_str(crate::BASE_TILES_TOML).unwrap();
        let rules = Arc::new(Ruleset::builder().tiles(base).build().unwrap());
        let names = vec!["A".to_string(), "B".to_string()];
        let mut game = Game::new(rules, &GameSetup::new(names, 1)).unwrap();
        game.reseed(5);
        let turn = game.state().turn();
        while game.state().turn() == turn {
            assert!(game.generator_untouched(), "{:?}", game.decision().kind);
            game.play_offered(0).unwrap();
        }
        assert!(!game.generator_untouched());
        game.reseed(6);
        assert!(game.generator_untouched());
    }

    /// The turn start's test for the end of the supply, `is_exhausted`, is `remaining() ==
    /// 0` for every mix of groups, hidden tiles and draw caps.
    #[test]
    fn is_exhausted_is_no_tile_remaining() {
        for groups in [vec![], vec![0], vec![3], vec![0, 0], vec![0, 2], vec![2, 1]] {
            for hidden in 0..4 {
                for cap in [None, Some(0), Some(1), Some(5)] {
                    let mut s = TileSupply::single(Vec::new(), DrawMode::Random);
                    s.groups = groups
                        .iter()
                        .map(|&n| crate::supply::SupplyGroup {
                            name: "g".into(),
                            tiles: vec![TileKindId(0); n],
                            active: true,
                        })
                        .collect();
                    s.hidden = hidden;
                    s.draws_left = cap;
                    assert_eq!(
                        s.is_exhausted(),
                        s.remaining() == 0,
                        "{groups:?} {hidden} {cap:?}"
                    );
                }
            }
        }
    }

    /// `View` reaches the engine through the ruleset's routines, the builder's copies: they
    /// are this binary's functions, and at every decision of seeded games they answer as the
    /// engine's own calls (the completed features, every tile kind's placements).
    #[test]
    fn views_reach_the_engine_through_the_builders_routines() {
        let base: crate::TileSetData = toml::from_str(crate::BASE_TILES_TOML).unwrap();
        let rules = Arc::new(Ruleset::builder().tiles(base).build().unwrap());
        let here = Routines::HERE;
        assert!(std::ptr::fn_addr_eq(
            rules.routines.completed_by_last_placement,
            here.completed_by_last_placement
        ));
        assert!(std::ptr::fn_addr_eq(
            rules.routines.placements,
            here.placements
        ));
        assert!(std::ptr::fn_addr_eq(
            rules.routines.read_placements,
            here.read_placements
        ));
        let (mut by_view, mut direct) = (Vec::new(), Vec::new());
        let (mut cells_view, mut cells_direct) = (Vec::new(), Vec::new());
        for seed in 0..4u64 {
            let setup = GameSetup::new(vec!["A".into(), "B".into()], seed);
            let mut game = Game::new(Arc::clone(&rules), &setup).unwrap();
            let mut pick = seed;
            while !game.is_over() {
                let (v, st) = (game.view(), game.state());
                v.completed_by_last_placement(&mut by_view);
                completed_by_last_placement(&rules, st, &mut direct);
                assert_eq!(by_view, direct);
                for k in 0..rules.tiles().len() {
                    let tile = TileKindId(k as u16);
                    let n = v.placements_of(tile, &mut cells_view).unwrap();
                    let m = placements_into(&rules, st, tile, &mut cells_direct, &mut Vec::new());
                    assert_eq!((n, &cells_view), (m.unwrap(), &cells_direct));
                }
                pick = pick
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let i = (pick >> 33) as usize % game.action_count();
                game.apply_offered(i).unwrap();
            }
        }
    }
}
