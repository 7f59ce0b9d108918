//! Reading tile files (TOML, schema in `docs/tile-format.md`).

use crate::FilesError;
use carcassonne_core::TileSetData;
use std::path::Path;

/// Parses tile-file text; `origin` names the file in errors.
pub fn parse_tile_set(text: &str, origin: &str) -> Result<TileSetData, FilesError> {
    toml::from_str(text).map_err(|e| FilesError::Toml {
        path: origin.to_string(),
        message: e.to_string().trim_end().replace('\n', " "),
    })
}

/// Reads and parses a tile file.
pub fn load_tile_set(path: &Path) -> Result<TileSetData, FilesError> {
    let text = crate::fsio::read_text(path, crate::fsio::DATA_LIMIT)?;
    parse_tile_set(&text, &path.display().to_string())
}

/// The base game's tiles (embedded in core as text).
pub fn base_tile_set() -> TileSetData {
    parse_tile_set(carcassonne_core::BASE_TILES_TOML, "core/tiles/base.toml")
        .expect("the embedded base tile file is valid (checked by tests)")
}
