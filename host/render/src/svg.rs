//! Drawing tiles, figures and the board with its side panel as SVG text.
//!
//! Everything is written with absolute coordinates (no transforms), one decimal, in a
//! fixed order (placement order, figure order, declaration order), so the same game gives
//! the same bytes. Elements carry data attributes that say what they are:
//!
//! - `<g class="tile" data-cell="x,y" data-tile="ID" data-rotation="90" data-order="n">`;
//! - `<path class="seg" data-cell data-segment data-local data-kind data-location
//!   data-shape="area|line" [data-width]>`: a segment's area (polygons) or centre line;
//!   virtual features (the City of Carcassonne's quarters) in the panel carry
//!   `data-virtual="true"` and no cell;
//! - `<g class="figure" data-figure data-owner data-player data-kind data-feature
//!   data-cell data-location data-segment data-x data-y>`: a figure standing at (x, y);
//! - `<g class="count" data-quarter>` for the Count, `<g class="holder" data-title
//!   data-owner>` for the King and the Robber.

use super::geometry::{Area, Class, SegInput, TileGeom, P};
use super::style::{self, esc, num, path_data, Cmd, FigureShape, Look};
use super::RenderOptions;
use carcassonne_core::{
    FeatureKindDef, FigureId, FigureKindId, FigureLoc, Game, PlayerId, Pos, Rotation, Ruleset,
    Shape, SlotId, SlotRole, SlotScope, Stands, TileKind, Visible,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Width of the side panel.
pub(crate) const PANEL_W: f64 = 300.0;
/// Height of the title band.
const TITLE_H: f64 = 58.0;

/// How a feature kind occupies a tile.
pub(crate) fn class_of(def: &FeatureKindDef) -> Class {
    match def.shape {
        Shape::Edge {
            fields_alongside: false,
            ..
        } => Class::Walled,
        Shape::Edge { .. } => Class::Line,
        Shape::Field => Class::Field,
        Shape::Site => Class::Site,
        Shape::Virtual => Class::Virtual,
    }
}

/// The geometry of a tile kind turned by `r`.
pub(crate) fn tile_geom(rules: &Ruleset, kind: &TileKind, r: Rotation) -> TileGeom {
    let inputs: Vec<SegInput> = kind
        .segments
        .iter()
        .map(|s| {
            let def = rules.kind(s.kind);
            SegInput {
                class: class_of(def),
                sides: s.sides.rotate(r),
                halves: s.halves.rotate(r),
                pennants: s.pennants,
                width: Look::of(def).width(),
            }
        })
        .collect();
    TileGeom::new(&inputs)
}

/// One tile to draw.
pub(crate) struct TileView<'a> {
    pub rules: &'a Ruleset,
    pub kind: &'a TileKind,
    pub rotation: Rotation,
    pub geom: &'a TileGeom,
    /// Top-left corner in pixels.
    pub x: f64,
    pub y: f64,
    /// Side in pixels.
    pub size: f64,
    /// Board cell and the graph index of the tile's first segment.
    pub placed: Option<(Pos, u32)>,
    /// Write each segment's local index on it (contact sheet).
    pub label_segments: bool,
}

impl TileView<'_> {
    fn px(&self, p: P) -> (f64, f64) {
        (self.x + p.0 * self.size, self.y + p.1 * self.size)
    }

    /// SVG path data for closed polygons.
    fn polys_d(&self, polys: &[Vec<P>]) -> String {
        self.path_d(polys, true)
    }

    /// SVG path data for open polylines.
    fn line_d(&self, lines: &[Vec<P>]) -> String {
        self.path_d(lines, false)
    }

    fn path_d(&self, parts: &[Vec<P>], close: bool) -> String {
        let mut d = String::new();
        for part in parts {
            for (k, p) in part.iter().enumerate() {
                let (x, y) = self.px(*p);
                let _ = write!(
                    d,
                    "{}{} {} ",
                    if k == 0 { "M" } else { "L" },
                    num(x),
                    num(y)
                );
            }
            if close {
                d.push_str("Z ");
            }
        }
        d.trim_end().to_string()
    }

    /// The data attributes of segment `i`.
    fn seg_attrs(&self, i: usize) -> String {
        let seg = &self.kind.segments[i];
        let mut a = format!(
            r#"data-local="{i}" data-kind="{}" data-location="{}""#,
            esc(&self.rules.kind(seg.kind).name),
            esc(&seg.location(self.rotation))
        );
        if let Some((pos, first)) = self.placed {
            let _ = write!(
                a,
                r#" data-cell="{},{}" data-segment="{}""#,
                pos.x,
                pos.y,
                first + i as u32
            );
        }
        a
    }
}

