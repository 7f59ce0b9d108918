//! # carcassonne-jcz
//!
//! JCloisterZone saves (`.jcz`): replay them in our engine (`../shared/formats/jcz-saves.md`).
//! The only crate that knows the JCZ format: nothing in core, the rules or the records
//! knows it, and it must not know the command line, how expansions are loaded (it asks
//! `carcassonne-rules` for a ruleset) or pictures.
//!
//! [`replay`] maps the save's sets, elements and rules to our expansions and options
//! ([`setup`]), starts a game with *chosen* draws, lays the save's start tiles, and turns
//! every message into engine actions: the tile JCZ would draw ([`draws`]), placements,
//! deployments and moves found by their board-oriented pointers ([`pointer`]), passes,
//! commits and undo. Whatever cannot be replayed is an error naming the message's index.
//! The result is an ordinary [`Game`] plus the actions that produced it, so `convert` can
//! write it as our own record.
//!
//! The importer knows no expansion: what it needs of one (JCZ set, element and rule names,
//! figure and feature names, neutral figures, prompts JCZ asks differently, messages that
//! are custom actions) comes from the `[jcz]` and `[prompts]` sections of the expansion's
//! manifest ([`declared`], `carcassonne_files::jcz`, `docs/jcz.md`).

mod actions;
pub mod assertions;
pub mod declared;
pub mod draws;
mod error;
pub mod export;
pub mod pointer;
mod prompts;
mod random;
pub mod save;
pub mod setup;

pub use declared::Declarations;
pub use error::JczError;

use carcassonne_core::{
    Action, DecisionKind, DrawMode, ExpansionIndex, FigureId, FigureLoc, Game, GameSetup, Pos,
    Rotation, StartTile,
};
use carcassonne_files::jcz::JczNeutralTarget;
use carcassonne_play::record::{Record, RecordAction};
use carcassonne_play::replay::{replay_output, ReplayOutput};
use carcassonne_rules::{build_ruleset, RulesSpec};
use draws::JczDraws;
use save::{JczMessage, JczSave};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A replayed save.
#[derive(Clone, Debug)]
pub struct JczGame {
    /// The game after the replayed messages.
    pub game: Game,
    /// How it was set up (chosen draws, the save's start tiles and draw cap).
    pub setup: GameSetup,
    /// Every engine action applied, draws included, undone ones left out.
    pub actions: Vec<Action>,
    /// The expansions and options the save maps to.
    pub spec: RulesSpec,
    /// The save's own assertions (`test.assertions` of JCZ test saves; usually empty).
    pub assertions: Vec<String>,
    /// What the game's expansions declare for JCZ.
    pub declarations: Arc<Declarations>,
    /// Where the save ends while JCZ waits for a player's `COMMIT` that our engine does
    /// not ask for: the game as JCZ has it then ([`JczWait`]); `None` otherwise.
    pub waiting: Option<JczWait>,
}

/// A save that ends while JCZ waits for a `COMMIT` (its `ConfirmAction`: no pass, nothing
/// else offered), where our engine has already moved on: the output shows that step.
#[derive(Clone, Debug)]
pub struct JczWait {
    /// Our game at JCZ's point: before the turn's scoring when the turn is not committed
    /// yet (`Game::set_stop_before_scoring`), else the replayed game.
    pub game: Game,
    /// Who is to commit.
    pub player: carcassonne_core::PlayerId,
}

impl JczGame {
    /// The replay output contract, locations in JCZ's notation (quarters included).
    pub fn output(&self) -> ReplayOutput {
        let Some(w) = &self.waiting else {
            return output(&self.game, &self.declarations);
        };
        let mut out = output(&w.game, &self.declarations);
        if let Some(p) = &mut out.pending {
            p.player = w.game.state().players()[w.player.index()].name.clone();
            p.placements.clear();
            p.deployments.clear();
            p.draws.clear();
            p.custom.clear();
            p.can_pass = false;
        }
        out
    }

