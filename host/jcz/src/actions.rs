//! JCZ messages that are an expansion's custom actions, as its manifest declares them
//! (`[[jcz.actions]]`, `carcassonne_files::jcz`): `PLACE_TOKEN` of a token (the pointer's
//! feature is the target), `DEPLOY_MEEPLE` onto a feature class or of a meeple kind,
//! `CAPTURE_FOLLOWER` (pointer `{featurePointer, meepleId}`), `PAY_RANSOM` (`{meepleId}` of
//! the prisoner), `RETURN_MEEPLE` of a `source`. Each is found among the offered custom actions of the declared verb by
//! what the message points at; nothing here knows an expansion or its rules. (The Tower
//! declares `tower-piece`, `cap-tower`, `capture` and `pay-ransom`; Abbey & Mayor `barn`; Princess & Dragon `princess`.)

use super::declared::ActionRef;
use super::{pointer, str_field, Replayer};
use carcassonne_core::{Action, CustomAction, FigureId, FigureLoc, Pos};
use carcassonne_files::jcz::{JczActionMessage, JczActionValue};
use serde_json::Value;

impl Replayer {
    /// The first offered custom action of one of `verbs` that `fits`, with its declaration.
    fn offered_custom(
        &self,
        verbs: &[ActionRef<'_>],
        fits: impl Fn(&CustomAction, &ActionRef<'_>) -> bool,
    ) -> Option<Action> {
        self.game.actions().iter().copied().find(|a| {
            matches!(a, Action::Custom(c)
                if verbs.iter().any(|v| v.verb == c.verb && fits(c, v)))
        })
    }

    /// The first offered custom action of one of `verbs` about figure `f`; else an error:
    /// `what` is not legal here.
    fn offered_about(
        &self,
        verbs: &[ActionRef<'_>],
        f: FigureId,
        what: String,
    ) -> Result<Action, String> {
        self.offered_custom(verbs, |c, _| c.figure == Some(f))
            .ok_or_else(|| {
                format!(
                    "{what} is not legal here ({})",
                    self.game.describe_decision()
                )
            })
    }

    /// Applies a found action; `true` when the same player decides next.
    fn apply_custom(&mut self, action: Action) -> Result<bool, String> {
        let d = self.game.decision();
        self.apply(action)?;
        Ok(self.game.decision().player == d.player)
    }

    /// The declared actions for `message`.
    fn declared(&self, keep: impl Fn(&JczActionMessage) -> bool) -> Vec<ActionRef<'_>> {
        self.decl.actions(keep).collect()
    }

    /// `RETURN_MEEPLE`: the declared verb of that `source`, about the follower of
    /// `pointer.meepleId` (found by its meeple id, or by its owner, kind and feature).
    pub(super) fn return_meeple(&mut self, p: &Value) -> Result<bool, String> {
        let source = str_field(p, "source")?;
        let decl = self.declared(|m| matches!(m, JczActionMessage::ReturnMeeple(s) if s == source));
        if decl.is_empty() {
            return Err(format!("returning a meeple by `{source}` is not supported"));
        }
        let ptr = p.get("pointer").ok_or("payload has no `pointer`")?;
        let m = str_field(ptr, "meepleId")?;
        let f = self.figure_of(m, ptr.get("featurePointer"))?;
        let action = self.offered_about(&decl, f, format!("returning `{m}` by `{source}`"))?;
        self.apply_custom(action)
    }

    /// `PLACE_TOKEN`: the declared verb of that token, on the feature the pointer names; or,
    /// for a token declared at a place of a tile (`at`: a bridge, whose road does not exist
    /// yet), the verb of the pointer's place, on any segment of the pointer's tile.
    pub(super) fn place_token(&mut self, p: &Value) -> Result<bool, String> {
        let token = str_field(p, "token")?;
        let decl = self.declared(|m| matches!(m, JczActionMessage::PlaceToken(t) if t == token));
        if decl.is_empty() {
            return Err(format!(
                "token `{token}` is not supported (no loaded expansion declares it)"
            ));
        }
        let ptr = p.get("pointer").ok_or("payload has no `pointer`")?;
        let placed = decl.iter().any(|a| a.action.at.is_some());
        let segments = if placed {
            Vec::new()
        } else {
            pointer::segments(&self.decl, &self.game, ptr)?
        };
        let cell = if placed {
            Some(pointer::position(ptr.get("position"))?)
        } else {
            None
        };
        let field = |k: &str| ptr.get(k).and_then(Value::as_str);
        let g = self.game.state().graph();
        let action = self
            .offered_custom(&decl, |c, a| match (&a.action.at, c.segment) {
                (Some(at), Some(s)) => {
                    field("feature") == Some(at.feature.as_str())
                        && field("location") == Some(at.location.as_str())
                        && Some(g.segment(s).pos) == cell
                }
                (None, Some(s)) => segments.contains(&s),
                (_, None) => false,
            })
            .ok_or_else(|| {
                format!(
                    "token `{token}` on {} is not legal here ({})",
                    pointer::describe(ptr),
                    self.game.describe_decision()
                )
            })?;
        self.apply_custom(action)
    }

    /// Whether `kind` is a message some action is declared as a `pointer` form of.
    pub(super) fn is_pointer_action(&self, kind: &str) -> bool {
        !self
            .declared(|m| matches!(m, JczActionMessage::Pointer(t) if t == kind))
            .is_empty()
    }

    /// A declared `pointer` message (`SCORE_ACROBATS`): the offered custom action of its
    /// verb on the feature `pointer` names.
    pub(super) fn pointer_action(&mut self, kind: &str, p: &Value) -> Result<bool, String> {
        let decl = self.declared(|m| matches!(m, JczActionMessage::Pointer(t) if t == kind));
        let ptr = p.get("pointer").ok_or("payload has no `pointer`")?;
        let segments = pointer::segments(&self.decl, &self.game, ptr)?;
        let action = self
            .offered_custom(&decl, |c, _| {
                c.segment.is_some_and(|s| segments.contains(&s))
            })
            .ok_or_else(|| {
                format!(
                    "`{kind}` on {} is not legal here ({})",
                    pointer::describe(ptr),
                    self.game.describe_decision()
                )
            })?;
        self.apply_custom(action)
    }

    /// Whether `kind` is a message some action is declared as a `field` form of.
    pub(super) fn is_field_action(&self, kind: &str) -> bool {
        !self
            .declared(|m| matches!(m, JczActionMessage::Field(t, _) if t == kind))
            .is_empty()
    }

    /// A declared `field` message (`BAZAAR_BID`): the offered custom action of a declared
    /// verb whose value is the payload's field, then, while its sender is still asked,
    /// the next one (JCZ's one bid is our choice of tile and then our bid).
    pub(super) fn field_action(&mut self, kind: &str, p: &Value) -> Result<bool, String> {
        let decl: Vec<(carcassonne_core::VerbId, i64)> = self
            .declared(|m| matches!(m, JczActionMessage::Field(t, _) if t == kind))
            .iter()
            .map(|a| {
                let JczActionMessage::Field(_, field) = &a.action.message else {
                    return Err(format!("`{kind}`: not a field declaration"));
                };
                // An absent field reads as JCZ's Java reads it: 0.
                match p.get(field) {
                    None => Ok((a.verb, 0)),
                    Some(v) => v
                        .as_i64()
                        .map(|v| (a.verb, v))
                        .ok_or_else(|| format!("`{field}` is not an integer: {v}")),
                }
            })
            .collect::<Result<_, _>>()?;
        let sender = self.game.decision().player;
        let mut answered = 0;
        loop {
            let found = self.game.actions().iter().copied().find(|a| {
                matches!(a, Action::Custom(c)
                    if decl.iter().any(|&(v, x)| v == c.verb && i64::from(c.value) == x))
            });
            match found {
                Some(action) => {
                    self.apply(action)?;
                    answered += 1;
                }
                None if answered == 0 => {
                    return Err(format!(
                        "`{kind}` {} is not legal here ({})",
                        p,
                        self.game.describe_decision()
                    ))
                }
                None => break,
            }
            // Each declaration answers at most one question.
            if answered == decl.len()
                || self.game.is_over()
                || self.game.decision().player != sender
            {
                break;
            }
        }
        Ok(false)
    }

    /// The declared `DEPLOY_MEEPLE` action for this pointer or meeple, if any.
    pub(super) fn deploy_is_custom(&self, meeple: &str, ptr: &Value) -> bool {
        !self.deploy_actions(meeple, ptr).is_empty()
    }

    fn deploy_actions(&self, meeple: &str, ptr: &Value) -> Vec<ActionRef<'_>> {
        let class = ptr.get("feature").and_then(Value::as_str);
        let kind = meeple.split('.').nth(1);
        self.declared(|m| match m {
            JczActionMessage::DeployOnFeature(f) => class == Some(f.as_str()),
            JczActionMessage::DeployFigure(f) => kind == Some(f.as_str()),
            _ => false,
        })
    }

    /// `DEPLOY_MEEPLE` that is a declared custom action: onto a feature class (a follower
    /// capping a tower: value = its figure kind) or of a meeple kind (a barn: value = the
    /// corner of the tile just placed that JCZ's pointer names).
    pub(super) fn deploy_custom(&mut self, meeple: &str, ptr: &Value) -> Result<bool, String> {
        let (owner, kind) = pointer::meeple(&self.decl, self.game.rules(), meeple)?;
        let decl = self.deploy_actions(meeple, ptr);
        let segments = pointer::segments(&self.decl, &self.game, ptr)?;
        let corner = if decl
            .iter()
            .any(|a| a.action.value == JczActionValue::Corner)
        {
            Some(self.corner_of(meeple, ptr)?)
        } else {
            None
        };
        let g = self.game.state().graph();
        let action = self
            .offered_custom(&decl, |c, a| {
                let value_ok = match a.action.value {
                    JczActionValue::FigureKind => c.value == kind.0 as i32,
                    JczActionValue::Corner => Some(c.value) == corner,
                    _ => true,
                };
                value_ok
                    && match c.segment {
                        Some(s) => segments.iter().any(|t| g.feature_of(*t) == g.feature_of(s)),
                        // A corner action may name its place by the corner alone.
                        None => a.action.value == JczActionValue::Corner,
                    }
            })
            .ok_or_else(|| {
                format!(
                    "deploying `{meeple}` to {} is not legal here ({})",
                    pointer::describe(ptr),
                    self.game.describe_decision()
                )
            })?;
        let next = self.apply_custom(action)?;
        // A figure standing where the action put it is known by its meeple id from now on.
        let st = self.game.state();
        if let Action::Custom(CustomAction { segment, .. }) = action {
            // Where the action put it, or (an action without a segment) the one of that
            // owner and kind in play that no meeple id names yet.
            let placed = (0..st.figures().len())
                .map(|i| FigureId(i as u16))
                .find(|f| {
                    let fig = st.figure(*f);
                    fig.owner == owner
                        && fig.kind == kind
                        && match segment {
                            Some(seg) => fig.loc == FigureLoc::On(seg),
                            None => {
                                matches!(fig.loc, FigureLoc::On(_))
                                    && !self.meeples.values().any(|m| m == f)
                            }
                        }
                });
            if let Some(f) = placed {
                self.meeples.insert(meeple.to_string(), f);
            }
        }
        Ok(next)
    }

    /// The corner of the tile just placed that is the north-west corner of the pointer's
    /// tile (JCZ points at a corner that way): 0 NW, 1 NE, 2 SE, 3 SW.
    fn corner_of(&self, meeple: &str, ptr: &Value) -> Result<i32, String> {
        if ptr.get("feature").and_then(Value::as_str) != Some("Field") {
            return Err(format!(
                "`{meeple}` goes on a `Field`, not on {}",
                pointer::describe(ptr)
            ));
        }
        let at = pointer::position(ptr.get("position"))?;
        let st = self.game.state();
        let placed = st
            .last_placed()
            .map(|i| st.board().tile(i).pos)
            .ok_or("no tile has been placed")?;
        CORNERS
            .iter()
            .position(|(dx, dy)| Pos::new(placed.x + dx, placed.y + dy) == at)
            .map(|c| c as i32)
            .ok_or_else(|| {
                format!(
                    "`{meeple}` at {}: no corner of the tile just placed",
                    pointer::describe(ptr)
                )
            })
    }

    /// `CAPTURE_FOLLOWER`: the declared verb about the follower with that meeple id.
    pub(super) fn capture(&mut self, p: &Value) -> Result<bool, String> {
        let decl = self.declared(|m| *m == JczActionMessage::CaptureFollower);
        if decl.is_empty() {
            return Err("message type `CAPTURE_FOLLOWER` is not supported".into());
        }
        let ptr = p.get("pointer").ok_or("payload has no `pointer`")?;
        let meeple = str_field(ptr, "meepleId")?;
        let figure = self
            .meeples
            .get(meeple)
            .copied()
            .filter(|f| matches!(self.game.state().figure(*f).loc, FigureLoc::On(_)))
            .ok_or_else(|| format!("meeple `{meeple}` is not on the board"))?;
        let action = self.offered_about(&decl, figure, format!("capturing `{meeple}`"))?;
        self.apply_custom(action)
    }

    /// `EXCHANGE_FOLLOWER`: the declared verb whose value is the kind of the prisoner
    /// `meepleId` the capturer takes back (JCZ gives back the first taken of that kind, as
    /// our engine does).
    pub(super) fn exchange(&mut self, p: &Value) -> Result<bool, String> {
        let decl = self.declared(|m| *m == JczActionMessage::ExchangeFollower);
        if decl.is_empty() {
            return Err("message type `EXCHANGE_FOLLOWER` is not supported".into());
        }
        let meeple = str_field(p, "meepleId")?;
        let (_, kind) = pointer::meeple(&self.decl, self.game.rules(), meeple)?;
        let action = self
            .offered_custom(&decl, |c, _| c.value == kind.0 as i32)
            .ok_or_else(|| {
                format!(
                    "exchanging for `{meeple}` is not legal here ({})",
                    self.game.describe_decision()
                )
            })?;
        self.apply_custom(action)
    }

    /// `PAY_RANSOM`: the declared verb for the prisoner with that meeple id (value: 256 ×
    /// its kind + the seat held in the declared slot − 1).
    pub(super) fn pay_ransom(&mut self, p: &Value) -> Result<bool, String> {
        let decl = self.declared(|m| *m == JczActionMessage::PayRansom);
        if decl.is_empty() {
            return Err("message type `PAY_RANSOM` is not supported".into());
        }
        let meeple = str_field(p, "meepleId")?;
        let st = self.game.state();
        let figure = self
            .meeples
            .get(meeple)
            .copied()
            .filter(|f| st.figure(*f).loc == FigureLoc::Removed)
            .ok_or_else(|| format!("meeple `{meeple}` is not a prisoner"))?;
        let kind = st.figure(figure).kind.0 as i32;
        let action = self
            .offered_custom(&decl, |c, a| match a.slot {
                Some(slot) => c.value == (st.slot(slot, figure.0 as usize) - 1) as i32 + 256 * kind,
                None => c.figure == Some(figure),
            })
            .ok_or_else(|| {
                format!(
                    "paying the ransom for `{meeple}` is not legal here ({})",
                    self.game.describe_decision()
                )
            })?;
        self.apply_custom(action)
    }
}

/// The offsets of the placed tile's corners from its cell, as JCZ points at them (the
/// tile whose north-west corner it is): NW, NE, SE, SW.
pub(super) const CORNERS: [(i32, i32); 4] = [(0, 0), (1, 0), (1, 1), (0, 1)];
