//! Tile-local geometry: where each segment of a tile lies, drawn from its data alone.
//!
//! Coordinates are in the unit square of one tile, x east, y south, (0, 0) the north-west
//! corner, and already board-oriented (the caller rotates sides and half-edges). The shapes:
//!
//! - **fields** are unions of the eight half-edge triangles (tile centre + the two ends of a
//!   half-edge), which partition the square exactly, so two fields of one tile never overlap;
//! - **walled edge kinds** (cities) are polygons over their sides, closed by an inward curve
//!   across every run of sides they do not cover;
//! - **edge kinds with fields alongside** (roads, rivers) are centre lines along the border
//!   between a side's two halves (side midpoint → centre), which is exactly where the field
//!   triangles of those halves meet;
//! - **sites** (cloisters, shrines) are squares at the centre;
//! - an **inner** field (no half-edges) is the whole square, under everything else.
//!
//! Every segment gets *spots*: points where figures stand, found by sampling its area and
//! keeping the points farthest from its border and from every other feature drawn on top,
//! so a figure is always on the visible part of its own feature.

use carcassonne_core::{HalfSet, SideSet};

/// A point in tile units.
pub type P = (f64, f64);

/// The tile centre.
pub const CENTRE: P = (0.5, 0.5);

/// Boundary points clockwise from the north-west corner: half-edge `i` runs from `B[i]` to
/// `B[i + 1]`; side `s` from `B[2s]` to `B[2s + 2]` with its midpoint at `B[2s + 1]`.
const B: [P; 8] = [
    (0.0, 0.0),
    (0.5, 0.0),
    (1.0, 0.0),
    (1.0, 0.5),
    (1.0, 1.0),
    (0.5, 1.0),
    (0.0, 1.0),
    (0.0, 0.5),
];

/// Half the side of a site's square.
pub const SITE_HALF: f64 = 0.17;
/// Radius of the village marker where roads end in the middle of a tile.
pub const VILLAGE_HALF: f64 = 0.07;
/// How far a city stops short of a corner it shares with another city.
const INSET: f64 = 0.12;
/// Samples per axis when searching an area for spots (odd, so the centre is a sample).
const GRID: usize = 25;
/// Steps per curve when curves are flattened into polygons.
const CURVE_STEPS: usize = 10;
/// Least distance between two figures' spots on one segment.
const SPOT_GAP: f64 = 0.2;
/// At most this many spots per segment.
const MAX_SPOTS: usize = 4;

/// How a segment occupies its tile (from its kind's shape).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// An edge kind that fills its edges (city).
    Walled,
    /// An edge kind with fields along both halves of its edges (road, river).
    Line,
    /// A field.
    Field,
    /// A centre site (cloister, shrine).
    Site,
    /// Off the grid (never on a tile; kept so indices line up).
    Virtual,
}

/// One segment as the geometry needs it.
#[derive(Clone, Copy, Debug)]
pub struct SegInput {
    /// How it occupies the tile.
    pub class: Class,
    /// Sides covered, board-oriented.
    pub sides: SideSet,
    /// Half-edges covered, board-oriented.
    pub halves: HalfSet,
    /// Pennants to place.
    pub pennants: u8,
    /// Drawn width of a line kind, in tile units.
    pub width: f64,
}

/// The area of a segment.
#[derive(Clone, Debug, PartialEq)]
pub enum Area {
    /// Closed polygons (fields, cities, sites).
    Polygons(Vec<Vec<P>>),
    /// Centre lines drawn `width` wide (roads, rivers).
    Lines {
        /// The polylines.
        lines: Vec<Vec<P>>,
        /// Drawn width.
        width: f64,
    },
    /// Nothing on the tile.
    None,
}

/// Geometry of one segment.
#[derive(Clone, Debug, PartialEq)]
pub struct SegGeom {
    /// Its area.
    pub area: Area,
    /// Where figures stand, best first (empty if the segment has no visible room).
    pub spots: Vec<P>,
    /// Where its pennants are drawn.
    pub pennants: Vec<P>,
}

/// Geometry of a whole tile.
#[derive(Clone, Debug, PartialEq)]
pub struct TileGeom {
    /// Per segment, in the tile's local order.
    pub segs: Vec<SegGeom>,
    /// Lines between two different fields that touch with no road or city between them.
    pub dividers: Vec<(P, P)>,
    /// A village where roads end in the middle of the tile with nothing else there.
    pub village: Option<P>,
    /// Half-edge triangles on field or road sides that no field covers (the inside of the
    /// City of Carcassonne; elsewhere a gap in the tile data).
    pub unclaimed: Vec<Vec<P>>,
}

