//! A case's expectations checked against the game: points, prompts, verbs, slots,
//! occupants, score events, placements and deployments. Each check returns what differs.

use super::position::{figure_kind, pos};
use super::runner::Runner;
use crate::format::{
    small_follower, EventExp, Expect, FeatureRef, OccupantsExp, PlacementExp, SupplyExp,
};
use crate::tiles::{resolve_kind, rotations_showing};
use carcassonne_core::{Action, DecisionKind, PlayerId, Pos, Rotation, SegmentId, SlotScope};

impl Runner {
    /// Checks every given expectation; reports all mismatches, each with the key of
    /// `expect` it is about.
    pub(super) fn check(&self, e: &Expect) -> Vec<(&'static str, String)> {
        let mut errs: Vec<(&'static str, String)> = Vec::new();
        let mut run = |field: &'static str, r: Result<(), String>| {
            if let Err(m) = r {
                errs.push((field, m));
            }
        };
        let st = self.game.state();
        if let Some(g) = &e.gained {
            run(
                "gained",
                (|| {
                    for name in g.keys() {
                        self.player(name)?;
                    }
                    let mut bad = Vec::new();
                    for (i, p) in st.players().iter().enumerate() {
                        let want = g.get(&p.name).copied().unwrap_or(0);
                        let got = p.score - self.initial[i];
                        if got != want {
                            bad.push(format!("{} gained {got}, expected {want}", p.name));
                        }
                    }
                    if bad.is_empty() {
                        Ok(())
                    } else {
                        Err(format!("points: {}", bad.join("; ")))
                    }
                })(),
            );
        }
        if let Some(s) = &e.scores {
            for (name, want) in s {
                run(
                    "scores",
                    self.player(name).and_then(|i| {
                        let got = st.players()[i].score;
                        if got == *want {
                            Ok(())
                        } else {
                            Err(format!("{name} has {got} points, expected {want}"))
                        }
                    }),
                );
            }
        }
        if let Some(evs) = &e.events {
            run("events", self.check_events(evs));
        }
        if let Some(sup) = &e.supply {
            for (name, want) in sup {
                run(
                    "supply",
                    (|| {
                        let p = PlayerId(self.player(name)? as u8);
                        let wants: Vec<(String, u8)> = match want {
                            SupplyExp::Small(n) => vec![(small_follower(), *n)],
                            SupplyExp::Kinds(m) => m.iter().map(|(k, n)| (k.clone(), *n)).collect(),
                        };
                        for (k, n) in wants {
                            let got = st.in_supply(p, figure_kind(&self.rules, &k)?);
                            if got != n {
                                return Err(format!(
                                    "{name} has {got} {k} in supply, expected {n}"
                                ));
                            }
                        }
                        Ok(())
                    })(),
                );
            }
        }
        if let Some(d) = &e.discarded {
            run(
                "discarded",
                (|| {
                    let want = d
                        .iter()
                        .map(|t| resolve_kind(&self.rules, t))
                        .collect::<Result<Vec<_>, _>>()?;
                    if want.as_slice() == st.discarded() {
                        Ok(())
                    } else {
                        Err(format!(
                            "discarded tiles: [{}], expected [{}]",
                            st.discarded()
                                .iter()
                                .map(|k| self.tile_name(*k))
                                .collect::<Vec<_>>()
                                .join(", "),
                            want.iter()
                                .map(|k| self.tile_name(*k))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    }
                })(),
            );
        }
        if let Some(n) = e.tiles_left {
            let got = st.supply().remaining();
            if got != n {
                run("tiles_left", Err(format!("{got} tiles left, expected {n}")));
            }
        }
        if let Some(o) = e.over {
            if self.game.is_over() != o {
                run(
                    "over",
                    Err(format!(
                        "game over is {}, expected {o}",
                        self.game.is_over()
                    )),
                );
            }
        }
        if let Some(d) = &e.decision {
            let got = match self.game.decision().kind {
                DecisionKind::PlaceTile { .. } => "place",
                DecisionKind::Deploy { .. } => "deploy",
                DecisionKind::Prompt(_) => "prompt",
                DecisionKind::Draw => "draw",
                DecisionKind::GameOver => "over",
            };
            if got != d {
                run(
                    "decision",
                    Err(format!(
                        "decision is `{}`, expected `{d}`",
                        self.decision_name()
                    )),
                );
            }
        }
        if let Some(p) = &e.player {
            run(
                "player",
                self.player(p).and_then(|i| {
                    if self.game.decision().player.index() == i && !self.game.is_over() {
                        Ok(())
                    } else {
                        Err(format!(
                            "the decision is not {p}'s ({})",
                            self.decision_name()
                        ))
                    }
                }),
            );
        }
        if let Some(t) = &e.drawn {
            run(
                "drawn",
                (|| {
                    let want = resolve_kind(&self.rules, t)?;
                    let got = self.drawn()?;
                    if want == got {
                        Ok(())
                    } else {
                        Err(format!(
                            "the drawn tile is {}, expected {}",
                            self.tile_name(got),
                            self.tile_name(want)
                        ))
                    }
                })(),
            );
        }
        if let Some(p) = &e.placements {
            run("placements", self.check_placements(p));
        }
        if let Some(d) = &e.deployments {
            run("deployments", self.check_deployments(d));
        }
        if let Some(slots) = &e.slots {
            for (key, want) in slots {
                run("slots", self.check_slot(key, *want));
            }
        }
        if let Some(occ) = &e.occupants {
            for o in occ {
                run("occupants", self.check_occupants(o));
            }
        }
        if let Some(p) = &e.prompts {
            run("prompts", self.check_prompts(p));
        }
        if let Some(v) = &e.verbs {
            run("verbs", self.check_verbs(v));
        }
        if let Some(fs) = &e.figure_slots {
            for f in fs {
                run(
                    "figure_slots",
                    (|| {
                        let fig = self.figure_on(
                            f.at,
                            &f.feature,
                            f.player.as_deref(),
                            f.figure.as_deref(),
                        )?;
                        for (key, want) in &f.slots {
                            self.check_slot_at(key, fig.0 as usize, *want, Some(SlotScope::Figure))
                                .map_err(|e| format!("{}: {e}", self.figure_text(fig)))?;
                        }
                        Ok(())
                    })(),
                );
            }
        }
        errs
    }

    pub(super) fn check_prompts(&self, want: &[String]) -> Result<(), String> {
        let st = self.game.state();
        let mut got: Vec<&str> = Vec::new();
        if let DecisionKind::Prompt(p) = self.game.decision().kind {
            got.push(&self.players[p.player.index()]);
        }
        got.extend(
            st.queued_prompts()
                .map(|p| self.players[p.player.index()].as_str()),
        );
        for name in want {
            self.player(name)?;
        }
        if got == want.iter().map(String::as_str).collect::<Vec<_>>() {
            Ok(())
        } else {
            Err(format!(
                "prompts (pending, then queued): [{}], expected [{}] ({})",
                got.join(", "),
                want.join(", "),
                self.decision_name()
            ))
        }
    }

    pub(super) fn check_verbs(&self, want: &[String]) -> Result<(), String> {
        let mut got: Vec<String> = Vec::new();
        for a in self.game.actions() {
            if let Action::Custom(c) = a {
                let n = self.verb_name(c.verb);
                if !got.contains(&n) {
                    got.push(n);
                }
            }
        }
        let mut w: Vec<String> = want.to_vec();
        w.sort();
        w.dedup();
        got.sort();
        if got == w {
            Ok(())
        } else {
            Err(format!(
                "custom verbs offered: [{}], expected [{}]",
                got.join(", "),
                w.join(", ")
            ))
        }
    }

    pub(super) fn check_slot(&self, key: &str, want: i64) -> Result<(), String> {
        let (name, who) = match key.split_once('@') {
            Some((n, p)) => (n, self.player(p)?),
            None => (key, 0),
        };
        self.check_slot_at(name, who, want, None)
            .map_err(|e| e.replacen(name, key, 1))
    }

    /// Checks the slot `<expansion>.<slot>` at index `who` (player or figure index), of
    /// scope `scope` if given.
    pub(super) fn check_slot_at(
        &self,
        key: &str,
        who: usize,
        want: i64,
        scope: Option<SlotScope>,
    ) -> Result<(), String> {
        let name = key;
        let (exp, slot) = name
            .split_once('.')
            .ok_or_else(|| format!("slot `{key}`: expected `<expansion>.<slot>`"))?;
        let ix = self
            .rules
            .expansion_index(exp)
            .ok_or_else(|| format!("slot `{key}`: expansion `{exp}` is not loaded"))?;
        let id = self
            .rules
            .slots()
            .iter()
            .position(|d| d.expansion == ix && d.name == slot)
            .ok_or_else(|| format!("slot `{key}`: no such slot"))?;
        if let Some(sc) = scope {
            let got = self.rules.slots()[id].scope;
            if got != sc {
                return Err(format!("slot `{key}` is {got:?}-scoped, not {sc:?}-scoped"));
            }
        }
        let got = self
            .game
            .state()
            .slot(carcassonne_core::SlotId(id as u16), who);
        if got == want {
            Ok(())
        } else {
            Err(format!("slot {key} is {got}, expected {want}"))
        }
    }

    pub(super) fn check_occupants(&self, o: &OccupantsExp) -> Result<(), String> {
        let seg = self.segment(o.at, &o.feature)?;
        let st = self.game.state();
        let f = st.graph().feature_of(seg);
        // One count per seat, then the neutral figures (`neutral` in the expectation).
        let mut got = vec![0u32; self.players.len() + 1];
        for fig in st.figures_on(f.segment()) {
            let seat = st
                .figure(fig)
                .seat()
                .map_or(self.players.len(), |p| p.index());
            got[seat] += 1;
        }
        for name in o.players.keys().filter(|n| *n != NEUTRAL) {
            self.player(name)?;
        }
        let bad: Vec<String> = self
            .players
            .iter()
            .map(String::as_str)
            .chain([NEUTRAL])
            .enumerate()
            .filter_map(|(i, n)| {
                let want = o.players.get(n).copied().unwrap_or(0);
                (got[i] != want).then(|| format!("{n} has {} there, expected {want}", got[i]))
            })
            .collect();
        if bad.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "figures on {}: {}",
                self.describe_segment(seg),
                bad.join("; ")
            ))
        }
    }

    pub(super) fn check_events(&self, want: &[EventExp]) -> Result<(), String> {
        let actual: Vec<&carcassonne_core::ScoreEvent> = self
            .game
            .state()
            .events()
            .iter()
            .filter(|e| e.points != 0)
            .collect();
        let mut used = vec![false; actual.len()];
        let mut missing = Vec::new();
        for w in want {
            let p = self.player(&w.player)?;
            let hit = actual.iter().enumerate().position(|(i, a)| {
                !used[i]
                    && a.player.index() == p
                    && a.points == w.points
                    && a.final_scoring == w.final_scoring
                    && w.complete.is_none_or(|c| c == a.complete)
                    && w.kind
                        .as_deref()
                        .is_none_or(|k| k == self.source_name(a.source))
            });
            match hit {
                Some(i) => used[i] = true,
                None => missing.push(format!(
                    "{} {:+} {}{}",
                    w.player,
                    w.points,
                    w.kind.as_deref().unwrap_or("(any source)"),
                    if w.final_scoring { ", final" } else { "" }
                )),
            }
        }
        let extra: Vec<String> = actual
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(a, _)| self.event_text(a))
            .collect();
        if missing.is_empty() && extra.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "score events: missing [{}], unexpected [{}]",
                missing.join("; "),
                extra.join("; ")
            ))
        }
    }

    pub(super) fn check_placements(&self, want: &[PlacementExp]) -> Result<(), String> {
        let drawn = self.drawn()?;
        let offered: Vec<(Pos, Rotation)> = self
            .game
            .actions()
            .iter()
            .filter_map(|a| match a {
                Action::Place { pos, rotation } => Some((*pos, *rotation)),
                _ => None,
            })
            .collect();
        let mut exact: Vec<(Pos, Rotation)> = Vec::new();
        let mut any_rotation: Vec<Pos> = Vec::new();
        for w in want {
            let at = pos(w.at);
            match (&w.edges, &w.rotations) {
                (None, None) => any_rotation.push(at),
                (edges, rots) => {
                    let mut rs = match edges {
                        Some(e) => rotations_showing(&self.rules, drawn, e)?,
                        None => Rotation::ALL.to_vec(),
                    };
                    if let Some(list) = rots {
                        let list = list
                            .iter()
                            .map(|d| {
                                Rotation::from_degrees(*d)
                                    .ok_or_else(|| format!("bad rotation {d}"))
                            })
                            .collect::<Result<Vec<_>, _>>()?;
                        rs.retain(|r| list.contains(r));
                    }
                    if rs.is_empty() {
                        return Err(format!(
                            "placement at {at}: the drawn tile {} cannot show that",
                            self.tile_name(drawn)
                        ));
                    }
                    exact.extend(rs.into_iter().map(|r| (at, r)));
                }
            }
        }
        let mut errs = Vec::new();
        for (p, r) in &exact {
            if !offered.contains(&(*p, *r)) {
                errs.push(format!("{p} {r}° is not offered"));
            }
        }
        for p in &any_rotation {
            if !offered.iter().any(|(q, _)| q == p) {
                errs.push(format!("{p} is not offered"));
            }
        }
        for (p, r) in &offered {
            if !exact.contains(&(*p, *r)) && !any_rotation.contains(p) {
                errs.push(format!("{p} {r}° is offered but not expected"));
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(format!("placements: {}", errs.join("; ")))
        }
    }

    pub(super) fn check_deployments(&self, want: &[FeatureRef]) -> Result<(), String> {
        let mut want_segs = Vec::new();
        for w in want {
            want_segs.push(match w {
                FeatureRef::Here(f) => self.segment(None, f)?,
                FeatureRef::At { at, feature } => self.segment(Some(*at), feature)?,
            });
        }
        let mut got: Vec<SegmentId> = Vec::new();
        if matches!(
            self.game.decision().kind,
            DecisionKind::Deploy { .. } | DecisionKind::Prompt(_)
        ) {
            for a in self.game.actions() {
                if let Action::Deploy { segment, .. } = a {
                    if !got.contains(segment) {
                        got.push(*segment);
                    }
                }
            }
        }
        let mut errs = Vec::new();
        for s in &want_segs {
            if !got.contains(s) {
                errs.push(format!("{} is not offered", self.describe_segment(*s)));
            }
        }
        for s in &got {
            if !want_segs.contains(s) {
                errs.push(format!(
                    "{} is offered but not expected",
                    self.describe_segment(*s)
                ));
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(format!("deployments: {}", errs.join("; ")))
        }
    }
}

/// How expectations name the owner of neutral figures.
pub(super) const NEUTRAL: &str = "neutral";