    /// The same game as our own record (`carcassonne convert`).
    pub fn to_record(&self) -> Result<Record, JczError> {
        Ok(Record::with_setup(&self.game, &self.setup, &self.actions)?)
    }
}

/// The replay output of any game in JCZ's terms: off-board features as JCZ writes them (the
/// City of Carcassonne's `QUARTER_CASTLE` on the tile `CO/7` instead of our `#0` … `#3`),
/// and what `decl` says of prompts and corner actions ([`prompts`]). `decl` is
/// [`Declarations::load`] for the game's ruleset.
pub fn output(game: &Game, decl: &Declarations) -> ReplayOutput {
    let mut out = replay_output(game);
    if let Some(p) = &mut out.pending {
        prompts::jcz_pending(decl, game, p);
        for d in &mut p.deployments {
            pointer::foreign_to_jcz(game, &mut d.x, &mut d.y, &d.feature, &mut d.location);
        }
        for c in &mut p.custom {
            if let RecordAction::Custom {
                target: Some(t), ..
            } = c
            {
                pointer::foreign_to_jcz(game, &mut t.x, &mut t.y, &t.feature, &mut t.location);
            }
        }
    }
    out
}

/// Reads and replays a save file; `limit` stops after that many messages.
pub fn load(
    path: &Path,
    plugin_dirs: &[PathBuf],
    limit: Option<usize>,
) -> Result<JczGame, JczError> {
    let save = JczSave::load(path)?;
    if let Some(n) = limit.filter(|n| *n > save.replay.len()) {
        return Err(JczError::Setup {
            path: path.display().to_string(),
            message: format!("the save has {} messages, not {n}", save.replay.len()),
        });
    }
    replay(&save, &path.display().to_string(), plugin_dirs, limit)
}

