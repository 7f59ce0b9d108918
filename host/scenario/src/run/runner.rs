//! A game under test and how a case's steps play on it: tiles placed, figures deployed,
//! custom actions found among the offered ones, refused actions that must change nothing.

use super::position::{figure_kind, player_index, pos};
use crate::format::{CustomStep, PlaceStep, Step};
use crate::tiles::{find_segment, resolve_kind, rotations_showing};
use carcassonne_core::{
    Action, ActionError, CustomAction, DecisionKind, FigureId, FigureKindId, Game, Rotation,
    Ruleset, SegmentId, TileKindId,
};
use std::sync::Arc;

/// A game under test.
pub(super) struct Runner {
    pub(super) rules: Arc<Ruleset>,
    pub(super) game: Game,
    pub(super) players: Vec<String>,
    pub(super) initial: Vec<i32>,
}

/// What must not change when an action is refused.
#[derive(PartialEq, Debug)]
pub(super) struct Snapshot {
    decision: carcassonne_core::Decision,
    offered: Vec<Action>,
    scores: Vec<i32>,
    figures: Vec<carcassonne_core::Figure>,
    tiles: usize,
}

impl Runner {
    pub(super) fn snapshot(&self) -> Snapshot {
        let st = self.game.state();
        Snapshot {
            decision: self.game.decision(),
            offered: self.game.actions().to_vec(),
            scores: st.players().iter().map(|p| p.score).collect(),
            figures: st.figures().to_vec(),
            tiles: st.board().tiles().len(),
        }
    }

    pub(super) fn player(&self, name: &str) -> Result<usize, String> {
        player_index(&self.players, name)
    }

    pub(super) fn drawn(&self) -> Result<TileKindId, String> {
        match self.game.decision().kind {
            DecisionKind::PlaceTile { tile } => Ok(tile),
            _ => Err(format!(
                "no tile is waiting to be placed ({})",
                self.decision_name()
            )),
        }
    }

    /// Rotations of the drawn tile a placement step means.
    pub(super) fn rotations(&self, p: &PlaceStep) -> Result<Vec<Rotation>, String> {
        // A prompt may offer a tile from outside the supply instead of the draw (Abbey &
        // Mayor's abbey): the step names it with `tile`.
        let drawn = match (self.game.decision().kind, &p.tile) {
            (DecisionKind::Prompt(_), Some(t)) => resolve_kind(&self.rules, t)?,
            _ => self.drawn()?,
        };
        // A barrier tile (edges `XXXX`) fits in any rotation.
        if self.rules.tiles().get(drawn).barrier && p.edges.is_none() && p.rotation.is_none() {
            return Ok(Rotation::ALL.to_vec());
        }
        if let Some(t) = &p.tile {
            let k = resolve_kind(&self.rules, t)?;
            if k != drawn {
                return Err(format!(
                    "the drawn tile is {}, not {}",
                    self.tile_name(drawn),
                    self.tile_name(k)
                ));
            }
        }
        let rot = p
            .rotation
            .map(|d| Rotation::from_degrees(d).ok_or_else(|| format!("bad rotation {d}")))
            .transpose()?;
        let mut rs = match &p.edges {
            Some(e) => rotations_showing(&self.rules, drawn, e)?,
            None => Rotation::ALL.to_vec(),
        };
        if let Some(r) = rot {
            rs.retain(|x| *x == r);
        } else if p.edges.is_none() {
            return Err("a placement needs `edges` or `rotation`".into());
        }
        if rs.is_empty() {
            return Err(format!(
                "the drawn tile {} cannot be turned to show {}",
                self.tile_name(drawn),
                p.edges.as_deref().unwrap_or("that")
            ));
        }
        Ok(rs)
    }

