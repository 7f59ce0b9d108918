//! # carcassonne-tests
//!
//! A data-driven runner for the scenario tests of the rules spec (`shared/rules/spec.md`,
//! part E: T-01 … T-71). Each scenario is one TOML file under `tests/scenarios/`; the
//! test `tests/tests/scenarios.rs` has one `#[test]` per T-id that calls [`run_scenario`].
//!
//! ## Scenario file format
//!
//! Coordinates and edge strings follow spec section 0: cell `[x, y]`, x grows east,
//! y grows south; rotations are clockwise degrees; edge strings give the edges *as
//! placed* in the order N E S W (`CFFF`, `CFCF+p`, `FFFRM`, `CFCFs`, …), matched against
//! the loaded tile kinds by [`EdgeSpec`]. The reference (every key is optional unless
//! noted; see the types [`Scenario`], [`Step`] and [`Expect`] for all fields):
//!
//! ```toml
//! id = "T-01"                       # must match the file name
//! title = "…"                       # the spec's sentence
//! rules = ["A-7", "A-9"]            # rule ids the scenario checks
//! players = ["R", "B"]              # default R, B, G, Y (seat order)
//! active = "R"                      # default: the first player
//! scores = { B = 10 }               # start scores (default 0)
//! options = { smallCity = "1st/2nd" }
//! expansions = ["test-big-follower"] # test-only expansions (see [`test_expansion`])
//! draws = ["FFCF", "E", "BA/C"]     # tiles still to draw, in order (edge string, letter or id)
//! expansions = ["count"]            # real expansions load from expansions/ (native) and
//!                                   # fan-expansions/ (scripts) like the program does
//! state = { "count.count" = "market", "count.castle" = "B,G" }  # expansion state (apply_setting)
//! # Fan expansions take seats (R = 0, B = 1, …): `"tactician.token" = "1,2"` (B and G hold
//! # their tokens); `"promotions.disc" = "0,-1,city:0"` (R's disc under the knight on
//! # (0,-1); `X,Y[,ROLE[,OWNER]]:DISC_OWNER`, entries separated by `;`).
//!
//! [[tile]]                          # board tiles, placed in file order
//! at = [0, 0]
//! edges = "CFFF"                    # or tile = "BA/C" (+ rotation = 90), or both tile and edges
//! figures = [{ player = "R", feature = "N" }]
//!
//! [[figure]]                        # figures may also be listed apart from their tile
//! player = "B"
//! at = [0, -1]
//! feature = "city"                  # location (`N`, `WE`, `NL.NR`, `I`) or kind name
//! kind = "small-follower"           # default
//!
//! [[step]]
//! do = "place"                      # place the drawn tile
//! at = [0, -1]
//! edges = "FFCF"
//! [[step]]
//! do = "pass"                       # also: deploy, place-legal, place-illegal,
//!                                   # deploy-legal, deploy-illegal, expect
//! [expect]                          # checked after the last step
//! gained = { R = 4 }                # points since the start; unlisted players: 0
//! supply = { R = 7 }
//! slots = { "king-robber.king" = 0 } # expansion state slots (`…@R` for a player slot)
//! occupants = [{ feature = "quarter#0", players = { B = 1 } }]
//!
//! [[step]]
//! do = "move"                       # an offered move of the deciding player's figure
//! from = "quarter#0"                # where it stands (`from_at` for a tile feature)
//! feature = "N"                     # where it goes (`at` for another tile)
//! [[step]]
//! do = "custom"                     # an expansion's own action: verb name and value
//! verb = "move-count"
//! value = 2
//! [[step]]
//! do = "custom"                     # … about a figure: the one standing on this segment
//! verb = "promote"                  # (`at` + `feature` as for `deploy`; `at` defaults to
//! at = [0, -1]                      # the tile just placed), of this owner if `owner` is
//! feature = "city"                  # given (a figure-less custom action never matches a
//! owner = "R"                       # step that names a figure, and vice versa)
//! [[step]]
//! do = "custom-legal"               # also: custom-illegal (not offered, and refused)
//! verb = "take-token"
//!
//! [expect]                          # more expectations (any `expect`):
//! prompts = ["Y", "B", "G"]         # who answers the pending prompt, then the players of
//!                                   # the prompts queued behind it, in order (a queued prompt
//!                                   # with no choices is skipped when its turn comes)
//! verbs = ["take-token"]            # the exact set of custom verbs offered now
//! figure_slots = [{ at = [0, -1], feature = "city", player = "R", slots = { "promotions.bonus" = 1 } }]
//!                                   # figure-scoped expansion state of the figure standing on
//!                                   # that segment (`player`: its owner, needed if several)
//!
//! [[variant]]                       # runs the scenario again with these top-level keys replaced
//! name = "smallCity=1st/2nd"
//! options = { smallCity = "1st/2nd" }
//! expect = { gained = { R = 2 } }
//! ```
//!
//! A virtual feature (off the grid, e.g. a City of Carcassonne quarter) is named
//! `kind#slot` with no `at`: `quarter#0` … `quarter#3` are castle, market, blacksmith and
//! cathedral.
//!
//! Features are named on a tile by board-oriented JCloisterZone location (`N`, `WE`,
//! `NL.NR`, `I`; compared as sets, and a location that is part of exactly one segment's
//! location also names it), by feature kind name when the tile has one segment of that
//! kind (`city`, `cloister`), or by `kind:location` (`city:N`).