impl TileGeom {
    /// Computes the geometry of a tile's segments.
    pub fn new(segs: &[SegInput]) -> TileGeom {
        let sites: Vec<usize> = (0..segs.len())
            .filter(|&i| segs[i].class == Class::Site)
            .collect();
        // A corner city bulges past the centre only when nothing else needs the room.
        let crowded = segs
            .iter()
            .filter(|s| matches!(s.class, Class::Walled | Class::Line | Class::Site))
            .count()
            > 1;
        let mut areas: Vec<Area> = segs
            .iter()
            .map(|s| match s.class {
                Class::Walled => {
                    let others = segs
                        .iter()
                        .filter(|o| o.class == Class::Walled && o.sides != s.sides)
                        .fold(0u8, |m, o| m | o.sides.0);
                    Area::Polygons(vec![wall_polygon(s.sides, others, crowded)])
                }
                Class::Line => Area::Lines {
                    lines: line_paths(s.sides),
                    width: s.width,
                },
                Class::Field => Area::Polygons(field_polygons(s.halves)),
                Class::Site | Class::Virtual => Area::None,
            })
            .collect();
        for (k, &i) in sites.iter().enumerate() {
            let n = sites.len() as f64;
            let half = if sites.len() == 1 { SITE_HALF } else { 0.13 };
            let cx = 0.5 + (k as f64 - (n - 1.0) / 2.0) * 0.3;
            areas[i] = Area::Polygons(vec![square((cx, 0.5), half)]);
        }
        // A village where a road ends in the middle and nothing else covers the centre
        // (a city, a site, or a road or river running through).
        let covered = |p: P| {
            segs.iter().zip(&areas).any(|(s, a)| match s.class {
                Class::Walled | Class::Site => inside_area(a, p),
                Class::Line => s.sides.len() >= 2 && inside_area(a, p),
                _ => false,
            })
        };
        let village = segs
            .iter()
            .any(|s| s.class == Class::Line && s.sides.len() == 1)
            .then_some(CENTRE)
            .filter(|c| !covered(*c));
        let dividers = dividers(segs);
        let unclaimed = unclaimed(segs);
        let world = World {
            segs,
            areas: &areas,
            village,
        };
        let mut out = Vec::with_capacity(segs.len());
        let mut inner_spots: Vec<P> = Vec::new();
        for (i, s) in segs.iter().enumerate() {
            let mut candidates = world.candidates(i);
            // Two inner fields share the whole tile as their area: keep their figures apart.
            if s.class == Class::Field && s.halves.0 == 0 {
                let apart: Vec<(f64, P)> = candidates
                    .iter()
                    .filter(|(_, p)| inner_spots.iter().all(|q| dist(*p, *q) >= 0.3))
                    .copied()
                    .collect();
                if !apart.is_empty() {
                    candidates = apart;
                }
                if let Some((_, p)) = candidates.first() {
                    inner_spots.push(*p);
                }
            }
            let spots = pick_spots(&candidates, MAX_SPOTS, SPOT_GAP);
            let pennants = if s.class == Class::Walled && s.pennants > 0 {
                pennant_spots(&candidates, spots.first().copied(), s.pennants as usize)
            } else {
                Vec::new()
            };
            out.push(SegGeom {
                area: areas[i].clone(),
                spots,
                pennants,
            });
        }
        TileGeom {
            segs: out,
            dividers,
            village,
            unclaimed,
        }
    }

    /// Where the `k`-th of `n` figures on segment `seg` stands (`None` if the segment has no
    /// room on the tile). Up to four figures get separate spots; more share them.
    pub fn figure_spot(&self, seg: usize, k: usize) -> Option<P> {
        let spots = &self.segs.get(seg)?.spots;
        let first = *spots.first()?;
        if k < spots.len() {
            return Some(spots[k]);
        }
        let base = spots[k % spots.len()];
        let shift = 0.02 * (k / spots.len()) as f64;
        let moved = (base.0 + shift, base.1 + shift);
        Some(if self.contains(seg, moved) {
            moved
        } else {
            first
        })
    }

