//! Game records: the setup and every action, as JSON (format: `docs/record-format.md`).

use crate::json::{parse_json, JsonError};
use crate::PlayError;
use carcassonne_core::{
    Action, DrawMode, FigureId, FigureLoc, Game, GameSetup, GameState, Pos, Rotation, Ruleset,
    SegmentId, StartTile,
};
use carcassonne_files::fsio::{read_text, DATA_LIMIT};
use carcassonne_rules::{build_ruleset, RulesSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Value of the `format` field.
pub const FORMAT: &str = "carcassonne-record";
/// Current record version.
pub const VERSION: u32 = 1;

/// A whole game: enough to replay it exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Always `carcassonne-record`.
    pub format: String,
    /// Record version (1).
    pub version: u32,
    /// How the game was set up.
    pub setup: RecordSetup,
    /// Every action, in order.
    pub actions: Vec<RecordAction>,
    /// Final scores when the record was written (informative; replay recomputes them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Vec<i32>>,
}

/// The setup of a recorded game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordSetup {
    /// Engine version that wrote it.
    pub engine: String,
    /// Expansions with versions, in load order (`base` first).
    pub expansions: Vec<ExpansionRef>,
    /// Every option value (defaults included), as text.
    pub options: BTreeMap<String, String>,
    /// Player names in seat order.
    pub players: Vec<String>,
    /// RNG seed.
    pub seed: u64,
    /// How tiles are drawn: `random` (absent: with the seed) or `chosen` (every draw is a
    /// `draw` action in `actions`).
    #[serde(default, skip_serializing_if = "DrawsRecord::is_random")]
    pub draws: DrawsRecord,
    /// At most this many draws, discarded tiles included (absent: the whole stack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_limit: Option<u32>,
    /// The start layout, when it is not the one the rules lay (imported games).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Vec<StartRecord>>,
}

/// How a recorded game's tiles are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DrawsRecord {
    /// With the game's seeded RNG.
    #[default]
    Random,
    /// Named by `draw` actions.
    Chosen,
}

impl DrawsRecord {
    fn is_random(&self) -> bool {
        *self == DrawsRecord::Random
    }
}

/// A start tile of a recorded layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartRecord {
    /// Tile id.
    pub tile: String,
    /// Cell x.
    pub x: i32,
    /// Cell y.
    pub y: i32,
    /// Degrees clockwise.
    pub rotation: u16,
}

/// An expansion and its version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpansionRef {
    /// Id.
    pub id: String,
    /// Version.
    pub version: String,
}

/// Where a figure goes: a cell and a feature location on its tile (JCZ notation,
/// board-oriented), or a virtual feature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// Cell x (absent for virtual features).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    /// Cell y (absent for virtual features).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
    /// Feature kind name.
    pub feature: String,
    /// Location: sides (`N`, `WE`), half-edges (`NL.NR`), `I`, or `#slot` for virtual features.
    pub location: String,
}

impl std::fmt::Display for Target {
    /// `city N of (0,1)`; a virtual feature has no cell.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.x, self.y) {
            (Some(x), Some(y)) => write!(f, "{} {} of ({x},{y})", self.feature, self.location),
            _ => write!(f, "{} {}", self.feature, self.location),
        }
    }
}

impl std::fmt::Display for RecordAction {
    /// A readable description (the labels of the Python package and of the web page).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordAction::Place {
                tile,
                x,
                y,
                rotation,
                ..
            } => write!(f, "place {tile} at ({x},{y}) rotation {rotation}"),
            RecordAction::Deploy { figure, target, .. } => write!(f, "deploy {figure} on {target}"),
            RecordAction::Move { figure, target, .. } => write!(f, "move {figure} to {target}"),
            RecordAction::Pass { .. } => f.write_str("pass"),
            RecordAction::Draw { tile, .. } => write!(f, "draw {tile}"),
            RecordAction::Custom {
                expansion,
                verb,
                figure,
                target,
                value,
                ..
            } => {
                write!(f, "{expansion}: {verb}")?;
                if let Some(fig) = figure {
                    write!(f, " {fig}")?;
                }
                if let Some(t) = target {
                    write!(f, " on {t}")?;
                }
                if *value != 0 {
                    write!(f, " (value {value})")?;
                }
                Ok(())
            }
        }
    }
}

