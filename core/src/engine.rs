//! The rules kernel: the turn pipeline as an explicit state machine (rule A-16).
//!
//! [`Game`] always waits on exactly one [`Decision`]; [`Game::apply`] accepts only an
//! action from [`Game::actions`] and otherwise returns an error with the state untouched.
//! Everything between two decisions (draws, discards, scoring, windows without
//! prompts) runs inside `advance`, resuming from the stored [`Stage`].

use crate::action::{Action, ExpansionIndex};
use crate::board::PlacedTile;
use crate::event::ScoreSource;
use crate::figure::{Figure, FigureId, FigureKindId, FigureLoc, RemovalReason};
use crate::graph::{FeatureGraph, FeatureId, FeatureTotals, PlacedIndex, SegmentNode};
use crate::hooks::{
    Award, Ctx, DraftFeature, DrawVerdict, Expansion, HookError, HookResult, HookSet, ScoreDraft,
    StartTile, TurnEndVerdict, View, Window,
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
    /// Owner.
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

/// A game: shared rules plus the state.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Arc<Ruleset>,
    state: GameState,
    /// Snapshot before every action, to roll back a failing hook (see [`Game::set_checkpoints`]).
    checkpoints: bool,
    /// A hook failed with checkpoints off: the state is inconsistent, the game is stopped.
    broken: Option<HookError>,
}

impl Game {
    /// Starts a game: start layout, shuffled supply, first draw.
    pub fn new(rules: Arc<Ruleset>, setup: &GameSetup) -> Result<Game, GameError> {
        let mut state = empty_state(&rules, &setup.players, setup.seed)?;
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
        for (i, (e, hooks)) in rules.expansions().iter().zip(rules.hook_sets()).enumerate() {
            if !hooks.has(HookSet::GAME_START) {
                continue;
            }
            let mut ctx = Ctx {
                rules: &rules,
                state: &mut state,
                me: ExpansionIndex(i as u8),
            };
            e.prepare_game(&mut ctx, &mut layout)
                .map_err(|m| hook_error(e.as_ref(), "prepare_game", m))?;
        }
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
            check_fits(&rules, &state, t)?;
            place_tile(&rules, &mut state, t.kind, t.pos, t.rotation);
            state.supply.take(t.kind);
        }
        each(
            &rules,
            &mut state,
            HookSet::GAME_START,
            "start_game",
            |e, ctx| e.start_game(ctx),
        )?;
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
            if f.player.index() >= state.players.len()
                || f.kind.0 as usize >= rules.figure_kinds().len()
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
            state.deploy(&rules, f.player, f.kind, seg).ok_or_else(|| {
                GameError::Position(format!(
                    "player {} has no figure left for {}",
                    f.player.0, f.pos
                ))
            })?;
        }
        state.supply = TileSupply::single(p.draws.clone(), DrawMode::InOrder);
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
        }
    }

    /// Whether to snapshot the state before each action so that a failing expansion hook
    /// leaves the game exactly as it was (the default). Without checkpoints (bulk
    /// simulation, where a snapshot per action would cost more than the turn itself) a
    /// failing hook stops the game: that action and every later one return the error.
    pub fn set_checkpoints(&mut self, on: bool) {
        self.checkpoints = on;
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
            for q in 0..4u8 {
                if c.rotations & (1 << q) != 0 {
                    out.push(Action::Place {
                        pos: c.pos,
                        rotation: Rotation::quarter_turns(q),
                    });
                }
            }
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
            return Err(ActionError::NotOffered {
                action,
                decision: describe_decision(&self.rules, &self.state),
            });
        }
        self.apply_checked(action)
    }

    /// Applies the `index`-th offered action (what bots use: no search).
    pub fn apply_offered(&mut self, index: usize) -> Result<(), ActionError> {
        if let Some(e) = &self.broken {
            return Err(ActionError::Hook(e.clone()));
        }
        let action = self.state.offered_at(index).ok_or(ActionError::BadIndex {
            index,
            len: self.state.offered_len(),
        })?;
        self.apply_checked(action)
    }

    fn apply_checked(&mut self, action: Action) -> Result<(), ActionError> {
        // Core's own steps cannot fail once an action is known to be offered; only hooks
        // can, so a snapshot is only needed when expansions are loaded.
        let snapshot =
            (self.checkpoints && !self.rules.expansions().is_empty()).then(|| self.state.clone());
        match self.step(action) {
            Ok(()) => Ok(()),
            Err(e) => {
                match snapshot {
                    Some(s) => self.state = s,
                    None if !self.rules.expansions().is_empty() => self.broken = Some(e.clone()),
                    None => {}
                }
                Err(ActionError::Hook(e))
            }
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
                let taken = state.supply.take_chosen(tile);
                debug_assert!(taken, "offered draws are in the active groups");
                if consider_drawn(rules, state, tile, &mut 0)? {
                    state.decision = Decision {
                        player: state.active,
                        kind: DecisionKind::PlaceTile { tile },
                    };
                    return Ok(());
                }
                // Discarded or sent back: the table draws again (stage is still `Draw`).
            }
            DecisionKind::PlaceTile { tile } => {
                let Action::Place { pos, rotation } = action else {
                    unreachable!("only placements are offered in the tile step")
                };
                let idx = place_tile(rules, state, tile, pos, rotation);
                state.last_placed = Some(idx);
                state.last_placer = Some(player);
                each(
                    rules,
                    state,
                    HookSet::ON_TILE_PLACED,
                    "on_tile_placed",
                    |e, ctx| e.on_tile_placed(ctx, pos),
                )?;
                state.stage = Stage::DeployStep;
            }
            DecisionKind::Deploy { .. } => match action {
                Action::Deploy { figure, segment } => {
                    state.deploy(rules, player, figure, segment);
                }
                Action::Move { figure, segment } => state.move_figure(figure, segment),
                Action::Pass => {}
                Action::Custom(c) => one(rules, state, c.expansion, "apply_action", |e, ctx| {
                    e.apply_action(ctx, player, c)
                })?,
                Action::Place { .. } | Action::Draw { .. } => {
                    unreachable!("no placement or draw is offered in the deployment step")
                }
            },
            DecisionKind::Prompt(p) => one(rules, state, p.owner, "apply_prompt", |e, ctx| {
                e.apply_prompt(ctx, p, action)
            })?,
            DecisionKind::GameOver => unreachable!("checked by apply"),
        }
        advance(rules, state)
    }

    /// Runs the pipeline until a decision with at least one action is pending.
    fn advance(&mut self) -> Result<(), HookError> {
        advance(&self.rules, &mut self.state)
    }
}