/// Replays a parsed save; `origin` names it in errors.
pub fn replay(
    save: &JczSave,
    origin: &str,
    plugin_dirs: &[PathBuf],
    limit: Option<usize>,
) -> Result<JczGame, JczError> {
    let setup_err = |message: String| JczError::Setup {
        path: origin.to_string(),
        message,
    };
    let manifests = declared::manifests(plugin_dirs).map_err(setup_err)?;
    let mut spec = setup::rules_spec_with(&save.setup, &manifests).map_err(setup_err)?;
    if save.is_fcz() {
        setup::apply_fcz_options(&mut spec, &manifests);
    }
    spec.plugin_dirs = plugin_dirs.to_vec();
    let rules = build_ruleset(&spec).map_err(|e| setup_err(format!("setup: {e}")))?;
    let decl = Arc::new(Declarations::of(&rules, &manifests).map_err(setup_err)?);
    if save.players.is_empty() {
        return Err(setup_err("players: the save has no players".into()));
    }
    let mut start = Vec::with_capacity(save.setup.start.len());
    for (i, t) in save.setup.start.iter().enumerate() {
        let kind = rules
            .tiles()
            .find(&t.tile)
            .ok_or_else(|| setup_err(format!("setup.start[{i}]: unknown tile `{}`", t.tile)))?;
        let rotation = Rotation::from_degrees(t.rotation).ok_or_else(|| {
            setup_err(format!(
                "setup.start[{i}]: rotation {} is not 0, 90, 180 or 270",
                t.rotation
            ))
        })?;
        start.push(StartTile {
            kind,
            pos: Pos::new(t.x, t.y),
            rotation,
        });
    }
    let notes = save.game_annotations.clone().unwrap_or_default();
    let mut queue: std::collections::VecDeque<String> = notes.draw_order.iter().cloned().collect();
    let mut draw_limit = notes.end_turn;
    if queue.back().map(String::as_str) == Some("#END") {
        queue.pop_back();
        draw_limit = Some(draw_limit.unwrap_or(u32::MAX).min(queue.len() as u32));
    }
    if let Some(bad) = queue.iter().position(|t| t == "#END") {
        return Err(setup_err(format!(
            "gameAnnotations.drawOrder[{bad}]: `#END` must be the last entry"
        )));
    }
    let game_setup = GameSetup {
        players: save.players.iter().map(|p| p.name.clone()).collect(),
        seed: 0,
        draws: DrawMode::Chosen,
        draw_limit,
        start: (!start.is_empty()).then_some(start),
    };
    let game =
        Game::new(Arc::clone(&rules), &game_setup).map_err(|e| setup_err(format!("setup: {e}")))?;
    let mut r = Replayer {
        game,
        actions: Vec::new(),
        draws: JczDraws {
            r: save.initial_random,
            queue,
        },
        meeples: BTreeMap::new(),
        after_place: false,
        committed: true,
        confirm: None,
        awaits_commit: false,
        random_set_by: None,
        drew: false,
        decl: Arc::clone(&decl),
        set_names: save
            .setup
            .sets
            .keys()
            .map(|k| k.split(':').next().unwrap_or(k).to_string())
            .collect(),
    };
    // The replay before the last message (for a save that ends before the commit).
    let mut before_last: Option<Replayer> = None;
    let mut undo: Vec<Replayer> = Vec::new();
    let n = limit.unwrap_or(save.replay.len()).min(save.replay.len());
    for (index, msg) in save.replay[..n].iter().enumerate() {
        let fail = |message: String| JczError::Message {
            path: origin.to_string(),
            index,
            kind: msg.kind.clone(),
            message,
        };
        if msg.kind == "UNDO" {
            r = undo
                .pop()
                .ok_or_else(|| fail("there is nothing to undo".into()))?;
            before_last = None;
            continue;
        }
        let before = r.clone();
        if index + 1 == n {
            before_last = Some(before.clone());
        }
        let keep_undo = r.message(msg).map_err(fail)?;
        // A draw JCZ makes with the message's random number, or with the `COMMIT`'s when our
        // engine asks it only after this message (`random.rs`).
        r.answer_random(&msg.kind, &msg.payload).map_err(fail)?;
        r.answer_random_after_commit(&msg.kind).map_err(fail)?;
        if keep_undo && msg.payload.get("random").is_none() {
            undo.push(before);
        } else {
            undo.clear();
        }
    }
    let waiting = match (r.confirm, before_last) {
        (Some(player), _) => Some(JczWait {
            game: r.game.clone(),
            player,
        }),
        (None, Some(before)) if !r.committed && save.replay[n - 1].kind != "PLACE_TILE" => {
            before.stopped_before_scoring(&save.replay[n - 1])
        }
        _ => None,
    };
    {
        // JCZ draws the next tile as soon as a turn ends (and a bazaar's tiles as soon as
        // it opens): show that step.
        r.answer_drawn()
            .and_then(|()| r.draw_if_due())
            .map_err(|message| JczError::Message {
                path: origin.to_string(),
                index: n,
                kind: "(end of the save)".into(),
                message,
            })?;
    }
    Ok(JczGame {
        game: r.game,
        setup: game_setup,
        actions: r.actions,
        spec,
        assertions: save
            .test
            .as_ref()
            .map(|t| t.assertions.clone())
            .unwrap_or_default(),
        declarations: decl,
        waiting,
    })
}

/// A `PLACE_TILE`'s rotation (`R0` … `R270`).
fn rotation(rot: &str) -> Result<Rotation, String> {
    match rot {
        "R0" => Ok(Rotation::R0),
        "R90" => Ok(Rotation::R90),
        "R180" => Ok(Rotation::R180),
        "R270" => Ok(Rotation::R270),
        other => Err(format!("rotation `{other}` is not R0, R90, R180 or R270")),
    }
}

