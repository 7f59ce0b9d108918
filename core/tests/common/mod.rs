//! Helpers shared by core's integration tests (each test binary includes this module).
#![allow(dead_code)] // each test binary uses a different part of it

use carcassonne_core::*;
use std::sync::Arc;

/// The base game with its embedded tiles.
pub fn rules() -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).expect("base tiles parse");
    Arc::new(
        Ruleset::builder()
            .tiles(base)
            .build()
            .expect("base ruleset"),
    )
}

/// The base game with the tiles of `set` (a tile file's text) added.
pub fn rules_with(set: &str) -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).expect("base tiles parse");
    let extra: TileSetData = toml::from_str(set).expect("the set parses");
    Arc::new(
        Ruleset::builder()
            .tiles(base)
            .tiles(extra)
            .build()
            .expect("the ruleset"),
    )
}

/// A tile kind by id.
pub fn tile(r: &Ruleset, name: &str) -> TileKindId {
    r.tiles()
        .find(name)
        .unwrap_or_else(|| panic!("no tile {name}"))
}

/// A tile of kind `name` at (x, y), rotated `deg` degrees clockwise.
pub fn at(r: &Ruleset, name: &str, x: i32, y: i32, deg: i64) -> StartTile {
    StartTile {
        kind: tile(r, name),
        pos: Pos::new(x, y),
        rotation: Rotation::from_degrees(deg).unwrap(),
    }
}
