//! Running a case: the ruleset (expansions found on the search path, plus in-process ones
//! the caller provides), the start position, each step, the expectations.

use crate::format::{
    small_follower, CustomStep, EventExp, Expect, FeatureRef, OccupantsExp, PlaceStep,
    PlacementExp, Scenario, Step, SupplyExp,
};
use crate::tiles::{find_segment, resolve_kind, resolve_placed, rotations_showing};
use carcassonne_core::{
    Action, ActionError, CustomAction, DecisionKind, Expansion, FigureId, FigureKindId, Game,
    GameError, PlayerId, Pos, Position, PositionFigure, PositionSetting, Rotation, Ruleset,
    ScoreSource, SegmentId, SetupError, SlotScope, StartTile, TileKindId,
};
use carcassonne_rules::{build_ruleset_with, RulesError, RulesSpec};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

/// What scenarios run with: where expansions are searched, the in-process expansions a
/// scenario may name, and the expansions every scenario loads.
#[derive(Clone, Default)]
pub struct Harness {
    /// Folders searched for expansion manifests first (like `--plugin-dir`), before
    /// `CARCASSONNE_PLUGIN_PATH`, `./expansions`, … (`carcassonne_rules::discovery`).
    pub plugin_dirs: Vec<PathBuf>,
    /// In-process expansions (test doubles, an embedder's own rules). A scenario that
    /// names one by its [`Expansion::id`] in `expansions` gets it, added after the loaded
    /// expansions in the scenario's order; the others are not added.
    pub extra: Vec<Arc<dyn Expansion>>,
    /// Expansion ids loaded in every scenario, whether its `expansions` names them or not
    /// (`carcassonne expansions test DIR`: the expansion under test).
    pub always: Vec<String>,
}

impl std::fmt::Debug for Harness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Harness")
            .field("plugin_dirs", &self.plugin_dirs)
            .field(
                "extra",
                &self
                    .extra
                    .iter()
                    .map(|e| e.id().to_string())
                    .collect::<Vec<_>>(),
            )
            .field("always", &self.always)
            .finish()
    }
}

/// The part of a case a failure is about, to point at its line in the file
/// ([`crate::Case::line`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Building the ruleset or the start position. `key` is the top-level key at fault
    /// when known (`tile`, `figure`, `draws`, `state`, `expansions`, `options`, …), `index`
    /// the entry of an array key.
    Setup {
        /// The top-level key.
        key: Option<&'static str>,
        /// The entry of an array (0-based).
        index: Option<usize>,
    },
    /// A step (`index` 0-based, `label` its `do`); for an `expect` step, `field` is the
    /// first expectation that does not hold.
    Step {
        /// 0-based index in `step`.
        index: usize,
        /// The step's `do`.
        label: &'static str,
        /// The first failing key of an `expect` step.
        field: Option<&'static str>,
    },
    /// The `[expect]` table, checked after the last step; `field` is the first
    /// expectation that does not hold.
    Expect {
        /// The first failing key.
        field: Option<&'static str>,
    },
}

/// Why a case did not pass: where, what differed, and the state of the game then.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.report())]
pub struct Failure {
    /// Where.
    pub part: Part,
    /// What went wrong: one message, or one per expectation that does not hold.
    pub problems: Vec<String>,
    /// The game at that moment (decision, offered actions, scores, supplies, figures,
    /// score events, discarded tiles), several lines; none when there was no game yet.
    pub state: Option<String>,
}

impl Failure {
    fn setup(key: Option<&'static str>, index: Option<usize>, message: String) -> Failure {
        Failure {
            part: Part::Setup { key, index },
            problems: vec![message],
            state: None,
        }
    }

    /// Where and what, on one line: `step 5 (custom): no offered …`,
    /// `expectations after the last step: points: B gained 3, expected 5; …`.
    pub fn summary(&self) -> String {
        self.prefixed("; ")
    }

    fn prefixed(&self, sep: &str) -> String {
        let what = self.problems.join(sep);
        match &self.part {
            Part::Setup { .. } => what,
            Part::Step { index, label, .. } => format!("step {} ({label}): {what}", index + 1),
            Part::Expect { .. } => format!("expectations after the last step: {what}"),
        }
    }

    /// The whole report: where and every problem, then the state of the game.
    pub fn report(&self) -> String {
        let mut out = self.prefixed("\n  ");
        if let Some(s) = &self.state {
            out.push('\n');
            out.push_str(s);
        }
        out
    }
}