    /// The segment of a feature on the tile at `at` (default: the tile just placed).
    pub(super) fn segment(&self, at: Option<[i32; 2]>, feature: &str) -> Result<SegmentId, String> {
        let st = self.game.state();
        if let (None, Some((kind, slot))) = (at, feature.split_once('#')) {
            let slot: u8 = slot
                .parse()
                .map_err(|_| format!("`{feature}`: virtual features are `kind#slot`"))?;
            let g = st.graph();
            return (0..g.len())
                .map(SegmentId::new)
                .find(|s| {
                    let n = g.segment(*s);
                    n.is_virtual() && n.local == slot && self.rules.kind(n.kind).name == kind
                })
                .ok_or_else(|| format!("no virtual feature {feature}"));
        }
        let p = match at {
            Some(a) => pos(a),
            None => {
                let idx = st
                    .last_placed()
                    .ok_or("no tile was placed yet; give `at`")?;
                st.board().tile(idx).pos
            }
        };
        let t = st.board().at(p).ok_or_else(|| format!("no tile at {p}"))?;
        let local = find_segment(
            &self.rules,
            self.rules.tiles().get(t.kind),
            t.rotation,
            feature,
        )
        .map_err(|e| format!("at {p}: {e}"))?;
        st.segment_at(p, local)
            .ok_or_else(|| format!("no segment {local} at {p}"))
    }

    pub(super) fn apply(&mut self, a: Action) -> Result<(), String> {
        self.game.apply(a).map_err(|e| {
            format!(
                "`{}` refused: {e}; offered: [{}]",
                self.describe_action(&a),
                self.offered_text()
            )
        })
    }

    pub(super) fn refused(&mut self, a: Action) -> Result<(), String> {
        let before = self.snapshot();
        match self.game.apply(a) {
            // Not offered, or refused by an expansion's rule with its reason.
            Err(ActionError::NotOffered { .. } | ActionError::Refused { .. }) => {}
            Err(e) => return Err(format!("`{}` failed with {e}", self.describe_action(&a))),
            Ok(()) => {
                return Err(format!(
                    "`{}` was accepted but must be illegal",
                    self.describe_action(&a)
                ))
            }
        }
        if self.snapshot() != before {
            return Err(format!(
                "refusing `{}` changed the state",
                self.describe_action(&a)
            ));
        }
        Ok(())
    }

