//! Scenario runner. A scenario file holds `[[scenario]]` tables (format described at the
//! top of `tests/scenarios/base.toml`); [`run`] plays one and checks its expectations,
//! returning a readable error naming the scenario and what differed.

use carcassonne_core::{
    Action, DecisionKind, FigureKindDef, FigureKindId, Game, HookResult, KindMask, OptionValue,
    PlayerId, Pos, Position, PositionFigure, Rotation, Ruleset, ScoreSource, Setup, Side,
    StartTile, TileKind, TileKindId,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A scenario file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// The scenarios.
    pub scenario: Vec<Scenario>,
}

/// One scenario.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Spec id (`T-01`, `T-01-smallCity`).
    pub id: String,
    /// Rule ids exercised.
    #[serde(default)]
    pub rules: Vec<String>,
    /// Rule options.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// Number of players (default 4: R, B, G, Y).
    #[serde(default = "four")]
    pub players: usize,
    /// Active player (default R).
    #[serde(default = "red")]
    pub active: String,
    /// Tiles already on the board.
    #[serde(default)]
    pub board: Vec<BoardTile>,
    /// Figures already on the board.
    #[serde(default)]
    pub followers: Vec<Follower>,
    /// Tiles to draw, in order (edge strings or tile ids).
    #[serde(default)]
    pub draws: Vec<String>,
    /// What happens.
    #[serde(default)]
    pub steps: Vec<Step>,
    /// Points scored during the steps (not final scoring), per player letter.
    #[serde(default)]
    pub turn_points: BTreeMap<String, i32>,
    /// Points from final scoring, per player letter.
    #[serde(default)]
    pub final_points: BTreeMap<String, i32>,
    /// Followers in supply at the end, per player letter.
    #[serde(default)]
    pub supply: BTreeMap<String, u8>,
    /// Tiles removed as unplaceable.
    pub discarded: Option<usize>,
}

fn four() -> usize {
    4
}

fn red() -> String {
    "R".into()
}

/// A tile on the board.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardTile {
    /// Edge string (`CFCF+p`) or tile id.
    pub tile: String,
    /// Cell.
    pub at: [i32; 2],
}

/// A figure on the board.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Follower {
    /// Player letter.
    pub player: String,
    /// Cell.
    pub at: [i32; 2],
    /// Feature kind name.
    pub feature: String,
    /// Location (JCZ notation) when the tile has several segments of that kind.
    pub location: Option<String>,
    /// Figure kind (default small follower).
    pub figure: Option<String>,
}

/// One step.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Place the drawn tile with these edges at `at`.
    pub place: Option<String>,
    /// Cell for place / can_place / cannot_place.
    pub at: Option<[i32; 2]>,
    /// Deploy a small follower on this feature kind of the placed tile.
    pub deploy: Option<String>,
    /// Location of the feature for deploy / can_deploy.
    pub location: Option<String>,
    /// Decline the current decision.
    pub pass: Option<bool>,
    /// Check that the drawn tile can be placed at `at` (some rotation).
    pub can_place: Option<bool>,
    /// Check that the drawn tile (these edges, or "any" rotation) cannot be placed at `at`.
    pub cannot_place: Option<String>,
    /// Check that a deployment on this feature kind is offered.
    pub can_deploy: Option<String>,
    /// Check that no deployment on this feature kind is offered.
    pub cannot_deploy: Option<String>,
    /// Check that the pending decision is placing a tile with these edges.
    pub pending: Option<String>,
}

/// Test-only expansion: the big follower of Inns & Cathedrals, strength 2.
struct BigFollower;

impl carcassonne_core::Expansion for BigFollower {
    fn id(&self) -> &str {
        "test-big-follower"
    }

    fn setup(&self, setup: &mut Setup<'_>) -> HookResult {
        setup
            .figure_kind(FigureKindDef {
                name: "big-follower".into(),
                per_player: 1,
                strength: 4,
                deploy_on: KindMask::ALL,
                follower: true,
            })
            .map(|_| ())
            .map_err(|e| e.to_string().into())
    }
}

/// Parses a scenario file.
pub fn load(text: &str) -> ScenarioFile {
    toml::from_str(text).unwrap_or_else(|e| panic!("scenario file: {e}"))
}

fn seat(letter: &str) -> PlayerId {
    PlayerId(match letter {
        "R" => 0,
        "B" => 1,
        "G" => 2,
        "Y" => 3,
        other => panic!("unknown player `{other}` (use R, B, G, Y)"),
    })
}

/// Board-oriented edge letters of a tile kind at a rotation.
fn edges(r: &Ruleset, k: &TileKind, rot: Rotation) -> String {
    Side::ALL
        .iter()
        .map(|s| match k.edge_at(rot, *s) {
            0 => 'F',
            c => match r.kinds()[c as usize - 1].shape {
                carcassonne_core::Shape::Edge { letter, .. } => letter,
                _ => '?',
            },
        })
        .collect()
}