fn option_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Harness {
    /// Builds the scenario's ruleset: the base game, the expansions it names (and
    /// [`Harness::always`]) found on the search path, then the [`Harness::extra`]
    /// expansions it names; its options.
    pub fn build_rules(&self, sc: &Scenario) -> Result<Arc<Ruleset>, Failure> {
        let options: Vec<(String, String)> = sc
            .options
            .iter()
            .map(|(k, v)| (k.clone(), option_text(v)))
            .collect();
        let is_extra = |n: &str| self.extra.iter().any(|e| e.id() == n);
        // Real expansions are loaded as the program loads them: manifest, tiles and the
        // built plugin library or the compiled script. In-process ones come after them.
        let mut real: Vec<String> = Vec::new();
        let mut extra: Vec<Arc<dyn Expansion>> = Vec::new();
        for n in sc.expansions.iter().chain(&self.always) {
            if let Some(e) = self.extra.iter().find(|e| e.id() == n) {
                if !extra.iter().any(|x| x.id() == n) {
                    extra.push(Arc::clone(e));
                }
            } else if !real.contains(n) && !is_extra(n) {
                real.push(n.clone());
            }
        }
        build_ruleset_with(
            &RulesSpec {
                expansions: real,
                options,
                plugin_dirs: self.plugin_dirs.clone(),
            },
            &extra,
        )
        .map_err(|e| {
            let key = match &e {
                RulesError::Setup(
                    SetupError::UnknownOption { .. } | SetupError::BadOptionValue { .. },
                ) => "options",
                _ => "expansions",
            };
            Failure::setup(Some(key), None, e.to_string())
        })
    }

    /// Runs one case: builds the game, performs the steps, checks the expectations.
    pub fn run(&self, sc: &Scenario) -> Result<(), Failure> {
        let rules = self.build_rules(sc)?;
        let position = build_position(&rules, sc)?;
        let game = Game::from_position(Arc::clone(&rules), &position).map_err(|e| {
            let key = match &e {
                GameError::Hook(h) if h.hook == "apply_setting" => Some("state"),
                GameError::Players(_) => Some("players"),
                _ => None,
            };
            Failure::setup(key, None, format!("the position is refused: {e}"))
        })?;
        let mut r = Runner {
            rules,
            game,
            players: sc.players.clone(),
            initial: position.scores.clone(),
        };
        for (index, step) in sc.step.iter().enumerate() {
            let errs: Vec<(Option<&'static str>, String)> = match step {
                Step::Expect(e) => r.check(e).into_iter().map(|(f, m)| (Some(f), m)).collect(),
                other => r
                    .step(other)
                    .err()
                    .map(|m| vec![(None, m)])
                    .unwrap_or_default(),
            };
            if let Some((field, _)) = errs.first() {
                return Err(Failure {
                    part: Part::Step {
                        index,
                        label: step.label(),
                        field: *field,
                    },
                    problems: errs.into_iter().map(|(_, m)| m).collect(),
                    state: Some(r.dump()),
                });
            }
        }
        if let Some(exp) = &sc.expect {
            let errs = r.check(exp);
            if let Some((field, _)) = errs.first() {
                return Err(Failure {
                    part: Part::Expect {
                        field: Some(*field),
                    },
                    problems: errs.into_iter().map(|(_, m)| m).collect(),
                    state: Some(r.dump()),
                });
            }
        }
        Ok(())
    }
}

fn pos(a: [i32; 2]) -> Pos {
    Pos::new(a[0], a[1])
}

fn player_index(players: &[String], name: &str) -> Result<usize, String> {
    players
        .iter()
        .position(|p| p == name)
        .ok_or_else(|| format!("unknown player `{name}` (players: {})", players.join(", ")))
}

fn figure_kind(rules: &Ruleset, name: &str) -> Result<FigureKindId, String> {
    rules
        .figure_named(name)
        .ok_or_else(|| format!("unknown figure kind `{name}`"))
}