/// Draws one tile: ground, fields, roads and rivers, cities, sites, border.
pub(crate) fn draw_tile(out: &mut String, t: &TileView) {
    let s = t.size;
    let segs = &t.kind.segments;
    let looks: Vec<Look> = segs
        .iter()
        .map(|g| Look::of(t.rules.kind(g.kind)))
        .collect();
    let ground = if segs.is_empty() {
        style::STONE
    } else {
        style::FIELD
    };
    let _ = writeln!(
        out,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{ground}"/>"#,
        num(t.x),
        num(t.y),
        num(s),
        num(s)
    );
    if segs.is_empty() {
        // Masonry, so a tile without features reads as the inside of a city.
        for k in 1..4 {
            let y = t.y + s * k as f64 / 4.0;
            let _ = writeln!(
                out,
                r##"<path d="M{} {} L{} {}" stroke="#9a9284" stroke-width="1"/>"##,
                num(t.x),
                num(y),
                num(t.x + s),
                num(y)
            );
        }
    }
    for tri in &t.geom.unclaimed {
        let _ = writeln!(
            out,
            r#"<path class="unclaimed" d="{}" fill="{}"/>"#,
            t.polys_d(std::slice::from_ref(tri)),
            if t.kind.barrier {
                style::ABBEY_GROUND
            } else {
                style::STONE
            }
        );
    }
    if t.kind.barrier {
        // A barrier tile (Abbey & Mayor's abbey): its edges close what they face, drawn
        // as a wall all round.
        let w = s * 0.07;
        let _ = writeln!(
            out,
            r#"<rect class="barrier-wall" x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{}" stroke-width="{}"/>"#,
            num(t.x + w / 2.0),
            num(t.y + w / 2.0),
            num(s - w),
            num(s - w),
            style::ABBEY_WALL,
            num(w)
        );
    }
    let class = |i: usize| class_of(t.rules.kind(segs[i].kind));
    // Fields.
    for i in (0..segs.len()).filter(|&i| class(i) == Class::Field) {
        if let Area::Polygons(polys) = &t.geom.segs[i].area {
            let _ = writeln!(
                out,
                r#"<path class="seg" {} data-shape="area" d="{}" fill="{}"/>"#,
                t.seg_attrs(i),
                t.polys_d(polys),
                looks[i].fill()
            );
        }
    }
    for (a, b) in &t.geom.dividers {
        let (a, b) = (t.px(*a), t.px(*b));
        let _ = writeln!(
            out,
            r#"<path class="divider" d="M{} {} L{} {}" stroke="{}" stroke-width="1.2" stroke-dasharray="3 2"/>"#,
            num(a.0),
            num(a.1),
            num(b.0),
            num(b.1),
            style::FIELD_LINE
        );
    }
    // Roads and rivers: a darker casing under the band.
    let mut village = false;
    let mut pond = false;
    // Rivers first, roads last: a road crossing a river is a bridge.
    let mut lines: Vec<usize> = (0..segs.len())
        .filter(|&i| class(i) == Class::Line)
        .collect();
    lines.sort_by_key(|&i| match looks[i] {
        Look::River => 0,
        Look::Road => 2,
        _ => 1,
    });
    for i in lines {
        if let Area::Lines { lines, width } = &t.geom.segs[i].area {
            let d = t.line_d(lines);
            let w = width * s;
            let _ = writeln!(
                out,
                r#"<path class="casing" d="{d}" fill="none" stroke="{}" stroke-width="{}" stroke-linecap="butt" stroke-linejoin="round"/>"#,
                looks[i].edge(),
                num(w + 2.5)
            );
            let _ = writeln!(
                out,
                r#"<path class="seg" {} data-shape="line" data-width="{}" d="{d}" fill="none" stroke="{}" stroke-width="{}" stroke-linecap="butt" stroke-linejoin="round"/>"#,
                t.seg_attrs(i),
                num(w),
                looks[i].fill(),
                num(w)
            );
            if segs[i].sides.len() == 1 {
                if looks[i] == Look::River {
                    pond = true;
                } else {
                    village = true;
                }
            }
        }
    }
    if let Some(c) = t.geom.village {
        let (cx, cy) = t.px(c);
        let h = super::geometry::VILLAGE_HALF * s;
        if village {
            let _ = writeln!(
                out,
                r##"<path class="village" d="M{} {} L{} {} L{} {} L{} {} L{} {} Z" fill="{}" stroke="#3b2a1e" stroke-width="1"/>"##,
                num(cx - h),
                num(cy + h),
                num(cx - h),
                num(cy - h * 0.3),
                num(cx),
                num(cy - h * 1.2),
                num(cx + h),
                num(cy - h * 0.3),
                num(cx + h),
                num(cy + h),
                style::VILLAGE
            );
        } else if pond {
            let _ = writeln!(
                out,
                r#"<circle class="pond" cx="{}" cy="{}" r="{}" fill="{}" stroke="{}" stroke-width="1"/>"#,
                num(cx),
                num(cy),
                num(h * 1.6),
                style::RIVER,
                style::RIVER_EDGE
            );
        }
    }
    // Cities and other walled kinds, with their pennants.
    for i in (0..segs.len()).filter(|&i| class(i) == Class::Walled) {
        let g = &t.geom.segs[i];
        if let Area::Polygons(polys) = &g.area {
            let _ = writeln!(
                out,
                r#"<path class="seg" {} data-shape="area" d="{}" fill="{}" stroke="{}" stroke-width="{}" stroke-linejoin="round"/>"#,
                t.seg_attrs(i),
                t.polys_d(polys),
                looks[i].fill(),
                looks[i].edge(),
                num((s * 0.035).max(1.5))
            );
        }
        for p in &g.pennants {
            let (x, y) = t.px(*p);
            pennant(out, x, y, s * 0.07);
        }
    }
    // Sites.
    for i in (0..segs.len()).filter(|&i| class(i) == Class::Site) {
        if let Area::Polygons(polys) = &t.geom.segs[i].area {
            let _ = writeln!(
                out,
                r#"<path class="seg" {} data-shape="area" d="{}" fill="{}" stroke="{}" stroke-width="1.2"/>"#,
                t.seg_attrs(i),
                t.polys_d(polys),
                looks[i].fill(),
                looks[i].edge()
            );
            if let Some(poly) = polys.first() {
                let (a, b) = (t.px(poly[0]), t.px(poly[2]));
                site_icon(
                    out,
                    &looks[i],
                    (a.0 + b.0) / 2.0,
                    (a.1 + b.1) / 2.0,
                    (b.0 - a.0) / 2.0,
                );
            }
        }
    }
    // Symbols that segment tags name (inns, cathedrals, goods): over the segment, under
    // figures. Goods take the segment's figure spots in turn, from the second.
    for (i, seg) in segs.iter().enumerate() {
        let g = &t.geom.segs[i];
        let mut goods_spot = g.spots.iter().skip(1).chain(g.spots.first());
        for tag in &seg.tags {
            match style::tag_symbol(tag) {
                Some(style::TagSymbol::Goods(colour)) => {
                    if let Some(p) = goods_spot.next() {
                        let (x, y) = t.px(*p);
                        symbol(out, tag, colour, x, y, s * 0.06);
                    }
                }
                Some(sym) => {
                    if let Some(p) = symbol_spot(g) {
                        let (x, y) = t.px(p);
                        tag_symbol(out, sym, x, y, s * 0.1);
                    }
                }
                None => {}
            }
        }
    }
    let _ = writeln!(
        out,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#00000066" stroke-width="0.8"/>"##,
        num(t.x),
        num(t.y),
        num(s),
        num(s)
    );
    tag_symbols(out, t);
    if t.label_segments {
        for (i, g) in t.geom.segs.iter().enumerate() {
            if let Some(p) = g.spots.first() {
                let (x, y) = t.px(*p);
                let _ = writeln!(
                    out,
                    r##"<g class="seg-label"><circle cx="{}" cy="{}" r="7" fill="#ffffffdd" stroke="#333" stroke-width="0.8"/><text x="{}" y="{}" font-size="10" text-anchor="middle" fill="#111">{i}</text></g>"##,
                    num(x),
                    num(y),
                    num(x),
                    num(y + 3.5)
                );
            }
        }
    }
}