/// The replay in progress (cloned for undo).
#[derive(Clone)]
struct Replayer {
    game: Game,
    actions: Vec<Action>,
    draws: JczDraws,
    /// JCZ meeple id → our figure, for figures deployed in this game (moves name them).
    meeples: BTreeMap<String, FigureId>,
    /// The previous message placed a tile: a `PASS` now ends that tile's action step.
    after_place: bool,
    /// No `PLACE_TILE` since the last `COMMIT`: JCZ has committed the turn part.
    committed: bool,
    /// The last message answered a prompt declared `confirmed` and its player is not asked
    /// it again: JCZ waits for his `COMMIT` (its `ConfirmAction`).
    confirm: Option<carcassonne_core::PlayerId>,
    /// JCZ waits for a confirming `COMMIT` after the last message ([`Self::confirm`], or a
    /// follower moved in the Count's scoring round): a draw JCZ makes later in the turn is
    /// made with that `COMMIT`'s number, not before it.
    awaits_commit: bool,
    /// The type of the turn's message that set JCZ's number and drew nothing yet: a draw our
    /// engine asks after a later message is made with it (`random.rs`).
    random_set_by: Option<String>,
    /// The message being applied made a draw of a `random-by` prompt.
    drew: bool,
    /// What the expansions declare for JCZ.
    decl: Arc<Declarations>,
    /// The save's set names without their edition (`under-the-big-top-c1`).
    set_names: Arc<[String]>,
}

impl Replayer {
    /// JCZ's state when the save ends with `last` (this replay is the one before it) in a
    /// turn part not committed yet: JCZ scores after its commit, so the game is replayed
    /// again up to this turn's scoring. `None` when our engine asks something before the
    /// scoring (JCZ asks too: no commit is awaited) or the message fails.
    fn stopped_before_scoring(mut self, last: &JczMessage) -> Option<JczWait> {
        self.game
            .set_stop_before_scoring(Some(self.game.state().turn()));
        self.message(last).ok()?;
        self.answer_random(&last.kind, &last.payload).ok()?;
        self.answer_random_after_commit(&last.kind).ok()?;
        self.game.stopped_before_scoring().then(|| JczWait {
            player: self.game.decision().player,
            game: self.game,
        })
    }

    fn apply(&mut self, action: Action) -> Result<(), String> {
        self.game.apply(action).map_err(|e| e.to_string())?;
        self.actions.push(action);
        Ok(())
    }

    /// Draws as JCZ does while the game waits for a draw.
    fn draw_if_due(&mut self) -> Result<(), String> {
        while self.game.decision().kind == DecisionKind::Draw && !self.game.is_over() {
            let tile = self.draws.next(&self.game)?;
            self.apply(Action::Draw { tile })?;
        }
        Ok(())
    }

    /// FCZ may name a tile by its set's name instead of the tile-id prefix
    /// (`under-the-big-top-c1/rfrf.ac.1` for the drawn `ubtc1/rfrf.ac.1`): the same tile when
    /// the part after the prefix agrees and the prefix is one of the save's sets.
    fn names_by_set(&self, id: &str, drawn: &str) -> bool {
        match (id.split_once('/'), drawn.split_once('/')) {
            (Some((set, rest)), Some((_, drawn_rest))) => {
                rest == drawn_rest && self.set_names.iter().any(|s| s == set)
            }
            _ => false,
        }
    }

    fn check_sender(&self, msg: &JczMessage) -> Result<(), String> {
        let d = self.game.decision();
        match msg.player {
            Some(p) if p != d.player.0 => Err(format!(
                "sent by player {p} ({}), but it is {}'s decision",
                self.name(p),
                self.name(d.player.0)
            )),
            _ => Ok(()),
        }
    }

    fn name(&self, p: u8) -> String {
        self.game
            .state()
            .players()
            .get(p as usize)
            .map_or_else(|| format!("#{p}"), |pl| pl.name.clone())
    }

