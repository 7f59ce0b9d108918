//! One tile from its data: the geometry of its kind turned, its ground, fields, roads,
//! rivers, cities and sites, and the symbols its tags stand for. Used by the board and by
//! the contact sheet alike, so a tile looks the same in both.

use super::marks::{pennant, site_icon, symbol, tag_symbol};
use crate::geometry::{Area, Class, SegInput, TileGeom, P};
use crate::style::{self, esc, num, path_data, Look};
use carcassonne_core::{FeatureKindDef, PlacedTile, Rotation, Ruleset, Shape, TileKind};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{LazyLock, Mutex};

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
    memo_geom(&inputs)
}

/// Most tile geometries remembered (a game shows a few hundred kinds and turns at most).
const MEMO_MAX: usize = 4096;

/// Geometries computed so far, by their inputs. Searching each area for figure spots is most
/// of the cost of drawing a board, and a server draws the same kinds again after every move.
/// A memo of a pure function: the drawing is the same with it or without it.
static GEOMS: LazyLock<Mutex<BTreeMap<Vec<u64>, TileGeom>>> =
    LazyLock::new(|| Mutex::new(BTreeMap::new()));

fn memo_geom(inputs: &[SegInput]) -> TileGeom {
    let key: Vec<u64> = inputs
        .iter()
        .flat_map(|s| {
            // Every field, by name: a field added to `SegInput` must join the key.
            let SegInput {
                class,
                sides,
                halves,
                pennants,
                width,
            } = *s;
            [
                class as u64
                    | u64::from(sides.0) << 8
                    | u64::from(halves.0) << 16
                    | u64::from(pennants) << 24,
                width.to_bits(),
            ]
        })
        .collect();
    let memo = || GEOMS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(g) = memo().get(&key) {
        return g.clone();
    }
    let geom = TileGeom::new(inputs);
    let mut m = memo();
    if m.len() >= MEMO_MAX {
        m.clear();
    }
    m.insert(key, geom.clone());
    geom
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
    /// The tile on the board (its cell and segment nodes).
    pub placed: Option<PlacedTile>,
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
        if let Some(p) = self.placed {
            let _ = write!(
                a,
                r#" data-cell="{},{}" data-segment="{}""#,
                p.pos.x,
                p.pos.y,
                p.segment(i).index()
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
    // Segments an overlay added (a bridge) stand on the tile: drawn raised on a deck.
    let added = t
        .kind
        .variant_of
        .map_or(segs.len(), |b| t.rules.tiles().get(b).segments.len());
    for i in lines {
        if let Area::Lines { lines, width } = &t.geom.segs[i].area {
            let d = t.line_d(lines);
            let w = width * s;
            if i >= added {
                let _ = writeln!(
                    out,
                    r#"<path class="overlay-deck" d="{d}" fill="none" stroke="{}" stroke-width="{}" stroke-linecap="square"/>"#,
                    style::OVERLAY_DECK,
                    num(w + 7.0)
                );
            }
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
        let h = crate::geometry::VILLAGE_HALF * s;
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
fn symbol_spot(g: &crate::geometry::SegGeom) -> Option<crate::geometry::P> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use carcassonne_core::{HalfSet, SideSet};

    /// The memo answers what the geometry computes, and inputs that differ in any one field
    /// (sides, half-edges, pennants, width, class) are never taken for one another.
    #[test]
    fn the_memo_gives_what_the_geometry_gives() {
        let seg = |class, sides: u8, halves: u8, pennants: u8, width: f64| SegInput {
            class,
            sides: SideSet(sides),
            halves: HalfSet(halves),
            pennants,
            width,
        };
        let cases = [
            vec![seg(Class::Line, 0b0101, 0, 0, 0.1)],
            vec![seg(Class::Line, 0b0101, 0, 0, 0.2)],
            vec![seg(Class::Line, 0b1010, 0, 0, 0.1)],
            vec![seg(Class::Walled, 0b0011, 0, 0, 0.0)],
            vec![seg(Class::Walled, 0b0011, 0, 1, 0.0)],
            vec![
                seg(Class::Walled, 0b0011, 0, 0, 0.0),
                seg(Class::Field, 0, 0b1111_0000, 0, 0.0),
            ],
            vec![
                seg(Class::Walled, 0b0011, 0, 0, 0.0),
                seg(Class::Field, 0, 0b0111_0000, 0, 0.0),
            ],
            vec![
                seg(Class::Field, 0, 0xff, 0, 0.0),
                seg(Class::Site, 0, 0, 0, 0.0),
            ],
        ];
        for inputs in &cases {
            let fresh = TileGeom::new(inputs);
            assert_eq!(memo_geom(inputs), fresh, "computed");
            assert_eq!(memo_geom(inputs), fresh, "remembered");
        }
    }
}
