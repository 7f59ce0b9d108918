//! Our actions → JCZ's messages, in JCZ's order (`docs/jcz.md`, "Writing saves").
//!
//! Each action is mapped in the state it was taken in (`before`), with the state after it
//! (`after`) to name the figure a deployment took from the supply and the neutral figure a
//! custom action moved. JCZ ends a turn's choices with `COMMIT` (its `CommitActionPhase`)
//! after the action step and what JCZ's engine asks before it (a tower capture, a dragon
//! flight before scoring); everything our engine asks later in the turn comes after it.

use super::names::Names;
use crate::actions::CORNERS;
use crate::draws::advance;
use carcassonne_core::{
    Action, CustomAction, DecisionKind, FigureId, FigureLoc, Game, HalfEdge, Pos, Prompt,
    SegmentId, Visible,
};
use carcassonne_files::jcz::{JczActionMessage, JczActionValue, JczNeutralTarget, JczPromptAnswer};
use serde_json::{json, Value};

/// The turn whose `COMMIT` is still to be written.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Turn {
    number: u32,
    part: bool,
    player: u8,
}

/// Writes the messages of one game.
pub(super) struct Writer<'a> {
    names: &'a Names,
    /// The messages so far.
    pub(super) messages: Vec<Value>,
    /// A tile was placed and its turn not committed yet.
    open: Option<Turn>,
    /// The `random` of the next `COMMIT`.
    random: f64,
    /// JCZ moves figures declared `undoable = false` (the dragon) after its commit step.
    flights_after_commit: bool,
    /// Draws made with the last `COMMIT`'s number (`random-by = ["COMMIT"]`: the big top's
    /// tokens): that message's index and each draw's (index, offered).
    commit_draws: Option<(usize, Vec<(usize, usize)>)>,
    /// The last message a `field` action wrote, with the fields actions set in it (the
    /// others came from the message before it).
    field_open: Option<(usize, Vec<String>)>,
}

fn turn_of(game: &Game) -> (u32, bool) {
    (game.state().turn(), game.state().extra_part())
}

/// A written message's type.
fn message_kind(m: &Value) -> &str {
    m.get("type").and_then(Value::as_str).unwrap_or_default()
}

fn message(kind: &str, player: u8, payload: Value) -> Value {
    json!({"type": kind, "payload": payload, "player": player})
}