    /// Whether `p` lies in segment `seg`'s area (on a line: within half its width).
    pub fn contains(&self, seg: usize, p: P) -> bool {
        self.segs.get(seg).is_some_and(|s| inside_area(&s.area, p))
    }
}

/// Everything drawn on one tile, for scoring candidate spots.
struct World<'a> {
    segs: &'a [SegInput],
    areas: &'a [Area],
    village: Option<P>,
}

impl World<'_> {
    /// Candidate spots of segment `i` with their scores, best first.
    fn candidates(&self, i: usize) -> Vec<(f64, P)> {
        let s = &self.segs[i];
        let mut out: Vec<(f64, P)> = match (&self.areas[i], s.class) {
            (Area::Polygons(polys), Class::Site) => {
                let c = centroid(&polys[0]);
                // A site holds its figures on its own square; spread a few across it.
                [c, (c.0 - 0.08, c.1), (c.0 + 0.08, c.1), (c.0, c.1 + 0.08)]
                    .iter()
                    .enumerate()
                    .map(|(k, p)| (1.0 - k as f64 * 0.01, *p))
                    .collect()
            }
            (Area::Polygons(polys), _) => grid()
                .filter(|p| polys.iter().any(|poly| point_in_polygon(*p, poly)))
                .filter_map(|p| {
                    let own = polys
                        .iter()
                        .map(|poly| dist_to_polygon(p, poly))
                        .fold(f64::INFINITY, f64::min);
                    self.clearance(i, p).map(|c| (own.min(c), p))
                })
                .collect(),
            (Area::Lines { lines, .. }, _) => lines
                .iter()
                .flat_map(|l| resample(l, 0.02))
                .filter_map(|p| {
                    let border = p.0.min(1.0 - p.0).min(p.1).min(1.0 - p.1);
                    self.clearance(i, p).map(|c| (border.min(c), p))
                })
                .collect(),
            (Area::None, _) => Vec::new(),
        };
        // Best score first; equal scores keep sampling order (stable sort), so ties break
        // the same way every time.
        out.sort_by(|a, b| b.0.total_cmp(&a.0));
        out
    }

    /// How far `p` is from everything drawn over segment `i` (`None` if covered).
    fn clearance(&self, i: usize, p: P) -> Option<f64> {
        let me = self.segs[i].class;
        let mut best = f64::INFINITY;
        for (j, (s, a)) in self.segs.iter().zip(self.areas).enumerate() {
            if j == i {
                continue;
            }
            // What lies on top of segment i: fields are under everything; lines are under
            // cities and sites; cities are under sites.
            let over = match (me, s.class) {
                (_, Class::Virtual | Class::Field) => false,
                (Class::Field, _) => true,
                (Class::Line, Class::Walled | Class::Site | Class::Line) => true,
                (Class::Walled, Class::Walled | Class::Site) => true,
                _ => false,
            };
            if !over {
                continue;
            }
            match a {
                Area::Polygons(polys) => {
                    for poly in polys {
                        if point_in_polygon(p, poly) {
                            return None;
                        }
                        best = best.min(dist_to_polygon(p, poly));
                    }
                }
                Area::Lines { lines, width } => {
                    let d = lines
                        .iter()
                        .map(|l| dist_to_polyline(p, l))
                        .fold(f64::INFINITY, f64::min)
                        - width / 2.0;
                    if d < 0.0 && me != Class::Line {
                        return None;
                    }
                    best = best.min(d.max(0.0));
                }
                Area::None => {}
            }
        }
        if let Some(v) = self.village {
            // Roads run into the village; everything else keeps clear of it.
            let d = dist(p, v) - VILLAGE_HALF * 1.5;
            if d < 0.0 && me != Class::Line {
                return None;
            }
            best = best.min(d.max(0.0));
        }
        Some(best)
    }
}

/// Greedily picks up to `n` candidates, best first, at least `gap` apart.
fn pick_spots(candidates: &[(f64, P)], n: usize, gap: f64) -> Vec<P> {
    let mut out: Vec<P> = Vec::new();
    for (_, p) in candidates {
        if out.len() == n {
            break;
        }
        if out.iter().all(|q| dist(*p, *q) >= gap) {
            out.push(*p);
        }
    }
    out
}

