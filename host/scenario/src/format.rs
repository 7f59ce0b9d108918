//! The scenario file as serde types: one [`Scenario`] per case (the file, or the file with
//! one of its `[[variant]]`s merged in). Every key is described in the crate documentation;
//! unknown keys are refused (`deny_unknown_fields`), so a typo fails loudly.

use serde::Deserialize;
use std::collections::BTreeMap;

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
    /// Expansions to load: ids found on the search path (native or script), or in-process
    /// expansions the caller provides ([`crate::Harness::extra`]).
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

pub(crate) fn small_follower() -> String {
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
    /// The step's `do` value.
    pub fn label(&self) -> &'static str {
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

/// Moves one of the deciding player's figures standing on `from` onto `feature` (an
/// offered move, e.g. a Count redeployment). `from_at` / `at` locate tile features; a
/// virtual feature is written `kind#slot` (`quarter#0`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveStep {
    /// The feature the figure stands on.
    pub from: String,
    /// Cell of that tile (default: the tile just placed).
    #[serde(default)]
    pub from_at: Option<[i32; 2]>,
    /// The feature it moves to.
    pub feature: String,
    /// Cell of that tile (default: the tile just placed).
    #[serde(default)]
    pub at: Option<[i32; 2]>,
}

/// An expansion's own offered action, by verb name and value. With `feature` it is an
/// action about a figure: the one standing on that segment (of the tile at `at`, default
/// the tile just placed; a virtual feature is `kind#slot`), owned by `owner` and of the
/// figure kind `figure` if given.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomStep {
    /// The verb's name, as the expansion declared it.
    pub verb: String,
    /// The action's value (default 0).
    #[serde(default)]
    pub value: i32,
    /// A tile (id or letter) whose kind's index is the value, for a verb whose value names
    /// a tile kind (a bazaar's `show-tile`); instead of `value`.
    #[serde(default)]
    pub tile: Option<String>,
    /// Cell of the tile the figure stands on (default: the tile just placed).
    #[serde(default)]
    pub at: Option<[i32; 2]>,
    /// Segment the figure stands on; names the action's figure.
    #[serde(default)]
    pub feature: Option<String>,
    /// The figure's owner.
    #[serde(default)]
    pub owner: Option<String>,
    /// The figure's kind name (`pig`, `builder`, …), when several figures of one owner
    /// stand on that segment.
    #[serde(default)]
    pub figure: Option<String>,
    /// The segment the action targets (a feature on a tile, as `feature`), when the
    /// verb's actions differ by target (a tower piece names its tower).
    #[serde(default)]
    pub target: Option<String>,
    /// Cell of the target's tile (default: the tile just placed).
    #[serde(default)]
    pub target_at: Option<[i32; 2]>,
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
    /// The figure's kind name (needed when several figures of one owner stand there).
    #[serde(default)]
    pub figure: Option<String>,
    /// `"<expansion>.<slot>" = value`.
    pub slots: BTreeMap<String, i64>,
}

/// A deployment to check (`deploy-legal`, `deploy-illegal`).
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
    /// Tiles removed from the game, in order (edge string, letter or id).
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
    /// The feature (a segment of it; the whole feature is counted).
    pub feature: String,
    /// Cell of the tile (default: the tile just placed).
    #[serde(default)]
    pub at: Option<[i32; 2]>,
    /// Player name → number of figures there.
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