/// One recorded action.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum RecordAction {
    /// Place the drawn tile.
    Place {
        /// Seat.
        player: u8,
        /// Drawn tile id (checked on replay).
        tile: String,
        /// Cell x.
        x: i32,
        /// Cell y.
        y: i32,
        /// Degrees clockwise.
        rotation: u16,
    },
    /// Deploy a figure from supply.
    Deploy {
        /// Seat.
        player: u8,
        /// Figure kind name.
        figure: String,
        /// Where.
        #[serde(flatten)]
        target: Target,
    },
    /// Move a figure in play.
    Move {
        /// Seat.
        player: u8,
        /// Figure as `<seat>.<kind>.<n>`.
        figure: String,
        /// Where.
        #[serde(flatten)]
        target: Target,
    },
    /// Decline.
    Pass {
        /// Seat.
        player: u8,
    },
    /// The table draws this tile (games whose draws are `chosen`).
    Draw {
        /// Seat of the player who will place it.
        player: u8,
        /// Tile id.
        tile: String,
    },
    /// An expansion's own action.
    Custom {
        /// Seat.
        player: u8,
        /// Expansion id.
        expansion: String,
        /// Verb name.
        verb: String,
        /// Figure as `<seat>.<kind>.<n>`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        figure: Option<String>,
        /// Target feature.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<Target>,
        /// Free argument.
        #[serde(default)]
        value: i32,
    },
}

impl RecordAction {
    /// The seat of the player whose action this is.
    pub fn player(&self) -> u8 {
        match self {
            RecordAction::Place { player, .. }
            | RecordAction::Deploy { player, .. }
            | RecordAction::Move { player, .. }
            | RecordAction::Pass { player }
            | RecordAction::Draw { player, .. }
            | RecordAction::Custom { player, .. } => *player,
        }
    }
}

impl Record {
    /// Records a game played from `Game::new` with the usual setup, `seed` and these actions.
    pub fn new(game: &Game, seed: u64, actions: &[Action]) -> Record {
        let names = game.state().players().iter().map(|p| p.name.clone());
        Record::with_setup(game, &GameSetup::new(names.collect(), seed), actions)
            .expect("the game was created with the same setup")
    }