/// Spots for `n` pennants: good places away from the figure spot and from each other.
fn pennant_spots(candidates: &[(f64, P)], figure: Option<P>, n: usize) -> Vec<P> {
    let mut out: Vec<P> = Vec::new();
    for gap in [0.2, 0.12, 0.0] {
        for (_, p) in candidates {
            if out.len() == n {
                return out;
            }
            let free = figure.is_none_or(|f| dist(*p, f) >= gap)
                && out.iter().all(|q| dist(*p, *q) >= gap.min(0.12));
            if free {
                out.push(*p);
            }
        }
    }
    out
}

/// The sample points of the unit square, row by row.
fn grid() -> impl Iterator<Item = P> {
    (0..GRID).flat_map(|j| {
        (0..GRID).map(move |i| {
            (
                (i as f64 + 0.5) / GRID as f64,
                (j as f64 + 0.5) / GRID as f64,
            )
        })
    })
}

/// The polygon of a walled segment over `sides`: the covered sides, and an inward curve
/// across each run of uncovered sides. Where a run meets a side of another walled segment
/// (`others`), it stops short of the corner, so separate cities stay apart. On a `crowded`
/// tile a corner city curves in, leaving the centre to the roads and sites.
pub fn wall_polygon(sides: SideSet, others: u8, crowded: bool) -> Vec<P> {
    let covered = |s: usize| sides.0 & (1 << (s % 4)) != 0;
    let other = |s: usize| others & (1 << (s % 4)) != 0;
    if sides.len() >= 4 {
        return vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
    }
    let Some(start) = (0..4).find(|&s| covered(s) && !covered(s + 3)) else {
        return Vec::new();
    };
    let corner = |s: usize| B[(2 * s) % 8];
    // The point on side s at the inset from its start (or end) corner.
    let along = |s: usize, from_start: bool| {
        let (a, b) = (corner(s), corner(s + 1));
        let t = if from_start { INSET } else { 1.0 - INSET };
        (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1))
    };
    let first = if other(start + 3) {
        along(start, true)
    } else {
        corner(start)
    };
    let mut pts: Vec<P> = vec![first];
    let mut s = start;
    while s < start + 4 {
        if covered(s) {
            pts.push(if !covered(s + 1) && other(s + 1) {
                along(s, false)
            } else {
                corner(s + 1)
            });
            s += 1;
        } else {
            let gap_start = s;
            while s < start + 4 && !covered(s) {
                s += 1;
            }
            let len = s - gap_start;
            // The middle of the uncovered stretch of border, pulled in past the centre.
            let mid = match len {
                1 => B[(2 * gap_start + 1) % 8],
                2 => corner(gap_start + 1),
                _ => B[(2 * (gap_start + 1) + 1) % 8],
            };
            // How far: a bay in a three-sided city is deep enough for a figure (unless
            // another city lies across it), a corner city bulges, a one-sided cap stays
            // shallow.
            let f = match len {
                1 if other(gap_start) => 1.0,
                1 => 1.3,
                2 if crowded => 1.25,
                2 => 0.5,
                _ => 0.8,
            };
            let ctrl = (mid.0 + f * (0.5 - mid.0), mid.1 + f * (0.5 - mid.1));
            let to = if s == start + 4 {
                first
            } else if other(s - 1) {
                along(s, true)
            } else {
                corner(s)
            };
            let from = *pts.last().unwrap_or(&first);
            pts.extend(quad(from, ctrl, to).into_iter().skip(1));
        }
    }
    // The last curve ends where the polygon started.
    if pts.len() > 1 && pts.first() == pts.last() {
        pts.pop();
    }
    pts
}

/// The centre lines of a line segment over `sides`.
pub fn line_paths(sides: SideSet) -> Vec<Vec<P>> {
    let list: Vec<usize> = (0..4).filter(|s| sides.0 & (1 << s) != 0).collect();
    let mid = |s: usize| B[2 * s + 1];
    match list.as_slice() {
        [a, b] if (a + 2) % 4 == *b => vec![vec![mid(*a), mid(*b)]],
        [a, b] => {
            let inward = |s: usize| {
                let m = mid(s);
                (m.0 + 0.7 * (0.5 - m.0), m.1 + 0.7 * (0.5 - m.1))
            };
            let mut l = vec![mid(*a)];
            l.extend(quad(inward(*a), CENTRE, inward(*b)));
            l.push(mid(*b));
            vec![l]
        }
        _ => list.iter().map(|&s| vec![mid(s), CENTRE]).collect(),
    }
}