    /// Applies one message; `true` when JCZ would let it be undone (same player still
    /// to act in the same turn).
    fn message(&mut self, msg: &JczMessage) -> Result<bool, String> {
        let after_place = std::mem::replace(&mut self.after_place, msg.kind == "PLACE_TILE");
        self.confirm = None;
        self.awaits_commit = false;
        self.drew = false;
        match msg.kind.as_str() {
            "PLACE_TILE" => self.committed = false,
            "COMMIT" => self.committed = true,
            _ => {}
        }
        let p = &msg.payload;
        if self.game.is_over() && msg.kind != "COMMIT" {
            return Err("the game is already over".into());
        }
        self.take_random(p)?;
        // A draw JCZ made with the last `COMMIT`'s number (a bazaar's tiles).
        if msg.kind != "COMMIT" {
            self.answer_drawn()?;
        }
        if self.pass_unasked_prompts(&msg.kind, p)? {
            // JCZ's action step, ended by this `PASS` (as after a deployment step's pass).
            return Ok(true);
        }
        match msg.kind.as_str() {
            "PLACE_TILE" if self.placed_pending() => {
                self.check_sender(msg)?;
                let pos = pointer::position(p.get("position"))?;
                let rotation = rotation(str_field(p, "rotation")?)?;
                self.place_placed(pos, rotation, &format!("`{}`", str_field(p, "tileId")?))
            }
            "PLACE_TILE"
                if p.get("tileId")
                    .and_then(Value::as_str)
                    .is_some_and(|t| self.decl.is_prompt_tile(t)) =>
            {
                self.check_sender(msg)?;
                let pos = pointer::position(p.get("position"))?;
                self.place_prompt_tile(str_field(p, "tileId")?, pos)
            }
            "PLACE_TILE" => {
                // Questions asked once the tile is drawn (TW-13 `ransomAsked=jcz`). A tile
                // that fits nowhere is discarded after its question and the next is drawn,
                // with its own question (JCZ's one tile phase holds both).
                loop {
                    self.draw_if_due()?;
                    if self.game.is_over() {
                        return Err("no tile is left to draw: the game is over".into());
                    }
                    self.pass_unasked_prompts(&msg.kind, p)?;
                    if self.game.decision().kind != DecisionKind::Draw {
                        break;
                    }
                }
                self.check_sender(msg)?;
                let DecisionKind::PlaceTile { tile } = self.game.decision().kind else {
                    return Err(format!(
                        "no tile is to be placed now ({})",
                        self.game.describe_decision()
                    ));
                };
                let id = str_field(p, "tileId")?;
                let drawn_kind = self.game.rules().tiles().get(tile);
                let drawn = &drawn_kind.id;
                // A garden twin is played as its plain tile, which lists its id as an alias
                // (IC-3: `inns-and-cathedrals:2`).
                if drawn != id
                    && !drawn_kind.aliases.iter().any(|a| a == id)
                    && !self.names_by_set(id, drawn)
                {
                    return Err(format!(
                        "the drawn tile is `{drawn}`, the save places `{id}`"
                    ));
                }
                let rot = str_field(p, "rotation")?;
                let rotation = rotation(rot)?;
                let pos = pointer::position(p.get("position"))?;
                let action = Action::Place { pos, rotation };
                if !self.game.actions().contains(&action) {
                    return Err(format!(
                        "placing `{id}` at [{}, {}] {rot} is not legal here",
                        pos.x, pos.y
                    ));
                }
                self.apply(action)?;
                Ok(true)
            }
            "DEPLOY_MEEPLE" => {
                self.check_sender(msg)?;
                let meeple = str_field(p, "meepleId")?;
                let (owner, kind) = pointer::meeple(&self.decl, self.game.rules(), meeple)?;
                let d = self.game.decision();
                if owner != d.player {
                    return Err(format!(
                        "meeple `{meeple}` is not {}'s",
                        self.name(d.player.0)
                    ));
                }
                let ptr = p.get("pointer").ok_or("payload has no `pointer`")?;
                if self.deploy_is_custom(meeple, ptr) {
                    return self.deploy_custom(meeple, ptr);
                }
                let segments = pointer::segments(&self.decl, &self.game, ptr)?;
                let st = self.game.state();
                // A follower of this id already in play moves (the Count's rounds);
                // otherwise one comes from the supply.
                let moving = self
                    .meeples
                    .get(meeple)
                    .copied()
                    .filter(|f| matches!(st.figure(*f).loc, FigureLoc::On(_)));
                let action = segments
                    .iter()
                    .map(|&segment| match moving {
                        Some(figure) => Action::Move { figure, segment },
                        None => Action::Deploy {
                            figure: kind,
                            segment,
                        },
                    })
                    // A move may name any tile part of the feature (`is_offered`).
                    .find(|a| self.game.state().is_offered(a))
                    // An expansion's prompt that deploys onto a feature (a wagon's move,
                    // AM-15) offers one segment of it: any tile part of it names it.
                    .or_else(|| {
                        if !matches!(d.kind, DecisionKind::Prompt(_)) || moving.is_some() {
                            return None;
                        }
                        let g = st.graph();
                        self.game.actions().iter().copied().find(|a| {
                            matches!(a, Action::Deploy { figure, segment } if *figure == kind
                                && segments.iter().any(|t| g.feature_of(*t) == g.feature_of(*segment)))
                        })
                    })
                    .ok_or_else(|| {
                        format!(
                            "{} `{meeple}` to {} is not legal here ({})",
                            if moving.is_some() {
                                "moving"
                            } else {
                                "deploying"
                            },
                            pointer::describe(ptr),
                            self.game.describe_decision()
                        )
                    })?;
                let in_supply: Vec<FigureId> = (0..st.figures().len())
                    .map(|i| FigureId(i as u16))
                    .filter(|f| {
                        let fig = st.figure(*f);
                        fig.owner == owner && fig.kind == kind && fig.loc == FigureLoc::Supply
                    })
                    .collect();
                let same_player_next = matches!(d.kind, DecisionKind::Deploy { .. });
                let confirmed = self
                    .decl
                    .pending_prompt(&self.game, |jp| jp.confirmed)
                    .is_some();
                let ending = st.in_final_scoring();
                self.apply(action)?;
                // JCZ waits for the mover's `COMMIT` unless it asks him the same again: after
                // a move answering a declared `confirmed` prompt (a wagon's), and after a
                // follower's move in a prompt (the Count's scoring round in any turn, a
                // bazaar's and the final abbey round's too; not the final scoring's).
                if let DecisionKind::Prompt(asked) = d.kind {
                    let again = matches!(self.game.decision().kind, DecisionKind::Prompt(q)
                        if q.player == asked.player && q.owner == asked.owner && q.code() == asked.code());
                    let waits = !again && !self.game.is_over();
                    if waits && confirmed {
                        self.confirm = Some(d.player);
                    }
                    self.awaits_commit = waits && (confirmed || (moving.is_some() && !ending));
                }
                if let Action::Deploy { segment, .. } = action {
                    let st = self.game.state();
                    let placed = in_supply
                        .into_iter()
                        .find(|f| st.figure(*f).loc == FigureLoc::On(segment));
                    match placed {
                        Some(f) => {
                            self.meeples.insert(meeple.to_string(), f);
                        }
                        // Scored and returned at once (a completed feature).
                        None => {
                            self.meeples.remove(meeple);
                        }
                    }
                }
                Ok(same_player_next || self.game.decision().player == d.player)
            }
            "PASS" => {
                let d = self.game.decision();
                // A player asked a question he may pass (a castle's, BCB-9, once JCZ skipped
                // an action step with nothing in it) passes it.
                let answers =
                    msg.player == Some(d.player.0) && self.game.actions().contains(&Action::Pass);
                if after_place && !matches!(d.kind, DecisionKind::Deploy { .. }) && !answers {
                    // JCZ offered an action step where our engine had nothing to deploy
                    // and moved on; declining it changes nothing (it must not answer an
                    // expansion's later question instead).
                    return Ok(true);
                }
                self.check_sender(msg)?;
                if !self.game.actions().contains(&Action::Pass) {
                    return Err(format!(
                        "passing is not possible now ({})",
                        self.game.describe_decision()
                    ));
                }
                self.apply(Action::Pass)?;
                Ok(matches!(d.kind, DecisionKind::Deploy { .. }))
            }
            "COMMIT" => {
                if let Some(r) = p.get("random") {
                    self.draws.r = r
                        .as_f64()
                        .filter(|r| (0.0..1.0).contains(r))
                        .ok_or_else(|| format!("`random` must be a number in [0, 1), not {r}"))?;
                }
                // The action step ends; a step JCZ had nothing to offer in is passed.
                if matches!(self.game.decision().kind, DecisionKind::Deploy { .. }) {
                    self.apply(Action::Pass)?;
                    // What our engine asks after the step and JCZ before its commit.
                    self.pass_unasked_prompts(&msg.kind, p)?;
                }
                Ok(false)
            }
            "MOVE_NEUTRAL_FIGURE" => self.move_neutral(msg),
            "RETURN_MEEPLE" => {
                self.check_sender(msg)?;
                self.return_meeple(p)
            }
            "PLACE_TOKEN" => {
                self.check_sender(msg)?;
                self.place_token(p)
            }
            "CAPTURE_FOLLOWER" => {
                self.check_sender(msg)?;
                self.capture(p)
            }
            "EXCHANGE_FOLLOWER" => {
                self.check_sender(msg)?;
                self.exchange(p)
            }
            "PAY_RANSOM" => {
                // JCZ's tile step: the tile is drawn before the ransom (TW-13).
                self.draw_if_due()?;
                self.check_sender(msg)?;
                self.pay_ransom(p)
            }
            kind if self.is_pointer_action(kind) => {
                self.check_sender(msg)?;
                self.pointer_action(kind, p)
            }
            kind if self.is_field_action(kind) => {
                self.check_sender(msg)?;
                self.field_action(kind, p)
            }
            kind if self.is_choice(kind) => {
                self.check_sender(msg)?;
                self.choice(kind, p)
            }
            // Not checked against `player`: a confirmation only carries JCZ's number, and
            // FCZ's own test saves send one under another seat (`flock-scores-all-players`).
            kind if self.random_only(kind) => self.confirm_random(kind, p),
            other => Err(format!("message type `{other}` is not supported")),
        }
    }
}