    /// Records a game played from `Game::new(rules, setup)` and these actions; fails when
    /// they do not replay from that setup.
    pub fn with_setup(
        game: &Game,
        setup: &GameSetup,
        actions: &[Action],
    ) -> Result<Record, PlayError> {
        let rules = game.rules();
        let st = game.state();
        let seed = setup.seed;
        let fail = |index: usize, message: String| PlayError::Replay {
            path: "(game being recorded)".into(),
            index,
            message,
        };
        // Replay the actions on a fresh game to convert each one in the state it was taken in.
        let mut replay = Game::new(Arc::clone(rules), setup).map_err(|e| fail(0, e.to_string()))?;
        let mut out = Vec::with_capacity(actions.len());
        for (i, a) in actions.iter().enumerate() {
            out.push(encode_action(rules, &replay, *a));
            replay.apply(*a).map_err(|e| fail(i, e.to_string()))?;
        }
        let mut expansions = vec![ExpansionRef {
            id: "base".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }];
        // In load order, with the versions the loaded expansions report.
        expansions.extend(rules.expansions().iter().map(|e| ExpansionRef {
            id: e.id().to_string(),
            version: e.version().to_string(),
        }));
        Ok(Record {
            format: FORMAT.into(),
            version: VERSION,
            setup: RecordSetup {
                engine: env!("CARGO_PKG_VERSION").into(),
                expansions,
                options: rules
                    .options()
                    .0
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_string()))
                    .collect(),
                players: st.players().iter().map(|p| p.name.clone()).collect(),
                seed,
                draws: match setup.draws {
                    DrawMode::Chosen => DrawsRecord::Chosen,
                    _ => DrawsRecord::Random,
                },
                draw_limit: setup.draw_limit,
                start: setup.start.as_ref().map(|layout| {
                    layout
                        .iter()
                        .map(|t| StartRecord {
                            tile: rules.tiles().get(t.kind).id.clone(),
                            x: t.pos.x,
                            y: t.pos.y,
                            rotation: t.rotation.degrees(),
                        })
                        .collect()
                }),
            },
            actions: out,
            result: game
                .is_over()
                .then(|| st.players().iter().map(|p| p.score).collect()),
        })
    }

    /// The game setup the record describes (tile ids looked up in `rules`).
    pub fn game_setup(&self, rules: &Ruleset) -> Result<GameSetup, String> {
        let start = match &self.setup.start {
            None => None,
            Some(layout) => Some(
                layout
                    .iter()
                    .map(|t| {
                        Ok(StartTile {
                            kind: rules
                                .tiles()
                                .find(&t.tile)
                                .ok_or_else(|| format!("unknown start tile `{}`", t.tile))?,
                            pos: Pos::new(t.x, t.y),
                            rotation: Rotation::from_degrees(t.rotation as i64).ok_or_else(
                                || {
                                    format!(
                                        "start rotation {} is not 0, 90, 180 or 270",
                                        t.rotation
                                    )
                                },
                            )?,
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?,
            ),
        };
        Ok(GameSetup {
            players: self.setup.players.clone(),
            seed: self.setup.seed,
            draws: match self.setup.draws {
                DrawsRecord::Random => DrawMode::Random,
                DrawsRecord::Chosen => DrawMode::Chosen,
            },
            draw_limit: self.setup.draw_limit,
            start,
        })
    }

    /// Reads a record file.
    pub fn load(path: &Path) -> Result<Record, PlayError> {
        let text = read_text(path, DATA_LIMIT)?;
        Record::parse(&text, &path.display().to_string())
    }

    /// Parses record JSON; `origin` names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Record, PlayError> {
        let r: Record = parse_json(text, origin)?;
        if r.format != FORMAT {
            return Err(PlayError::Json(JsonError {
                path: origin.into(),
                line: 1,
                column: 1,
                message: format!("format is `{}`, expected `{FORMAT}`", r.format),
            }));
        }
        if r.version != VERSION {
            return Err(PlayError::Json(JsonError {
                path: origin.into(),
                line: 1,
                column: 1,
                message: format!(
                    "record version {} is not supported (only {VERSION})",
                    r.version
                ),
            }));
        }
        Ok(r)
    }

    /// The ruleset description of the record.
    pub fn rules_spec(&self) -> RulesSpec {
        RulesSpec {
            expansions: self
                .setup
                .expansions
                .iter()
                .map(|e| e.id.clone())
                .filter(|e| e != "base")
                .collect(),
            options: self
                .setup
                .options
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            plugin_dirs: Vec::new(),
        }
    }

    /// Replays the first `limit` actions (all if `None`); `origin` names the record in errors.
    pub fn replay(&self, origin: &str, limit: Option<usize>) -> Result<Game, PlayError> {
        let rules = build_ruleset(&self.rules_spec()).map_err(|e| PlayError::Setup {
            origin: origin.to_string(),
            message: e.to_string(),
        })?;
        self.replay_with(&rules, origin, limit)
    }

    /// Like [`Record::replay`] on an already built ruleset (many records of one ruleset:
    /// no reloading). The ruleset must have the record's expansions, versions and options.
    pub fn replay_with(
        &self,
        rules: &Arc<Ruleset>,
        origin: &str,
        limit: Option<usize>,
    ) -> Result<Game, PlayError> {
        let setup_error = |message: String| PlayError::Setup {
            origin: origin.to_string(),
            message,
        };
        let loaded: Vec<&str> = rules.expansions().iter().map(|e| e.id()).collect();
        let recorded: Vec<&str> = self
            .setup
            .expansions
            .iter()
            .map(|e| e.id.as_str())
            .filter(|e| *e != "base")
            .collect();
        if loaded != recorded {
            return Err(setup_error(format!(
                "the record was made with expansions {recorded:?}, the ruleset has {loaded:?}"
            )));
        }
        for (k, v) in &self.setup.options {
            let have = rules.options().get(k).map(|o| o.to_string());
            if have.as_deref() != Some(v.as_str()) {
                return Err(setup_error(format!(
                    "option `{k}` is `{v}` in the record but {} in the ruleset",
                    have.map_or("absent".to_string(), |h| format!("`{h}`"))
                )));
            }
        }
        // Another version of an expansion may play differently: refuse rather than diverge.
        for want in self.setup.expansions.iter().filter(|e| e.id != "base") {
            if let Some(e) = rules.expansions().iter().find(|e| e.id() == want.id) {
                if e.version() != want.version {
                    return Err(setup_error(format!(
                        "expansion `{}` is version {} here, but the record was made with {}",
                        want.id,
                        e.version(),
                        want.version
                    )));
                }
            }
        }
        let setup = self.game_setup(rules).map_err(setup_error)?;
        let mut game =
            Game::new(Arc::clone(rules), &setup).map_err(|e| setup_error(e.to_string()))?;
        let n = limit.unwrap_or(self.actions.len()).min(self.actions.len());
        for (index, ra) in self.actions[..n].iter().enumerate() {
            let fail = |message: String| PlayError::Replay {
                path: origin.to_string(),
                index,
                message,
            };
            let action = decode_action(rules, &game, ra).map_err(fail)?;
            game.apply(action).map_err(|e| fail(e.to_string()))?;
        }
        // A complete replay must reproduce the recorded result.
        if let (Some(want), true) = (&self.result, n == self.actions.len()) {
            let got: Vec<i32> = game.state().players().iter().map(|p| p.score).collect();
            if !game.is_over() || &got != want {
                return Err(PlayError::Replay {
                    path: origin.to_string(),
                    index: n,
                    message: format!(
                        "the record's result is {want:?} but the replay ends with {got:?}{}",
                        if game.is_over() {
                            ""
                        } else {
                            " (game not over)"
                        }
                    ),
                });
            }
        }
        Ok(game)
    }
}

/// `<seat>.<kind>.<n>` for a figure ([`carcassonne_core::View::figure_name`]).
pub fn figure_name(rules: &Ruleset, st: &GameState, f: FigureId) -> String {
    carcassonne_core::View { rules, state: st }.figure_name(f)
}

fn figure_by_name(rules: &Ruleset, st: &GameState, name: &str) -> Result<FigureId, String> {
    st.figures()
        .iter()
        .enumerate()
        .find(|(i, _)| figure_name(rules, st, FigureId(*i as u16)) == name)
        .map(|(i, _)| FigureId(i as u16))
        .ok_or_else(|| format!("no figure `{name}`"))
}

/// The record form of a segment.
pub fn target_of(rules: &Ruleset, st: &GameState, seg: SegmentId) -> Target {
    let node = st.graph().segment(seg);
    let feature = rules.kind(node.kind).name.clone();
    if node.is_virtual() {
        return Target {
            x: None,
            y: None,
            feature,
            location: format!("#{}", node.local),
        };
    }
    let t = st.board().tile(node.tile);
    let location = rules.tiles().get(t.kind).segments[node.local as usize].location(t.rotation);
    Target {
        x: Some(node.pos.x),
        y: Some(node.pos.y),
        feature,
        location,
    }
}

/// Finds the segment a record target names.
pub fn segment_of(rules: &Ruleset, st: &GameState, t: &Target) -> Result<SegmentId, String> {
    match (t.x, t.y) {
        (Some(x), Some(y)) => {
            let pos = Pos::new(x, y);
            let placed = st
                .board()
                .at(pos)
                .ok_or_else(|| format!("no tile at {pos}"))?;
            let kind = rules.tiles().get(placed.kind);
            let want = normalize_location(&t.location);
            (0..kind.segments.len() as u8)
                .find(|i| {
                    let seg = &kind.segments[*i as usize];
                    rules.kind(seg.kind).name == t.feature
                        && normalize_location(&seg.location(placed.rotation)) == want
                })
                .and_then(|i| st.segment_at(pos, i))
                .ok_or_else(|| {
                    format!(
                        "no {} at location `{}` on the tile at {pos}",
                        t.feature, t.location
                    )
                })
        }
        (Some(_), None) | (None, Some(_)) => Err(format!(
            "target {} `{}`: give both x and y, or neither for a virtual feature",
            t.feature, t.location
        )),
        (None, None) => {
            let slot: u8 = t
                .location
                .strip_prefix('#')
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| {
                    format!(
                        "virtual target needs location `#<slot>`, not `{}`",
                        t.location
                    )
                })?;
            let g = st.graph();
            g.graph()
                .node_indices()
                .find(|n| {
                    let s = g.segment(*n);
                    s.is_virtual() && s.local == slot && rules.kind(s.kind).name == t.feature
                })
                .ok_or_else(|| format!("no virtual {} #{slot}", t.feature))
        }
    }
}

/// Location text as a comparable set: side letters or half-edge names, sorted (also how
/// the JCZ assertions compare locations).
pub fn normalize_location(text: &str) -> Vec<String> {
    let mut parts: Vec<String> =
        if text.contains('.') || carcassonne_core::HalfEdge::parse(text).is_some() {
            text.split('.').map(str::to_string).collect()
        } else if let Some(rest) = text.strip_prefix('_') {
            "NESW"
                .chars()
                .filter(|c| !rest.contains(*c))
                .map(|c| c.to_string())
                .collect()
        } else if text.chars().all(|c| "NESW".contains(c)) {
            text.chars().map(|c| c.to_string()).collect()
        } else {
            vec![text.to_string()]
        };
    parts.sort();
    parts
}

/// Converts an offered action into its record form (in the state it is taken in).
pub fn encode_action(rules: &Ruleset, game: &Game, a: Action) -> RecordAction {
    let st = game.state();
    let player = game.decision().player.0;
    match a {
        Action::Place { pos, rotation } => {
            let tile = match game.decision().kind {
                carcassonne_core::DecisionKind::PlaceTile { tile } => {
                    rules.tiles().get(tile).id.clone()
                }
                _ => String::new(),
            };
            RecordAction::Place {
                player,
                tile,
                x: pos.x,
                y: pos.y,
                rotation: rotation.degrees(),
            }
        }
        Action::Deploy { figure, segment } => RecordAction::Deploy {
            player,
            figure: rules.figure_kind(figure).name.clone(),
            target: target_of(rules, st, segment),
        },
        Action::Move { figure, segment } => RecordAction::Move {
            player,
            figure: figure_name(rules, st, figure),
            target: target_of(rules, st, segment),
        },
        Action::Pass => RecordAction::Pass { player },
        Action::Draw { tile } => RecordAction::Draw {
            player,
            tile: rules.tiles().get(tile).id.clone(),
        },
        Action::Custom(c) => RecordAction::Custom {
            player,
            expansion: rules.expansions()[c.expansion.0 as usize].id().to_string(),
            verb: rules.verbs()[c.verb.0 as usize].1.clone(),
            figure: c.figure.map(|f| figure_name(rules, st, f)),
            target: c.segment.map(|s| target_of(rules, st, s)),
            value: c.value,
        },
    }
}

/// Converts a record action into an engine action in the current state.
pub fn decode_action(rules: &Ruleset, game: &Game, ra: &RecordAction) -> Result<Action, String> {
    let st = game.state();
    let expected = game.decision().player.0;
    let player = ra.player();
    if game.is_over() {
        return Err("the game is already over".into());
    }
    if player != expected {
        return Err(format!(
            "it is player {expected}'s decision, not player {player}'s"
        ));
    }
    Ok(match ra {
        RecordAction::Place {
            tile,
            x,
            y,
            rotation,
            ..
        } => {
            if let carcassonne_core::DecisionKind::PlaceTile { tile: drawn } = game.decision().kind
            {
                let drawn = &rules.tiles().get(drawn).id;
                if drawn != tile {
                    return Err(format!("the drawn tile is {drawn}, the record says {tile}"));
                }
            }
            let rotation = Rotation::from_degrees(*rotation as i64)
                .ok_or_else(|| format!("rotation {rotation} is not 0, 90, 180 or 270"))?;
            Action::Place {
                pos: Pos::new(*x, *y),
                rotation,
            }
        }
        RecordAction::Deploy { figure, target, .. } => Action::Deploy {
            figure: rules
                .figure_named(figure)
                .ok_or_else(|| format!("unknown figure kind `{figure}`"))?,
            segment: segment_of(rules, st, target)?,
        },
        RecordAction::Move { figure, target, .. } => Action::Move {
            figure: figure_by_name(rules, st, figure)?,
            segment: segment_of(rules, st, target)?,
        },
        RecordAction::Pass { .. } => Action::Pass,
        RecordAction::Draw { tile, .. } => Action::Draw {
            tile: rules
                .tiles()
                .find(tile)
                .ok_or_else(|| format!("unknown tile `{tile}`"))?,
        },
        RecordAction::Custom {
            expansion,
            verb,
            figure,
            target,
            value,
            ..
        } => {
            let owner = rules
                .expansion_index(expansion)
                .ok_or_else(|| format!("expansion `{expansion}` is not loaded"))?;
            Action::Custom(carcassonne_core::CustomAction {
                expansion: owner,
                verb: rules
                    .verb_named(owner, verb)
                    .ok_or_else(|| format!("expansion `{expansion}` has no verb `{verb}`"))?,
                figure: figure
                    .as_deref()
                    .map(|f| figure_by_name(rules, st, f))
                    .transpose()?,
                segment: target
                    .as_ref()
                    .map(|t| segment_of(rules, st, t))
                    .transpose()?,
                value: *value,
            })
        }
    })
}

/// Where a figure stands, for output.
pub fn figure_target(rules: &Ruleset, st: &GameState, f: FigureId) -> Option<Target> {
    match st.figure(f).loc {
        FigureLoc::On(s) => Some(target_of(rules, st, s)),
        _ => None,
    }
}