    pub(super) fn step(&mut self, step: &Step) -> Result<(), String> {
        match step {
            Step::Place(p) => {
                if let Some(who) = &p.player {
                    let want = self.player(who)?;
                    if self.game.decision().player.index() != want {
                        return Err(format!("it is not {who}'s turn ({})", self.decision_name()));
                    }
                }
                let rs = self.rotations(p)?;
                let at = pos(p.at);
                let rotation = rs
                    .iter()
                    .copied()
                    .find(|r| {
                        self.game.state().is_offered(&Action::Place {
                            pos: at,
                            rotation: *r,
                        })
                    })
                    .unwrap_or(rs[0]);
                self.apply(Action::Place { pos: at, rotation })
            }
            Step::PlaceLegal(p) | Step::PlaceIllegal(p) => {
                let legal = matches!(step, Step::PlaceLegal(_));
                let at = pos(p.at);
                for rotation in self.rotations(p)? {
                    let a = Action::Place { pos: at, rotation };
                    if legal {
                        if !self.game.state().is_offered(&a) {
                            return Err(format!(
                                "`{}` is not offered but must be legal; offered: [{}]",
                                self.describe_action(&a),
                                self.offered_text()
                            ));
                        }
                    } else {
                        if self.game.actions().contains(&a) {
                            return Err(format!(
                                "`{}` is offered but must be illegal",
                                self.describe_action(&a)
                            ));
                        }
                        self.refused(a)?;
                    }
                }
                Ok(())
            }
            Step::Deploy(d) => {
                let segment = self.segment(d.at, &d.feature)?;
                let figure = figure_kind(&self.rules, &d.figure)?;
                self.apply(Action::Deploy { figure, segment })
            }
            Step::DeployLegal(d) | Step::DeployIllegal(d) => {
                let legal = matches!(step, Step::DeployLegal(_));
                let segment = self.segment(d.at, &d.feature)?;
                let kind = d
                    .figure
                    .as_deref()
                    .map(|f| figure_kind(&self.rules, f))
                    .transpose()?;
                let offered = self.game.actions().iter().any(|a| {
                    matches!(a, Action::Deploy { figure, segment: s }
                        if *s == segment && kind.is_none_or(|k| k == *figure))
                });
                let what = format!(
                    "deploying {} on {}",
                    d.figure.as_deref().unwrap_or("a figure"),
                    self.describe_segment(segment)
                );
                if legal && !offered {
                    return Err(format!(
                        "{what} is not offered but must be legal; offered: [{}]",
                        self.offered_text()
                    ));
                }
                if !legal {
                    if offered {
                        return Err(format!("{what} is offered but must be illegal"));
                    }
                    let figure = kind.unwrap_or(FigureKindId::SMALL_FOLLOWER);
                    self.refused(Action::Deploy { figure, segment })?;
                }
                Ok(())
            }
            Step::Pass => self.apply(Action::Pass),
            Step::Move(m) => {
                let from = self.segment(m.from_at, &m.from)?;
                let to = self.segment(m.at, &m.feature)?;
                let st = self.game.state();
                let g = st.graph();
                let who = self.game.decision().player;
                let found = self.game.actions().iter().copied().find(|a| {
                    matches!(a, Action::Move { figure, segment }
                        if g.feature_of(*segment) == g.feature_of(to)
                            && (st.figure(*figure).owner == who || st.figure(*figure).is_neutral())
                            && matches!(st.figure(*figure).loc,
                                carcassonne_core::FigureLoc::On(s) if g.feature_of(s) == g.feature_of(from)))
                });
                match found {
                    Some(a) => self.apply(a),
                    None => Err(format!(
                        "no offered move of {}'s figure from {} to {}; offered: [{}]",
                        self.players[who.index()],
                        self.describe_segment(from),
                        self.describe_segment(to),
                        self.offered_text()
                    )),
                }
            }
            Step::Custom(c) => {
                let (found, what) = self.find_custom(c)?;
                match found {
                    Some(a) => self.apply(a),
                    None => Err(format!(
                        "no offered {what}; offered: [{}]",
                        self.offered_text()
                    )),
                }
            }
            Step::CustomLegal(c) => {
                let (found, what) = self.find_custom(c)?;
                match found {
                    Some(_) => Ok(()),
                    None => Err(format!(
                        "{what} is not offered but must be legal; offered: [{}]",
                        self.offered_text()
                    )),
                }
            }
            Step::CustomIllegal(c) => {
                let (found, what) = self.find_custom(c)?;
                if found.is_some() {
                    return Err(format!("{what} is offered but must be illegal"));
                }
                // Refused too, when the verb exists (an unknown verb cannot be built).
                if let Some(a) = self.build_custom(c)? {
                    self.refused(a)?;
                }
                Ok(())
            }
            Step::Expect(e) => {
                let errs = self.check(e);
                if errs.is_empty() {
                    Ok(())
                } else {
                    Err(errs
                        .into_iter()
                        .map(|(_, m)| m)
                        .collect::<Vec<_>>()
                        .join("; "))
                }
            }
        }
    }

    /// The figure a custom step names (`feature` given), else `None`.
    pub(super) fn custom_figure(&self, c: &CustomStep) -> Result<Option<FigureId>, String> {
        let Some(feature) = &c.feature else {
            if c.at.is_some() || c.owner.is_some() || c.figure.is_some() {
                return Err("`at`, `owner` and `figure` of a custom step need `feature`".into());
            }
            return Ok(None);
        };
        self.figure_on(c.at, feature, c.owner.as_deref(), c.figure.as_deref())
            .map(Some)
    }

