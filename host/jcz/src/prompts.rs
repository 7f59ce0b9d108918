//! An expansion's prompts that JCZ asks differently, as its manifest declares them
//! (`[[jcz.prompts]]`, `carcassonne_files::jcz`):
//!
//! - `passed-by` / `passed-unless`: a question JCZ never asks where the save goes on with
//!   such a message (the Tower's ransom before the draw: `PLACE_TILE`) or with any message
//!   but these (Abbey & Mayor's wagon questions: all but `PASS`, `COMMIT` and a wagon's
//!   `DEPLOY_MEEPLE`) is passed first;
//! - `tile`: a `PLACE_TILE` of that tile answers the prompt with the offered placement at the
//!   save's position, whatever rotation the save names (the abbey, `AM/A`: its edges are all
//!   alike, so we offer rotation 0, JCZ every rotation); the replay output shows the prompt
//!   as JCZ's tile step of that tile in every rotation.
//!
//! Custom actions declared with `value = "corner"` (a barn) are listed in the replay output
//! also as deployments of their figure on JCZ's pointer (the field at the north-west corner
//! of the tile whose corner it is), as JCZ lists them; so are those declared as a
//! `DEPLOY_MEEPLE` onto a feature class with `value = "figure-kind"` (a follower on a tower
//! top: JCZ's `{Tower,I,[x,y]}` among that figure's options).

use super::actions::CORNERS;
use super::declared::Declarations;
use super::Replayer;
use carcassonne_core::{Action, DecisionKind, Game, HalfEdge, Pos, Rotation};
use carcassonne_files::jcz::{JczActionMessage, JczActionValue, JczPromptAnswer};
use carcassonne_play::record::{target_of, RecordAction};
use carcassonne_play::replay::{DeploymentOut, Pending};
use serde_json::Value;

impl Replayer {
    /// Passes every pending declared prompt that this message passes; none when the message
    /// is another expansion's free action offered beside the prompt (a ransom during the
    /// bridge question: JCZ takes it at any time, and its step goes on).
    ///
    /// `true` when a `PASS` was this: JCZ's action step holding a question declared
    /// `action-step` (Bridges, Castles & Bazaars' bridge) with no deployment step of ours
    /// after it. The question took the pass; what our engine asks next (a wagon's move, which
    /// JCZ asks after its `COMMIT`) waits for its own message.
    pub(super) fn pass_unasked_prompts(&mut self, kind: &str, p: &Value) -> Result<bool, String> {
        if self.free_action_message(kind) {
            return Ok(false);
        }
        let meeple = p.get("meepleId").and_then(Value::as_str);
        let token = p.get("token").and_then(Value::as_str);
        let matches =
            |m: &carcassonne_files::jcz::JczMessagePattern| m.matches(kind, meeple, token);
        loop {
            let passed = self.decl.pending_prompt(&self.game, |jp| match &jp.answer {
                JczPromptAnswer::PassedBy(l) => l.iter().any(matches),
                JczPromptAnswer::PassedUnless(l) => !l.iter().any(matches),
                JczPromptAnswer::Tile(_)
                | JczPromptAnswer::RandomBy(_)
                | JczPromptAnswer::Drawn
                | JczPromptAnswer::Placed => false,
            });
            let Some(action_step) = passed.map(|jp| jp.action_step) else {
                return Ok(false);
            };
            self.apply(Action::Pass)?;
            if action_step
                && kind == "PASS"
                && !matches!(self.game.decision().kind, DecisionKind::Deploy { .. })
            {
                return Ok(true);
            }
        }
    }

    /// Whether a message of type `kind` is declared for a custom action that another
    /// expansion than the pending prompt's owner offers in it (a free action).
    fn free_action_message(&self, kind: &str) -> bool {
        let DecisionKind::Prompt(pending) = self.game.decision().kind else {
            return false;
        };
        let offered = self.game.actions();
        self.decl
            .actions(|m| m.message_type() == kind)
            .any(|decl| {
                offered.iter().any(|a| {
                    matches!(a, Action::Custom(c) if c.expansion != pending.owner && c.verb == decl.verb)
                })
            })
    }

    /// `PLACE_TILE` of a tile that answers a declared prompt: the offered placement at `pos`.
    pub(super) fn place_prompt_tile(&mut self, id: &str, pos: Pos) -> Result<bool, String> {
        let asked = self
            .decl
            .pending_prompt(
                &self.game,
                |jp| matches!(&jp.answer, JczPromptAnswer::Tile(t) if t == id),
            )
            .is_some();
        if !asked {
            return Err(format!(
                "`{id}` cannot be placed now ({})",
                self.game.describe_decision()
            ));
        }
        let action = self
            .game
            .actions()
            .iter()
            .copied()
            .find(|a| matches!(a, Action::Place { pos: p, .. } if *p == pos))
            .ok_or_else(|| {
                format!(
                    "placing `{id}` at [{}, {}] is not legal here (not offered)",
                    pos.x, pos.y
                )
            })?;
        self.apply(action)?;
        Ok(true)
    }
}

impl Replayer {
    /// Answers every pending prompt declared `drawn` with the tile JCZ draws next: the
    /// offered custom action whose value is that tile's kind.
    pub(super) fn answer_drawn(&mut self) -> Result<(), String> {
        while self
            .decl
            .pending_prompt(&self.game, |jp| jp.answer == JczPromptAnswer::Drawn)
            .is_some()
        {
            let offered: Vec<(i32, Action)> = self
                .game
                .actions()
                .iter()
                .filter_map(|a| match a {
                    Action::Custom(c) => Some((c.value, *a)),
                    _ => None,
                })
                .collect();
            let tile = self.draws.next_where(&self.game, |k| {
                offered.iter().any(|(v, _)| *v == i32::from(k.0))
            })?;
            let action = offered
                .iter()
                .find(|(v, _)| *v == i32::from(tile.0))
                .map(|(_, a)| *a)
                .ok_or_else(|| {
                    format!(
                        "JCZ draws `{}`, which {} does not offer",
                        self.game.rules().tiles().get(tile).id,
                        self.game.describe_decision()
                    )
                })?;
            self.apply(action)?;
        }
        Ok(())
    }