impl<'a> Writer<'a> {
    pub(super) fn new(names: &'a Names, random: f64, flights_after_commit: bool) -> Writer<'a> {
        Writer {
            names,
            messages: Vec::new(),
            open: None,
            random,
            flights_after_commit,
            commit_draws: None,
            field_open: None,
        }
    }

    /// The random value JCZ starts from (also the first `COMMIT`'s predecessor).
    fn commit(&mut self) {
        if let Some(t) = self.open.take() {
            self.random = advance(self.random);
            self.messages
                .push(message("COMMIT", t.player, json!({"random": self.random})));
        }
    }

    /// Writes the messages of `a`, taken in `before`, which led to `after`.
    pub(super) fn action(&mut self, before: &Game, after: &Game, a: Action) -> Result<(), String> {
        let d = before.decision();
        let player = d.player.0;
        let (number, part) = turn_of(before);
        // A new turn (or turn part), or a question JCZ asks after its commit step: the open
        // turn is committed first.
        if let Some(t) = self.open {
            if (t.number, t.part) != (number, part) || !self.before_commit(before, Some(&a)) {
                self.commit();
            }
        }
        match a {
            Action::Draw { .. } => {}
            Action::Place { pos, rotation } => {
                let tile = match d.kind {
                    DecisionKind::PlaceTile { tile } => before.rules().tiles().get(tile).id.clone(),
                    DecisionKind::Prompt(p) if self.answered_as(p, &JczPromptAnswer::Placed) => {
                        placed_tile(after)?
                    }
                    DecisionKind::Prompt(p) => match self.tile_prompt(p) {
                        Some(t) => t,
                        None => {
                            return Err(format!(
                                "a placement answering {} has no JCZ message",
                                before.describe_decision()
                            ))
                        }
                    },
                    _ => return Err("a placement outside the tile step".into()),
                };
                self.commit();
                self.messages.push(message(
                    "PLACE_TILE",
                    player,
                    json!({"tileId": tile, "rotation": format!("R{}", rotation.degrees()), "position": [pos.x, pos.y]}),
                ));
                self.open = Some(Turn {
                    number,
                    part,
                    player,
                });
            }
            Action::Deploy { figure, segment } => {
                let f = deployed(before, after, d.player, figure, segment)?;
                let payload = json!({"meepleId": self.names.meeple_id(before, f)?, "pointer": self.names.pointer(before, segment)?});
                self.messages
                    .push(message("DEPLOY_MEEPLE", player, payload));
                // A deployment answering a prompt declared `confirmed` (the wagon's move).
                if let DecisionKind::Prompt(p) = d.kind {
                    let confirmed = self
                        .names
                        .prompt(p.owner, p.code().tag)
                        .is_some_and(|jp| jp.confirmed);
                    if confirmed {
                        self.confirm(before, after, p, player);
                    }
                }
            }
            Action::Move { figure, segment } => {
                let payload = json!({"meepleId": self.names.meeple_id(before, figure)?, "pointer": self.names.pointer(before, segment)?});
                self.messages
                    .push(message("DEPLOY_MEEPLE", player, payload));
                // JCZ's Count scoring round confirms a player's moves with a `COMMIT` once it
                // has nothing more to offer him (its `ConfirmAction`); the final round does not.
                if let DecisionKind::Prompt(p) = d.kind {
                    self.confirm(before, after, p, player);
                }
            }
            Action::Pass => self.pass(before, after, player)?,
            Action::Custom(c) => {
                // A tile JCZ draws (a bazaar's): it is in `drawOrder`, no message. The first
                // of our two steps that are JCZ's one `MOVE_NEUTRAL_FIGURE` (a neutral
                // figure's `via` verb): the answer to the prompt it opens writes it.
                if self.drawn_prompt(before) || self.opens_neutral_move(before, c) {
                    return Ok(());
                }
                if let Some((kind, field)) = self.field_decl(before, c) {
                    self.field_message(&kind, &field, c.value, player);
                } else if self.random_prompt(before).is_some() {
                    self.random_answer(before, a, player)?
                } else {
                    let m = self.custom(before, after, c)?;
                    self.refuse_inside_open_message(before, player, &m.0)?;
                    self.messages.push(message(&m.0, player, m.1));
                }
            }
        }
        Ok(())
    }

    /// JCZ's `ConfirmAction` after a move answering prompt `p`: the mover's `COMMIT`, once
    /// he is not asked `p` again. JCZ's `WagonPhase` and `CocScoringPhase` wait for it in
    /// every turn (a bazaar's turns and the final abbey round included, whoever moved); only
    /// the Count's round of the final scoring (`CocFinalScoringPhase`) asks none.
    fn confirm(&mut self, before: &Game, after: &Game, p: Prompt, player: u8) {
        let asked_again = matches!(after.decision().kind,
            DecisionKind::Prompt(q) if q.player == p.player && q.owner == p.owner && q.code() == p.code());
        if !asked_again && !before.state().in_final_scoring() {
            self.random = advance(self.random);
            self.messages
                .push(message("COMMIT", player, json!({"random": self.random})));
        }
    }

    /// After the last action: the open turn is committed unless the game waits in its
    /// action step or in a question JCZ asks before its commit step.
    pub(super) fn finish(&mut self, game: &Game) {
        if let Some(t) = self.open {
            let same = (t.number, t.part) == turn_of(game);
            if game.is_over() || !same || !self.before_commit(game, None) {
                self.commit();
            }
        }
    }

    /// Whether prompt `p` is declared with this answer (`drawn`, `placed`).
    fn answered_as(&self, p: Prompt, answer: &JczPromptAnswer) -> bool {
        self.names
            .prompt(p.owner, p.code().tag)
            .is_some_and(|jp| jp.answer == *answer)
    }

    /// Whether `game` waits for a prompt declared `drawn` (JCZ draws its answer).
    pub(super) fn drawn_prompt(&self, game: &Game) -> bool {
        matches!(game.decision().kind,
            DecisionKind::Prompt(p) if self.answered_as(p, &JczPromptAnswer::Drawn))
    }

    /// The message type and payload field of a custom action declared `field`.
    fn field_decl(&self, game: &Game, c: CustomAction) -> Option<(String, String)> {
        match &self.names.action(game.rules(), c.verb)?.message {
            JczActionMessage::Field(kind, field) => Some((kind.clone(), field.clone())),
            _ => None,
        }
    }

    /// A message taken while the game waits for the rest of the sender's open `field`
    /// message (a ransom paid between the choice of a bazaar tile and the bid, which JCZ sends
    /// as one `BAZAAR_BID`) has no moment in JCZ's order: refused by name. The wait is read
    /// from the pending question, which offers a field of that message type still unset.
    fn refuse_inside_open_message(
        &self,
        before: &Game,
        player: u8,
        kind: &str,
    ) -> Result<(), String> {
        let Some((at, set)) = &self.field_open else {
            return Ok(());
        };
        let open = &self.messages[*at];
        if *at + 1 != self.messages.len()
            || open.get("player").and_then(Value::as_u64) != Some(u64::from(player))
            || !matches!(before.decision().kind, DecisionKind::Prompt(p) if p.player.0 == player)
        {
            return Ok(());
        }
        let open_kind = open.get("type").and_then(Value::as_str).unwrap_or_default();
        let waits = before.actions().iter().any(|a| {
            matches!(a, Action::Custom(c) if self.field_decl(before, *c)
                .is_some_and(|(k, f)| k == open_kind && !set.contains(&f)))
        });
        if waits {
            return Err(format!(
                "`{kind}` taken between two parts of JCZ's one `{open_kind}` message (`{}` \
                 set, the rest still to come): JCZ has no moment for it there",
                set.join("`, `")
            ));
        }
        Ok(())
    }

    /// A declared `field` action: its value goes into the sender's last message when that
    /// is of this type and lacks the field (JCZ's one `BAZAAR_BID` is our choice of a tile
    /// and then our bid); else into a new message that starts from the last one of this
    /// type (a raise bids on the lot the opening bid named).
    fn field_message(&mut self, kind: &str, field: &str, value: i32, player: u8) {
        let is_kind = |m: &Value| m.get("type").and_then(Value::as_str) == Some(kind);
        let last = self.messages.len().checked_sub(1);
        if let Some((at, set)) = self.field_open.as_mut().filter(|(at, set)| {
            Some(*at) == last
                && self.messages[*at].get("player").and_then(Value::as_u64)
                    == Some(u64::from(player))
                && !set.iter().any(|f| f == field)
        }) {
            self.messages[*at]["payload"][field] = json!(value);
            set.push(field.to_string());
            return;
        }
        let mut payload = self
            .messages
            .iter()
            .rev()
            .find(|m| is_kind(m))
            .map_or_else(|| json!({}), |m| m["payload"].clone());
        payload[field] = json!(value);
        self.messages.push(message(kind, player, payload));
        self.field_open = Some((self.messages.len() - 1, vec![field.to_string()]));
    }

    /// The tile whose `PLACE_TILE` answers a declared prompt (the abbey).
    fn tile_prompt(&self, p: Prompt) -> Option<String> {
        match &self.names.prompt(p.owner, p.code().tag)?.answer {
            JczPromptAnswer::Tile(t) => Some(t.clone()),
            _ => None,
        }
    }

    /// The message types of a pending prompt JCZ answers with its random number (a draw
    /// from Hills & Sheep's bag: `random-by`).
    fn random_prompt(
        &self,
        game: &Game,
    ) -> Option<&'a [carcassonne_files::jcz::JczMessagePattern]> {
        let DecisionKind::Prompt(p) = game.decision().kind else {
            return None;
        };
        match &self.names.prompt(p.owner, p.code().tag)?.answer {
            JczPromptAnswer::RandomBy(l) => Some(l.as_slice()),
            _ => None,
        }
    }