/// The `[[scenario]]`-list runner used by `tests/tests/base_scenarios.rs`
/// (`tests/scenarios/base.toml`).
use carcassonne_core::{
    binder, Action, ActionError, Binder, BoundExpansion, CustomAction, DecisionKind, Declare,
    Expansion, FigureId, FigureKindDef, FigureKindId, Game, HalfEdge, HalfSet, HookResult,
    KindMask, PlayerId, Pos, Position, PositionFigure, PositionSetting, Rotation, Ruleset,
    ScoreSource, SegmentId, Shape, SideSet, SlotScope, StartTile, TileKind, TileKindId,
};
use carcassonne_rules::{build_ruleset_with, RulesSpec};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
pub mod fuzz;
pub mod mixed;

// ---------------------------------------------------------------------------------------
// File format
// ---------------------------------------------------------------------------------------

/// One scenario case (a file, or a file with one of its variants merged in).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Spec id, `T-01` …; must match the file name.
    pub id: String,
    /// Name of the variant (`base` for the file itself).
    #[serde(default = "base_name")]
    pub name: String,
    /// The spec's wording of the scenario.
    #[serde(default)]
    pub title: String,
    /// Rule ids the scenario exercises (`A-9`, …).
    #[serde(default)]
    pub rules: Vec<String>,
    /// Test-only expansions to load (see [`test_expansion`]).
    #[serde(default)]
    pub expansions: Vec<String>,
    /// Rule options, `key = value`.
    #[serde(default)]
    pub options: BTreeMap<String, toml::Value>,
    /// Player names in seat order (default R, B, G, Y).
    #[serde(default = "default_players")]
    pub players: Vec<String>,
    /// Whose turn it is (default: the first player).
    #[serde(default)]
    pub active: Option<String>,
    /// Start scores (missing = 0).
    #[serde(default)]
    pub scores: BTreeMap<String, i32>,
    /// Board tiles.
    #[serde(default)]
    pub tile: Vec<BoardTile>,
    /// Figures on board tiles, besides those given with their tile.
    #[serde(default)]
    pub figure: Vec<BoardFigure>,
    /// Tiles still to draw, in draw order.
    #[serde(default)]
    pub draws: Vec<String>,
    /// RNG seed.
    #[serde(default)]
    pub seed: u64,
    /// Expansion state, `"<expansion>.<key>" = "value"` (see `Expansion::apply_setting`).
    #[serde(default)]
    pub state: BTreeMap<String, String>,
    /// Actions and checks, in order.
    #[serde(default)]
    pub step: Vec<Step>,
    /// Checks after the last step.
    #[serde(default)]
    pub expect: Option<Expect>,
}

fn base_name() -> String {
    "base".into()
}

fn default_players() -> Vec<String> {
    ["R", "B", "G", "Y"].iter().map(|s| s.to_string()).collect()
}

fn small_follower() -> String {
    "small-follower".into()
}

/// A tile on the board at the start.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardTile {
    /// Cell `[x, y]`.
    pub at: [i32; 2],
    /// Tile id or letter (`BA/C`, `E`).
    #[serde(default)]
    pub tile: Option<String>,
    /// Edge string as placed (`CFFF`, `CFCF+p`).
    #[serde(default)]
    pub edges: Option<String>,
    /// Rotation in degrees (with `tile`).
    #[serde(default)]
    pub rotation: Option<i64>,
    /// Figures on this tile.
    #[serde(default)]
    pub figures: Vec<TileFigure>,
}

/// A figure given with its tile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileFigure {
    /// Owner's name.
    pub player: String,
    /// Feature on the tile.
    pub feature: String,
    /// Figure kind name.
    #[serde(default = "small_follower")]
    pub kind: String,
}

/// A figure on a board tile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardFigure {
    /// Owner's name.
    pub player: String,
    /// Cell of the tile.
    pub at: [i32; 2],
    /// Feature on the tile.
    pub feature: String,
    /// Figure kind name.
    #[serde(default = "small_follower")]
    pub kind: String,
}

/// One step of a scenario.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "do", rename_all = "kebab-case")]
#[allow(clippy::large_enum_variant)] // test data, read once
pub enum Step {
    /// Place the drawn tile.
    Place(PlaceStep),
    /// Deploy a figure from supply (on the tile just placed unless `at` is given).
    Deploy(DeployStep),
    /// Decline the pending decision.
    Pass,
    /// Check that a placement of the drawn tile is offered (nothing is applied).
    PlaceLegal(PlaceStep),
    /// Check that a placement of the drawn tile is not offered and is refused.
    PlaceIllegal(PlaceStep),
    /// Check that a deployment is offered (nothing is applied).
    DeployLegal(CheckDeploy),
    /// Check that a deployment is not offered and is refused.
    DeployIllegal(CheckDeploy),
    /// Move a figure in play (an offered move, e.g. a Count redeployment).
    Move(MoveStep),
    /// An expansion's own action, by verb and value (and figure).
    Custom(CustomStep),
    /// Check that an expansion's action is offered (nothing is applied).
    CustomLegal(CustomStep),
    /// Check that an expansion's action is not offered and is refused.
    CustomIllegal(CustomStep),
    /// Check the state now.
    Expect(Expect),
}

impl Step {
    fn label(&self) -> &'static str {
        match self {
            Step::Place(_) => "place",
            Step::Deploy(_) => "deploy",
            Step::Pass => "pass",
            Step::PlaceLegal(_) => "place-legal",
            Step::PlaceIllegal(_) => "place-illegal",
            Step::DeployLegal(_) => "deploy-legal",
            Step::DeployIllegal(_) => "deploy-illegal",
            Step::Move(_) => "move",
            Step::Custom(_) => "custom",
            Step::CustomLegal(_) => "custom-legal",
            Step::CustomIllegal(_) => "custom-illegal",
            Step::Expect(_) => "expect",
        }
    }
}