    /// `PLACE_TILE` answering a prompt declared `placed` (a bought tile): the offered
    /// placement at the save's position and rotation.
    pub(super) fn place_placed(
        &mut self,
        pos: Pos,
        rotation: Rotation,
        what: &str,
    ) -> Result<bool, String> {
        let action = Action::Place { pos, rotation };
        if !self.game.actions().contains(&action) {
            return Err(format!(
                "placing {what} at [{}, {}] is not legal here ({})",
                pos.x,
                pos.y,
                self.game.describe_decision()
            ));
        }
        self.apply(action)?;
        Ok(true)
    }

    /// Whether a prompt declared `placed` waits.
    pub(super) fn placed_pending(&self) -> bool {
        self.decl
            .pending_prompt(&self.game, |jp| jp.answer == JczPromptAnswer::Placed)
            .is_some()
    }
}

/// The pending decision in JCZ's terms: a declared tile prompt as JCZ's tile step, and
/// each offered `corner` action also as a deployment of its figure on JCZ's pointer.
pub(super) fn jcz_pending(decl: &Declarations, game: &Game, p: &mut Pending) {
    if let Some(jp) = decl.pending_prompt(game, |jp| matches!(jp.answer, JczPromptAnswer::Tile(_)))
    {
        if let JczPromptAnswer::Tile(t) = &jp.answer {
            p.tile = Some(t.clone());
            for c in &mut p.placements {
                c.rotations = vec![0, 90, 180, 270];
            }
        }
    }
    let rules = game.rules();
    // (verb name, owner id, our figure name) of each declared corner action.
    let corner_verbs: Vec<(String, String, String)> = decl
        .actions(|_| true)
        .filter(|a| a.action.value == JczActionValue::Corner)
        .filter_map(|a| {
            let JczActionMessage::DeployFigure(jcz) = &a.action.message else {
                return None;
            };
            let figure = rules.figure_kind(decl.figure(rules, jcz)?).name.clone();
            let (owner, name) = rules.verbs().get(a.verb.0 as usize)?;
            let id = rules.expansions().get(owner.0 as usize)?.id().to_string();
            Some((name.clone(), id, figure))
        })
        .collect();
    // (verb name, owner id) of each declared deployment onto a feature class whose value
    // is the figure kind (the Tower's `cap-tower`: a follower on a tower top).
    let feature_verbs: Vec<(String, String)> = decl
        .actions(|m| matches!(m, JczActionMessage::DeployOnFeature(_)))
        .filter(|a| a.action.value == JczActionValue::FigureKind)
        .filter_map(|a| {
            let (owner, name) = rules.verbs().get(a.verb.0 as usize)?;
            let id = rules.expansions().get(owner.0 as usize)?.id().to_string();
            Some((name.clone(), id))
        })
        .collect();
    let mut extra = Vec::new();
    for c in &p.custom {
        // A deployment onto a feature class: JCZ lists it with the figure's other
        // deployments (`Meeple SmallFollower options: …; {Tower,I,[-1,0]}`).
        if let RecordAction::Custom {
            expansion,
            verb,
            target: Some(t),
            value,
            ..
        } = c
        {
            let kind = u8::try_from(*value)
                .ok()
                .map(carcassonne_core::FigureKindId)
                .filter(|k| (k.0 as usize) < rules.figure_kinds().len());
            if let (Some(k), true) = (
                kind,
                feature_verbs
                    .iter()
                    .any(|(v, e)| v == verb && e == expansion),
            ) {
                extra.push(DeploymentOut {
                    figure: rules.figure_kind(k).name.clone(),
                    feature: t.feature.clone(),
                    x: t.x,
                    y: t.y,
                    location: t.location.clone(),
                });
                continue;
            }
        }
        let RecordAction::Custom {
            expansion,
            verb,
            target,
            value,
            ..
        } = c
        else {
            continue;
        };
        let Some((_, _, figure)) = corner_verbs
            .iter()
            .find(|(v, e, _)| v == verb && e == expansion)
        else {
            continue;
        };
        let st = game.state();
        // The corner is of the tile just placed (an action that names no segment has no
        // target of its own).
        let placed = st.last_placed().map(|i| st.board().tile(i).pos);
        let (x, y) = match target {
            Some(t) => (t.x, t.y),
            None => (placed.map(|p| p.x), placed.map(|p| p.y)),
        };
        let (Some(x), Some(y), Some((dx, dy))) = (
            x,
            y,
            usize::try_from(*value).ok().and_then(|v| CORNERS.get(v)),
        ) else {
            continue;
        };
        let Some(tile) = st.board().at(Pos::new(x + dx, y + dy)) else {
            continue;
        };
        let tk = rules.tiles().get(tile.kind);
        // NL: the north-west corner's half-edge on the north side.
        let Some(local) = tk.segment_on_half(tile.rotation, HalfEdge::from_index(0)) else {
            continue;
        };
        let seg = tile.segment(usize::from(local));
        let at = target_of(rules, st, seg);
        extra.push(DeploymentOut {
            figure: figure.clone(),
            feature: at.feature,
            x: at.x,
            y: at.y,
            location: at.location,
        });
    }
    p.deployments.extend(extra);
}