/// `MOVE_NEUTRAL_FIGURE` of a figure an expansion declares (`[jcz] neutral-figures`): the
/// offered custom action found by what `to` points at (a feature, a cell, or a follower),
/// so nothing here names an expansion's figures or verbs.
impl Replayer {
    /// A declared neutral figure's move; `true` when the same player decides next and the
    /// figure's steps may be undone.
    fn move_neutral(&mut self, msg: &JczMessage) -> Result<bool, String> {
        self.check_sender(msg)?;
        let p = &msg.payload;
        let figure = str_field(p, "figureId")?;
        let (owner, declared) = self
            .decl
            .neutral_owner(figure)
            .map(|(o, n)| (o, n.clone()))
            .ok_or_else(|| {
                format!(
                    "neutral figure `{figure}` is not supported (no loaded expansion declares it)"
                )
            })?;
        let to = p.get("to").ok_or("payload has no `to`")?;
        let meeple = to.get("meepleId").and_then(Value::as_str);
        let target = match (to.is_array(), meeple) {
            (true, _) => JczNeutralTarget::Cell,
            (false, Some(_)) => JczNeutralTarget::Follower,
            (false, None) => JczNeutralTarget::Feature,
        };
        if !declared.targets.contains(&target) {
            return Err(format!(
                "moving `{figure}` to {} is not supported",
                pointer::describe(to)
            ));
        }
        // `via`: our first step (an action about nothing) when nothing targets `to` yet.
        if let (Some(via), None) = (
            &declared.via,
            self.neutral_target(owner, target, meeple, to)?,
        ) {
            let rules = self.game.rules().clone();
            let first = self.game.actions().iter().copied().find(|a| {
                matches!(a, Action::Custom(c)
                    if c.figure.is_none() && c.segment.is_none()
                        && rules.verb_named(c.expansion, via) == Some(c.verb))
            });
            if let Some(first) = first {
                self.apply(first)?;
            }
        }
        let action = self
            .neutral_target(owner, target, meeple, to)?
            .ok_or_else(|| {
                format!(
                    "moving `{figure}` to {} is not legal here ({})",
                    pointer::describe(to),
                    self.game.describe_decision()
                )
            })?;
        let d = self.game.decision();
        self.apply(action)?;
        Ok(declared.undoable && self.game.decision().player == d.player)
    }

