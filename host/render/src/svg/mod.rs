//! Drawing tiles, figures and the board with its side panel as SVG text.
//!
//! Everything is written with one decimal, in a fixed order (placement order, figure
//! order, declaration order), so the same game gives the same bytes. The board's
//! coordinates are fixed (cell (x, y) at (x·size, y·size)); each tile and the figures on
//! it are drawn in the tile's own coordinates inside a group translated to its cell, and
//! the `viewBox` follows the board (see `board`). Elements carry data attributes that say
//! what they are:
//!
//! - `<g class="tile" data-cell="x,y" data-tile="ID" data-rotation="90" data-order="n"
//!   transform>` in `<g id="tiles">`, and `<g class="on-tile" data-cell data-order
//!   transform>` (the figures on that tile) in `<g id="figures">`;
//! - `<path class="seg" data-cell data-segment data-local data-kind data-location
//!   data-shape="area|line" [data-width]>`: a segment's area (polygons) or centre line;
//!   virtual features (the City of Carcassonne's quarters) in the panel carry
//!   `data-virtual="true"` and no cell;
//! - `<g class="figure" data-figure data-owner data-player data-kind data-feature
//!   data-cell data-location data-segment data-x data-y>`: a figure standing at (x, y) of
//!   its group (its tile's coordinates on the board, the panel's in the panel);
//! - `<g class="count" data-quarter>` for the Count, `<g class="holder" data-title
//!   data-owner>` for the King and the Robber.
//!
//! One module per part of the picture: `tile` (one tile from its data), `marks` (small
//! shared primitives: symbols, icons, outlines, text), `figures` (figures on the board),
//! `board` (the whole picture), `panel` (title band and side panel), `legend`.

mod board;
mod figures;
mod legend;
mod marks;
mod panel;
mod tile;

pub(crate) use board::board;
pub(crate) use legend::legend;
pub(crate) use marks::text;
pub(crate) use tile::{draw_tile, tile_geom, TileView};

/// Width of the side panel.
pub(crate) const PANEL_W: f64 = 300.0;
/// Height of the title band.
pub(super) const TITLE_H: f64 = 58.0;