/// Whether a tile kind at a rotation is what a spec edge string describes (section 0).
fn matches(r: &Ruleset, k: &TileKind, rot: Rotation, spec: &str) -> bool {
    let (core, flags) = spec.split_at(4.min(spec.len()));
    let pennant = flags.contains("+p");
    let cloister = flags.contains('M');
    let separate = flags.contains('s');
    let city_segments = k
        .segments
        .iter()
        .filter(|s| r.kind(s.kind).name == "city")
        .count();
    let pennants: u8 = k.segments.iter().map(|s| s.pennants).sum();
    let has_cloister = k.segments.iter().any(|s| r.kind(s.kind).name == "cloister");
    let city_edges = core.chars().filter(|c| *c == 'C').count();
    edges(r, k, rot) == core
        && (pennants > 0) == pennant
        && has_cloister == cloister
        && (city_edges < 2 || (city_segments > 1) == separate)
}

/// Finds a base tile (kind, rotation) for an edge string or a tile id.
pub fn resolve(r: &Ruleset, spec: &str) -> (TileKindId, Rotation) {
    if let Some(id) = r.tiles().find(spec) {
        return (id, Rotation::R0);
    }
    for (id, k) in r.tiles().iter() {
        for rot in Rotation::ALL {
            if matches(r, k, rot, spec) {
                return (id, rot);
            }
        }
    }
    panic!("no tile matches `{spec}`")
}

fn ruleset(s: &Scenario) -> Arc<Ruleset> {
    let mut b = Ruleset::builder().tiles(carcassonne_host::tiles::base_tile_set());
    if s.followers
        .iter()
        .any(|f| f.figure.as_deref() == Some("big-follower"))
    {
        b = b.expansion(Arc::new(BigFollower));
    }
    for (k, v) in &s.options {
        b = b.option(k, OptionValue::Str(v.clone()));
    }
    Arc::new(
        b.build()
            .unwrap_or_else(|e| panic!("{}: ruleset: {e}", s.id)),
    )
}

/// Local index of the segment of `kind` (and `location`, if given) on the tile at `pos`.
fn segment_index(g: &Game, pos: Pos, kind: &str, location: Option<&str>) -> u8 {
    let r = g.rules();
    let t = g
        .state()
        .board()
        .at(pos)
        .unwrap_or_else(|| panic!("no tile at {pos}"));
    let k = r.tiles().get(t.kind);
    let found: Vec<u8> = (0..k.segments.len() as u8)
        .filter(|i| {
            let s = &k.segments[*i as usize];
            r.kind(s.kind).name == kind
                && location.is_none_or(|l| same_location(&s.location(t.rotation), l))
        })
        .collect();
    match found.as_slice() {
        [one] => *one,
        [] => panic!("no {kind} {location:?} on the tile at {pos}"),
        _ => panic!("several {kind} segments on the tile at {pos}: give a location"),
    }
}

fn same_location(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        let mut v: Vec<String> = if s.contains('.') {
            s.split('.').map(String::from).collect()
        } else {
            s.chars().map(String::from).collect()
        };
        v.sort();
        v
    };
    norm(a) == norm(b)
}

/// Points per player from events (final or not).
fn points(g: &Game, final_scoring: bool) -> BTreeMap<u8, i32> {
    let mut m = BTreeMap::new();
    for e in g.state().events() {
        if e.final_scoring == final_scoring {
            *m.entry(e.player.0).or_insert(0) += e.points;
        }
        let _ = matches!(e.source, ScoreSource::Feature(_));
    }
    m
}