/// A placement of the drawn tile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceStep {
    /// Cell.
    pub at: [i32; 2],
    /// The drawn tile must be this kind (id or letter).
    #[serde(default)]
    pub tile: Option<String>,
    /// Edges as placed (picks the rotation).
    #[serde(default)]
    pub edges: Option<String>,
    /// Rotation in degrees.
    #[serde(default)]
    pub rotation: Option<i64>,
    /// The player who must be placing.
    #[serde(default)]
    pub player: Option<String>,
}

/// A deployment from supply.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeployStep {
    /// Feature on the tile.
    pub feature: String,
    /// Cell of the tile (default: the tile just placed).
    #[serde(default)]
    pub at: Option<[i32; 2]>,
    /// Figure kind name.
    #[serde(default = "small_follower")]
    pub figure: String,
}

/// A deployment to check.
/// Moves one of the deciding player's figures standing on `from` onto `feature` (an
/// offered move, e.g. a Count redeployment). `from_at` / `at` locate tile features; a
/// virtual feature is written `kind#slot` (`quarter#0`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveStep {
    pub from: String,
    #[serde(default)]
    pub from_at: Option<[i32; 2]>,
    pub feature: String,
    #[serde(default)]
    pub at: Option<[i32; 2]>,
}

/// An expansion's own offered action, by verb name and value. With `feature` it is an
/// action about a figure: the one standing on that segment (of the tile at `at`, default
/// the tile just placed; a virtual feature is `kind#slot`), owned by `owner` if given.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomStep {
    pub verb: String,
    #[serde(default)]
    pub value: i32,
    /// Cell of the tile the figure stands on (default: the tile just placed).
    #[serde(default)]
    pub at: Option<[i32; 2]>,
    /// Segment the figure stands on; names the action's figure.
    #[serde(default)]
    pub feature: Option<String>,
    /// The figure's owner.
    #[serde(default)]
    pub owner: Option<String>,
}

/// Figure-scoped expansion state of one figure in play.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSlotsExp {
    /// Cell of the tile the figure stands on (default: the tile just placed).
    #[serde(default)]
    pub at: Option<[i32; 2]>,
    /// Segment the figure stands on.
    pub feature: String,
    /// The figure's owner (needed when several figures stand there).
    #[serde(default)]
    pub player: Option<String>,
    /// `"<expansion>.<slot>" = value`.
    pub slots: BTreeMap<String, i64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckDeploy {
    /// Feature on the tile.
    pub feature: String,
    /// Cell of the tile (default: the tile just placed).
    #[serde(default)]
    pub at: Option<[i32; 2]>,
    /// Figure kind name (default: any kind for `deploy-legal`/`deploy-illegal`).
    #[serde(default)]
    pub figure: Option<String>,
}

/// Expected facts; every given field is checked, missing ones are not.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Points gained since the start, per player; unlisted players must have gained 0.
    #[serde(default)]
    pub gained: Option<BTreeMap<String, i32>>,
    /// Absolute scores of the listed players.
    #[serde(default)]
    pub scores: Option<BTreeMap<String, i32>>,
    /// Every non-zero score event since the start, in any order.
    #[serde(default)]
    pub events: Option<Vec<EventExp>>,
    /// Figures in supply: a number (small followers) or a table figure kind → number.
    #[serde(default)]
    pub supply: Option<BTreeMap<String, SupplyExp>>,
    /// Tiles removed from the game (A-4), in order (edge string, letter or id).
    #[serde(default)]
    pub discarded: Option<Vec<String>>,
    /// Tiles left face down.
    #[serde(default)]
    pub tiles_left: Option<usize>,
    /// Whether the game is over.
    #[serde(default)]
    pub over: Option<bool>,
    /// The pending decision: `place`, `deploy`, `prompt` or `over`.
    #[serde(default)]
    pub decision: Option<String>,
    /// Who decides.
    #[serde(default)]
    pub player: Option<String>,
    /// The tile to place (edge string, letter or id).
    #[serde(default)]
    pub drawn: Option<String>,
    /// The exact legal placements of the drawn tile.
    #[serde(default)]
    pub placements: Option<Vec<PlacementExp>>,
    /// The exact set of features a figure may be deployed on now (any figure kind);
    /// empty when the game does not wait on a deployment.
    #[serde(default)]
    pub deployments: Option<Vec<FeatureRef>>,
    /// Expansion state slots, `"<expansion>.<slot>" = value` (a player slot: `…@R`).
    #[serde(default)]
    pub slots: Option<BTreeMap<String, i64>>,
    /// Figures per player standing on features.
    #[serde(default)]
    pub occupants: Option<Vec<OccupantsExp>>,
    /// The player answering the pending prompt, then the players of the queued prompts,
    /// in order (empty when no prompt is pending).
    #[serde(default)]
    pub prompts: Option<Vec<String>>,
    /// The exact set of custom verbs offered now (any order).
    #[serde(default)]
    pub verbs: Option<Vec<String>>,
    /// Figure-scoped expansion state of figures in play.
    #[serde(default)]
    pub figure_slots: Option<Vec<FigureSlotsExp>>,
}

/// The figures each player has on one feature (unlisted players: none).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OccupantsExp {
    pub feature: String,
    #[serde(default)]
    pub at: Option<[i32; 2]>,
    pub players: BTreeMap<String, u32>,
}

/// An expected score event.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventExp {
    /// Who scores.
    pub player: String,
    /// Points.
    pub points: i32,
    /// Feature kind name or score label.
    #[serde(default)]
    pub kind: Option<String>,
    /// Whether it is part of final scoring (default false).
    #[serde(default, rename = "final")]
    pub final_scoring: bool,
    /// Whether the scored feature was complete.
    #[serde(default)]
    pub complete: Option<bool>,
}