/// Runs the pipeline until a decision with at least one action is pending.
fn advance(rules: &Ruleset, st: &mut GameState) -> Result<(), HookError> {
    loop {
        if let Some(p) = st.prompts.pop_front() {
            let e = &rules.expansions()[p.owner.0 as usize];
            st.turn_prompts += 1;
            if st.turn_prompts > crate::hooks::MAX_PROMPTS_PER_TURN {
                return Err(hook_error(
                    e.as_ref(),
                    "apply_prompt",
                    crate::hooks::HookFailure(format!(
                        "more than {} prompts in one turn: does answering a prompt always \
                         ask another?",
                        crate::hooks::MAX_PROMPTS_PER_TURN
                    )),
                ));
            }
            let mut offered = std::mem::take(&mut st.offered);
            offered.clear();
            let r = e.prompt_actions(View { rules, state: st }, p, &mut offered);
            st.offered = offered;
            r.map_err(|m| hook_error(e.as_ref(), "prompt_actions", m))?;
            if !st.offered.is_empty() {
                st.decision = Decision {
                    player: p.player,
                    kind: DecisionKind::Prompt(p),
                };
                return Ok(());
            }
            continue;
        }
        // Window stages: move on first, so the pipeline resumes after the prompts.
        let window_stage = match st.stage {
            Stage::TurnStart => Some((Stage::Draw, Window::TurnStart)),
            Stage::AfterDeploy => Some((Stage::BeforeScoring, Window::AfterDeploy)),
            Stage::BeforeScoring => Some((Stage::Score, Window::BeforeScoring)),
            Stage::AfterScoring => Some((Stage::TurnEnd, Window::AfterScoring)),
            _ => None,
        };
        // the game ends after the turn in which the supply ran out, before any
        // start-of-turn effect of a turn that will never be played.
        if st.stage == Stage::TurnStart && st.supply.remaining() == 0 {
            st.stage = Stage::BeforeFinal;
            continue;
        }
        if st.stage == Stage::TurnStart {
            st.turn_prompts = 0;
        }
        if let Some((next, w)) = window_stage {
            st.stage = next;
            window(rules, st, w)?;
            continue;
        }
        match st.stage {
            Stage::TurnStart | Stage::AfterDeploy | Stage::BeforeScoring | Stage::AfterScoring => {
                unreachable!("handled above")
            }
            Stage::Draw if st.supply.mode == DrawMode::Chosen => {
                let mut offered = std::mem::take(&mut st.offered);
                let mut kinds = Vec::new();
                st.supply.choices(&mut kinds);
                offered.clear();
                offered.extend(kinds.into_iter().map(|tile| Action::Draw { tile }));
                st.offered = offered;
                if st.offered.is_empty() {
                    st.stage = Stage::BeforeFinal;
                    continue;
                }
                st.decision = Decision {
                    player: st.active,
                    kind: DecisionKind::Draw,
                };
                return Ok(());
            }
            Stage::Draw => match draw(rules, st)? {
                Some(tile) => {
                    st.decision = Decision {
                        player: st.active,
                        kind: DecisionKind::PlaceTile { tile },
                    };
                    return Ok(());
                }
                None => st.stage = Stage::BeforeFinal,
            },
            Stage::DeployStep => {
                st.stage = Stage::AfterDeploy;
                if deploy_offers(rules, st)? {
                    let tile = st.last_placed.expect("a tile was placed");
                    st.decision = Decision {
                        player: st.active,
                        kind: DecisionKind::Deploy { tile },
                    };
                    return Ok(());
                }
            }
            Stage::Score => {
                st.stage = Stage::AfterScoring;
                score_placement(rules, st)?;
            }
            Stage::TurnEnd => {
                let mut extra = false;
                each(rules, st, HookSet::ON_TURN_END, "on_turn_end", |e, ctx| {
                    extra |= e.on_turn_end(ctx)? == TurnEndVerdict::ExtraPart;
                    Ok(())
                })?;
                if extra && !st.extra_part {
                    st.extra_part = true;
                    st.stage = Stage::Draw;
                } else {
                    st.extra_part = false;
                    st.turn += 1;
                    st.active = PlayerId(((st.active.0 as usize + 1) % st.players.len()) as u8);
                    st.stage = Stage::TurnStart;
                }
            }
            Stage::BeforeFinal => {
                st.final_scoring = true;
                st.stage = Stage::FinalScoring;
                window(rules, st, Window::BeforeFinalScoring)?;
            }
            Stage::FinalScoring => {
                st.stage = Stage::Over;
                final_scoring(rules, st)?;
            }
            Stage::Over => {
                st.offered.clear();
                st.decision = Decision {
                    player: st.active,
                    kind: DecisionKind::GameOver,
                };
                return Ok(());
            }
        }
    }
}