/// The polygons of a field over `halves`: one per run of consecutive half-edges, each the
/// tile centre plus the border points of the run. No half-edge: the whole tile (an inner
/// field, under everything else).
pub fn field_polygons(halves: HalfSet) -> Vec<Vec<P>> {
    let has = |i: usize| halves.0 & (1 << (i % 8)) != 0;
    if halves.0 == 0 || halves.0 == 0xff {
        return vec![vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]];
    }
    let mut out = Vec::new();
    for start in (0..8).filter(|&i| has(i) && !has(i + 7)) {
        let mut poly = vec![CENTRE, B[start]];
        let mut i = start;
        while has(i) && i < start + 8 {
            poly.push(B[(i + 1) % 8]);
            i += 1;
        }
        out.push(poly);
    }
    out
}

/// Dividers between different fields whose triangles touch along a line with no road on it.
fn dividers(segs: &[SegInput]) -> Vec<(P, P)> {
    let field_of = |h: usize| {
        segs.iter()
            .position(|s| s.class == Class::Field && s.halves.0 & (1 << (h % 8)) != 0)
    };
    let line_on = |side: usize| {
        segs.iter()
            .any(|s| s.class == Class::Line && s.sides.0 & (1 << side) != 0)
    };
    let mut out = Vec::new();
    for (k, point) in B.iter().enumerate() {
        // Boundary point k lies between half-edges k - 1 and k.
        let (a, b) = (field_of(k + 7), field_of(k));
        let (Some(a), Some(b)) = (a, b) else { continue };
        if a == b || (k % 2 == 1 && line_on(k / 2)) {
            continue;
        }
        out.push((CENTRE, *point));
    }
    out
}

/// The triangles of half-edges that lie on a side no walled segment fills and that belong
/// to no field.
fn unclaimed(segs: &[SegInput]) -> Vec<Vec<P>> {
    if segs.is_empty() {
        return Vec::new();
    }
    let walled = segs
        .iter()
        .filter(|s| s.class == Class::Walled)
        .fold(0u8, |m, s| m | s.sides.0);
    let fields = segs
        .iter()
        .filter(|s| s.class == Class::Field)
        .fold(0u8, |m, s| m | s.halves.0);
    (0..8)
        .filter(|&h| walled & (1 << (h / 2)) == 0 && fields & (1 << h) == 0)
        .map(|h| vec![CENTRE, B[h], B[(h + 1) % 8]])
        .collect()
}

/// A square centred on `c`.
pub fn square(c: P, half: f64) -> Vec<P> {
    vec![
        (c.0 - half, c.1 - half),
        (c.0 + half, c.1 - half),
        (c.0 + half, c.1 + half),
        (c.0 - half, c.1 + half),
    ]
}

/// A quadratic curve from `a` to `b` bent towards `c`, flattened (both ends included).
fn quad(a: P, c: P, b: P) -> Vec<P> {
    (0..=CURVE_STEPS)
        .map(|k| {
            let t = k as f64 / CURVE_STEPS as f64;
            let u = 1.0 - t;
            (
                u * u * a.0 + 2.0 * u * t * c.0 + t * t * b.0,
                u * u * a.1 + 2.0 * u * t * c.1 + t * t * b.1,
            )
        })
        .collect()
}

/// Points along a polyline every `step` (ends included).
fn resample(line: &[P], step: f64) -> Vec<P> {
    let mut out = Vec::new();
    for w in line.windows(2) {
        let n = (dist(w[0], w[1]) / step).ceil().max(1.0) as usize;
        for k in 0..n {
            let t = k as f64 / n as f64;
            out.push((
                w[0].0 + t * (w[1].0 - w[0].0),
                w[0].1 + t * (w[1].1 - w[0].1),
            ));
        }
    }
    if let Some(last) = line.last() {
        out.push(*last);
    }
    out
}

/// Whether `p` lies in an area (on a line: within half its width).
pub fn inside_area(a: &Area, p: P) -> bool {
    match a {
        Area::Polygons(polys) => polys.iter().any(|poly| point_in_polygon(p, poly)),
        Area::Lines { lines, width } => lines
            .iter()
            .any(|l| dist_to_polyline(p, l) <= width / 2.0 + 1e-9),
        Area::None => false,
    }
}

