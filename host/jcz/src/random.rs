//! JCZ's random numbers beyond tile draws, and messages that choose among an expansion's
//! verbs (`docs/jcz.md`):
//!
//! - every message may carry `random`, which becomes JCZ's current number (`draws.rs`);
//! - a prompt declared `random-by = [messages]` (Hills & Sheep's bag, under
//!   `tokenDraws=chosen`) is a draw JCZ makes with that number: when one of those messages
//!   carries `random`, each such pending prompt is answered by the offered action at index
//!   `floor(r × n)` of the `n` offered, and `r` advances with JCZ's LCG as after a tile
//!   draw. A message type only `random-by` names (`SHEPHERD_CONFIRM`) does nothing else;
//! - an action declared with `choice` (`FLOCK_EXPAND_OR_SCORE` `EXPAND`) is the offered
//!   custom action of its verb when the message's `value` is that choice.
//!
//! Nothing here names an expansion.

use super::draws::advance;
use super::{str_field, Replayer};
use carcassonne_core::{Action, DecisionKind, Game};
use carcassonne_files::jcz::{JczActionMessage, JczPromptAnswer};
use serde_json::Value;

impl Replayer {
    /// Takes the message's `random`, if any, as JCZ's current number.
    pub(super) fn take_random(&mut self, p: &Value) -> Result<(), String> {
        if let Some(r) = p.get("random") {
            self.draws.r = r
                .as_f64()
                .filter(|r| (0.0..1.0).contains(r))
                .ok_or_else(|| format!("`random` must be a number in [0, 1), not {r}"))?;
        }
        Ok(())
    }

    /// After a message of type `kind` that carries `random`: answers every pending prompt
    /// declared `random-by` that type; how many were answered. After one that carries none,
    /// a prompt our engine asks only now is answered as the turn's last message that set the
    /// number and drew nothing would have: JCZ 5 draws when its phase comes, with the number
    /// the last message set (a shepherd's `DEPLOY_MEEPLE` carries it, and the Phantom's step
    /// comes between in our order, its `PASS` or `DEPLOY_MEEPLE` without a number).
    pub(super) fn answer_random(&mut self, kind: &str, p: &Value) -> Result<usize, String> {
        if p.get("random").is_some() {
            let n = self.draw_pending(kind)?;
            // Not when the message drew when applied (a `SHEPHERD_CONFIRM`).
            let sets = n == 0 && kind != "COMMIT" && !self.drew;
            self.random_set_by = sets.then(|| kind.to_string());
            return Ok(n);
        }
        if matches!(kind, "PLACE_TILE" | "COMMIT") {
            self.random_set_by = None;
            return Ok(0);
        }
        let Some(set_by) = self.random_set_by.clone() else {
            return Ok(0);
        };
        let n = self.draw_pending(&set_by)?;
        if n > 0 {
            self.random_set_by = None;
        }
        Ok(n)
    }

    /// After a later message of a committed turn part (`kind` not a `COMMIT`): a prompt
    /// declared `random-by = ["COMMIT"]` that our engine asks only now is drawn with JCZ's
    /// current number, as JCZ draws when its phase comes (the big top's token after the
    /// wagon's question: `WagonPhase` comes before `BigTopPhase`, so the wagon's `PASS` sits
    /// between the `COMMIT` and the draw). Not while JCZ waits for a confirming `COMMIT` (a
    /// wagon moved, a follower moved in the Count's scoring round): it draws after that one,
    /// with its number.
    pub(super) fn answer_random_after_commit(&mut self, kind: &str) -> Result<usize, String> {
        if kind == "COMMIT" || !self.committed || self.awaits_commit {
            return Ok(0);
        }
        self.draw_pending("COMMIT")
    }

    /// Answers every pending prompt declared `random-by` a message of type `kind` with JCZ's
    /// current number (advanced after each draw); how many were answered.
    fn draw_pending(&mut self, kind: &str) -> Result<usize, String> {
        let mut answered = 0;
        while self
            .decl
            .pending_prompt(&self.game, |jp| match &jp.answer {
                JczPromptAnswer::RandomBy(l) => l.iter().any(|m| m.matches(kind, None, None)),
                _ => false,
            })
            .is_some()
        {
            let offered = prompt_draws(&self.game);
            if offered.is_empty() {
                return Err("a random draw is due but nothing is offered".into());
            }
            let n = offered.len();
            let index = ((self.draws.r * n as f64).floor() as usize).min(n - 1);
            self.draws.r = advance(self.draws.r);
            let action = offered[index];
            self.apply(action)?;
            self.drew = true;
            answered += 1;
        }
        Ok(answered)
    }

    /// A message type that only carries a random number for a `random-by` prompt.
    pub(super) fn random_only(&self, kind: &str) -> bool {
        self.decl.random_message(kind)
            && self
                .decl
                .actions(|m| matches!(m, JczActionMessage::Choice(t, _) if t == kind))
                .next()
                .is_none()
    }

    /// A `random-by`-only message (`SHEPHERD_CONFIRM`): there must be a draw to answer.
    pub(super) fn confirm_random(&mut self, kind: &str, p: &Value) -> Result<bool, String> {
        if p.get("random").is_none() {
            return Err("payload has no `random`".into());
        }
        let d = self.game.decision();
        if self.answer_random(kind, p)? == 0 {
            return Err(format!(
                "nothing waits for `{kind}` ({})",
                self.game.describe_decision()
            ));
        }
        Ok(self.game.decision().player == d.player)
    }

    /// Whether `kind` is a message some action is declared as a `choice` of.
    pub(super) fn is_choice(&self, kind: &str) -> bool {
        self.decl
            .actions(|m| matches!(m, JczActionMessage::Choice(t, _) if t == kind))
            .next()
            .is_some()
    }

    /// A declared `choice` message: the offered custom action of the verb its `value` names.
    pub(super) fn choice(&mut self, kind: &str, p: &Value) -> Result<bool, String> {
        let value = str_field(p, "value")?;
        let verbs: Vec<_> = self
            .decl
            .actions(|m| matches!(m, JczActionMessage::Choice(t, v) if t == kind && v == value))
            .map(|a| a.verb)
            .collect();
        if verbs.is_empty() {
            return Err(format!("`{kind}` with value `{value}` is not supported"));
        }
        let action = self
            .game
            .actions()
            .iter()
            .copied()
            .find(|a| matches!(a, Action::Custom(c) if verbs.contains(&c.verb)))
            .ok_or_else(|| {
                format!(
                    "`{kind}` `{value}` is not legal here ({})",
                    self.game.describe_decision()
                )
            })?;
        let d = self.game.decision();
        self.apply(action)?;
        // The random number it carries draws next (a growing flock: `replay`'s loop).
        Ok(self.game.decision().player == d.player)
    }
}

/// The draws a pending prompt offers: its expansion's own actions, without the free actions
/// another expansion adds to every prompt of the turn player (the Tower's ransom), which are
/// not in JCZ's bag; all offered actions when the decision is not a prompt.
pub(crate) fn prompt_draws(game: &Game) -> Vec<Action> {
    let offered = game.actions();
    let DecisionKind::Prompt(p) = game.decision().kind else {
        return offered.to_vec();
    };
    let own: Vec<Action> = offered
        .iter()
        .copied()
        .filter(|a| matches!(a, Action::Custom(c) if c.expansion == p.owner))
        .collect();
    if own.is_empty() {
        offered.to_vec()
    } else {
        own
    }
}