/// Where a segment's tag symbol goes: beside a road (halfway along its first stretch,
/// shifted off the band), or on a walled area away from its first figure spot.
fn symbol_spot(g: &super::geometry::SegGeom) -> Option<super::geometry::P> {
    match &g.area {
        Area::Lines { lines, width } => {
            let line = lines.first()?;
            let (a, b) = (*line.first()?, *line.get(1)?);
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let len = (dx * dx + dy * dy).sqrt();
            if len == 0.0 {
                return None;
            }
            let off = width / 2.0 + 0.1;
            Some((
                (a.0 + b.0) / 2.0 - dy / len * off,
                (a.1 + b.1) / 2.0 + dx / len * off,
            ))
        }
        Area::Polygons(_) => g.spots.get(1).or(g.spots.first()).copied(),
        Area::None => None,
    }
}

/// A tag symbol centred on (x, y), `h` half high (goods are drawn by [`symbol`], which
/// names the tag; here a diamond without it).
pub(crate) fn tag_symbol(out: &mut String, sym: style::TagSymbol, x: f64, y: f64, h: f64) {
    match sym {
        style::TagSymbol::Goods(colour) => symbol(out, "goods", colour, x, y, h * 0.6),
        style::TagSymbol::Inn => {
            let _ = writeln!(
                out,
                r##"<g class="tag-inn" data-tag="inn"><path d="M{} {} L{} {} L{} {} L{} {} Z" fill="#f3e2c0" stroke="#5a3a1a" stroke-width="0.8"/><path d="M{} {} L{} {} L{} {} Z" fill="#b5452f" stroke="#5a3a1a" stroke-width="0.8"/></g>"##,
                num(x - h * 0.7),
                num(y + h * 0.7),
                num(x - h * 0.7),
                num(y - h * 0.1),
                num(x + h * 0.7),
                num(y - h * 0.1),
                num(x + h * 0.7),
                num(y + h * 0.7),
                num(x - h),
                num(y - h * 0.05),
                num(x),
                num(y - h * 0.9),
                num(x + h),
                num(y - h * 0.05)
            );
        }
        style::TagSymbol::Cathedral => {
            let _ = writeln!(
                out,
                r##"<g class="tag-cathedral" data-tag="cathedral"><path d="M{} {} L{} {} L{} {} L{} {} L{} {} L{} {} L{} {} Z" fill="#efe6d2" stroke="#4a3a5a" stroke-width="0.9"/><path d="M{} {} L{} {}" stroke="#4a3a5a" stroke-width="1"/></g>"##,
                num(x - h),
                num(y + h),
                num(x - h),
                num(y - h * 0.2),
                num(x - h * 0.3),
                num(y - h * 0.2),
                num(x),
                num(y - h * 1.2),
                num(x + h * 0.3),
                num(y - h * 0.2),
                num(x + h),
                num(y - h * 0.2),
                num(x + h),
                num(y + h),
                num(x),
                num(y - h * 1.2),
                num(x),
                num(y - h * 1.6)
            );
        }
    }
}

/// A tile symbol named by a segment tag (`wine`, `grain`, `cloth`): a small diamond in
/// its colour, centred on (x, y), `r` half wide.
pub(crate) fn symbol(out: &mut String, tag: &str, colour: &str, x: f64, y: f64, r: f64) {
    let _ = writeln!(
        out,
        r##"<path class="symbol" data-symbol="{}" d="M{} {} L{} {} L{} {} L{} {} Z" fill="{colour}" stroke="#ffffff" stroke-width="1"/>"##,
        esc(tag),
        num(x),
        num(y - r),
        num(x + r),
        num(y),
        num(x),
        num(y + r),
        num(x - r),
        num(y)
    );
}

/// The symbols tile tags stand for (a volcano, a dragon, a magic portal: `style::TILE_TAG_ICONS`)
/// in a corner of the tile, and a small crown on every segment tagged `princess`.
fn tag_symbols(out: &mut String, t: &TileView) {
    let s = t.size;
    let r = s * 0.09;
    for (tag, icon, fill, corner) in style::TILE_TAG_ICONS {
        if !t.kind.has_tag(tag) {
            continue;
        }
        let x = if *corner == 0 {
            t.x + 1.6 * r
        } else {
            t.x + s - 1.6 * r
        };
        let d = path_data(&style::symbol_path(icon), x, t.y + s - 1.6 * r, r, 0);
        let _ = writeln!(
            out,
            r##"<path class="symbol" data-symbol="{tag}" d="{d}" fill="{fill}" fill-opacity="0.85" fill-rule="evenodd" stroke="#111111" stroke-width="0.6"/>"##
        );
    }
    for (i, g) in t.kind.segments.iter().enumerate() {
        if !g.tags.iter().any(|x| x == "princess") {
            continue;
        }
        let Some(p) = t.geom.segs.get(i).and_then(|g| g.spots.first()) else {
            continue;
        };
        let (x, y) = t.px(*p);
        let d = path_data(&style::symbol_path("princess"), x, y - 1.8 * r, r, 0);
        let _ = writeln!(
            out,
            r##"<path class="symbol" data-symbol="princess" d="{d}" fill="#fcc419" stroke="#111111" stroke-width="0.6"/>"##
        );
    }
}