/// Figures in supply.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum SupplyExp {
    /// Small followers.
    Small(u8),
    /// Per figure kind name.
    Kinds(BTreeMap<String, u8>),
}

/// An expected legal placement.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementExp {
    /// Cell.
    pub at: [i32; 2],
    /// Edges as placed (every rotation of the drawn tile showing them).
    #[serde(default)]
    pub edges: Option<String>,
    /// Rotations in degrees. With neither `edges` nor `rotations`, any rotations.
    #[serde(default)]
    pub rotations: Option<Vec<i64>>,
}

/// A feature: on the tile just placed, or on the tile at a cell.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum FeatureRef {
    /// On the tile just placed.
    Here(String),
    /// On the tile at `at`.
    At {
        /// Cell.
        at: [i32; 2],
        /// Feature on the tile.
        feature: String,
    },
}

// ---------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------

/// The repository's `expansions/` folder.
pub fn expansions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("expansions")
}

/// The repository's `fan-expansions/` folder (script expansions).
pub fn fan_expansions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("fan-expansions")
}

/// The scenario directory (`tests/scenarios`).
pub fn scenario_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

/// Every scenario file (`T-*.toml`) under [`scenario_dir`], sorted.
pub fn scenario_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "toml")
                && p.file_stem()
                    .and_then(|s| s.to_str())
                    .is_some_and(|s| s.starts_with("T-"))
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&scenario_dir(), &mut out);
    out.sort();
    out
}

/// Reads a scenario file into its cases: the file itself, then one case per `[[variant]]`
/// (each top-level key a variant gives replaces the file's key of that name, so a variant
/// restates its whole `expect`).
pub fn load_cases(path: &Path) -> Result<Vec<Scenario>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    parse_cases(&text, stem).map_err(|e| format!("{}: {e}", path.display()))
}

/// [`load_cases`] on text; `id` is the scenario id the file must declare.
pub fn parse_cases(text: &str, id: &str) -> Result<Vec<Scenario>, String> {
    let mut root: toml::Table = text.parse().map_err(|e| format!("{e}"))?;
    let variants = match root.remove("variant") {
        None => Vec::new(),
        Some(toml::Value::Array(a)) => a,
        Some(_) => return Err("`variant` must be [[variant]]".into()),
    };
    let mut cases = vec![root.clone()];
    for (i, v) in variants.into_iter().enumerate() {
        let toml::Value::Table(v) = v else {
            return Err(format!("variant {} is not a table", i + 1));
        };
        if !v.contains_key("name") {
            return Err(format!("variant {} has no name", i + 1));
        }
        let mut case = root.clone();
        case.extend(v);
        cases.push(case);
    }
    cases
        .into_iter()
        .map(|c| {
            let sc: Scenario = toml::Value::Table(c)
                .try_into()
                .map_err(|e| format!("{e}"))?;
            if sc.id != id {
                return Err(format!("id `{}` does not match the file name", sc.id));
            }
            Ok(sc)
        })
        .collect()
}

/// Runs every case of `tests/scenarios/<name>.toml` (e.g. `base/T-01`) and panics with a
/// report of all failing cases.
pub fn run_scenario(name: &str) {
    let path = scenario_dir().join(format!("{name}.toml"));
    let cases = load_cases(&path).unwrap_or_else(|e| panic!("{e}"));
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            run_case(c)
                .err()
                .map(|e| format!("{} [{}] ({}):\n{e}", c.id, c.name, c.rules.join(", ")))
        })
        .collect();
    if !failures.is_empty() {
        panic!(
            "{} of {} case(s) failed:\n\n{}",
            failures.len(),
            cases.len(),
            failures.join("\n\n")
        );
    }
}

// ---------------------------------------------------------------------------------------
// Rulesets and test-only expansions
// ---------------------------------------------------------------------------------------

/// A test-only expansion that gives each player one big follower (strength 2; stored as 4
/// half-units), the figure of Inns & Cathedrals that A-10 and T-09 need.
pub struct BigFollower;

impl Expansion for BigFollower {
    fn id(&self) -> &str {
        "test-big-follower"
    }

    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        d.figure_kind(FigureKindDef {
            name: "big-follower".into(),
            per_player: 1,
            strength: 4,
            deploy_on: KindMask::ALL,
            follower: true,
        })
        .map_err(|e| e.to_string())?;
        Ok(binder(|_| Ok(NoHooks)))
    }
}

/// The bound value of a test expansion that only declares things: every hook is the
/// default.
struct NoHooks;

impl BoundExpansion for NoHooks {}

/// `test-double-turn`: every turn has a second part (stands in for the builder of
/// Traders & Builders in CO-8 / T-25; core grants one extra part per turn).
struct DoubleTurn;

impl Expansion for DoubleTurn {
    fn id(&self) -> &str {
        "test-double-turn"
    }
    fn declare(&self, _d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        Ok(binder(|_| Ok(DoubleTurnRules)))
    }
}

/// `test-double-turn` bound to a ruleset.
struct DoubleTurnRules;

impl BoundExpansion for DoubleTurnRules {
    fn on_turn_end(
        &self,
        _ctx: &mut carcassonne_core::Ctx<'_>,
    ) -> HookResult<carcassonne_core::TurnEndVerdict> {
        Ok(carcassonne_core::TurnEndVerdict::ExtraPart)
    }
}

/// Test-only expansions by name.
pub fn test_expansion(name: &str) -> Option<Arc<dyn Expansion>> {
    match name {
        "test-big-follower" => Some(Arc::new(BigFollower)),
        "test-double-turn" => Some(Arc::new(DoubleTurn)),
        _ => None,
    }
}