/// Builds the game position of a scenario (tiles, figures, scores, the active player,
/// the tiles to draw and the expansion settings of `state`).
pub fn build_position(rules: &Ruleset, sc: &Scenario) -> Result<Position, Failure> {
    let players = &sc.players;
    let mut tiles: Vec<StartTile> = Vec::new();
    let mut figures = Vec::new();
    let mut figure_at = |tiles: &[StartTile],
                         player: &str,
                         at: [i32; 2],
                         feature: &str,
                         kind: &str|
     -> Result<(), String> {
        let t = tiles
            .iter()
            .find(|t| t.pos == pos(at))
            .ok_or_else(|| format!("figure on {:?}: no tile there", at))?;
        let segment = find_segment(rules, rules.tiles().get(t.kind), t.rotation, feature)
            .map_err(|e| format!("figure on {:?}: {e}", at))?;
        figures.push(PositionFigure {
            player: PlayerId(player_index(players, player)? as u8),
            kind: figure_kind(rules, kind)?,
            pos: pos(at),
            segment,
        });
        Ok(())
    };
    for (i, bt) in sc.tile.iter().enumerate() {
        let at = |e: String| Failure::setup(Some("tile"), Some(i), e);
        let (kind, rotation) =
            resolve_placed(rules, bt.tile.as_deref(), bt.edges.as_deref(), bt.rotation)
                .map_err(|e| at(format!("tile at {:?}: {e}", bt.at)))?;
        tiles.push(StartTile {
            kind,
            pos: pos(bt.at),
            rotation,
        });
        for f in &bt.figures {
            figure_at(&tiles, &f.player, bt.at, &f.feature, &f.kind).map_err(at)?;
        }
    }
    for (i, f) in sc.figure.iter().enumerate() {
        figure_at(&tiles, &f.player, f.at, &f.feature, &f.kind)
            .map_err(|e| Failure::setup(Some("figure"), Some(i), e))?;
    }
    let mut scores = vec![0; players.len()];
    for (name, s) in &sc.scores {
        scores
            [player_index(players, name).map_err(|e| Failure::setup(Some("scores"), None, e))?] =
            *s;
    }
    let active = match &sc.active {
        Some(a) => {
            player_index(players, a).map_err(|e| Failure::setup(Some("active"), None, e))? as u8
        }
        None => 0,
    };
    let draws = sc
        .draws
        .iter()
        .enumerate()
        .map(|(i, d)| resolve_kind(rules, d).map_err(|e| Failure::setup(Some("draws"), Some(i), e)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Position {
        players: players.clone(),
        scores,
        active,
        tiles,
        figures,
        draws,
        seed: sc.seed,
        settings: sc
            .state
            .iter()
            .map(|(k, v)| {
                let (expansion, key) = k.split_once('.').ok_or_else(|| {
                    Failure::setup(
                        Some("state"),
                        None,
                        format!("state key `{k}`: expected `<expansion>.<key>`"),
                    )
                })?;
                Ok(PositionSetting {
                    expansion: expansion.to_string(),
                    key: key.to_string(),
                    value: v.clone(),
                })
            })
            .collect::<Result<Vec<_>, Failure>>()?,
    })
}

/// A game under test.
struct Runner {
    rules: Arc<Ruleset>,
    game: Game,
    players: Vec<String>,
    initial: Vec<i32>,
}

/// What must not change when an action is refused.
#[derive(PartialEq, Debug)]
struct Snapshot {
    decision: carcassonne_core::Decision,
    offered: Vec<Action>,
    scores: Vec<i32>,
    figures: Vec<carcassonne_core::Figure>,
    tiles: usize,
}

impl Runner {
    fn snapshot(&self) -> Snapshot {
        let st = self.game.state();
        Snapshot {
            decision: self.game.decision(),
            offered: self.game.actions().to_vec(),
            scores: st.players().iter().map(|p| p.score).collect(),
            figures: st.figures().to_vec(),
            tiles: st.board().tiles().len(),
        }
    }

    fn player(&self, name: &str) -> Result<usize, String> {
        player_index(&self.players, name)
    }

    fn drawn(&self) -> Result<TileKindId, String> {
        match self.game.decision().kind {
            DecisionKind::PlaceTile { tile } => Ok(tile),
            _ => Err(format!(
                "no tile is waiting to be placed ({})",
                self.decision_name()
            )),
        }
    }

    fn decision_name(&self) -> String {
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

    fn tile_name(&self, k: TileKindId) -> String {
        let tk = self.rules.tiles().get(k);
        match tk.aliases.first() {
            Some(a) => format!("{} ({a})", tk.id),
            None => tk.id.clone(),
        }
    }

    /// Rotations of the drawn tile a placement step means.
    fn rotations(&self, p: &PlaceStep) -> Result<Vec<Rotation>, String> {
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
    fn segment(&self, at: Option<[i32; 2]>, feature: &str) -> Result<SegmentId, String> {
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

    fn describe_segment(&self, seg: SegmentId) -> String {
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

    fn describe_action(&self, a: &Action) -> String {
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

    fn offered_text(&self) -> String {
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
    fn dump(&self) -> String {
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
                    self.players[f.owner.index()],
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

    fn source_name(&self, s: ScoreSource) -> String {
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

    fn event_text(&self, e: &carcassonne_core::ScoreEvent) -> String {
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

    fn apply(&mut self, a: Action) -> Result<(), String> {
        self.game.apply(a).map_err(|e| {
            format!(
                "`{}` refused: {e}; offered: [{}]",
                self.describe_action(&a),
                self.offered_text()
            )
        })
    }

    fn refused(&mut self, a: Action) -> Result<(), String> {
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

    fn step(&mut self, step: &Step) -> Result<(), String> {
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
                            && st.figure(*figure).owner == who
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
    fn custom_figure(&self, c: &CustomStep) -> Result<Option<FigureId>, String> {
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
    fn figure_on(
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

    fn figure_text(&self, f: FigureId) -> String {
        let st = self.game.state();
        let fig = st.figure(f);
        let at = match fig.loc {
            carcassonne_core::FigureLoc::On(s) => format!(" on {}", self.describe_segment(s)),
            _ => " (not in play)".into(),
        };
        format!(
            "{}'s {}{at}",
            self.players[fig.owner.index()],
            self.rules.figure_kind(fig.kind).name
        )
    }

    fn verb_name(&self, v: carcassonne_core::VerbId) -> String {
        self.rules
            .verbs()
            .get(v.0 as usize)
            .map_or_else(|| format!("verb {}", v.0), |(_, n)| n.clone())
    }

    /// The offered custom action a step means (if any) and a description of it.
    fn find_custom(&self, c: &CustomStep) -> Result<(Option<Action>, String), String> {
        let figure = self.custom_figure(c)?;
        let what = format!(
            "`{}` with value {}{}",
            c.verb,
            c.value,
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
                if x.value == c.value
                    && x.figure == figure
                    && self.verb_name(x.verb) == c.verb
                    && target.is_none_or(|t| x.segment.is_some_and(|s| g.feature_of(s) == g.feature_of(t))))
        });
        Ok((found, what))
    }

    /// The custom action a step means, built from the verb's declaration (`None` if no
    /// loaded expansion declares the verb).
    fn build_custom(&self, c: &CustomStep) -> Result<Option<Action>, String> {
        let figure = self.custom_figure(c)?;
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
                    value: c.value,
                })
            }))
    }

    /// Checks every given expectation; reports all mismatches, each with the key of
    /// `expect` it is about.
    fn check(&self, e: &Expect) -> Vec<(&'static str, String)> {
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

    fn check_prompts(&self, want: &[String]) -> Result<(), String> {
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

    fn check_verbs(&self, want: &[String]) -> Result<(), String> {
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

    fn check_slot(&self, key: &str, want: i64) -> Result<(), String> {
        let (name, who) = match key.split_once('@') {
            Some((n, p)) => (n, self.player(p)?),
            None => (key, 0),
        };
        self.check_slot_at(name, who, want, None)
            .map_err(|e| e.replacen(name, key, 1))
    }

    /// Checks the slot `<expansion>.<slot>` at index `who` (player or figure index), of
    /// scope `scope` if given.
    fn check_slot_at(
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

    fn check_occupants(&self, o: &OccupantsExp) -> Result<(), String> {
        let seg = self.segment(o.at, &o.feature)?;
        let st = self.game.state();
        let f = st.graph().feature_of(seg);
        let mut got = vec![0u32; self.players.len()];
        for fig in st.figures_on(f.segment()) {
            got[st.figure(fig).owner.index()] += 1;
        }
        for name in o.players.keys() {
            self.player(name)?;
        }
        let bad: Vec<String> = self
            .players
            .iter()
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

    fn check_events(&self, want: &[EventExp]) -> Result<(), String> {
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

    fn check_placements(&self, want: &[PlacementExp]) -> Result<(), String> {
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

    fn check_deployments(&self, want: &[FeatureRef]) -> Result<(), String> {
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
