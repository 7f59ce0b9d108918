//! The whole picture of a game: title band, tiles in placement order, figures, neutral
//! figures, then the side panel.
//!
//! The board's coordinates are fixed: cell (x, y) covers `x·s … (x+1)·s` across and
//! `y·s … (y+1)·s` down, whatever the board's extent, and each tile (and, in a second
//! layer, the figures on it) is a group translated to its cell and drawn in the tile's own
//! coordinates. Only the `viewBox` follows the board as it grows, so a group once drawn
//! never changes unless its figures do: a server can send a page only the groups that
//! changed (`BoardSvg`). The title band and the side panel follow the viewBox's corner.

use super::figures::{corner_of, draw_figure, neutral_figures, CORNER_NAMES, CORNER_XY};
use super::marks::text;
use super::panel::{draw_panel, title};
use super::tile::{draw_tile, tile_geom, TileView};
use super::{PANEL_W, TITLE_H};
use crate::geometry::TileGeom;
use crate::style::{self, esc, num};
use crate::{BoardSvg, CellSvg, RenderOptions};
use carcassonne_core::{FigureId, FigureLoc, Game, Pos, Shape, Visible};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The whole board in its parts: title, tiles, figures, side panel.
pub(crate) fn board(game: &Game, opts: &RenderOptions) -> BoardSvg {
    let rules = game.rules();
    let st = game.state();
    let s = opts.tile_size;
    let tiles = st.board().tiles();
    let (mut min_x, mut min_y, mut max_x, mut max_y) = (0, 0, 0, 0);
    if let Some(first) = tiles.first() {
        (min_x, min_y, max_x, max_y) = (first.pos.x, first.pos.y, first.pos.x, first.pos.y);
    }
    for t in tiles {
        min_x = min_x.min(t.pos.x);
        min_y = min_y.min(t.pos.y);
        max_x = max_x.max(t.pos.x);
        max_y = max_y.max(t.pos.y);
    }
    let margin = (0.4 * s).max(16.0);
    let board_w = f64::from(max_x - min_x + 1) * s + 2.0 * margin;
    let board_h = f64::from(max_y - min_y + 1) * s + 2.0 * margin;
    // The picture's top-left corner in board coordinates (cell (0, 0) at the origin).
    let (vx, vy) = (
        f64::from(min_x) * s - margin,
        f64::from(min_y) * s - margin - TITLE_H,
    );
    let origin = |p: Pos| (f64::from(p.x) * s, f64::from(p.y) * s);
    let translate = |p: Pos| {
        let (x, y) = origin(p);
        format!(r#"transform="translate({},{})""#, num(x), num(y))
    };

    // Tiles, with their geometry computed once per kind and rotation.
    let mut geoms: BTreeMap<(u16, u8), TileGeom> = BTreeMap::new();
    let mut cells: Vec<CellSvg> = Vec::with_capacity(tiles.len());
    for (i, t) in tiles.iter().enumerate() {
        let kind = rules.tiles().get(t.kind);
        let geom = geoms
            .entry((t.kind.0, t.rotation.quarters()))
            .or_insert_with(|| tile_geom(rules, kind, t.rotation));
        let mut g = String::new();
        let _ = writeln!(
            g,
            r#"<g class="tile" data-cell="{},{}" data-tile="{}" data-rotation="{}" data-order="{}" {}>"#,
            t.pos.x,
            t.pos.y,
            esc(&kind.id),
            t.rotation.degrees(),
            i + 1,
            translate(t.pos)
        );
        draw_tile(
            &mut g,
            &TileView {
                rules,
                kind,
                rotation: t.rotation,
                geom,
                x: 0.0,
                y: 0.0,
                size: s,
                placed: Some(*t),
                label_segments: false,
            },
        );
        if opts.order_numbers {
            text(
                &mut g,
                2.5,
                9.5,
                (s * 0.11).clamp(7.0, 11.0),
                r##"fill="#000000" fill-opacity="0.6""##,
                &(i + 1).to_string(),
            );
        }
        let _ = writeln!(g, "</g>");
        cells.push(CellSvg {
            x: t.pos.x,
            y: t.pos.y,
            order: i + 1,
            tile: g,
            figures: String::new(),
        });
    }

    // Figures on tiles, each in its tile's figure group; figures on virtual features go
    // to the panel.
    let mut on_segment: BTreeMap<u32, Vec<FigureId>> = BTreeMap::new();
    for (i, f) in st.figures().iter().enumerate() {
        if let FigureLoc::On(seg) = f.loc {
            on_segment
                .entry(seg.index() as u32)
                .or_default()
                .push(FigureId(i as u16));
        }
    }
    let fig_r = s * 0.14;
    let mut virtual_figs: BTreeMap<u32, Vec<FigureId>> = BTreeMap::new();
    for (&seg_index, figs) in &on_segment {
        let seg = carcassonne_core::SegmentId::new(seg_index as usize);
        let node = st.graph().segment(seg);
        if node.is_virtual() {
            virtual_figs.insert(seg_index, figs.clone());
            continue;
        }
        let placed = st.board().tile(node.tile);
        let kind = rules.tiles().get(placed.kind);
        let geom = geoms
            .entry((placed.kind.0, placed.rotation.quarters()))
            .or_insert_with(|| tile_geom(rules, kind, placed.rotation));
        let location = kind
            .segments
            .get(node.local as usize)
            .map_or_else(String::new, |g| g.location(placed.rotation));
        let feature_shape = rules.kind(node.kind).shape;
        let Some(out) = cells.get_mut(node.tile as usize).map(|c| &mut c.figures) else {
            continue;
        };
        for (k, f) in figs.iter().enumerate() {
            let spot = geom
                .figure_spot(node.local as usize, k)
                .unwrap_or(crate::geometry::CENTRE);
            let mut corner_attr = String::new();
            // A figure that stands on a tile corner (Abbey & Mayor's barn keeps it in a
            // figure slot `…corner`) is drawn on that corner, where its four tiles meet.
            let (x, y) = match corner_of(game, *f) {
                Some(c) => {
                    corner_attr = format!(r#" data-corner="{}""#, CORNER_NAMES[c]);
                    let (cx, cy) = CORNER_XY[c];
                    (cx * s, cy * s)
                }
                None => (spot.0 * s, spot.1 * s),
            };
            let attrs = format!(
                r#"data-feature="{}" data-cell="{},{}" data-location="{}" data-segment="{seg_index}"{corner_attr}"#,
                esc(&rules.kind(node.kind).name),
                placed.pos.x,
                placed.pos.y,
                esc(&location)
            );
            // Only followers lie down in fields (farmers); a barn or a pig stands.
            let lying =
                feature_shape == Shape::Field && rules.figure_kind(st.figure(*f).kind).follower;
            draw_figure(out, game, *f, x, y, fig_r, lying, &attrs);
        }
    }
    for (c, t) in cells.iter_mut().zip(tiles) {
        if !c.figures.is_empty() {
            c.figures = format!(
                "<g class=\"on-tile\" data-cell=\"{},{}\" data-order=\"{}\" {}>\n{}</g>\n",
                c.x,
                c.y,
                c.order,
                translate(t.pos),
                c.figures
            );
        }
    }

    // What changes with every move, drawn over the board in board coordinates.
    let mut overlay = String::new();
    let _ = writeln!(overlay, r#"<g id="overlay">"#);
    if let Some(last) = st.last_placed() {
        let t = st.board().tile(last);
        let (x, y) = origin(t.pos);
        let _ = writeln!(
            overlay,
            r#"<rect id="last-tile" data-cell="{},{}" x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="3"/>"#,
            t.pos.x,
            t.pos.y,
            num(x + 1.5),
            num(y + 1.5),
            num(s - 3.0),
            num(s - 3.0),
            style::LAST
        );
    }
    neutral_figures(&mut overlay, game, &mut geoms, &on_segment, &origin, s);
    place_badges(&mut overlay, game, &mut geoms, &origin, s);

    // Side panel, beside the board, from the picture's corner.
    let px = board_w + 12.0;
    let corner = format!(r#"transform="translate({},{})""#, num(vx), num(vy));
    let mut panel = String::new();
    let panel_end = draw_panel(&mut panel, game, px, TITLE_H + 8.0, &virtual_figs);
    let width = (px + PANEL_W + 12.0).max(560.0);
    let height = (TITLE_H + board_h).max(panel_end + 12.0);
    let _ = write!(overlay, "<g id=\"panel\" {corner}>\n{panel}</g>\n</g>\n");

    let view_box = format!("{} {} {} {}", num(vx), num(vy), num(width), num(height));
    let mut backdrop = String::new();
    let _ = writeln!(backdrop, r#"<g id="backdrop">"#);
    let _ = writeln!(
        backdrop,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
        num(vx),
        num(vy),
        num(width),
        num(height),
        style::PAPER
    );
    let _ = writeln!(backdrop, "<g {corner}>");
    title(&mut backdrop, game, opts);
    let _ = writeln!(backdrop, "</g>\n</g>");
    BoardSvg {
        width: num(width),
        height: num(height),
        view_box,
        tile_size: num(s),
        backdrop,
        cells,
        overlay,
    }
}

/// What expansions name on tiles (`Visible::Place` on a tile segment, e.g. a tower's
/// height): a small badge beside the segment's first figure spot, so a figure standing
/// there (a tower's capping follower) stays visible on top. A group named `Black …` is
/// badged dark, one named `White …` with a thick grey ring (the Black Tower's top pieces).
fn place_badges(
    out: &mut String,
    game: &Game,
    geoms: &mut BTreeMap<(u16, u8), TileGeom>,
    origin: &dyn Fn(Pos) -> (f64, f64),
    s: f64,
) {
    let rules = game.rules();
    let st = game.state();
    let fig_r = s * 0.14;
    let mut shown = Vec::new();
    let _ = game.view().describe(&mut shown);
    for v in &shown {
        let Visible::Place {
            group,
            name,
            segment,
        } = v
        else {
            continue;
        };
        if segment.index() >= st.graph().len() {
            continue;
        }
        let node = st.graph().segment(*segment);
        if node.is_virtual() {
            continue;
        }
        let placed = st.board().tile(node.tile);
        let kind = rules.tiles().get(placed.kind);
        let geom = geoms
            .entry((placed.kind.0, placed.rotation.quarters()))
            .or_insert_with(|| tile_geom(rules, kind, placed.rotation));
        let spot = geom
            .figure_spot(node.local as usize, 0)
            .unwrap_or(crate::geometry::CENTRE);
        let (ox, oy) = origin(placed.pos);
        let (bx, by) = (ox + spot.0 * s + fig_r * 1.1, oy + spot.1 * s - fig_r * 1.1);
        let (fill, ring, ring_w, ink) = if group.starts_with("Black ") {
            ("#222222ee", "#000000", 0.8, r##" fill="#ffffff""##)
        } else if group.starts_with("White ") {
            ("#ffffffee", "#999999", 2.4, "")
        } else {
            ("#ffffffee", "#333333", 0.8, "")
        };
        let _ = writeln!(
            out,
            r##"<g class="place" data-group="{}" data-name="{}" data-cell="{},{}" data-segment="{}"><circle cx="{}" cy="{}" r="{}" fill="{fill}" stroke="{ring}" stroke-width="{ring_w}"/>"##,
            esc(group),
            esc(name),
            placed.pos.x,
            placed.pos.y,
            segment.index(),
            num(bx),
            num(by),
            num(fig_r * 0.75)
        );
        text(
            out,
            bx,
            by + fig_r * 0.32,
            (fig_r * 0.9).max(7.0),
            &format!(r#"text-anchor="middle" font-weight="bold"{ink}"#),
            name,
        );
        let _ = writeln!(out, "</g>");
    }
}