fn option_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Builds the scenario's ruleset: the host's base game, or base + test-only expansions.
pub fn build_rules(sc: &Scenario) -> Result<Arc<Ruleset>, String> {
    let options: Vec<(String, String)> = sc
        .options
        .iter()
        .map(|(k, v)| (k.clone(), option_text(v)))
        .collect();
    // Real expansions are loaded as the program loads them: manifest, tiles and the
    // built plugin library (the README's test command builds the workspace first).
    // Test-only expansions are added after them.
    let (test, real): (Vec<String>, Vec<String>) = sc
        .expansions
        .iter()
        .cloned()
        .partition(|n| test_expansion(n).is_some());
    let extra: Vec<_> = test.iter().filter_map(|n| test_expansion(n)).collect();
    build_ruleset_with(
        &RulesSpec {
            expansions: real,
            options,
            plugin_dirs: vec![expansions_dir(), fan_expansions_dir()],
        },
        &extra,
    )
    .map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------------------
// Edge strings, tile kinds and features
// ---------------------------------------------------------------------------------------

/// A parsed spec edge string (section 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeSpec {
    /// Edge letters N E S W as placed.
    pub edges: [char; 4],
    /// `+p` count.
    pub pennants: u8,
    /// `M`.
    pub cloister: bool,
    /// `H`.
    pub shrine: bool,
    /// `s`: the city edges are separate segments.
    pub separate: bool,
}

impl EdgeSpec {
    /// Parses `CFCF+p`, `FFFRM`, `CFCFs`, `CCCC+2p`, ….
    pub fn parse(text: &str) -> Result<EdgeSpec, String> {
        let chars: Vec<char> = text.chars().collect();
        let bad = |m: &str| format!("edge string `{text}`: {m}");
        if chars.len() < 4 {
            return Err(bad("four edge letters N E S W expected"));
        }
        let mut edges = ['F'; 4];
        for (i, c) in chars[..4].iter().enumerate() {
            if !"CRFWI".contains(*c) {
                return Err(bad(&format!("`{c}` is not an edge letter (C R F W)")));
            }
            edges[i] = *c;
        }
        let mut spec = EdgeSpec {
            edges,
            pennants: 0,
            cloister: false,
            shrine: false,
            separate: false,
        };
        let mut i = 4;
        while i < chars.len() {
            match chars[i] {
                '+' => {
                    let mut n = 0u8;
                    i += 1;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        n = n * 10 + chars[i].to_digit(10).unwrap_or(0) as u8;
                        i += 1;
                    }
                    if chars.get(i) != Some(&'p') {
                        return Err(bad("`+` must be followed by `p` (pennant)"));
                    }
                    spec.pennants += n.max(1);
                }
                'M' => spec.cloister = true,
                'H' => spec.shrine = true,
                's' => spec.separate = true,
                c => return Err(bad(&format!("unknown suffix `{c}`"))),
            }
            i += 1;
        }
        Ok(spec)
    }

    /// Whether `tk` turned by `rot` is a tile of this description.
    pub fn matches(&self, rules: &Ruleset, tk: &TileKind, rot: Rotation) -> bool {
        for s in carcassonne_core::Side::ALL {
            let code = tk.edge_at(rot, s);
            let want = self.edges[s.index() as usize];
            let ok = if code == 0 {
                want == 'F'
            } else {
                let def = &rules.kinds()[code as usize - 1];
                match def.shape {
                    Shape::Edge { letter, .. } => {
                        letter == want || (matches!(want, 'W' | 'I') && def.name == "river")
                    }
                    _ => false,
                }
            };
            if !ok {
                return false;
            }
        }
        let named = |name: &str| {
            rules
                .kind_named(name)
                .map_or(0, |k| tk.segments.iter().filter(|s| s.kind == k).count())
        };
        let pennants: u32 = tk.segments.iter().map(|s| s.pennants as u32).sum();
        if pennants != self.pennants as u32
            || (named("cloister") > 0) != self.cloister
            || (named("shrine") > 0) != self.shrine
        {
            return false;
        }
        let count = |c: char| self.edges.iter().filter(|e| **e == c).count();
        let edge_segments = |k| {
            tk.segments
                .iter()
                .filter(|s| s.kind == k && !s.sides.is_empty())
                .count()
        };
        let cities = count('C');
        if cities > 0 {
            let want = if self.separate { cities } else { 1 };
            if edge_segments(carcassonne_core::FeatureKindId::CITY) != want {
                return false;
            }
        }
        // Two R edges are joined; with 1, 3 or 4 each road ends at the centre.
        let roads = count('R');
        let want = if roads == 2 { 1 } else { roads };
        edge_segments(carcassonne_core::FeatureKindId::ROAD) == want
    }
}

/// The rotations (ascending) in which tile kind `kind` shows the edge string `edges`.
pub fn rotations_showing(
    rules: &Ruleset,
    kind: TileKindId,
    edges: &str,
) -> Result<Vec<Rotation>, String> {
    let spec = EdgeSpec::parse(edges)?;
    let tk = rules.tiles().get(kind);
    Ok(Rotation::ALL
        .into_iter()
        .filter(|r| spec.matches(rules, tk, *r))
        .collect())
}