/// A pennant centred on (x, y), `r` half wide.
pub(crate) fn pennant(out: &mut String, x: f64, y: f64, r: f64) {
    let _ = writeln!(
        out,
        r##"<path class="pennant" d="{}" fill="{}" stroke="#ffffff" stroke-width="1.2"/>"##,
        path_data(&style::shield_path(), x, y, r, 0),
        style::PENNANT
    );
}

/// The icon of a site kind in a square centred on (cx, cy), `h` half wide.
pub(crate) fn site_icon(out: &mut String, look: &Look, cx: f64, cy: f64, h: f64) {
    match look {
        Look::Cloister => {
            let _ = writeln!(
                out,
                r##"<path d="M{} {} L{} {} L{} {} L{} {} Z" fill="#f9f3e3" stroke="#7b5a33" stroke-width="0.8"/><path d="M{} {} L{} {} L{} {} Z" fill="#b5452f" stroke="#6e2415" stroke-width="0.8"/>"##,
                num(cx - h * 0.6),
                num(cy - h * 0.1),
                num(cx + h * 0.6),
                num(cy - h * 0.1),
                num(cx + h * 0.6),
                num(cy + h * 0.8),
                num(cx - h * 0.6),
                num(cy + h * 0.8),
                num(cx - h * 0.8),
                num(cy - h * 0.05),
                num(cx),
                num(cy - h * 0.85),
                num(cx + h * 0.8),
                num(cy - h * 0.05)
            );
        }
        Look::Shrine => {
            let _ = writeln!(
                out,
                r##"<path d="M{} {} L{} {} L{} {} L{} {} Z" fill="#5b3a70" stroke="#2e1b3b" stroke-width="0.8"/><path d="M{} {} C{} {} {} {} {} {} Z" fill="#8e6aa6" stroke="#2e1b3b" stroke-width="0.8"/>"##,
                num(cx - h * 0.6),
                num(cy - h * 0.1),
                num(cx + h * 0.6),
                num(cy - h * 0.1),
                num(cx + h * 0.6),
                num(cy + h * 0.8),
                num(cx - h * 0.6),
                num(cy + h * 0.8),
                num(cx - h * 0.6),
                num(cy - h * 0.1),
                num(cx - h * 0.6),
                num(cy - h * 0.95),
                num(cx + h * 0.6),
                num(cy - h * 0.95),
                num(cx + h * 0.6),
                num(cy - h * 0.1)
            );
        }
        other => {
            let mut d = String::new();
            for k in 0..8 {
                let a = std::f64::consts::PI * (k as f64 / 4.0 + 0.125);
                let _ = write!(
                    d,
                    "{}{} {} ",
                    if k == 0 { "M" } else { "L" },
                    num(cx + 0.75 * h * a.cos()),
                    num(cy + 0.75 * h * a.sin())
                );
            }
            let _ = writeln!(
                out,
                r#"<path d="{}Z" fill="{}" stroke="{}" stroke-width="0.8" opacity="0.8"/>"#,
                d,
                other.fill(),
                other.edge()
            );
        }
    }
}

/// A figure outline at (cx, cy), `r` = half its height, turned by `quarter`.
pub(crate) fn figure_shape(
    out: &mut String,
    cmds: &[Cmd],
    cx: f64,
    cy: f64,
    r: f64,
    quarter: u8,
    colour: &str,
) {
    let d = path_data(cmds, cx, cy, r, quarter);
    let _ = writeln!(
        out,
        r##"<path d="{d}" fill="none" stroke="#ffffff" stroke-width="{}" stroke-linejoin="round"/><path d="{d}" fill="{colour}" stroke="#111111" stroke-width="1" stroke-linejoin="round"/>"##,
        num((r * 0.3).max(2.0))
    );
}

/// Text at (x, y).
pub(crate) fn text(out: &mut String, x: f64, y: f64, size: f64, attrs: &str, content: &str) {
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" font-size="{}" {attrs}>{}</text>"#,
        num(x),
        num(y),
        num(size),
        esc(content)
    );
}

/// A swatch for a feature kind in the legend, in a 26×16 box at (x, y).
pub(crate) fn kind_swatch(out: &mut String, look: &Look, x: f64, y: f64) {
    let (w, h) = (26.0, 16.0);
    match look {
        Look::Road | Look::River | Look::Line(_) => {
            let _ = writeln!(
                out,
                r##"<rect x="{}" y="{}" width="{w}" height="{h}" fill="{}"/><path d="M{} {} L{} {}" stroke="{}" stroke-width="{}"/><path d="M{} {} L{} {}" stroke="{}" stroke-width="{}"/>"##,
                num(x),
                num(y),
                style::FIELD,
                num(x),
                num(y + h / 2.0),
                num(x + w),
                num(y + h / 2.0),
                look.edge(),
                num(look.width() * 60.0 + 2.5),
                num(x),
                num(y + h / 2.0),
                num(x + w),
                num(y + h / 2.0),
                look.fill(),
                num(look.width() * 60.0)
            );
        }
        Look::Cloister | Look::Shrine | Look::Site(_) => {
            let _ = writeln!(
                out,
                r#"<rect x="{}" y="{}" width="{w}" height="{h}" fill="{}"/>"#,
                num(x),
                num(y),
                style::FIELD
            );
            site_icon(out, look, x + w / 2.0, y + h / 2.0, h / 2.0);
        }
        _ => {
            let _ = writeln!(
                out,
                r#"<rect x="{}" y="{}" width="{w}" height="{h}" fill="{}" stroke="{}" stroke-width="1.5"/>"#,
                num(x),
                num(y),
                look.fill(),
                look.edge()
            );
        }
    }
}