    /// The answer to a `random-by` prompt: the number that draws it (index `i` of `n`
    /// offered: `(i + ½) / n`) goes into the turn's last message of a listed type when that
    /// has none yet and no message since carries one (the shepherd's `DEPLOY_MEEPLE`, also
    /// when the Phantom's step came between: JCZ 5 draws when its `ShepherdPhase` comes, with
    /// the number the last message set; `FLOCK_EXPAND_OR_SCORE`), else into a new message of
    /// the first listed type (`SHEPHERD_CONFIRM`, which JCZ 5 does not know).
    fn random_answer(&mut self, before: &Game, a: Action, player: u8) -> Result<(), String> {
        let kinds = self.random_prompt(before).unwrap_or_default();
        let offered = crate::random::prompt_draws(before);
        // JCZ draws at once when its phase comes: another expansion's free action our engine
        // offers beside the draw (the Tower's ransom) has no place in JCZ's order.
        let i = offered.iter().position(|o| *o == a).ok_or_else(|| {
            format!(
                "taken while the game waits for a draw JCZ makes by itself ({}): JCZ has no \
                 moment for this action there",
                before.describe_decision()
            )
        })?;
        if kinds.first().is_some_and(|k| k.kind == "COMMIT") {
            return self.commit_draw(i, offered.len());
        }
        let r = (i as f64 + 0.5) / offered.len() as f64;
        let has_random = |m: &Value| m.get("payload").is_some_and(|p| p.get("random").is_some());
        let listed = |m: &Value| kinds.iter().any(|k| message_kind(m) == k.kind);
        // Back to the message of a listed type, one that sets JCZ's number, or the turn's
        // start; the number goes there if it is of a listed type and sets none yet.
        let at = self.messages.iter().rposition(|m| {
            listed(m) || has_random(m) || matches!(message_kind(m), "PLACE_TILE" | "COMMIT")
        });
        let last = at
            .map(|at| &mut self.messages[at])
            .filter(|m| listed(m) && !has_random(m));
        match (last, kinds.first()) {
            (Some(m), _) => m["payload"]["random"] = json!(r),
            (None, Some(k)) => self
                .messages
                .push(message(&k.kind, player, json!({"random": r}))),
            (None, None) => return Err("a random draw with no message".into()),
        }
        Ok(())
    }