/// Resolves a tile reference (id, letter or edge string in any rotation) to its kind. An
/// edge string that fits a base tile and expansion tiles means the base tile.
pub fn resolve_kind(rules: &Ruleset, text: &str) -> Result<TileKindId, String> {
    if let Some(k) = rules.tiles().find(text) {
        return Ok(k);
    }
    let spec = EdgeSpec::parse(text)?;
    let found: Vec<TileKindId> = rules
        .tiles()
        .iter()
        .filter(|(_, tk)| Rotation::ALL.iter().any(|r| spec.matches(rules, tk, *r)))
        .map(|(id, _)| id)
        .collect();
    let base: Vec<TileKindId> = found
        .iter()
        .copied()
        .filter(|k| rules.tiles().get(*k).set == "base")
        .collect();
    if let ([k], true) = (base.as_slice(), found.len() > 1) {
        return Ok(*k);
    }
    match found.as_slice() {
        [k] => Ok(*k),
        [] => Err(format!("no tile kind looks like `{text}`")),
        many => Err(format!(
            "`{text}` is ambiguous ({}); name the tile by id",
            many.iter()
                .map(|k| rules.tiles().get(*k).id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Resolves a tile given by id/letter and/or edge string and/or rotation to (kind, rotation).
pub fn resolve_placed(
    rules: &Ruleset,
    tile: Option<&str>,
    edges: Option<&str>,
    rotation: Option<i64>,
) -> Result<(TileKindId, Rotation), String> {
    let rot = rotation
        .map(|d| Rotation::from_degrees(d).ok_or_else(|| format!("bad rotation {d}")))
        .transpose()?;
    let kind = match (tile, edges) {
        (Some(t), _) => rules
            .tiles()
            .find(t)
            .ok_or_else(|| format!("unknown tile `{t}`"))?,
        (None, Some(e)) => resolve_kind(rules, e)?,
        (None, None) => return Err("a tile needs `tile` or `edges`".into()),
    };
    let rot = match (edges, rot) {
        (Some(e), r) => {
            let rs = rotations_showing(rules, kind, e)?;
            match r {
                Some(r) if rs.contains(&r) => r,
                Some(r) => {
                    return Err(format!(
                        "tile {} at rotation {r} does not show `{e}`",
                        rules.tiles().get(kind).id
                    ))
                }
                None => *rs.first().ok_or_else(|| {
                    format!("tile {} cannot show `{e}`", rules.tiles().get(kind).id)
                })?,
            }
        }
        (None, r) => r.unwrap_or(Rotation::R0),
    };
    Ok((kind, rot))
}

fn parse_halves(text: &str) -> Option<HalfSet> {
    let mut set = 0u8;
    for part in text.split('.') {
        set |= 1 << HalfEdge::parse(part)?.index();
    }
    Some(HalfSet(set))
}

/// The local segment index of the feature `want` on tile kind `tk` turned by `rot`.
pub fn find_segment(
    rules: &Ruleset,
    tk: &TileKind,
    rot: Rotation,
    want: &str,
) -> Result<u8, String> {
    let (kind, loc) = match want.split_once(':') {
        Some((k, l)) => (Some(k), Some(l)),
        None if rules.kind_named(want).is_some() => (Some(want), None),
        None => (None, Some(want)),
    };
    let kind = kind
        .map(|k| {
            rules
                .kind_named(k)
                .ok_or_else(|| format!("unknown feature kind `{k}`"))
        })
        .transpose()?;
    let mut cands: Vec<usize> = (0..tk.segments.len())
        .filter(|i| kind.is_none_or(|k| tk.segments[*i].kind == k))
        .collect();
    if let Some(loc) = loc {
        // (sides, halves) wanted; `None` = an inner location matched by name.
        let parsed = if let Some(rest) = loc.strip_prefix('_') {
            SideSet::parse(rest).map(|s| (SideSet(!s.0 & 0xF), HalfSet::EMPTY))
        } else if let Some(s) = SideSet::parse(loc) {
            Some((s, HalfSet::EMPTY))
        } else {
            parse_halves(loc).map(|h| (SideSet::EMPTY, h))
        };
        let exact: Vec<usize> = cands
            .iter()
            .copied()
            .filter(|i| {
                let s = &tk.segments[*i];
                match parsed {
                    Some((sides, halves)) => {
                        s.sides.rotate(rot) == sides && s.halves.rotate(rot) == halves
                    }
                    None => s.location(rot) == loc,
                }
            })
            .collect();
        cands = if exact.is_empty() {
            let Some((sides, halves)) = parsed else {
                return Err(format!("no feature at `{loc}`"));
            };
            cands
                .into_iter()
                .filter(|i| {
                    let s = &tk.segments[*i];
                    let (ss, hs) = (s.sides.rotate(rot), s.halves.rotate(rot));
                    ss.0 & sides.0 == sides.0 && hs.0 & halves.0 == halves.0
                })
                .collect()
        } else {
            exact
        };
    }
    let describe = || {
        tk.segments
            .iter()
            .map(|s| format!("{} {}", rules.kind(s.kind).name, s.location(rot)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match cands.as_slice() {
        [i] => Ok(*i as u8),
        [] => Err(format!(
            "tile {} has no feature `{want}` (it has: {})",
            tk.id,
            describe()
        )),
        _ => Err(format!(
            "feature `{want}` is ambiguous on tile {} (it has: {})",
            tk.id,
            describe()
        )),
    }
}

// ---------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------

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

/// Builds the game position of a scenario.
pub fn build_position(rules: &Ruleset, sc: &Scenario) -> Result<Position, String> {
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
    for bt in &sc.tile {
        let (kind, rotation) =
            resolve_placed(rules, bt.tile.as_deref(), bt.edges.as_deref(), bt.rotation)
                .map_err(|e| format!("tile at {:?}: {e}", bt.at))?;
        tiles.push(StartTile {
            kind,
            pos: pos(bt.at),
            rotation,
        });
        for f in &bt.figures {
            figure_at(&tiles, &f.player, bt.at, &f.feature, &f.kind)?;
        }
    }
    for f in &sc.figure {
        figure_at(&tiles, &f.player, f.at, &f.feature, &f.kind)?;
    }
    let mut scores = vec![0; players.len()];
    for (name, s) in &sc.scores {
        scores[player_index(players, name)?] = *s;
    }
    let active = match &sc.active {
        Some(a) => player_index(players, a)? as u8,
        None => 0,
    };
    let draws = sc
        .draws
        .iter()
        .map(|d| resolve_kind(rules, d))
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
                let (expansion, key) = k
                    .split_once('.')
                    .ok_or_else(|| format!("state key `{k}`: expected `<expansion>.<key>`"))?;
                Ok(PositionSetting {
                    expansion: expansion.to_string(),
                    key: key.to_string(),
                    value: v.clone(),
                })
            })
            .collect::<Result<Vec<_>, String>>()?,
    })
}

/// Runs one scenario case: builds the game, performs the steps, checks the expectations.
pub fn run_case(sc: &Scenario) -> Result<(), String> {
    let rules = build_rules(sc)?;
    let position = build_position(&rules, sc)?;
    let game = Game::from_position(Arc::clone(&rules), &position)
        .map_err(|e| format!("the position is refused: {e}"))?;
    let mut r = Runner {
        rules,
        game,
        players: sc.players.clone(),
        initial: position.scores.clone(),
    };
    for (i, step) in sc.step.iter().enumerate() {
        r.step(step)
            .map_err(|e| format!("step {} ({}): {e}\n{}", i + 1, step.label(), r.dump()))?;
    }
    if let Some(exp) = &sc.expect {
        r.check(exp)
            .map_err(|e| format!("expectations after the last step: {e}\n{}", r.dump()))?;
    }
    Ok(())
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
        let drawn = self.drawn()?;
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
            Err(ActionError::NotOffered { .. }) => {}
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
            Step::Expect(e) => self.check(e),
        }
    }

    /// The figure a custom step names (`feature` given), else `None`.
    fn custom_figure(&self, c: &CustomStep) -> Result<Option<FigureId>, String> {
        let Some(feature) = &c.feature else {
            if c.at.is_some() || c.owner.is_some() {
                return Err("`at` and `owner` of a custom step need `feature`".into());
            }
            return Ok(None);
        };
        self.figure_on(c.at, feature, c.owner.as_deref()).map(Some)
    }

    /// The figure standing on a segment (of `owner` if given); one must exist.
    fn figure_on(
        &self,
        at: Option<[i32; 2]>,
        feature: &str,
        owner: Option<&str>,
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
                "several figures stand on {}; give `owner`/`player`",
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
        let found = self.game.actions().iter().copied().find(|a| {
            matches!(a, Action::Custom(x)
                if x.value == c.value
                    && x.figure == figure
                    && self.verb_name(x.verb) == c.verb)
        });
        Ok((found, what))
    }

    /// The custom action a step means, built from the verb's declaration (`None` if no
    /// loaded expansion declares the verb).
    fn build_custom(&self, c: &CustomStep) -> Result<Option<Action>, String> {
        let figure = self.custom_figure(c)?;
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
                    segment: None,
                    value: c.value,
                })
            }))
    }

    /// Checks every given expectation; reports all mismatches.
    fn check(&self, e: &Expect) -> Result<(), String> {
        let mut errs: Vec<String> = Vec::new();
        let mut run = |r: Result<(), String>| {
            if let Err(m) = r {
                errs.push(m);
            }
        };
        let st = self.game.state();
        if let Some(g) = &e.gained {
            run((|| {
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
            })());
        }
        if let Some(s) = &e.scores {
            for (name, want) in s {
                run(self.player(name).and_then(|i| {
                    let got = st.players()[i].score;
                    if got == *want {
                        Ok(())
                    } else {
                        Err(format!("{name} has {got} points, expected {want}"))
                    }
                }));
            }
        }
        if let Some(evs) = &e.events {
            run(self.check_events(evs));
        }
        if let Some(sup) = &e.supply {
            for (name, want) in sup {
                run((|| {
                    let p = PlayerId(self.player(name)? as u8);
                    let wants: Vec<(String, u8)> = match want {
                        SupplyExp::Small(n) => vec![(small_follower(), *n)],
                        SupplyExp::Kinds(m) => m.iter().map(|(k, n)| (k.clone(), *n)).collect(),
                    };
                    for (k, n) in wants {
                        let got = st.in_supply(p, figure_kind(&self.rules, &k)?);
                        if got != n {
                            return Err(format!("{name} has {got} {k} in supply, expected {n}"));
                        }
                    }
                    Ok(())
                })());
            }
        }
        if let Some(d) = &e.discarded {
            run((|| {
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
            })());
        }
        if let Some(n) = e.tiles_left {
            let got = st.supply().remaining();
            if got != n {
                run(Err(format!("{got} tiles left, expected {n}")));
            }
        }
        if let Some(o) = e.over {
            if self.game.is_over() != o {
                run(Err(format!(
                    "game over is {}, expected {o}",
                    self.game.is_over()
                )));
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
                run(Err(format!(
                    "decision is `{}`, expected `{d}`",
                    self.decision_name()
                )));
            }
        }
        if let Some(p) = &e.player {
            run(self.player(p).and_then(|i| {
                if self.game.decision().player.index() == i && !self.game.is_over() {
                    Ok(())
                } else {
                    Err(format!(
                        "the decision is not {p}'s ({})",
                        self.decision_name()
                    ))
                }
            }));
        }
        if let Some(t) = &e.drawn {
            run((|| {
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
            })());
        }
        if let Some(p) = &e.placements {
            run(self.check_placements(p));
        }
        if let Some(d) = &e.deployments {
            run(self.check_deployments(d));
        }
        if let Some(slots) = &e.slots {
            for (key, want) in slots {
                run(self.check_slot(key, *want));
            }
        }
        if let Some(occ) = &e.occupants {
            for o in occ {
                run(self.check_occupants(o));
            }
        }
        if let Some(p) = &e.prompts {
            run(self.check_prompts(p));
        }
        if let Some(v) = &e.verbs {
            run(self.check_verbs(v));
        }
        if let Some(fs) = &e.figure_slots {
            for f in fs {
                run((|| {
                    let fig = self.figure_on(f.at, &f.feature, f.player.as_deref())?;
                    for (key, want) in &f.slots {
                        self.check_slot_at(key, fig.0 as usize, *want, Some(SlotScope::Figure))
                            .map_err(|e| format!("{}: {e}", self.figure_text(fig)))?;
                    }
                    Ok(())
                })());
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("\n  "))
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Arc<Ruleset> {
        carcassonne_rules::base_ruleset()
    }

    fn placed(r: &Ruleset, edges: &str) -> (String, u16) {
        let (k, rot) = resolve_placed(r, None, Some(edges), None).unwrap();
        (r.tiles().get(k).aliases[0].clone(), rot.degrees())
    }

    /// Section 0 edge strings resolve to the base tiles (letters) and rotations.
    #[test]
    fn edge_strings_pick_base_tiles() {
        let r = base();
        let cases = [
            ("CFFF", "E", 0),
            ("FCFF", "E", 90),
            ("FFCF", "E", 180),
            ("FFFC", "E", 270),
            ("CRFR", "D", 0),
            ("CFCF+p", "F", 90),
            ("CFCF", "G", 90),
            ("CFCFs", "H", 0),
            ("FFFRM", "A", 90),
            ("FFFFM", "B", 0),
            ("CCCC+p", "C", 0),
            ("FRFR", "U", 0),
            ("FRRR", "W", 0),
            ("CCFC", "R", 0),
            ("CFFCs", "I", 0),
            ("CFFC+p", "M", 0),
        ];
        for (e, letter, deg) in cases {
            assert_eq!(placed(&r, e), (letter.to_string(), deg), "{e}");
        }
        assert!(resolve_kind(&r, "CCCC").is_err(), "no pennant-less CCCC");
    }

    const T01: &str = r#"
id = "T-01"
rules = ["A-9"]
draws = ["FFCF"]
[[tile]]
at = [0, 0]
edges = "CFFF"
figures = [{ player = "R", feature = "N" }]
[[step]]
do = "place"
at = [0, -1]
edges = "FFCF"
[[step]]
do = "pass"
[expect]
gained = { R = 4 }
"#;

    fn run_text(text: &str) -> Vec<Result<(), String>> {
        parse_cases(text, "T-01")
            .unwrap()
            .iter()
            .map(run_case)
            .collect()
    }

    /// The runner fails on wrong outcomes instead of merely running the steps.
    #[test]
    fn wrong_expectations_fail() {
        assert_eq!(run_text(T01), vec![Ok(())]);
        let wrong_points = T01.replace("gained = { R = 4 }", "gained = { R = 5 }");
        let e = run_text(&wrong_points).remove(0).unwrap_err();
        assert!(e.contains("R gained 4, expected 5"), "{e}");
        let other_player = T01.replace("gained = { R = 4 }", "gained = {}");
        let e = run_text(&other_player).remove(0).unwrap_err();
        assert!(e.contains("R gained 4, expected 0"), "{e}");
        let legal = T01.replace("do = \"place\"", "do = \"place-illegal\"");
        let e = run_text(&legal).remove(0).unwrap_err();
        assert!(e.contains("is offered but must be illegal"), "{e}");
        let deploy = T01.replace("do = \"pass\"", "do = \"deploy-legal\"\nfeature = \"S\"");
        let e = run_text(&deploy).remove(0).unwrap_err();
        assert!(e.contains("is not offered but must be legal"), "{e}");
        let offered = T01.replace("do = \"pass\"", "do = \"expect\"\ndeployments = []");
        let e = run_text(&offered).remove(0).unwrap_err();
        assert!(
            e.contains("field") && e.contains("offered but not expected"),
            "{e}"
        );
        let wrong_id = parse_cases(T01, "T-02").unwrap_err();
        assert!(wrong_id.contains("does not match"), "{wrong_id}");
        let typo = T01.replace("gained =", "ganed =");
        assert!(
            parse_cases(&typo, "T-01").is_err(),
            "unknown keys are refused"
        );
    }

    /// A variant replaces whole top-level keys.
    #[test]
    fn variants_replace_keys() {
        let text = format!(
            "{T01}\n[[variant]]\nname = \"small\"\noptions = {{ smallCity = \"1st/2nd\" }}\n\
             [variant.expect]\ngained = {{ R = 2 }}\n"
        );
        let cases = parse_cases(&text, "T-01").unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[1].name, "small");
        assert_eq!(
            cases.iter().map(run_case).collect::<Vec<_>>(),
            vec![Ok(()), Ok(())]
        );
    }

    #[test]
    fn features_by_location_and_kind() {
        let r = base();
        let (k, rot) = resolve_placed(&r, None, Some("CFCF"), None).unwrap();
        let tk = r.tiles().get(k);
        let city = find_segment(&r, tk, rot, "city").unwrap();
        assert_eq!(find_segment(&r, tk, rot, "NS").unwrap(), city);
        assert_eq!(find_segment(&r, tk, rot, "N").unwrap(), city);
        assert_ne!(find_segment(&r, tk, rot, "EL.ER").unwrap(), city);
        assert!(find_segment(&r, tk, rot, "field").is_err(), "two fields");
        assert_eq!(
            find_segment(&r, tk, rot, "field:WL").unwrap(),
            find_segment(&r, tk, rot, "WL.WR").unwrap()
        );
    }
}