/// Even-odd point-in-polygon test.
pub fn point_in_polygon(p: P, poly: &[P]) -> bool {
    let mut inside = false;
    let n = poly.len();
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + n - 1) % n]);
        if (a.1 > p.1) != (b.1 > p.1) {
            let x = a.0 + (p.1 - a.1) * (b.0 - a.0) / (b.1 - a.1);
            if p.0 < x {
                inside = !inside;
            }
        }
    }
    inside
}

/// Distance between two points.
pub fn dist(a: P, b: P) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// Distance from `p` to the segment `a`–`b`.
pub fn dist_to_segment(p: P, a: P, b: P) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    if len2 == 0.0 {
        return dist(p, a);
    }
    let t = (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0);
    dist(p, (a.0 + t * dx, a.1 + t * dy))
}

/// Distance from `p` to an open polyline.
pub fn dist_to_polyline(p: P, line: &[P]) -> f64 {
    match line {
        [] => f64::INFINITY,
        [a] => dist(p, *a),
        _ => line
            .windows(2)
            .map(|w| dist_to_segment(p, w[0], w[1]))
            .fold(f64::INFINITY, f64::min),
    }
}

/// Distance from `p` to the boundary of a closed polygon.
pub fn dist_to_polygon(p: P, poly: &[P]) -> f64 {
    let n = poly.len();
    (0..n)
        .map(|i| dist_to_segment(p, poly[i], poly[(i + 1) % n]))
        .fold(f64::INFINITY, f64::min)
}

/// The mean of a polygon's vertices.
fn centroid(poly: &[P]) -> P {
    let n = poly.len().max(1) as f64;
    let (x, y) = poly
        .iter()
        .fold((0.0, 0.0), |acc, p| (acc.0 + p.0, acc.1 + p.1));
    (x / n, y / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sides(s: &str) -> SideSet {
        SideSet::parse(s).expect("sides")
    }

    fn halves(list: &[&str]) -> HalfSet {
        let mut h = HalfSet::EMPTY;
        for n in list {
            h.0 |= 1 << carcassonne_core::HalfEdge::parse(n).expect("half").index();
        }
        h
    }

    fn seg(class: Class, s: &str, h: &[&str]) -> SegInput {
        SegInput {
            class,
            sides: if s.is_empty() {
                SideSet::EMPTY
            } else {
                sides(s)
            },
            halves: halves(h),
            pennants: 0,
            width: 0.1,
        }
    }

    #[test]
    fn a_city_cap_covers_its_side_and_not_the_centre() {
        let p = wall_polygon(sides("N"), 0, false);
        assert!(point_in_polygon((0.5, 0.1), &p));
        assert!(!point_in_polygon(CENTRE, &p));
        let three = wall_polygon(sides("NEW"), 0, false);
        assert!(point_in_polygon(CENTRE, &three));
        assert!(!point_in_polygon((0.5, 0.95), &three));
        let band = wall_polygon(sides("NS"), 0, false);
        assert!(point_in_polygon(CENTRE, &band));
        assert!(!point_in_polygon((0.95, 0.5), &band));
    }

    #[test]
    fn road_fields_are_split_by_the_road_and_figures_avoid_it() {
        // BA/RFr: road east-west, a field on each side.
        let t = TileGeom::new(&[
            seg(Class::Line, "EW", &[]),
            seg(Class::Field, "", &["NL", "NR", "EL", "WR"]),
            seg(Class::Field, "", &["ER", "SL", "SR", "WL"]),
        ]);
        assert_eq!(t.segs[0].spots[0], CENTRE);
        assert!(t.segs[1].spots[0].1 < 0.4, "{:?}", t.segs[1].spots);
        assert!(t.segs[2].spots[0].1 > 0.6, "{:?}", t.segs[2].spots);
        assert!(t.dividers.is_empty());
    }

    #[test]
    fn every_spot_is_inside_its_own_area() {
        let t = TileGeom::new(&[
            seg(Class::Walled, "NE", &[]),
            seg(Class::Line, "SW", &[]),
            seg(Class::Field, "", &["SR", "WL"]),
            seg(Class::Field, "", &["SL", "WR"]),
            seg(Class::Site, "", &[]),
        ]);
        for (i, s) in t.segs.iter().enumerate() {
            for p in &s.spots {
                assert!(t.contains(i, *p), "segment {i} spot {p:?}");
            }
        }
    }
}