    /// A draw JCZ makes after its commit with the commit's number (the big top's token,
    /// `BigTopPhase`; a second one, the final reveal, with the number after it): the turn
    /// is committed if it is not yet, and that `COMMIT`'s `random` is set so that every
    /// draw made with it (index `i` of `n`: `floor(r × n) = i`, `r` then advancing with
    /// JCZ's LCG) comes out as ours.
    fn commit_draw(&mut self, i: usize, n: usize) -> Result<(), String> {
        self.commit();
        let at = self
            .messages
            .iter()
            .rposition(|m| m.get("type").and_then(Value::as_str) == Some("COMMIT"))
            .ok_or("a draw after the commit, but no `COMMIT` was written")?;
        let mut draws = match self.commit_draws.take() {
            Some((k, d)) if k == at => d,
            _ => Vec::new(),
        };
        draws.push((i, n));
        let (i0, n0) = draws[0];
        // Numbers inside the first draw's interval, until one draws all of them.
        let r = (0..4096)
            .map(|j| (i0 as f64 + (f64::from(j) + 0.5) / 4096.0) / n0 as f64)
            .find(|&r0| {
                let mut r = r0;
                draws.iter().all(|&(i, n)| {
                    let ok = ((r * n as f64).floor() as usize).min(n - 1) == i;
                    r = advance(r);
                    ok
                })
            })
            .ok_or("no JCZ random number gives these draws after one commit")?;
        self.messages[at]["payload"]["random"] = json!(r);
        self.commit_draws = Some((at, draws));
        Ok(())
    }