/// Plays a scenario and checks it; `Err` says what differed.
pub fn run(s: &Scenario) -> Result<(), String> {
    let r = ruleset(s);
    let tiles = s
        .board
        .iter()
        .map(|t| {
            let (kind, rotation) = resolve(&r, &t.tile);
            StartTile {
                kind,
                pos: Pos::new(t.at[0], t.at[1]),
                rotation,
            }
        })
        .collect();
    let draws = s.draws.iter().map(|d| resolve(&r, d).0).collect();
    // Figures need the board: place tiles first through a figure-less position.
    let mut pos = Position {
        players: ["R", "B", "G", "Y"][..s.players]
            .iter()
            .map(|p| p.to_string())
            .collect(),
        active: seat(&s.active).0,
        tiles,
        draws,
        ..Position::default()
    };
    let probe = Game::from_position(
        Arc::clone(&r),
        &Position {
            draws: vec![r.tiles().find("BA/RCr").unwrap()],
            ..pos.clone()
        },
    )
    .map_err(|e| format!("{}: {e}", s.id))?;
    for f in &s.followers {
        let at = Pos::new(f.at[0], f.at[1]);
        let kind = match &f.figure {
            Some(name) => r
                .figure_named(name)
                .unwrap_or_else(|| panic!("no figure kind {name}")),
            None => FigureKindId::SMALL_FOLLOWER,
        };
        pos.figures.push(PositionFigure {
            player: seat(&f.player),
            kind,
            pos: at,
            segment: segment_index(&probe, at, &f.feature, f.location.as_deref()),
        });
    }
    let mut g = Game::from_position(Arc::clone(&r), &pos).map_err(|e| format!("{}: {e}", s.id))?;
    let fail = |m: String| format!("{}: {m}", s.id);
    for (i, step) in s.steps.iter().enumerate() {
        let at = step.at.map(|a| Pos::new(a[0], a[1]));
        if let Some(edges_spec) = &step.pending {
            let DecisionKind::PlaceTile { tile } = g.decision().kind else {
                return Err(fail(format!(
                    "step {i}: no tile step pending ({:?})",
                    g.decision()
                )));
            };
            let k = r.tiles().get(tile);
            if !Rotation::ALL
                .iter()
                .any(|rot| matches(&r, k, *rot, edges_spec))
            {
                return Err(fail(format!(
                    "step {i}: pending tile is {}, not {edges_spec}",
                    k.id
                )));
            }
        }
        if let Some(edges_spec) = &step.place {
            let DecisionKind::PlaceTile { tile } = g.decision().kind else {
                return Err(fail(format!("step {i}: no tile step pending")));
            };
            let k = r.tiles().get(tile);
            let pos = at.expect("place needs at");
            let rot = Rotation::ALL
                .into_iter()
                .find(|rot| {
                    matches(&r, k, *rot, edges_spec)
                        && g.actions().contains(&Action::Place {
                            pos,
                            rotation: *rot,
                        })
                })
                .ok_or_else(|| {
                    fail(format!(
                        "step {i}: {edges_spec} at {pos} is not a legal placement of {}",
                        k.id
                    ))
                })?;
            g.apply(Action::Place { pos, rotation: rot })
                .map_err(|e| fail(e.to_string()))?;
        }
        if step.can_place == Some(true) || step.cannot_place.is_some() {
            let pos = at.expect("can_place/cannot_place need at");
            let here = g
                .actions()
                .iter()
                .any(|a| matches!(a, Action::Place { pos: p, .. } if *p == pos));
            if step.can_place == Some(true) && !here {
                return Err(fail(format!("step {i}: no legal placement at {pos}")));
            }
            if step.cannot_place.is_some() && here {
                return Err(fail(format!(
                    "step {i}: a placement at {pos} is offered but must be illegal"
                )));
            }
        }
        let deploy_targets = |g: &Game, kind: &str, location: Option<&str>| -> Vec<Action> {
            g.actions()
                .iter()
                .copied()
                .filter(|a| match a {
                    Action::Deploy { segment, .. } => {
                        let node = g.state().graph().segment(*segment);
                        let t = g.state().board().tile(node.tile);
                        let seg = &r.tiles().get(t.kind).segments[node.local as usize];
                        r.kind(node.kind).name == kind
                            && location.is_none_or(|l| same_location(&seg.location(t.rotation), l))
                    }
                    _ => false,
                })
                .collect()
        };
        if let Some(kind) = &step.can_deploy {
            if deploy_targets(&g, kind, step.location.as_deref()).is_empty() {
                return Err(fail(format!(
                    "step {i}: no deployment on {kind} {:?} offered",
                    step.location
                )));
            }
        }
        if let Some(kind) = &step.cannot_deploy {
            if !deploy_targets(&g, kind, None).is_empty() {
                return Err(fail(format!(
                    "step {i}: a deployment on {kind} is offered but must be illegal"
                )));
            }
        }
        if let Some(kind) = &step.deploy {
            let a = *deploy_targets(&g, kind, step.location.as_deref())
                .iter()
                .find(|a| matches!(a, Action::Deploy { figure, .. } if *figure == FigureKindId::SMALL_FOLLOWER))
                .ok_or_else(|| fail(format!("step {i}: cannot deploy on {kind}")))?;
            g.apply(a).map_err(|e| fail(e.to_string()))?;
        }
        if step.pass == Some(true) && matches!(g.decision().kind, DecisionKind::Deploy { .. }) {
            g.apply(Action::Pass).map_err(|e| fail(e.to_string()))?;
        }
    }
    let check =
        |want: &BTreeMap<String, i32>, got: BTreeMap<u8, i32>, what: &str| -> Result<(), String> {
            for (p, pts) in want {
                let have = got.get(&seat(p).0).copied().unwrap_or(0);
                if have != *pts {
                    return Err(fail(format!(
                        "{what}: {p} scored {have}, expected {pts} (events: {:?})",
                        g.state().events()
                    )));
                }
            }
            Ok(())
        };
    check(&s.turn_points, points(&g, false), "turn points")?;
    if !s.final_points.is_empty() {
        if !g.is_over() {
            return Err(fail(
                "final points expected but the game is not over".into(),
            ));
        }
        check(&s.final_points, points(&g, true), "final points")?;
    }
    for (p, n) in &s.supply {
        let have = g.state().in_supply(seat(p), FigureKindId::SMALL_FOLLOWER);
        if have != *n {
            return Err(fail(format!("supply of {p}: {have}, expected {n}")));
        }
    }
    if let Some(d) = s.discarded {
        if g.state().discarded().len() != d {
            return Err(fail(format!(
                "discarded {} tiles, expected {d}",
                g.state().discarded().len()
            )));
        }
    }
    Ok(())
}