fn empty_state(rules: &Ruleset, names: &[String], seed: u64) -> Result<GameState, GameError> {
    if names.is_empty() || names.len() > MAX_PLAYERS {
        return Err(GameError::Players(names.len()));
    }
    let kinds = rules.figure_kinds();
    let mut figures = Vec::new();
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
        graph: FeatureGraph::with_capacity(tiles * 4 + 16),
        figures,
        in_supply,
        figure_kinds: kinds.len(),
        supply: TileSupply::single(Vec::new(), DrawMode::Random),
        rng: ChaCha8Rng::seed_from_u64(seed),
        stage: Stage::TurnStart,
        decision: Decision {
            player: PlayerId(0),
            kind: DecisionKind::GameOver,
        },
        offered: Vec::with_capacity(64),
        placements: Vec::with_capacity(256),
        placement_count: 0,
        placement_actions: std::sync::OnceLock::new(),
        prompts: VecDeque::new(),
        turn_prompts: 0,
        prompt_overflow: false,
        last_placed: None,
        last_placer: None,
        extra_part: false,
        events: Vec::with_capacity(64),
        candidates: Vec::new(),
        completed: Vec::new(),
        discarded: Vec::new(),
        slots: Vec::new(),
        slot_offsets: Vec::new(),
        draft: ScoreDraft::default(),
        final_scoring: false,
    };
    state.init_slots(rules);
    Ok(state)
}

fn hook_error(e: &dyn Expansion, hook: &'static str, m: crate::hooks::HookFailure) -> HookError {
    HookError {
        expansion: e.id().to_string(),
        hook,
        message: m.0,
    }
}

/// A hook's result, failed if it tried to queue more prompts than the queue takes.
fn checked_hook(
    e: &dyn Expansion,
    hook: &'static str,
    state: &mut GameState,
    r: HookResult,
) -> Result<(), HookError> {
    r.map_err(|m| hook_error(e, hook, m))?;
    if std::mem::take(&mut state.prompt_overflow) {
        return Err(hook_error(
            e,
            hook,
            crate::hooks::HookFailure(format!(
                "queued more than {} prompts at once",
                crate::hooks::MAX_QUEUED_PROMPTS
            )),
        ));
    }
    Ok(())
}