    /// Whether JCZ takes this decision (and `a`, if given) before its commit step: the
    /// action step, and prompts answered by a capture, a token, a return or a ransom (JCZ's
    /// action and tower-capture phases), or by a flight step JCZ makes before scoring.
    fn before_commit(&self, game: &Game, a: Option<&Action>) -> bool {
        match game.decision().kind {
            DecisionKind::Deploy { .. } => true,
            DecisionKind::Prompt(p) => {
                if self.tile_prompt(p).is_some() {
                    return false;
                }
                if self.random_prompt(game).is_some() {
                    return true;
                }
                // Another expansion's free action (a ransom) is taken in any step: the
                // prompt's own actions say where JCZ asks it.
                let own = |x: &Action| !matches!(x, Action::Custom(c) if c.expansion != p.owner);
                let pool: Vec<&Action> = match a {
                    Some(a) if own(a) && *a != Action::Pass => vec![a],
                    _ => game.actions().iter().filter(|x| own(x)).collect(),
                };
                pool.iter().any(|a| self.acts_before_commit(game, p, a))
            }
            _ => false,
        }
    }

    fn acts_before_commit(&self, game: &Game, p: Prompt, a: &Action) -> bool {
        let Action::Custom(c) = a else {
            return false;
        };
        if let Some(decl) = self.names.action(game.rules(), c.verb) {
            return matches!(
                decl.message,
                JczActionMessage::CaptureFollower
                    | JczActionMessage::PlaceToken(_)
                    | JczActionMessage::ReturnMeeple(_)
                    | JczActionMessage::PayRansom
                    | JczActionMessage::ExchangeFollower
                    | JczActionMessage::Choice(..)
                    | JczActionMessage::Pointer(_)
            );
        }
        let neutral = self.names.neutral(p.owner);
        // The second of a `via` move's two steps is JCZ's one message in its action step.
        if neutral.iter().any(|n| n.via.is_some()) && c.figure.is_none() {
            return true;
        }
        !self.flights_after_commit && neutral.iter().any(|n| !n.undoable) && c.figure.is_none()
    }

    /// A pass: JCZ's `PASS`, but nothing for a question JCZ never asks (`passed-by`, or
    /// `passed-unless` without `PASS`: the next message passes it; for one JCZ offers in
    /// its action step, only while our deployment step follows), and `PASS` + `COMMIT` for
    /// a declined tile question outside the final round (JCZ's `CommitAbbeyPassPhase`).
    fn pass(&mut self, before: &Game, after: &Game, player: u8) -> Result<(), String> {
        if let DecisionKind::Prompt(p) = before.decision().kind {
            let jp = self.names.prompt(p.owner, p.code().tag);
            match jp.map(|jp| &jp.answer) {
                Some(JczPromptAnswer::PassedBy(_)) => return Ok(()),
                Some(JczPromptAnswer::PassedUnless(l)) if !l.iter().any(|m| m.kind == "PASS") => {
                    let deploys_next = turn_of(after) == turn_of(before)
                        && after.decision().player == before.decision().player
                        && matches!(after.decision().kind, DecisionKind::Deploy { .. });
                    if jp.is_some_and(|jp| jp.action_step) && !deploys_next {
                        self.messages.push(message("PASS", player, json!({})));
                    }
                    return Ok(());
                }
                Some(JczPromptAnswer::Tile(_)) => {
                    self.messages.push(message("PASS", player, json!({})));
                    if !ending(before) {
                        self.random = advance(self.random);
                        self.messages.push(message(
                            "COMMIT",
                            player,
                            json!({"random": self.random}),
                        ));
                    }
                    return Ok(());
                }
                _ => {}
            }
        }
        self.messages.push(message("PASS", player, json!({})));
        Ok(())
    }

