//! How a failing case speaks: the names of decisions, tiles, segments, actions, figures
//! and score sources, and the dump of the game state printed with a failure.

use super::runner::Runner;
use carcassonne_core::{
    Action, DecisionKind, FigureId, FigureKindId, PlayerId, ScoreSource, SegmentId, TileKindId,
};
use std::fmt::Write as _;

impl Runner {
    pub(super) fn decision_name(&self) -> String {
        let d = self.game.decision();
        let who = &self.players[d.player.index()];
        match d.kind {
            DecisionKind::PlaceTile { tile } => {
                format!("place: {who} must place {}", self.tile_name(tile))
            }
            DecisionKind::Deploy { .. } => format!("deploy: {who} may deploy or pass"),
            DecisionKind::Prompt(p) => format!("prompt: {who} answers {p:?}"),
            DecisionKind::Draw => format!("draw: the table draws {who}'s tile"),
            DecisionKind::GameOver => "over".into(),
        }
    }

    pub(super) fn tile_name(&self, k: TileKindId) -> String {
        let tk = self.rules.tiles().get(k);
        match tk.aliases.first() {
            Some(a) => format!("{} ({a})", tk.id),
            None => tk.id.clone(),
        }
    }

    pub(super) fn describe_segment(&self, seg: SegmentId) -> String {
        let st = self.game.state();
        let node = st.graph().segment(seg);
        let kind = &self.rules.kind(node.kind).name;
        if node.is_virtual() {
            return format!("virtual {kind} #{}", node.local);
        }
        match st.board().at(node.pos) {
            Some(t) => {
                let tk = self.rules.tiles().get(t.kind);
                format!(
                    "{} {kind} {}",
                    node.pos,
                    tk.segments[node.local as usize].location(t.rotation)
                )
            }
            None => format!("{} {kind} #{}", node.pos, node.local),
        }
    }

    pub(super) fn describe_action(&self, a: &Action) -> String {
        match a {
            Action::Place { pos, rotation } => format!("place {pos} {rotation}°"),
            Action::Deploy { figure, segment } => format!(
                "deploy {} on {}",
                self.rules.figure_kind(*figure).name,
                self.describe_segment(*segment)
            ),
            Action::Move { figure, segment } => {
                format!(
                    "move figure {} to {}",
                    figure.0,
                    self.describe_segment(*segment)
                )
            }
            Action::Custom(c) => {
                let mut t = format!("custom `{}`", self.verb_name(c.verb));
                if let Some(f) = c.figure {
                    let _ = write!(t, " about {}", self.figure_text(f));
                }
                if let Some(s) = c.segment {
                    let _ = write!(t, " at {}", self.describe_segment(s));
                }
                if c.value != 0 {
                    let _ = write!(t, " value {}", c.value);
                }
                t
            }
            other => format!("{other:?}"),
        }
    }

    pub(super) fn offered_text(&self) -> String {
        let acts = self.game.actions();
        let mut s: Vec<String> = acts
            .iter()
            .take(60)
            .map(|a| self.describe_action(a))
            .collect();
        if acts.len() > 60 {
            s.push(format!("… {} more", acts.len() - 60));
        }
        s.join("; ")
    }

    /// A summary of the state for failure messages.
    pub(super) fn dump(&self) -> String {
        let st = self.game.state();
        let mut out = String::new();
        let _ = writeln!(out, "  decision: {}", self.decision_name());
        let _ = writeln!(out, "  offered: [{}]", self.offered_text());
        for (i, p) in st.players().iter().enumerate() {
            let supply: Vec<String> = self
                .rules
                .figure_kinds()
                .iter()
                .enumerate()
                .map(|(k, fk)| {
                    format!(
                        "{} {}",
                        st.in_supply(PlayerId(i as u8), FigureKindId(k as u8)),
                        fk.name
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "  {}: score {} (start {}), supply {}",
                p.name,
                p.score,
                self.initial[i],
                supply.join(", ")
            );
        }
        for f in st.figures() {
            if let carcassonne_core::FigureLoc::On(seg) = f.loc {
                let _ = writeln!(
                    out,
                    "  figure: {} {} on {}",
                    self.owner_name(f),
                    self.rules.figure_kind(f.kind).name,
                    self.describe_segment(seg)
                );
            }
        }
        for e in st.events() {
            let _ = writeln!(out, "  event: {}", self.event_text(e));
        }
        let _ = write!(
            out,
            "  discarded: [{}], tiles left: {}",
            st.discarded()
                .iter()
                .map(|k| self.tile_name(*k))
                .collect::<Vec<_>>()
                .join(", "),
            st.supply().remaining()
        );
        out
    }

    pub(super) fn source_name(&self, s: ScoreSource) -> String {
        match s {
            ScoreSource::Feature(k) => self.rules.kind(k).name.clone(),
            ScoreSource::Label(l) => self
                .rules
                .labels()
                .get(l.0 as usize)
                .cloned()
                .unwrap_or_else(|| format!("label {}", l.0)),
        }
    }

    pub(super) fn event_text(&self, e: &carcassonne_core::ScoreEvent) -> String {
        format!(
            "{} {:+} {}{}{} (turn {})",
            self.players[e.player.index()],
            e.points,
            self.source_name(e.source),
            if e.complete { ", complete" } else { "" },
            if e.final_scoring { ", final" } else { "" },
            e.turn
        )
    }

    pub(super) fn figure_text(&self, f: FigureId) -> String {
        let st = self.game.state();
        let fig = st.figure(f);
        let at = match fig.loc {
            carcassonne_core::FigureLoc::On(s) => format!(" on {}", self.describe_segment(s)),
            _ => " (not in play)".into(),
        };
        format!(
            "{}'s {}{at}",
            self.owner_name(fig),
            self.rules.figure_kind(fig.kind).name
        )
    }

    /// The name of a figure's owner, `neutral` for a neutral figure.
    pub(super) fn owner_name(&self, f: &carcassonne_core::Figure) -> &str {
        f.seat()
            .and_then(|p| self.players.get(p.index()))
            .map_or(super::checks::NEUTRAL, String::as_str)
    }

    pub(super) fn verb_name(&self, v: carcassonne_core::VerbId) -> String {
        self.rules
            .verbs()
            .get(v.0 as usize)
            .map_or_else(|| format!("verb {}", v.0), |(_, n)| n.clone())
    }
}
