//! # carcassonne-render
//!
//! Pictures of games and tile sets, as SVG text.
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
//! - `svg/` — tiles (`tile`), shared marks (`marks`), figures (`figures`), the board
//!   (`board`), the title band and score panel (`panel`) and the legend (`legend`);
//! - `sheet.rs` — the contact sheet of a tile set.
//!
//! `docs/rendering.md` explains what each shape and colour means.
//!
//! It depends on core alone. It must not know files, records, saves, how expansions are
//! loaded, or how SVG becomes pixels (`carcassonne-raster` does that, with resvg and the
//! fonts), so whatever draws a game — the program, the fuzzing harness — builds without a
//! rasteriser.

pub mod geometry;
mod sheet;
pub mod style;
mod svg;

use carcassonne_core::{Game, Ruleset};

/// What cannot be drawn.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// The ruleset has no tile set of that name.
    #[error("no tile set `{set}` (available: {})", available.join(", "))]
    UnknownSet {
        /// The set asked for.
        set: String,
        /// The sets the ruleset has, in catalog order.
        available: Vec<String>,
    },
}

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
    render_board(game, opts).to_svg()
}

/// The same picture as [`render_svg`], in the parts a server sends apart: the picture's
/// extent, what is redrawn after every move (`backdrop`, `overlay`), and each placed tile
/// as two groups that only change when the tile's figures do.
pub fn render_board(game: &Game, opts: &RenderOptions) -> BoardSvg {
    let mut opts = opts.clone();
    opts.tile_size = opts.tile_size.clamp(*TILE_SIZES.start(), *TILE_SIZES.end());
    svg::board(game, &opts)
}

/// A board picture in parts ([`render_board`]); [`BoardSvg::to_svg`] joins them.
///
/// Board coordinates do not depend on the board's extent: cell (x, y) is the square at
/// (x·size, y·size); each tile group and figure group carries its `data-cell` and a
/// `transform="translate(…)"` to it, so a group drawn once stays valid as the board grows.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardSvg {
    /// The `<svg>`'s `width` and `height` (SVG units) and `viewBox` (its corner follows the
    /// board's top-left tile).
    pub width: String,
    pub height: String,
    pub view_box: String,
    /// Side of a tile (`data-tile-size`).
    pub tile_size: String,
    /// `<g id="backdrop">`: the paper and the title band.
    pub backdrop: String,
    /// Every placed tile, in placement order.
    pub cells: Vec<CellSvg>,
    /// `<g id="overlay">`: the last tile's frame, neutral figures, badges and the side panel.
    pub overlay: String,
}

/// One placed tile's groups.
#[derive(Clone, Debug, PartialEq)]
pub struct CellSvg {
    /// Its cell.
    pub x: i32,
    pub y: i32,
    /// Its placement order (1 = the first tile laid); the figure groups follow this order.
    pub order: usize,
    /// `<g class="tile" data-cell="x,y" …>`: the tile; it never changes.
    pub tile: String,
    /// `<g class="on-tile" data-cell="x,y" data-order="n" …>`: the figures on it, empty
    /// when it has none.
    pub figures: String,
}

impl BoardSvg {
    /// The opening `<svg>` tag.
    pub fn open_tag(&self) -> String {
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="{}" font-family="DejaVu Sans, Verdana, Arial, sans-serif" data-tile-size="{}">"#,
            self.width, self.height, self.view_box, self.tile_size
        )
    }

    /// The whole picture: backdrop, the tiles layer (`<g id="tiles">`), the figures layer
    /// (`<g id="figures">`, over every tile, so a figure near an edge is never covered by
    /// the neighbour laid after it), then the overlay.
    pub fn to_svg(&self) -> String {
        let size = self
            .cells
            .iter()
            .map(|c| c.tile.len() + c.figures.len())
            .sum::<usize>()
            + self.backdrop.len()
            + self.overlay.len()
            + 512;
        let mut out = String::with_capacity(size);
        out.push_str(&self.open_tag());
        out.push('\n');
        out.push_str(&self.backdrop);
        out.push_str("<g id=\"tiles\">\n");
        for c in &self.cells {
            out.push_str(&c.tile);
        }
        out.push_str("</g>\n<g id=\"figures\">\n");
        for c in &self.cells {
            out.push_str(&c.figures);
        }
        out.push_str("</g>\n");
        out.push_str(&self.overlay);
        out.push_str("</svg>\n");
        out
    }
}

/// The contact sheet of tile set `set` (every kind with its id, count and segments) as SVG
/// text; an error naming the sets there are if the ruleset has no such set.
pub fn render_tile_sheet(
    rules: &Ruleset,
    set: &str,
    tile_size: f64,
) -> Result<String, RenderError> {
    let size = tile_size.clamp(*TILE_SIZES.start(), *TILE_SIZES.end());
    sheet::sheet(rules, set, size).ok_or_else(|| {
        let mut available: Vec<String> = Vec::new();
        for (_, k) in rules.tiles().iter() {
            if !available.contains(&k.set) {
                available.push(k.set.clone());
            }
        }
        RenderError::UnknownSet {
            set: set.to_string(),
            available,
        }
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

/// One tile kind turned by `rotation`, alone, as SVG text (the web page's picture of the
/// drawn tile).
pub fn render_tile(
    rules: &Ruleset,
    kind: &carcassonne_core::TileKind,
    rotation: carcassonne_core::Rotation,
    tile_size: f64,
) -> String {
    let s = tile_size.clamp(*TILE_SIZES.start(), *TILE_SIZES.end());
    let geom = svg::tile_geom(rules, kind, rotation);
    let mut body = String::new();
    svg::draw_tile(
        &mut body,
        &svg::TileView {
            rules,
            kind,
            rotation,
            geom: &geom,
            x: 0.0,
            y: 0.0,
            size: s,
            placed: None,
            label_segments: false,
        },
    );
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{s}" height="{s}" viewBox="0 0 {s} {s}">{body}</svg>"#
    )
}