    /// Whether `c` is a declared neutral figure's `via` verb (Village Life's `donkey`).
    fn opens_neutral_move(&self, before: &Game, c: CustomAction) -> bool {
        let rules = before.rules();
        self.names.neutral(c.expansion).iter().any(|n| {
            n.via
                .as_deref()
                .and_then(|v| rules.verb_named(c.expansion, v))
                == Some(c.verb)
        })
    }

    /// The message of a custom action: a declared `[[jcz.actions]]` message, or a declared
    /// neutral figure's move.
    fn custom(
        &self,
        before: &Game,
        after: &Game,
        c: CustomAction,
    ) -> Result<(String, Value), String> {
        let rules = before.rules();
        let names = self.names;
        let Some(decl) = names.action(rules, c.verb) else {
            return self.neutral_move(before, after, c);
        };
        let segment = || c.segment.ok_or("the action names no feature");
        let figure = || c.figure.ok_or("the action names no figure");
        Ok(match &decl.message {
            JczActionMessage::PlaceToken(token) => {
                let seg = segment()?;
                // A token at a place of a tile (a bridge) names that tile and place.
                let pointer = match &decl.at {
                    Some(at) => {
                        let p = before.state().graph().segment(seg).pos;
                        json!({"position": [p.x, p.y], "feature": at.feature, "location": at.location})
                    }
                    None => names.pointer(before, seg)?,
                };
                (
                    "PLACE_TOKEN".into(),
                    json!({"token": token, "pointer": pointer}),
                )
            }
            JczActionMessage::DeployOnFeature(_) => {
                let seg = segment()?;
                let kind = carcassonne_core::FigureKindId(c.value as u8);
                let f = deployed(before, after, before.decision().player, kind, seg)?;
                (
                    "DEPLOY_MEEPLE".into(),
                    json!({"meepleId": names.meeple_id(before, f)?, "pointer": names.pointer(before, seg)?}),
                )
            }
            JczActionMessage::DeployFigure(jcz) => {
                let kind = (0..rules.figure_kinds().len())
                    .map(|k| carcassonne_core::FigureKindId(k as u8))
                    .find(|k| names.meeple_kind(rules, *k).ok().as_deref() == Some(jcz.as_str()))
                    .ok_or_else(|| format!("no figure kind for JCZ's `{jcz}`"))?;
                // A corner's figure (a barn, the obelisk) is named by the field at the
                // corner's north-west, as JCZ points at it; its action may name no segment.
                let seg = if decl.value == JczActionValue::Corner {
                    corner_segment(before, c.value)?
                } else {
                    segment()?
                };
                let f = deployed(before, after, before.decision().player, kind, seg)?;
                let pointer = names.pointer(before, seg)?;
                (
                    "DEPLOY_MEEPLE".into(),
                    json!({"meepleId": names.meeple_id(before, f)?, "pointer": pointer}),
                )
            }
            JczActionMessage::CaptureFollower => (
                "CAPTURE_FOLLOWER".into(),
                json!({"pointer": names.meeple_pointer(before, figure()?)?}),
            ),
            JczActionMessage::PayRansom => {
                let f = prisoner(before, after)?;
                (
                    "PAY_RANSOM".into(),
                    json!({"meepleId": names.meeple_id(before, f)?}),
                )
            }
            // The capturer's own follower the exchange freed (the victim's goes home too).
            JczActionMessage::ExchangeFollower => {
                let me = before.decision().player;
                let (b, a) = (before.state(), after.state());
                let f = (0..b.figures().len())
                    .map(|i| FigureId(i as u16))
                    .find(|f| {
                        b.figure(*f).owner == me
                            && b.figure(*f).loc == FigureLoc::Removed
                            && a.figure(*f).loc != FigureLoc::Removed
                    })
                    .ok_or("the exchange freed no follower of the capturer")?;
                (
                    "EXCHANGE_FOLLOWER".into(),
                    json!({"meepleId": names.meeple_id(before, f)?}),
                )
            }
            JczActionMessage::ReturnMeeple(source) => (
                "RETURN_MEEPLE".into(),
                json!({"source": source, "pointer": names.meeple_pointer(before, figure()?)?}),
            ),
            JczActionMessage::Choice(kind, value) => (kind.clone(), json!({"value": value})),
            // Written by `field_message` (`action`).
            JczActionMessage::Field(kind, field) => (kind.clone(), json!({ field: c.value })),
            JczActionMessage::Pointer(kind) => (
                kind.clone(),
                json!({"pointer": names.pointer(before, segment()?)?}),
            ),
        })
    }