/// Calls `f` for one expansion with a context.
fn one(
    rules: &Ruleset,
    state: &mut GameState,
    ix: ExpansionIndex,
    hook: &'static str,
    f: impl FnOnce(&dyn Expansion, &mut Ctx<'_>) -> HookResult,
) -> Result<(), HookError> {
    let e = &rules.expansions()[ix.0 as usize];
    let mut ctx = Ctx {
        rules,
        state,
        me: ix,
    };
    let r = f(e.as_ref(), &mut ctx);
    checked_hook(e.as_ref(), hook, state, r)
}

/// Calls `f` for every expansion in order with a context.
#[inline]
fn each(
    rules: &Ruleset,
    state: &mut GameState,
    bit: HookSet,
    hook: &'static str,
    mut f: impl FnMut(&dyn Expansion, &mut Ctx<'_>) -> HookResult,
) -> Result<(), HookError> {
    let members = rules.hook_members(bit);
    if members == 0 {
        return Ok(());
    }
    let call = |i: usize,
                state: &mut GameState,
                f: &mut dyn FnMut(&dyn Expansion, &mut Ctx<'_>) -> HookResult| {
        let e = &rules.expansions()[i];
        let mut ctx = Ctx {
            rules,
            state,
            me: ExpansionIndex(i as u8),
        };
        let r = f(e.as_ref(), &mut ctx);
        checked_hook(e.as_ref(), hook, state, r)
    };
    // Visit only the implementers; bit 63 also stands for every later expansion.
    let mut m = members & !(1 << 63);
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        call(i, state, &mut f)?;
    }
    if members & (1 << 63) != 0 {
        for i in 63..rules.expansions().len() {
            if rules.hook_sets()[i].has(bit) {
                call(i, state, &mut f)?;
            }
        }
    }
    Ok(())
}

#[inline]
fn window(rules: &Ruleset, state: &mut GameState, w: Window) -> Result<(), HookError> {
    each(rules, state, HookSet::window(w), "open_window", |e, ctx| {
        e.open_window(ctx, w)
    })
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

/// Checks that a start or position tile lands on an empty cell and matches its neighbours.
fn check_fits(rules: &Ruleset, state: &GameState, t: &StartTile) -> Result<(), GameError> {
    if !t.pos.in_bounds() {
        return Err(GameError::Position(format!(
            "a tile at {} is beyond the board's bound (|x| and |y| at most {})",
            t.pos,
            crate::pos::MAX_COORD
        )));
    }
    if state.board.is_occupied(t.pos) {
        return Err(GameError::Position(format!("two tiles at {}", t.pos)));
    }
    let (want, mask) = state.board.constraints(t.pos);
    if rules.tiles().get(t.kind).edge_code(t.rotation) & mask != want {
        return Err(GameError::Position(format!(
            "tile {} at {} rotation {} does not match its neighbours' edges",
            rules.tiles().get(t.kind).id,
            t.pos,
            t.rotation
        )));
    }
    Ok(())
}

/// Puts a tile on the board and merges its segments into the feature graph.
pub(crate) fn place_tile(
    rules: &Ruleset,
    st: &mut GameState,
    kind: TileKindId,
    pos: Pos,
    rot: Rotation,
) -> PlacedIndex {
    let tk = rules.tiles().get(kind);
    let first = st.graph.len() as u32;
    let idx = st.board.place(PlacedTile {
        kind,
        pos,
        rotation: rot,
        first_segment: first,
        edge_code: tk.edge_code(rot),
        sites: tk.sites,
    });
    let filled = if tk.sites != 0 {
        st.board.surrounding_count(pos)
    } else {
        0
    };
    for (i, seg) in tk.segments.iter().enumerate() {
        let (open, completable) = match rules.kind(seg.kind).shape {
            Shape::Edge { .. } => (seg.sides.len() as u16, true),
            Shape::Site => (8 - filled, true),
            Shape::Field | Shape::Virtual => (0, false),
        };
        st.graph.add_segment(
            SegmentNode {
                kind: seg.kind,
                pos,
                tile: idx,
                local: i as u8,
                sides: seg.sides.rotate(rot),
                halves: seg.halves.rotate(rot),
                pennants: seg.pennants,
            },
            FeatureTotals {
                open,
                completable,
                ..FeatureTotals::default()
            },
        );
    }
    for (i, seg) in tk.segments.iter().enumerate() {
        for c in &seg.cities {
            st.graph
                .add_border(node(first + i as u32), node(first + *c as u32));
        }
    }
    for s in Side::ALL {
        let Some(n) = st.board.at(pos.step(s)).copied() else {
            continue;
        };
        let nk = rules.tiles().get(n.kind);
        if tk.edge_at(rot, s) != 0 {
            if let (Some(a), Some(b)) = (
                tk.segment_on_side(rot, s),
                nk.segment_on_side(n.rotation, s.opposite()),
            ) {
                st.graph.join(
                    node(first + a as u32),
                    node(n.first_segment + b as u32),
                    true,
                );
            }
        }
        // Fields meet across field edges and along both sides of roads and rivers.
        for h in [
            HalfEdge::from_index(2 * s.index()),
            HalfEdge::from_index(2 * s.index() + 1),
        ] {
            if let (Some(a), Some(b)) = (
                tk.segment_on_half(rot, h),
                nk.segment_on_half(n.rotation, h.facing()),
            ) {
                st.graph.join(
                    node(first + a as u32),
                    node(n.first_segment + b as u32),
                    false,
                );
            }
        }
    }
    for q in pos.surrounding() {
        let Some(t) = st.board.at(q).copied() else {
            continue;
        };
        let mut sites = t.sites;
        while sites != 0 {
            let i = sites.trailing_zeros();
            sites &= sites - 1;
            let f = st.graph.feature_of(node(t.first_segment + i));
            let tot = st.graph.totals_mut(f);
            tot.open = tot.open.saturating_sub(1);
        }
    }
    idx
}

#[inline]
fn node(i: u32) -> crate::graph::SegmentId {
    crate::graph::SegmentId::new(i as usize)
}

/// Draws until a placeable tile comes up; fills the offered placements.
fn draw(rules: &Ruleset, st: &mut GameState) -> Result<Option<TileKindId>, HookError> {
    let mut redraws = 0usize;
    loop {
        let Some(tile) = st.supply.draw(&mut st.rng) else {
            return Ok(None);
        };
        if consider_drawn(rules, st, tile, &mut redraws)? {
            return Ok(Some(tile));
        }
    }
}

/// A tile just taken from the supply: the expansions' verdicts, then A-4. `true` when it is
/// to be placed (its placements are offered), `false` when it was discarded or sent back.
fn consider_drawn(
    rules: &Ruleset,
    st: &mut GameState,
    tile: TileKindId,
    redraws: &mut usize,
) -> Result<bool, HookError> {
    let mut verdict = DrawVerdict::Keep;
    each(
        rules,
        st,
        HookSet::ON_TILE_DRAWN,
        "on_tile_drawn",
        |e, ctx| {
            if verdict == DrawVerdict::Keep {
                verdict = e.on_tile_drawn(ctx, tile)?;
            }
            Ok(())
        },
    )?;
    match verdict {
        DrawVerdict::Keep => {}
        DrawVerdict::Discard => {
            st.discarded.push(tile);
            return Ok(false);
        }
        DrawVerdict::Redraw => {
            *redraws += 1;
            if *redraws > st.supply.remaining() + 1 {
                return Err(HookError {
                    expansion: "core".into(),
                    hook: "on_tile_drawn",
                    message: "every remaining tile was sent back: the supply cannot be drawn from"
                        .into(),
                });
            }
            st.supply.put_back(tile);
            return Ok(false);
        }
    }
    legal_placements(rules, st, tile)?;
    if st.placement_count == 0 {
        st.discarded.push(tile);
        return Ok(false);
    }
    Ok(true)
}

/// Writes the legal placements of `tile` for the active player into `out` (cleared
/// first) and returns how many (cell, rotation) pairs there are.
fn placements_into(
    rules: &Ruleset,
    st: &GameState,
    tile: TileKindId,
    out: &mut Vec<PlacementCell>,
    cands_buf: &mut Vec<u8>,
) -> Result<usize, HookError> {
    let tk = rules.tiles().get(tile);
    let codes = [
        tk.edge_code(Rotation::R0),
        tk.edge_code(Rotation::R90),
        tk.edge_code(Rotation::R180),
        tk.edge_code(Rotation::R270),
    ];
    // Branch-free: every cell is written, the length only advances on a fit (whether a
    // random tile fits a cell is unpredictable, so a branch here mispredicts a lot).
    let frontier = st.board.frontier();
    out.clear();
    out.resize(
        frontier.len(),
        PlacementCell {
            pos: Pos::new(0, 0),
            rotations: 0,
        },
    );
    let mut n = 0usize;
    let mut count = 0usize;
    for f in frontier {
        let rotations = (codes[0] & f.mask == f.want) as u8
            | ((codes[1] & f.mask == f.want) as u8) << 1
            | ((codes[2] & f.mask == f.want) as u8) << 2
            | ((codes[3] & f.mask == f.want) as u8) << 3;
        out[n] = PlacementCell {
            pos: f.pos,
            rotations,
        };
        n += (rotations != 0) as usize;
        count += rotations.count_ones() as usize;
    }
    out.truncate(n);
    let filters = rules.placement_filters(tile);
    if filters != 0 && count > 0 {
        // Filters may only remove: remember the edge-legal bits and keep only those.
        let legal = cands_buf;
        legal.clear();
        legal.extend(out.iter().map(|c| c.rotations));
        for (i, e) in rules.expansions().iter().enumerate() {
            if filters & (1 << i.min(63)) == 0 {
                continue;
            }
            e.filter_placements(View { rules, state: st }, st.active, tile, out)
                .map_err(|m| hook_error(e.as_ref(), "filter_placements", m))?;
        }
        let mut i = 0;
        count = 0;
        out.retain_mut(|c| {
            c.rotations &= legal[i];
            i += 1;
            count += c.rotations.count_ones() as usize;
            c.rotations != 0
        });
    }
    Ok(count)
}

/// Computes the legal placements of the drawn tile into the state.
fn legal_placements(
    rules: &Ruleset,
    st: &mut GameState,
    tile: TileKindId,
) -> Result<(), HookError> {
    let mut cells = std::mem::take(&mut st.placements);
    let mut cands = std::mem::take(&mut st.candidates);
    let r = placements_into(rules, st, tile, &mut cells, &mut cands);
    cands.clear();
    st.placements = cells;
    st.candidates = cands;
    st.placement_actions = std::sync::OnceLock::new();
    st.placement_count = *r.as_ref().unwrap_or(&0);
    r.map(|_| ())
}

/// Base-rule deployments of `player` on the tile at `pos`.
pub(crate) fn deployments_on_tile(
    rules: &Ruleset,
    st: &GameState,
    player: PlayerId,
    pos: Pos,
    out: &mut Vec<Action>,
) {
    let Some(t) = st.board.at(pos) else { return };
    let tk = rules.tiles().get(t.kind);
    if !tk.deploy {
        return;
    }
    for i in 0..tk.segments.len() as u32 {
        let seg = node(t.first_segment + i);
        let kind = st.graph.segment(seg).kind;
        let def = rules.kind(kind);
        if !def.occupiable || (def.shape == Shape::Field && !rules.base().farmers) {
            continue;
        }
        if st.graph.totals(st.graph.feature_of(seg)).occupants > 0 {
            continue;
        }
        for (k, fk) in rules.figure_kinds().iter().enumerate() {
            let fk_id = FigureKindId(k as u8);
            if fk.follower && fk.deploy_on.contains(kind) && st.in_supply(player, fk_id) > 0 {
                out.push(Action::Deploy {
                    figure: fk_id,
                    segment: seg,
                });
            }
        }
    }
}

/// Fills the deployment step's offers; returns whether there is a real choice.
fn deploy_offers(rules: &Ruleset, st: &mut GameState) -> Result<bool, HookError> {
    let mut offered = std::mem::take(&mut st.offered);
    offered.clear();
    let player = st.active;
    let pos = st
        .board
        .tile(st.last_placed.expect("a tile was placed"))
        .pos;
    deployments_on_tile(rules, st, player, pos, &mut offered);
    offered.push(Action::Pass);
    let mut result = Ok(());
    for (e, hooks) in rules.expansions().iter().zip(rules.hook_sets()) {
        if !hooks.has(HookSet::DEPLOY_STEP_ACTIONS) {
            continue;
        }
        let v = View { rules, state: st };
        if let Err(m) = e.deploy_step_actions(v, player, &mut offered) {
            result = Err(hook_error(e.as_ref(), "deploy_step_actions", m));
            break;
        }
    }
    if result.is_ok() {
        for (e, hooks) in rules.expansions().iter().zip(rules.hook_sets()) {
            if !hooks.has(HookSet::FILTER_DEPLOY_ACTIONS) {
                continue;
            }
            let v = View { rules, state: st };
            if let Err(m) = e.filter_deploy_actions(v, player, &mut offered) {
                result = Err(hook_error(e.as_ref(), "filter_deploy_actions", m));
                break;
            }
        }
    }
    st.offered = offered;
    result?;
    // With nothing to choose but passing there is no decision (JCZ also sends none).
    Ok(!matches!(st.offered.as_slice(), [] | [Action::Pass]))
}

/// Sends a figure back to supply and notifies every expansion.
pub(crate) fn return_figure(
    rules: &Ruleset,
    st: &mut GameState,
    figure: FigureId,
    reason: RemovalReason,
) -> Result<(), HookError> {
    if st.unplace(figure) && rules.any_hooks(HookSet::ON_FIGURE_REMOVED) {
        each(
            rules,
            st,
            HookSet::ON_FIGURE_REMOVED,
            "on_figure_removed",
            |e, ctx| e.on_figure_removed(ctx, figure, reason),
        )?;
    }
    Ok(())
}

/// Points a feature is worth to each majority winner.
fn feature_value(
    rules: &Ruleset,
    g: &FeatureGraph,
    f: FeatureId,
    tiles: u32,
    complete: bool,
) -> i32 {
    let t = g.totals(f);
    let tiles = tiles as i32;
    let pennants = t.pennants as i32;
    match rules.kind(g.kind(f)).scoring {
        Scoring::City if complete => {
            if rules.base().small_city_halved && tiles == 2 {
                tiles + pennants
            } else {
                2 * tiles + 2 * pennants
            }
        }
        Scoring::City => tiles + pennants,
        Scoring::Road => tiles,
        // 9 when complete (open = 0), else 1 + the surrounding tiles.
        Scoring::Cloister => 9 - t.open as i32,
        Scoring::Farm | Scoring::Unscored => 0,
    }
}

/// Strength per player on a feature, in half-units.
fn strengths(
    rules: &Ruleset,
    st: &GameState,
    f: FeatureId,
) -> Result<[i32; MAX_PLAYERS], HookError> {
    let mut s = [0i32; MAX_PLAYERS];
    let plain = !rules.any_hooks(HookSet::STRENGTH_DELTA);
    for (i, fig) in st.figures.iter().enumerate() {
        if let FigureLoc::On(seg) = fig.loc {
            if st.graph.feature_of(seg) == f && rules.figure_kind(fig.kind).follower {
                s[fig.owner.index()] += if plain {
                    rules.figure_kind(fig.kind).strength
                } else {
                    View { rules, state: st }.strength(FigureId(i as u16))?
                };
            }
        }
    }
    Ok(s)
}

/// Adds an award of `value` for every player with the maximal strength (> 0).
fn push_majority(
    draft: &mut ScoreDraft,
    item: u16,
    s: &[i32; MAX_PLAYERS],
    players: usize,
    value: i32,
) {
    let max = s[..players].iter().copied().max().unwrap_or(0);
    if max <= 0 {
        return;
    }
    for (p, v) in s[..players].iter().enumerate() {
        if *v == max {
            draft.awards.push(Award {
                item,
                player: PlayerId(p as u8),
                points: value,
            });
        }
    }
}

/// The complete, unscored features the last placed tile closes: its own segments'
/// features, then the sites (cloisters, shrines) around it, without duplicates.
pub(crate) fn completed_by_last_placement(
    rules: &Ruleset,
    st: &GameState,
    out: &mut Vec<FeatureId>,
) {
    out.clear();
    let Some(idx) = st.last_placed else {
        return;
    };
    let t = *st.board.tile(idx);
    let mut consider = |seg: crate::graph::SegmentId| {
        let f = st.graph.feature_of(seg);
        let tot = st.graph.totals(f);
        if tot.complete() && !tot.scored && !out.contains(&f) {
            out.push(f);
        }
    };
    let nseg = rules.tiles().get(t.kind).segments.len() as u32;
    for i in t.first_segment..t.first_segment + nseg {
        consider(node(i));
    }
    for q in t.pos.surrounding() {
        let Some(n) = st.board.at(q) else {
            continue;
        };
        let mut sites = n.sites;
        while sites != 0 {
            let i = sites.trailing_zeros();
            sites &= sites - 1;
            consider(node(n.first_segment + i));
        }
    }
}

/// Scores the features the last placement completed (A-8 … A-11).
fn score_placement(rules: &Ruleset, st: &mut GameState) -> Result<(), HookError> {
    if st.last_placed.is_none() {
        return Ok(());
    }
    let mut draft = std::mem::take(&mut st.draft);
    draft.features.clear();
    draft.awards.clear();
    draft.final_scoring = false;
    draft.placer = Some(st.active);
    let mut done = std::mem::take(&mut st.completed);
    completed_by_last_placement(rules, st, &mut done);
    for &f in &done {
        let tot = *st.graph.totals(f);
        let kind = st.graph.kind(f);
        let tiles = st.graph.tile_count(f);
        let value = feature_value(rules, &st.graph, f, tiles, true);
        let item = draft.features.len() as u16;
        draft.features.push(DraftFeature {
            feature: f,
            kind,
            tiles,
            complete: true,
            value,
            return_figures: true,
            closes: true,
        });
        if tot.occupants > 0 {
            let s = strengths(rules, st, f)?;
            push_majority(&mut draft, item, &s, st.players.len(), value);
        }
    }
    st.completed = done;
    // Scoring hooks see scorings, so a placement that completes nothing skips them.
    let r = if draft.features.is_empty() {
        Ok(())
    } else {
        apply_draft(rules, st, &mut draft)
    };
    st.draft = draft;
    r
}

/// Runs `before_scoring`, applies the awards and returns, marks features scored, runs `after_scoring`.
fn apply_draft(
    rules: &Ruleset,
    st: &mut GameState,
    draft: &mut ScoreDraft,
) -> Result<(), HookError> {
    each(
        rules,
        st,
        HookSet::BEFORE_SCORING,
        "before_scoring",
        |e, ctx| e.before_scoring(ctx, draft),
    )?;
    for a in &draft.awards {
        let Some(item) = draft.features.get(a.item as usize) else {
            continue;
        };
        st.award_feature(
            a.player,
            a.points,
            ScoreSource::Feature(item.kind),
            item.complete,
        );
    }
    for item in &draft.features {
        if item.closes {
            st.graph.totals_mut(item.feature).scored = true;
        }
        if item.return_figures {
            for i in 0..st.figures.len() {
                if let FigureLoc::On(seg) = st.figures[i].loc {
                    if st.graph.feature_of(seg) == item.feature {
                        return_figure(rules, st, FigureId(i as u16), RemovalReason::Scored)?;
                    }
                }
            }
        }
    }
    each(
        rules,
        st,
        HookSet::AFTER_SCORING,
        "after_scoring",
        |e, ctx| e.after_scoring(ctx, draft),
    )
}

/// End of game: unfinished features, then farms, then expansions' bonuses.
fn final_scoring(rules: &Ruleset, st: &mut GameState) -> Result<(), HookError> {
    let mut draft = ScoreDraft {
        final_scoring: true,
        placer: None,
        ..ScoreDraft::default()
    };
    let mut farms: Vec<FeatureId> = Vec::new();
    for i in 0..st.figures.len() {
        let FigureLoc::On(seg) = st.figures[i].loc else {
            continue;
        };
        let f = st.graph.feature_of(seg);
        let kind = st.graph.kind(f);
        match rules.kind(kind).scoring {
            Scoring::Farm => {
                if !farms.contains(&f) {
                    farms.push(f);
                }
            }
            Scoring::City | Scoring::Road | Scoring::Cloister => {
                let tot = st.graph.totals(f);
                if tot.scored || draft.features.iter().any(|d| d.feature == f) {
                    continue;
                }
                let complete = tot.complete();
                let tiles = st.graph.tile_count(f);
                let value = feature_value(rules, &st.graph, f, tiles, complete);
                let item = draft.features.len() as u16;
                draft.features.push(DraftFeature {
                    feature: f,
                    kind,
                    tiles,
                    complete,
                    value,
                    return_figures: false,
                    closes: true,
                });
                let s = strengths(rules, st, f)?;
                push_majority(&mut draft, item, &s, st.players.len(), value);
            }
            Scoring::Unscored => {}
        }
    }
    apply_draft(rules, st, &mut draft)?;

    let mut draft = ScoreDraft {
        final_scoring: true,
        placer: None,
        ..ScoreDraft::default()
    };
    farm_draft(rules, st, &farms, &mut draft)?;
    apply_draft(rules, st, &mut draft)?;

    each(
        rules,
        st,
        HookSet::FINAL_SCORING,
        "final_scoring",
        |e, ctx| e.final_scoring(ctx),
    )
}

/// Completed city-scoring features bordering a farm.
fn farm_cities(rules: &Ruleset, g: &FeatureGraph, farm: FeatureId, buf: &mut Vec<FeatureId>) {
    g.bordering_features(farm, buf);
    buf.retain(|c| g.totals(*c).complete() && rules.kind(g.kind(*c)).scoring == Scoring::City);
}

/// Drafts farm scoring in the chosen edition.
fn farm_draft(
    rules: &Ruleset,
    st: &GameState,
    farms: &[FeatureId],
    draft: &mut ScoreDraft,
) -> Result<(), HookError> {
    let n = st.players.len();
    let mut cities = Vec::new();
    match rules.base().farm_scoring {
        FarmScoring::Third | FarmScoring::Second => {
            let mut paid: Vec<Vec<FeatureId>> = vec![Vec::new(); n];
            for &farm in farms {
                farm_cities(rules, &st.graph, farm, &mut cities);
                let item = draft.features.len() as u16;
                let value = 3 * cities.len() as i32;
                draft.features.push(DraftFeature {
                    feature: farm,
                    kind: st.graph.kind(farm),
                    tiles: st.graph.tile_count(farm),
                    complete: false,
                    value,
                    return_figures: false,
                    closes: true,
                });
                let s = strengths(rules, st, farm)?;
                let start = draft.awards.len();
                push_majority(draft, item, &s, n, value);
                if rules.base().farm_scoring == FarmScoring::Second {
                    for a in &mut draft.awards[start..] {
                        let mine = &mut paid[a.player.index()];
                        let fresh = cities.iter().filter(|c| !mine.contains(c)).count() as i32;
                        mine.extend(
                            cities
                                .iter()
                                .filter(|c| !mine.contains(c))
                                .copied()
                                .collect::<Vec<_>>(),
                        );
                        a.points = 3 * fresh;
                    }
                }
            }
        }
        FarmScoring::First => {
            // City by city: every player's farmers over all farms bordering the city.
            let mut per_city: Vec<(FeatureId, [i32; MAX_PLAYERS])> = Vec::new();
            for &farm in farms {
                farm_cities(rules, &st.graph, farm, &mut cities);
                let s = strengths(rules, st, farm)?;
                for c in &cities {
                    let entry = match per_city.iter_mut().position(|(f, _)| f == c) {
                        Some(i) => &mut per_city[i].1,
                        None => {
                            per_city.push((*c, [0; MAX_PLAYERS]));
                            &mut per_city.last_mut().expect("just pushed").1
                        }
                    };
                    for p in 0..n {
                        entry[p] += s[p];
                    }
                }
            }
            for (city, s) in per_city {
                let item = draft.features.len() as u16;
                draft.features.push(DraftFeature {
                    feature: city,
                    kind: FeatureKindId::FIELD,
                    tiles: 0,
                    complete: false,
                    value: 4,
                    return_figures: false,
                    closes: true,
                });
                push_majority(draft, item, &s, n, 4);
            }
        }
    }
    Ok(())
}