    /// The offered custom action of `owner` (the expansion declaring the figure) a neutral
    /// move's `to` points at, if one is offered.
    fn neutral_target(
        &self,
        owner: ExpansionIndex,
        target: JczNeutralTarget,
        meeple: Option<&str>,
        to: &Value,
    ) -> Result<Option<Action>, String> {
        let theirs = |a: &&Action| matches!(a, Action::Custom(c) if c.expansion == owner);
        Ok(match (target, meeple) {
            (JczNeutralTarget::Cell, _) => self.custom_on_cell(owner, pointer::position(Some(to))?),
            (JczNeutralTarget::Follower, Some(m)) => {
                let f = self.figure_of(m, to.get("featurePointer"))?;
                self.game
                    .actions()
                    .iter()
                    .filter(theirs)
                    .copied()
                    .find(|a| matches!(a, Action::Custom(c) if c.figure == Some(f)))
            }
            _ => {
                let segments = pointer::segments(&self.decl, &self.game, to)?;
                self.game
                    .actions()
                    .iter()
                    .filter(theirs)
                    .copied()
                    .find(|a| {
                        matches!(a, Action::Custom(c)
                        if c.segment.is_some_and(|s| segments.contains(&s)))
                    })
            }
        })
    }

    /// The figure of a JCZ meeple id: one deployed in this replay, else the one of that
    /// owner and kind standing on the feature pointed at.
    fn figure_of(&self, meeple: &str, feature: Option<&Value>) -> Result<FigureId, String> {
        let st = self.game.state();
        if let Some(f) = self.meeples.get(meeple).copied() {
            if matches!(st.figure(f).loc, FigureLoc::On(_)) {
                return Ok(f);
            }
        }
        let (owner, kind) = pointer::meeple(&self.decl, self.game.rules(), meeple)?;
        let segments = match feature {
            Some(ptr) => pointer::segments(&self.decl, &self.game, ptr)?,
            None => Vec::new(),
        };
        let g = st.graph();
        (0..st.figures().len())
            .map(|i| FigureId(i as u16))
            .find(|f| {
                let fig = st.figure(*f);
                fig.owner == owner
                    && fig.kind == kind
                    && matches!(fig.loc, FigureLoc::On(s)
                        if segments.iter().any(|t| g.feature_of(*t) == g.feature_of(s)))
            })
            .ok_or_else(|| format!("meeple `{meeple}` is not on the board"))
    }

    /// The offered custom action of `owner` that targets the tile at `cell`.
    fn custom_on_cell(&self, owner: ExpansionIndex, cell: Pos) -> Option<Action> {
        let g = self.game.state().graph();
        self.game.actions().iter().copied().find(|a| {
            matches!(a, Action::Custom(c) if c.expansion == owner && c.figure.is_none() && c.segment.is_some_and(|s| {
                let n = g.segment(s);
                !n.is_virtual() && n.pos == cell
            }))
        })
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("payload has no text field `{key}`"))
}