    /// `MOVE_NEUTRAL_FIGURE` of the declared neutral figure the action moved (found by the
    /// figures its expansion shows before and after), `to` as the declaration allows.
    fn neutral_move(
        &self,
        before: &Game,
        after: &Game,
        c: CustomAction,
    ) -> Result<(String, Value), String> {
        let rules = before.rules();
        let declared = self.names.neutral(c.expansion);
        let verb = &rules.verbs()[c.verb.0 as usize].1;
        let no_message = || {
            format!(
                "`{}` action `{verb}` has no JCZ message (no `[[jcz.actions]]` entry or neutral figure)",
                rules.expansions()[c.expansion.0 as usize].id()
            )
        };
        let (b, a) = (neutral_figures(before), neutral_figures(after));
        // The figures whose place changed (one may have left the board).
        let moved: Vec<&String> = a
            .iter()
            .filter(|x| !b.contains(x))
            .chain(b.iter().filter(|x| !a.contains(x)))
            .map(|(n, _)| n)
            .collect();
        let on_tile = c
            .segment
            .filter(|s| !before.state().graph().segment(*s).is_virtual());
        // Else the only declared figure that can point where the action does.
        let fits = |n: &carcassonne_files::jcz::JczNeutralFigure| match (c.figure, on_tile) {
            (Some(_), _) => n.targets.contains(&JczNeutralTarget::Follower),
            (None, Some(_)) => n.targets.contains(&JczNeutralTarget::Cell),
            (None, None) => n.targets.contains(&JczNeutralTarget::Feature),
        };
        let compatible: Vec<_> = declared.iter().copied().filter(|n| fits(n)).collect();
        let figure = declared
            .iter()
            .find(|n| {
                moved
                    .iter()
                    .any(|m| n.id.split('.').next() == Some(m.as_str()))
            })
            .or_else(|| (compatible.len() == 1).then(|| &compatible[0]))
            .ok_or_else(no_message)?;
        let seg = c.segment;
        let to = match c.figure {
            Some(f) if figure.targets.contains(&JczNeutralTarget::Follower) => {
                self.names.meeple_pointer(before, f)?
            }
            _ if figure.targets.contains(&JczNeutralTarget::Cell) && on_tile.is_some() => {
                let p = before
                    .state()
                    .graph()
                    .segment(on_tile.expect("checked"))
                    .pos;
                json!([p.x, p.y])
            }
            _ => self.names.pointer(before, seg.ok_or_else(no_message)?)?,
        };
        Ok((
            "MOVE_NEUTRAL_FIGURE".into(),
            json!({"figureId": figure.id, "to": to}),
        ))
    }
}

