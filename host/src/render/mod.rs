//! Pictures of games and tile sets: SVG from the game state, PNG through resvg.
//!
//! [`render_svg`] draws any [`Game`] — it does not care whether it came from a record, a
//! JCloisterZone save or a simulation — and [`render_tile_sheet`] draws every tile kind of
//! a set. Tiles are drawn from their data (`docs/tile-format.md`), never from artwork, so a
//! fan expansion's tiles render like the official ones; kinds the renderer does not know get
//! a generic look of their shape. Both functions are pure: same input, same bytes.
//!
//! - `geometry.rs` — tile-local shapes of sides, half-edges and sites, and where figures
//!   stand on each segment;
//! - `style.rs` — colours and figure outlines;
//! - `svg.rs` — tiles, figures, the board, the score panel and the legend;
//! - `sheet.rs` — the contact sheet of a tile set;
//! - `png.rs` — rasterising with embedded fonts.
//!
//! `docs/rendering.md` explains what each shape and colour means.

pub mod geometry;
pub mod png;
mod sheet;
pub mod style;
mod svg;

use crate::HostError;
use carcassonne_core::{Game, Ruleset};
use std::path::Path;

/// How to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// Side of a tile in SVG units (= PNG pixels at scale 1).
    pub tile_size: f64,
    /// Shown after the title (file, move number …).
    pub caption: Option<String>,
    /// Write each tile's placement order in its corner.
    pub order_numbers: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            tile_size: 80.0,
            caption: None,
            order_numbers: true,
        }
    }
}

/// The smallest and largest tile size accepted.
pub const TILE_SIZES: std::ops::RangeInclusive<f64> = 24.0..=256.0;

/// The board of `game`, its figures, a score panel and a legend, as SVG text.
pub fn render_svg(game: &Game, opts: &RenderOptions) -> String {
    let mut opts = opts.clone();
    opts.tile_size = opts.tile_size.clamp(*TILE_SIZES.start(), *TILE_SIZES.end());
    svg::board(game, &opts)
}

/// The contact sheet of tile set `set` (every kind with its id, count and segments) as SVG
/// text; an error naming the sets there are if the ruleset has no such set.
pub fn render_tile_sheet(rules: &Ruleset, set: &str, tile_size: f64) -> Result<String, HostError> {
    let size = tile_size.clamp(*TILE_SIZES.start(), *TILE_SIZES.end());
    sheet::sheet(rules, set, size).ok_or_else(|| {
        let mut sets: Vec<&str> = Vec::new();
        for (_, k) in rules.tiles().iter() {
            if !sets.contains(&k.set.as_str()) {
                sets.push(&k.set);
            }
        }
        HostError::Usage(format!(
            "no tile set `{set}` (available: {})",
            sets.join(", ")
        ))
    })
}

/// The geometry of tile kind `kind` turned by `rotation`: each segment's area and the spots
/// where figures stand on it (what the drawings use).
pub fn tile_geometry(
    rules: &Ruleset,
    kind: &carcassonne_core::TileKind,
    rotation: carcassonne_core::Rotation,
) -> geometry::TileGeom {
    svg::tile_geom(rules, kind, rotation)
}

/// The image format of an output path, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// `.svg`
    Svg,
    /// `.png`
    Png,
}

impl ImageFormat {
    /// The format `path` asks for; an error for any other extension.
    pub fn of(path: &Path) -> Result<ImageFormat, HostError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("svg") => Ok(ImageFormat::Svg),
            Some("png") => Ok(ImageFormat::Png),
            _ => Err(HostError::Usage(format!(
                "{}: the output must end in .svg or .png",
                path.display()
            ))),
        }
    }
}

/// Writes SVG text to `path` as SVG or PNG (by its extension).
pub fn write_image(path: &Path, svg: &str) -> Result<(), HostError> {
    let bytes = match ImageFormat::of(path)? {
        ImageFormat::Svg => svg.as_bytes().to_vec(),
        ImageFormat::Png => png::svg_to_png(svg, 1.0).map_err(|message| HostError::Render {
            path: path.to_path_buf(),
            message,
        })?,
    };
    std::fs::write(path, bytes).map_err(|source| HostError::Io {
        path: path.to_path_buf(),
        source,
    })
}