/// Draws the legend at (x, y) in `width`; returns the y below it.
pub(crate) fn legend(
    out: &mut String,
    rules: &Ruleset,
    x: f64,
    mut y: f64,
    with_figures: bool,
    count: bool,
) -> f64 {
    let _ = writeln!(out, r#"<g id="legend">"#);
    text(out, x, y + 14.0, 15.0, r#"font-weight="bold""#, "Legend");
    y += 24.0;
    let row = |out: &mut String, y: &mut f64, label: &str| {
        text(out, x + 34.0, *y + 12.5, 12.0, "", label);
        *y += 20.0;
    };
    for def in rules.kinds() {
        let look = Look::of(def);
        kind_swatch(out, &look, x, y);
        let label = match look {
            Look::City => "city (walls)".to_string(),
            Look::Road => "road".to_string(),
            Look::River => "river".to_string(),
            Look::Field => "field".to_string(),
            Look::Cloister => "cloister".to_string(),
            Look::Shrine => "shrine".to_string(),
            _ => format!("{} ({})", def.name, shape_word(def.shape)),
        };
        row(out, &mut y, &label);
    }
    pennant(out, x + 13.0, y + 8.0, 6.5);
    row(out, &mut y, "pennant");
    // Tag symbols, for the tags some loaded tile carries.
    for (tag, sym) in style::TAG_SYMBOLS {
        let used = rules
            .tiles()
            .iter()
            .any(|(_, k)| k.segments.iter().any(|s| s.tags.iter().any(|t| t == tag)));
        if !used {
            continue;
        }
        if let style::TagSymbol::Goods(colour) = sym {
            symbol(out, tag, colour, x + 13.0, y + 8.0, 6.0);
            row(out, &mut y, &format!("{tag} (goods symbol)"));
        } else {
            tag_symbol(out, *sym, x + 13.0, y + 8.0, 7.0);
            row(out, &mut y, tag);
        }
    }
    let v = super::geometry::VILLAGE_HALF * 60.0;
    let _ = writeln!(
        out,
        r##"<rect x="{}" y="{}" width="26" height="16" fill="{}"/><path d="M{} {} L{} {} L{} {} L{} {} L{} {} Z" fill="{}" stroke="#3b2a1e" stroke-width="1"/>"##,
        num(x),
        num(y),
        style::FIELD,
        num(x + 13.0 - v),
        num(y + 8.0 + v),
        num(x + 13.0 - v),
        num(y + 8.0 - v * 0.3),
        num(x + 13.0),
        num(y + 8.0 - v * 1.2),
        num(x + 13.0 + v),
        num(y + 8.0 - v * 0.3),
        num(x + 13.0 + v),
        num(y + 8.0 + v),
        style::VILLAGE
    );
    row(out, &mut y, "village (roads end here)");
    let _ = writeln!(
        out,
        r#"<rect x="{}" y="{}" width="26" height="16" fill="{}"/><path d="M{} {} L{} {}" stroke="{}" stroke-width="1.2" stroke-dasharray="3 2"/>"#,
        num(x),
        num(y),
        style::FIELD,
        num(x + 2.0),
        num(y + 14.0),
        num(x + 24.0),
        num(y + 2.0),
        style::FIELD_LINE
    );
    row(out, &mut y, "border between two fields");
    let stone = rules.tiles().iter().any(|(_, k)| {
        let (walled, fields) =
            k.segments
                .iter()
                .fold((0u8, 0u8), |(w, f), s| match class_of(rules.kind(s.kind)) {
                    Class::Walled => (w | s.sides.0, f),
                    Class::Field => (w, f | s.halves.0),
                    _ => (w, f),
                });
        !k.barrier
            && (k.segments.is_empty()
                || (0..8).any(|h| walled & (1 << (h / 2)) == 0 && fields & (1 << h) == 0))
    });
    if stone {
        let _ = writeln!(
            out,
            r##"<rect x="{}" y="{}" width="26" height="16" fill="{}" stroke="#9a9284" stroke-width="1"/>"##,
            num(x),
            num(y),
            style::STONE
        );
        row(out, &mut y, "no feature (City of Carcassonne)");
    }
    if rules.tiles().iter().any(|(_, k)| k.barrier) {
        let _ = writeln!(
            out,
            r#"<rect x="{}" y="{}" width="26" height="16" fill="{}" stroke="{}" stroke-width="3"/>"#,
            num(x + 1.5),
            num(y + 1.5),
            style::ABBEY_GROUND,
            style::ABBEY_WALL
        );
        row(out, &mut y, "abbey (closes every edge)");
    }
    if with_figures {
        for (k, def) in rules.figure_kinds().iter().enumerate() {
            let (outline, scale) = style::figure_outline(k, def);
            figure_shape(out, &outline, x + 13.0, y + 8.0, 8.0 * scale, 0, "#bbbbbb");
            row(out, &mut y, &def.name);
        }
        figure_shape(
            out,
            &FigureShape::Meeple.path(),
            x + 13.0,
            y + 8.0,
            8.0,
            1,
            "#bbbbbb",
        );
        row(out, &mut y, "lying: a farmer (on a field)");
        if count {
            figure_shape(
                out,
                &style::count_path(),
                x + 13.0,
                y + 8.0,
                8.0,
                0,
                style::COUNT,
            );
            row(out, &mut y, "the Count");
        }
        let _ = writeln!(
            out,
            r#"<rect x="{}" y="{}" width="26" height="16" fill="none" stroke="{}" stroke-width="3"/>"#,
            num(x),
            num(y),
            style::LAST
        );
        row(out, &mut y, "tile placed last");
        text(out, x + 2.0, y + 12.0, 10.0, r##"fill="#333""##, "12");
        row(out, &mut y, "placement order of a tile");
    }
    let _ = writeln!(out, "</g>");
    y
}

fn shape_word(s: Shape) -> &'static str {
    match s {
        Shape::Edge {
            fields_alongside: false,
            ..
        } => "walled edge",
        Shape::Edge { .. } => "edge",
        Shape::Field => "field",
        Shape::Site => "site",
        Shape::Virtual => "off-board",
    }
}

/// `expansion.name` of a slot.
fn slot_label(rules: &Ruleset, i: usize) -> String {
    let d = &rules.slots()[i];
    let exp = rules
        .expansions()
        .get(d.expansion.0 as usize)
        .map_or("?", |e| e.id());
    format!("{exp}.{}", d.name)
}

/// The whole board: title, tiles, figures, side panel.
pub(crate) fn board(game: &Game, opts: &RenderOptions) -> String {
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
    let origin = |p: Pos| {
        (
            margin + f64::from(p.x - min_x) * s,
            TITLE_H + margin + f64::from(p.y - min_y) * s,
        )
    };

    // Tiles, with their geometry computed once per kind and rotation.
    let mut geoms: BTreeMap<(u16, u8), TileGeom> = BTreeMap::new();
    let mut body = String::new();
    let _ = writeln!(body, r#"<g id="board">"#);
    for (i, t) in tiles.iter().enumerate() {
        let kind = rules.tiles().get(t.kind);
        let geom = geoms
            .entry((t.kind.0, t.rotation.quarters()))
            .or_insert_with(|| tile_geom(rules, kind, t.rotation));
        let (x, y) = origin(t.pos);
        let _ = writeln!(
            body,
            r#"<g class="tile" data-cell="{},{}" data-tile="{}" data-rotation="{}" data-order="{}">"#,
            t.pos.x,
            t.pos.y,
            esc(&kind.id),
            t.rotation.degrees(),
            i + 1
        );
        draw_tile(
            &mut body,
            &TileView {
                rules,
                kind,
                rotation: t.rotation,
                geom,
                x,
                y,
                size: s,
                placed: Some((t.pos, t.first_segment)),
                label_segments: false,
            },
        );
        if opts.order_numbers {
            text(
                &mut body,
                x + 2.5,
                y + 9.5,
                (s * 0.11).clamp(7.0, 11.0),
                r##"fill="#000000" fill-opacity="0.6""##,
                &(i + 1).to_string(),
            );
        }
        let _ = writeln!(body, "</g>");
    }
    if let Some(last) = st.last_placed() {
        let t = st.board().tile(last);
        let (x, y) = origin(t.pos);
        let _ = writeln!(
            body,
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
    let _ = writeln!(body, "</g>");

    // Figures on tiles; figures on virtual features go to the panel.
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
    let _ = writeln!(body, r#"<g id="figures">"#);
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
        let (ox, oy) = origin(placed.pos);
        for (k, f) in figs.iter().enumerate() {
            let spot = geom
                .figure_spot(node.local as usize, k)
                .unwrap_or(super::geometry::CENTRE);
            let mut corner_attr = String::new();
            // A figure that stands on a tile corner (Abbey & Mayor's barn keeps it in a
            // figure slot `…corner`) is drawn on that corner, where its four tiles meet.
            let (x, y) = match corner_of(game, *f) {
                Some(c) => {
                    corner_attr = format!(r#" data-corner="{}""#, CORNER_NAMES[c]);
                    let (cx, cy) = CORNER_XY[c];
                    (ox + cx * s, oy + cy * s)
                }
                None => (ox + spot.0 * s, oy + spot.1 * s),
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
            draw_figure(&mut body, game, *f, x, y, fig_r, lying, &attrs);
        }
    }
    neutral_figures(&mut body, game, &mut geoms, &on_segment, &origin, s);
    // What expansions name on tiles (`Visible::Place` on a tile segment, e.g. a tower's
    // height): a small badge beside the segment's first figure spot, so a figure standing
    // there (a tower's capping follower) stays visible on top.
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
            .unwrap_or(super::geometry::CENTRE);
        let (ox, oy) = origin(placed.pos);
        let (bx, by) = (ox + spot.0 * s + fig_r * 1.1, oy + spot.1 * s - fig_r * 1.1);
        let _ = writeln!(
            body,
            r##"<g class="place" data-group="{}" data-name="{}" data-cell="{},{}" data-segment="{}"><circle cx="{}" cy="{}" r="{}" fill="#ffffffee" stroke="#333333" stroke-width="0.8"/>"##,
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
            &mut body,
            bx,
            by + fig_r * 0.32,
            (fig_r * 0.9).max(7.0),
            r#"text-anchor="middle" font-weight="bold""#,
            name,
        );
        let _ = writeln!(body, "</g>");
    }
    let _ = writeln!(body, "</g>");

    // Side panel.
    let px = board_w + 12.0;
    let mut panel = String::new();
    let panel_end = draw_panel(&mut panel, game, px, TITLE_H + 8.0, &virtual_figs);
    let width = (px + PANEL_W + 12.0).max(560.0);
    let height = (TITLE_H + board_h).max(panel_end + 12.0);

    let mut out = String::with_capacity(body.len() + panel.len() + 2048);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Verdana, Arial, sans-serif" data-tile-size="{}">"#,
        num(s),
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
    title(&mut out, game, opts);
    out.push_str(&body);
    out.push_str(&panel);
    out.push_str("</svg>\n");
    out
}

/// Corner names and their offsets in a tile (x east, y south), in the order of the corner
/// slot's values 1…4.
const CORNER_NAMES: [&str; 4] = ["NW", "NE", "SE", "SW"];
const CORNER_XY: [(f64, f64); 4] = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];

/// Whether a figure slot places its figure on a tile corner: its expansion declared it
/// so ([`SlotRole::FigureCorner`]), holding corner + 1 (1 NW, 2 NE, 3 SE, 4 SW).
fn is_corner_slot(d: &carcassonne_core::SlotDef) -> bool {
    d.scope == SlotScope::Figure && d.role == SlotRole::FigureCorner
}

/// The corner (0 NW … 3 SW) figure `f` stands on, if an expansion keeps one for it.
fn corner_of(game: &Game, f: FigureId) -> Option<usize> {
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
fn neutral_figures(
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
                .unwrap_or(super::geometry::CENTRE);
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

/// The title band: what is shown and where the game stands.
fn title(out: &mut String, game: &Game, opts: &RenderOptions) {
    let rules = game.rules();
    let st = game.state();
    let _ = writeln!(out, r#"<g id="title">"#);
    let mut head = "Carcassonne".to_string();
    if let Some(c) = &opts.caption {
        head.push_str(" — ");
        head.push_str(c);
    }
    text(out, 14.0, 24.0, 18.0, r#"font-weight="bold""#, &head);
    let sets: Vec<String> = std::iter::once("base game".to_string())
        .chain(rules.expansions().iter().map(|e| e.id().to_string()))
        .collect();
    let state = if game.is_over() {
        "game over".to_string()
    } else {
        let d = game.decision();
        format!(
            "next: {}",
            st.players()
                .get(d.player.index())
                .map_or("?", |p| p.name.as_str())
        )
    };
    let line = format!(
        "{} · turn {} · {} tiles placed, {} discarded, {} left · {}",
        sets.join(" + "),
        st.turn(),
        st.board().tiles().len(),
        st.discards().len(),
        st.supply()
            .groups
            .iter()
            .map(|g| g.tiles.len())
            .sum::<usize>(),
        state
    );
    text(
        out,
        14.0,
        44.0,
        12.0,
        &format!(r#"fill="{}""#, style::MUTED),
        &line,
    );
    let _ = writeln!(out, "</g>");
}

/// One figure with its data attributes; `lying` for a farmer.
#[allow(clippy::too_many_arguments)]
fn draw_figure(
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
    let owner = fig.owner.index();
    let player = st.players().get(owner).map_or("?", |p| p.name.as_str());
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
        style::player_colour(owner),
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

/// Players and scores, titles, off-board features, legend. Returns the y of its bottom.
fn draw_panel(
    out: &mut String,
    game: &Game,
    x: f64,
    mut y: f64,
    virtual_figs: &BTreeMap<u32, Vec<FigureId>>,
) -> f64 {
    let rules = game.rules();
    let st = game.state();
    let w = PANEL_W;
    let _ = writeln!(out, r#"<g id="panel">"#);
    let _ = writeln!(out, r#"<g id="scores">"#);
    text(out, x, y + 16.0, 15.0, r#"font-weight="bold""#, "Players");
    y += 26.0;
    let best = st.players().iter().map(|p| p.score).max().unwrap_or(0);
    let to_move = (!game.is_over()).then(|| game.decision().player);
    let player_slots: Vec<usize> = rules
        .slots()
        .iter()
        .enumerate()
        .filter(|(_, d)| d.scope == SlotScope::Player && !d.name.starts_with("opt"))
        .map(|(i, _)| i)
        .collect();
    for (p, player) in st.players().iter().enumerate() {
        let colour = style::player_colour(p);
        let _ = writeln!(
            out,
            r#"<g class="player" data-owner="{p}" data-player="{}" data-score="{}">"#,
            esc(&player.name),
            player.score
        );
        if to_move == Some(PlayerId(p as u8)) {
            let _ = writeln!(
                out,
                r#"<path d="M{} {} L{} {} L{} {} Z" fill="{}"/>"#,
                num(x),
                num(y + 4.0),
                num(x + 8.0),
                num(y + 10.0),
                num(x),
                num(y + 16.0),
                style::INK
            );
        }
        figure_shape(
            out,
            &FigureShape::Meeple.path(),
            x + 22.0,
            y + 10.0,
            10.0,
            0,
            colour,
        );
        let mut name: String = player.name.chars().take(22).collect();
        if game.is_over() && player.score == best {
            name.push_str("  (winner)");
        }
        text(out, x + 38.0, y + 15.0, 14.0, "", &name);
        text(
            out,
            x + w - 8.0,
            y + 16.0,
            17.0,
            r#"font-weight="bold" text-anchor="end""#,
            &player.score.to_string(),
        );
        // Figures in supply, per kind.
        let mut sx = x + 38.0;
        for (k, def) in rules.figure_kinds().iter().enumerate() {
            if def.per_player == 0 {
                continue;
            }
            let n = st.in_supply(PlayerId(p as u8), FigureKindId(k as u8));
            let (outline, _) = style::figure_outline(k, def);
            figure_shape(out, &outline, sx + 5.0, y + 29.0, 6.0, 0, colour);
            text(
                out,
                sx + 13.0,
                y + 33.0,
                11.0,
                &format!(r#"fill="{}""#, style::MUTED),
                &format!("×{n}"),
            );
            sx += 44.0;
        }
        y += 42.0;
        if !player_slots.is_empty() {
            let parts: Vec<String> = player_slots
                .iter()
                .map(|&i| format!("{} {}", slot_label(rules, i), st.slot(SlotId(i as u16), p)))
                .collect();
            // Wrapped to the panel's width (about 6 px a character at this size).
            let mut lines: Vec<String> = vec![String::new()];
            for part in parts {
                let cur = lines.last_mut().expect("one line at least");
                if !cur.is_empty() && cur.chars().count() + part.chars().count() + 3 > 42 {
                    lines.push(part);
                } else {
                    if !cur.is_empty() {
                        cur.push_str(" · ");
                    }
                    cur.push_str(&part);
                }
            }
            for line in &lines {
                text(
                    out,
                    x + 38.0,
                    y + 2.0,
                    10.0,
                    &format!(r#"fill="{}""#, style::MUTED),
                    line,
                );
                y += 13.0;
            }
        }
        let _ = writeln!(out, "</g>");
    }
    let _ = writeln!(out, "</g>");

    // What the expansions show of their state (titles, neutral figures): nothing here
    // names an expansion. A failing `describe` leaves that part out of the picture.
    let mut shown = Vec::new();
    let _ = game.view().describe(&mut shown);
    let mut groups_done: Vec<&str> = Vec::new();
    for v in &shown {
        let Visible::Title { group, .. } = v else {
            continue;
        };
        if groups_done.contains(&group.as_str()) {
            continue;
        }
        groups_done.push(group);
        y += 6.0;
        text(out, x, y + 16.0, 15.0, r#"font-weight="bold""#, group);
        y += 26.0;
        for t in &shown {
            let Visible::Title {
                group: g,
                name,
                icon,
                holder,
                detail,
            } = t
            else {
                continue;
            };
            if g != group {
                continue;
            }
            let colour = holder.map_or("#dddddd", |h| style::player_colour(h.index()));
            let _ = writeln!(
                out,
                r#"<g class="holder" data-title="{}" data-owner="{}">"#,
                esc(&name.to_lowercase()),
                holder.map_or("none".to_string(), |h| h.0.to_string())
            );
            figure_shape(
                out,
                &style::icon_path(icon),
                x + 14.0,
                y + 9.0,
                10.0,
                0,
                colour,
            );
            let who = holder
                .and_then(|h| st.players().get(h.index()))
                .map_or_else(|| "nobody yet".to_string(), |p| p.name.clone());
            let detail = if detail.is_empty() {
                String::new()
            } else {
                format!(" ({detail})")
            };
            text(
                out,
                x + 32.0,
                y + 14.0,
                13.0,
                "",
                &format!("{name}: {who}{detail}"),
            );
            let _ = writeln!(out, "</g>");
            y += 24.0;
        }
    }

    // Off-board features (the City of Carcassonne's quarters) with their figures.
    let neutral_at = |seg: carcassonne_core::SegmentId| {
        shown.iter().find_map(|v| match v {
            Visible::NeutralFigure {
                name,
                icon,
                segment,
                ..
            } if *segment == seg => Some((name.as_str(), icon.as_str())),
            _ => None,
        })
    };
    let place_of = |seg: carcassonne_core::SegmentId| {
        shown.iter().find_map(|v| match v {
            Visible::Place {
                group,
                name,
                segment,
            } if *segment == seg => Some((group.as_str(), name.as_str())),
            _ => None,
        })
    };
    let mut groups: BTreeMap<u8, Vec<carcassonne_core::SegmentId>> = BTreeMap::new();
    let g = st.graph();
    for n in g.graph().node_indices() {
        let node = g.segment(n);
        if !node.is_virtual() {
            continue;
        }
        let shown = rules.kind(node.kind).shape == Shape::Virtual
            || virtual_figs.contains_key(&(n.index() as u32));
        if shown {
            groups.entry(node.kind.0).or_default().push(n);
        }
    }
    let mut count_drawn = false;
    for (kind, segs) in &groups {
        let def = &rules.kinds()[*kind as usize];
        let look = Look::of(def);
        y += 6.0;
        // Headings and names come from the expansion's `Visible::Place`s.
        let heading = segs
            .iter()
            .find_map(|s| place_of(*s).map(|(group, _)| group.to_string()))
            .unwrap_or_else(|| format!("{} (off the board)", def.name));
        text(out, x, y + 16.0, 15.0, r#"font-weight="bold""#, &heading);
        y += 24.0;
        let (bw, bh) = ((w - 10.0) / 2.0, 56.0);
        for (k, seg) in segs.iter().enumerate() {
            let node = g.segment(*seg);
            let bx = x + (k % 2) as f64 * (bw + 10.0);
            let by = y + (k / 2) as f64 * (bh + 8.0);
            let name = place_of(*seg).map_or_else(
                || format!("{} #{}", def.name, node.local),
                |(_, name)| name.to_string(),
            );
            let _ = writeln!(
                out,
                r#"<path class="seg" data-virtual="true" data-segment="{}" data-local="{}" data-kind="{}" data-location="{}" data-shape="area" d="M{} {} L{} {} L{} {} L{} {} Z" fill="{}" stroke="{}" stroke-width="1.5"/>"#,
                seg.index(),
                node.local,
                esc(&def.name),
                format_args!("#{}", node.local),
                num(bx),
                num(by),
                num(bx + bw),
                num(by),
                num(bx + bw),
                num(by + bh),
                num(bx),
                num(by + bh),
                look.fill(),
                look.edge()
            );
            text(
                out,
                bx + 6.0,
                by + 14.0,
                12.0,
                r#"font-weight="bold""#,
                &name,
            );
            let figs = virtual_figs
                .get(&(seg.index() as u32))
                .cloned()
                .unwrap_or_default();
            let neutral = neutral_at(*seg);
            let slots = figs.len() + usize::from(neutral.is_some());
            let step = if slots > 0 {
                ((bw - 16.0) / slots as f64).min(24.0)
            } else {
                24.0
            };
            let r = (step * 0.45).min(11.0);
            for (j, f) in figs.iter().enumerate() {
                let fx = bx + 14.0 + j as f64 * step;
                let fy = by + 36.0;
                let attrs = format!(
                    r#"data-feature="{}" data-location="{}" data-segment="{}""#,
                    esc(&def.name),
                    format_args!("#{}", node.local),
                    seg.index()
                );
                draw_figure(out, game, *f, fx, fy, r, false, &attrs);
            }
            if let Some((name, icon)) = neutral {
                let fx = bx + bw - 16.0;
                let _ = writeln!(
                    out,
                    r#"<g class="{}" data-quarter="{}" data-x="{}" data-y="{}">"#,
                    esc(name),
                    node.local,
                    num(fx),
                    num(by + 36.0)
                );
                figure_shape(
                    out,
                    &style::icon_path(icon),
                    fx,
                    by + 36.0,
                    12.0,
                    0,
                    style::COUNT,
                );
                let _ = writeln!(out, "</g>");
                count_drawn = true;
            }
        }
        y += (segs.len().div_ceil(2)) as f64 * (bh + 8.0);
        // A neutral figure drawn here gets a caption naming it (`count` → "the Count").
        if let Some(name) = segs
            .iter()
            .find_map(|s| neutral_at(*s).map(|(name, _)| name))
        {
            let mut title = name.to_string();
            if let Some(first) = title.get(..1).map(str::to_ascii_uppercase) {
                title.replace_range(..1, &first);
            }
            text(
                out,
                x,
                y + 10.0,
                10.0,
                &format!(r#"fill="{}""#, style::MUTED),
                &format!("the purple crowned pawn is the {title}"),
            );
            y += 16.0;
        }
    }

    y += 10.0;
    let y = legend(out, rules, x, y, true, count_drawn);
    let _ = writeln!(out, "</g>");
    y
}