    /// The figure standing on a segment (of `owner` and of the figure kind named `kind` if
    /// given); one must exist.
    pub(super) fn figure_on(
        &self,
        at: Option<[i32; 2]>,
        feature: &str,
        owner: Option<&str>,
        kind: Option<&str>,
    ) -> Result<FigureId, String> {
        let seg = self.segment(at, feature)?;
        let owner = owner.map(|o| self.player(o)).transpose()?;
        let st = self.game.state();
        let found: Vec<FigureId> = st
            .figures()
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                matches!(f.loc, carcassonne_core::FigureLoc::On(s) if s == seg)
                    && owner.is_none_or(|o| f.owner.index() == o)
                    && kind.is_none_or(|k| self.rules.figure_kind(f.kind).name == k)
            })
            .map(|(i, _)| FigureId(i as u16))
            .collect();
        match found.as_slice() {
            [f] => Ok(*f),
            [] => Err(format!(
                "no figure{} stands on {}",
                owner.map_or(String::new(), |o| format!(" of {}", self.players[o])),
                self.describe_segment(seg)
            )),
            _ => Err(format!(
                "several figures stand on {}; give `owner`/`player` (and `figure`)",
                self.describe_segment(seg)
            )),
        }
    }

    /// A custom step's value: `value`, or the kind index of its `tile`.
    fn custom_value(&self, c: &CustomStep) -> Result<i32, String> {
        match &c.tile {
            None => Ok(c.value),
            Some(_) if c.value != 0 => {
                Err("a custom step gives `value` or `tile`, not both".into())
            }
            Some(t) => self
                .rules
                .tiles()
                .find(t)
                .map(|k| i32::from(k.0))
                .ok_or_else(|| format!("custom step: unknown tile `{t}`")),
        }
    }

    /// The offered custom action a step means (if any) and a description of it.
    pub(super) fn find_custom(&self, c: &CustomStep) -> Result<(Option<Action>, String), String> {
        let figure = self.custom_figure(c)?;
        let value = self.custom_value(c)?;
        let what = format!(
            "`{}` with value {}{}{}",
            c.verb,
            value,
            c.tile
                .as_ref()
                .map_or(String::new(), |t| format!(" (tile {t})")),
            figure.map_or(String::new(), |f| format!(" about {}", self.figure_text(f)))
        );
        let target = match &c.target {
            Some(t) => Some(self.segment(c.target_at, t)?),
            None if c.target_at.is_some() => {
                return Err("`target_at` of a custom step needs `target`".into())
            }
            None => None,
        };
        let what = match target {
            Some(t) => format!("{what} targeting {}", self.describe_segment(t)),
            None => what,
        };
        let g = self.game.state().graph();
        let found = self.game.actions().iter().copied().find(|a| {
            matches!(a, Action::Custom(x)
                if x.value == value
                    && x.figure == figure
                    && self.verb_name(x.verb) == c.verb
                    && target.is_none_or(|t| x.segment.is_some_and(|s| g.feature_of(s) == g.feature_of(t))))
        });
        Ok((found, what))
    }

    /// The custom action a step means, built from the verb's declaration (`None` if no
    /// loaded expansion declares the verb).
    pub(super) fn build_custom(&self, c: &CustomStep) -> Result<Option<Action>, String> {
        let figure = self.custom_figure(c)?;
        let value = self.custom_value(c)?;
        let target = match &c.target {
            Some(t) => Some(self.segment(c.target_at, t)?),
            None => None,
        };
        Ok(self
            .rules
            .verbs()
            .iter()
            .position(|(_, n)| *n == c.verb)
            .map(|i| {
                Action::Custom(CustomAction {
                    expansion: self.rules.verbs()[i].0,
                    verb: carcassonne_core::VerbId(i as _),
                    figure,
                    segment: target,
                    value,
                })
            }))
    }
}
