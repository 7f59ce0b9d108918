//! The contact sheet of a tile set: every tile kind at rotation 0 with its id, count and
//! edges, and each segment's index in the tile file's `features` list written on it.

use super::style::{self, esc, num};
use super::svg::{draw_tile, legend, text, tile_geom, TileView, PANEL_W};
use carcassonne_core::{Rotation, Ruleset, Shape, Side};
use std::fmt::Write as _;

/// Columns of the sheet.
const COLUMNS: usize = 6;

/// The sheet of every tile kind whose set is `set`; `None` if the ruleset has none.
pub(crate) fn sheet(rules: &Ruleset, set: &str, tile_size: f64) -> Option<String> {
    let kinds: Vec<_> = rules
        .tiles()
        .defined()
        .filter(|(_, k)| k.set == set)
        .collect();
    if kinds.is_empty() {
        return None;
    }
    let s = tile_size;
    let cell_w = (s + 28.0).max(118.0);
    let cell_h = s + 58.0;
    let top = 64.0;
    let cols = kinds.len().min(COLUMNS);
    let rows = kinds.len().div_ceil(COLUMNS);
    let grid_w = cols as f64 * cell_w + 16.0;
    let mut body = String::new();
    let _ = writeln!(body, r#"<g id="sheet">"#);
    for (n, (_, kind)) in kinds.iter().enumerate() {
        let cx = 16.0 + (n % COLUMNS) as f64 * cell_w;
        let cy = top + (n / COLUMNS) as f64 * cell_h;
        let x = cx + (cell_w - 16.0 - s) / 2.0;
        let geom = tile_geom(rules, kind, Rotation::R0);
        let _ = writeln!(
            body,
            r#"<g class="tile" data-tile="{}" data-count="{}" data-rotation="0">"#,
            esc(&kind.id),
            kind.count
        );
        draw_tile(
            &mut body,
            &TileView {
                rules,
                kind,
                rotation: Rotation::R0,
                geom: &geom,
                x,
                y: cy,
                size: s,
                placed: None,
                label_segments: true,
            },
        );
        let mid = x + s / 2.0;
        let mut label = format!("{}  ×{}", kind.id, kind.count);
        if kind.start {
            label.push_str("  start");
        }
        text(
            &mut body,
            mid,
            cy + s + 15.0,
            12.0,
            r#"font-weight="bold" text-anchor="middle""#,
            &label,
        );
        let mut info = edges(rules, kind);
        if !kind.aliases.is_empty() {
            info.push_str(&format!("  ({})", kind.aliases.join(",")));
        }
        if !kind.deploy {
            info.push_str("  no figures");
        }
        let muted = format!(r#"text-anchor="middle" fill="{}""#, style::MUTED);
        text(&mut body, mid, cy + s + 28.0, 9.5, &muted, &info);
        if !kind.tags.is_empty() {
            let mut tags = kind.tags.join(", ");
            if tags.chars().count() > 24 {
                tags = tags.chars().take(23).collect::<String>() + "…";
            }
            text(&mut body, mid, cy + s + 40.0, 9.0, &muted, &tags);
        }
        let _ = writeln!(body, "</g>");
    }
    let _ = writeln!(body, "</g>");
    let mut side = String::new();
    let legend_end = legend(&mut side, rules, grid_w + 8.0, top, false, false);
    let width = grid_w + 8.0 + PANEL_W;
    let height = (top + rows as f64 * cell_h + 10.0).max(legend_end + 12.0);
    let total: u32 = kinds.iter().map(|(_, k)| u32::from(k.count)).sum();
    let mut out = String::with_capacity(body.len() + side.len() + 1024);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Verdana, Arial, sans-serif" data-set="{}" data-kinds="{}" data-tiles="{total}">"#,
        esc(set),
        kinds.len(),
        w = num(width),
        h = num(height)
    );
    let _ = writeln!(
        out,
        r#"<rect width="{}" height="{}" fill="{}"/>"#,
        num(width),
        num(height),
        style::PAPER
    );
    text(
        &mut out,
        16.0,
        26.0,
        18.0,
        r#"font-weight="bold""#,
        &format!("Tile set `{set}`: {} kinds, {total} tiles", kinds.len()),
    );
    text(
        &mut out,
        16.0,
        46.0,
        11.0,
        &format!(r#"fill="{}""#, style::MUTED),
        "rotation 0 (north up) · numbers on a tile: index of the segment in `features` · below: edges N E S W, aliases, tags",
    );
    out.push_str(&body);
    out.push_str(&side);
    out.push_str("</svg>\n");
    Some(out)
}

/// Edge letters N E S W at rotation 0.
fn edges(rules: &Ruleset, k: &carcassonne_core::TileKind) -> String {
    Side::ALL
        .iter()
        .map(|s| match k.edge_at(Rotation::R0, *s) {
            0 => 'F',
            c => match rules.kinds().get(c as usize - 1).map(|d| d.shape) {
                Some(Shape::Edge { letter, .. }) => letter,
                _ => '?',
            },
        })
        .collect()
}
