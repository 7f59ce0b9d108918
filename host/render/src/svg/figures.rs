//! Figures on the board: players' figures with their state markers, figures an expansion
//! keeps on a tile corner (declared by a `SlotRole::FigureCorner` slot) and the neutral
//! figures expansions show through `describe` (placed as their `Stands` says). Nothing here
//! names an expansion.

use super::marks::figure_shape;
use super::panel::slot_label;
use super::tile::tile_geom;
use crate::geometry::TileGeom;
use crate::style::{self, esc, num};
use carcassonne_core::{FigureId, Game, Pos, SlotId, SlotRole, SlotScope, Stands, Visible};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Corner names and their offsets in a tile (x east, y south), in the order of the corner
/// slot's values 1…4.
pub(super) const CORNER_NAMES: [&str; 4] = ["NW", "NE", "SE", "SW"];
pub(super) const CORNER_XY: [(f64, f64); 4] = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];

/// Whether a figure slot places its figure on a tile corner: its expansion declared it
/// so ([`SlotRole::FigureCorner`]), holding corner + 1 (1 NW, 2 NE, 3 SE, 4 SW).
fn is_corner_slot(d: &carcassonne_core::SlotDef) -> bool {
    d.scope == SlotScope::Figure && d.role == SlotRole::FigureCorner
}

/// The corner (0 NW … 3 SW) figure `f` stands on, if an expansion keeps one for it.
pub(super) fn corner_of(game: &Game, f: FigureId) -> Option<usize> {
    let st = game.state();
    game.rules()
        .slots()
        .iter()
        .enumerate()
        .filter(|(_, d)| is_corner_slot(d))
        .map(|(i, _)| st.slot(SlotId(i as u16), f.0 as usize))
        .find(|v| (1..=4).contains(v))
        .map(|v| v as usize - 1)
}

/// Neutral figures an expansion shows on board segments (`Visible::NeutralFigure`: the
/// dragon in its tile's corner, the fairy beside the follower it stands by); those on
/// virtual features are drawn in the panel.
pub(super) fn neutral_figures(
    out: &mut String,
    game: &Game,
    geoms: &mut BTreeMap<(u16, u8), TileGeom>,
    on_segment: &BTreeMap<u32, Vec<FigureId>>,
    origin: &dyn Fn(Pos) -> (f64, f64),
    s: f64,
) {
    let rules = game.rules();
    let st = game.state();
    let mut shown = Vec::new();
    if game.view().describe(&mut shown).is_err() {
        return;
    }
    for v in &shown {
        let Visible::NeutralFigure {
            name,
            icon,
            segment,
            stands,
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
        let (ox, oy) = origin(placed.pos);
        // A figure on the whole tile stands in its corner, one on a segment by its spot.
        let on_tile = *stands == Stands::OnTile;
        let (x, y) = if on_tile {
            (ox + s * 0.76, oy + s * 0.24)
        } else {
            let kind = rules.tiles().get(placed.kind);
            let geom = geoms
                .entry((placed.kind.0, placed.rotation.quarters()))
                .or_insert_with(|| tile_geom(rules, kind, placed.rotation));
            let spot = geom
                .figure_spot(node.local as usize, 0)
                .unwrap_or(crate::geometry::CENTRE);
            let beside = on_segment.contains_key(&(segment.index() as u32));
            let d = if beside { 0.16 } else { 0.0 };
            (ox + (spot.0 + d) * s, oy + (spot.1 - d) * s)
        };
        let _ = writeln!(
            out,
            r#"<g class="neutral" data-name="{}" data-cell="{},{}">"#,
            esc(name),
            placed.pos.x,
            placed.pos.y
        );
        // The dragon stands out from the dragon symbols printed on tiles: larger.
        let r = if on_tile { 0.19 } else { 0.13 };
        figure_shape(
            out,
            &style::icon_path(icon),
            x,
            y,
            s * r,
            0,
            style::icon_colour(icon),
        );
        let _ = writeln!(out, "</g>");
    }
}

/// One figure with its data attributes; `lying` for a farmer.
#[allow(clippy::too_many_arguments)]
pub(super) fn draw_figure(
    out: &mut String,
    game: &Game,
    f: FigureId,
    x: f64,
    y: f64,
    r: f64,
    lying: bool,
    attrs: &str,
) {
    let rules = game.rules();
    let st = game.state();
    let fig = st.figure(f);
    let kind = rules.figure_kind(fig.kind);
    let (outline, scale) = style::figure_outline(fig.kind.0 as usize, kind);
    // A neutral figure's owner is `neutral`, drawn in no seat's colour.
    let (owner, player) = match fig.seat() {
        Some(p) => (
            p.0.to_string(),
            st.players().get(p.index()).map_or("?", |p| p.name.as_str()),
        ),
        None => ("neutral".to_string(), "nobody"),
    };
    // Expansion state kept per figure (a promotion disc, …) shows as a marker.
    let marks: Vec<String> = rules
        .slots()
        .iter()
        .enumerate()
        .filter(|(i, d)| {
            d.scope == SlotScope::Figure
                && !is_corner_slot(d)
                && st.slot(SlotId(*i as u16), f.0 as usize) != d.default
        })
        .map(|(i, _)| {
            format!(
                "{}={}",
                slot_label(rules, i),
                st.slot(SlotId(i as u16), f.0 as usize)
            )
        })
        .collect();
    let _ = writeln!(
        out,
        r#"<g class="figure" data-figure="{}" data-owner="{owner}" data-player="{}" data-kind="{}" {attrs} data-x="{}" data-y="{}"{}>"#,
        esc(&carcassonne_core::View { rules, state: st }.figure_name(f)),
        esc(player),
        esc(&kind.name),
        num(x),
        num(y),
        if marks.is_empty() {
            String::new()
        } else {
            format!(r#" data-state="{}""#, esc(&marks.join(";")))
        }
    );
    figure_shape(
        out,
        &outline,
        x,
        y,
        r * scale,
        if lying { 1 } else { 0 },
        style::figure_colour(kind, fig),
    );
    if !marks.is_empty() {
        let _ = writeln!(
            out,
            r##"<circle class="marker" cx="{}" cy="{}" r="{}" fill="#ffd43b" stroke="#111" stroke-width="0.8"/>"##,
            num(x + r * 0.75),
            num(y + r * 0.75),
            num((r * 0.3).max(2.5))
        );
    }
    let _ = writeln!(out, "</g>");
}