/// The id of the tile a placement laid (the tile just placed in `after`).
fn placed_tile(after: &Game) -> Result<String, String> {
    let st = after.state();
    let t = st.last_placed().ok_or("a placement that laid no tile")?;
    Ok(after
        .rules()
        .tiles()
        .get(st.board().tile(t).kind)
        .id
        .clone())
}

/// Whether the game is past its last draw (a final round: JCZ does not commit a declined
/// tile question there, its `AbbeyEndGamePhase`), read as turns going on after the supply
/// ran out (`GameState::more_turns`). A bazaar round's turns read so too, though JCZ plays
/// them as ordinary turns; there it offers the abbey only in a builder's second turn part,
/// and such a pass would want its `COMMIT` (not told apart yet).
fn ending(game: &Game) -> bool {
    game.state().more_turns() || game.state().in_final_scoring()
}

/// The neutral figures an expansion shows: (name, segment).
fn neutral_figures(game: &Game) -> Vec<(String, SegmentId)> {
    let mut shown = Vec::new();
    let _ = game.view().describe(&mut shown);
    shown
        .into_iter()
        .filter_map(|v| match v {
            Visible::NeutralFigure { name, segment, .. } => Some((name, segment)),
            _ => None,
        })
        .collect()
}

/// The figure of `kind` a deployment onto `segment` took from `player`'s supply: the one
/// standing there afterwards, else (scored and returned at once) the first in supply, which
/// is the one the engine takes.
fn deployed(
    before: &Game,
    after: &Game,
    player: carcassonne_core::PlayerId,
    kind: carcassonne_core::FigureKindId,
    segment: SegmentId,
) -> Result<FigureId, String> {
    let (b, a) = (before.state(), after.state());
    let mine = |f: &FigureId| {
        let fig = b.figure(*f);
        fig.seat() == Some(player) && fig.kind == kind && fig.loc == FigureLoc::Supply
    };
    let all = (0..b.figures().len()).map(|i| FigureId(i as u16));
    let g = a.graph();
    all.clone()
        .filter(mine)
        .find(|f| matches!(a.figure(*f).loc, FigureLoc::On(s) if g.feature_of(s) == g.feature_of(segment)))
        .or_else(|| all.clone().filter(mine).find(|f| a.figure(*f).loc != FigureLoc::Supply))
        .or_else(|| all.clone().find(mine))
        .ok_or_else(|| "no figure of that kind was in the supply".to_string())
}

/// The prisoner a ransom freed: a figure removed before and not after.
fn prisoner(before: &Game, after: &Game) -> Result<FigureId, String> {
    let (b, a) = (before.state(), after.state());
    (0..b.figures().len())
        .map(|i| FigureId(i as u16))
        .find(|f| b.figure(*f).loc == FigureLoc::Removed && a.figure(*f).loc != FigureLoc::Removed)
        .ok_or_else(|| "the ransom freed no prisoner".to_string())
}

/// The segment JCZ points at for a figure on a corner of the tile just placed (a barn, the
/// obelisk): the field at the north-west corner of the tile whose north-west corner it is
/// (`crate::actions::CORNERS`).
fn corner_segment(game: &Game, corner: i32) -> Result<SegmentId, String> {
    let st = game.state();
    let placed = st
        .last_placed()
        .map(|i| st.board().tile(i).pos)
        .ok_or("no tile has been placed")?;
    let (dx, dy) = usize::try_from(corner)
        .ok()
        .and_then(|c| CORNERS.get(c))
        .ok_or_else(|| format!("corner {corner} is not 0 … 3"))?;
    let at = Pos::new(placed.x + dx, placed.y + dy);
    let tile = st
        .board()
        .at(at)
        .ok_or_else(|| format!("no tile at {at}"))?;
    let tk = game.rules().tiles().get(tile.kind);
    let local = tk
        .segment_on_half(tile.rotation, HalfEdge::from_index(0))
        .ok_or_else(|| format!("no field at the north-west corner of {at}"))?;
    Ok(tile.segment(usize::from(local)))
}
