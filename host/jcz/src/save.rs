//! The `.jcz` file as data: the parts of a JCloisterZone / FanCloisterZone save we read
//! (`../shared/formats/jcz-saves.md` §1). Everything else in the file is ignored.

use crate::JczError;
use carcassonne_files::fsio::{read_text, DATA_LIMIT};
use carcassonne_play::json::parse_json;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// A parsed save.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JczSave {
    /// The client that wrote it (`5.x`: JCloisterZone; `6.x`: its fork FanCloisterZone).
    #[serde(default)]
    pub app_version: Option<String>,
    /// The random value for the first random draw, in [0, 1).
    #[serde(default)]
    pub initial_random: f64,
    /// Sets, elements, rules, start tiles.
    pub setup: JczSetup,
    /// Seats in order (index 0 starts).
    pub players: Vec<JczPlayer>,
    /// The messages, in order.
    #[serde(default)]
    pub replay: Vec<JczMessage>,
    /// Forced draws and the draw cap.
    #[serde(default)]
    pub game_annotations: Option<JczAnnotations>,
    /// Only in test saves: what the game should look like at the end.
    #[serde(default)]
    pub test: Option<JczTest>,
}

impl JczSave {
    /// Whether FanCloisterZone wrote it (`appVersion` 6 or later), whose fork plays a few
    /// rules its own way (the manifests' `fcz-options`).
    pub fn is_fcz(&self) -> bool {
        let major = self
            .app_version
            .as_deref()
            .and_then(|v| v.split('.').next());
        major
            .and_then(|m| m.parse::<u32>().ok())
            .is_some_and(|m| m >= 6)
    }
}

/// `setup`.
#[derive(Clone, Debug, Deserialize)]
pub struct JczSetup {
    /// `{set id: copies}`.
    #[serde(default)]
    pub sets: BTreeMap<String, Value>,
    /// `{element: number | bool}`; present = on.
    #[serde(default)]
    pub elements: BTreeMap<String, Value>,
    /// `{rule: string | bool}`; absent = default.
    #[serde(default)]
    pub rules: BTreeMap<String, Value>,
    /// The start tiles, placed in order.
    #[serde(default)]
    pub start: Vec<JczStart>,
}

/// One start tile.
#[derive(Clone, Debug, Deserialize)]
pub struct JczStart {
    /// JCZ tile id.
    pub tile: String,
    /// Cell x.
    pub x: i32,
    /// Cell y (grows south).
    pub y: i32,
    /// Degrees clockwise.
    #[serde(default)]
    pub rotation: i64,
}

/// A seat.
#[derive(Clone, Debug, Deserialize)]
pub struct JczPlayer {
    /// Display name.
    pub name: String,
}

/// One message of `replay`.
#[derive(Clone, Debug, Deserialize)]
pub struct JczMessage {
    /// `PLACE_TILE`, `DEPLOY_MEEPLE`, `PASS`, `COMMIT`, `UNDO`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// The message's arguments.
    #[serde(default)]
    pub payload: Value,
    /// Index of the sender.
    #[serde(default)]
    pub player: Option<u8>,
}

/// `gameAnnotations`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JczAnnotations {
    /// Tile ids drawn first, in order (`#END` ends the game).
    #[serde(default)]
    pub draw_order: Vec<String>,
    /// At most this many draws.
    #[serde(default)]
    pub end_turn: Option<u32>,
}

/// `test` (test saves).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct JczTest {
    /// What the save tests.
    #[serde(default)]
    pub description: String,
    /// The assertions, in JCZ's wording (`Alice has 3 points`).
    #[serde(default)]
    pub assertions: Vec<String>,
}

impl JczSave {
    /// Reads and parses a save.
    pub fn load(path: &Path) -> Result<JczSave, JczError> {
        let text = read_text(path, DATA_LIMIT)?;
        JczSave::parse(&text, &path.display().to_string())
    }

    /// Parses save JSON; `origin` names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<JczSave, JczError> {
        Ok(parse_json(text, origin)?)
    }
}
