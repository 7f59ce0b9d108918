//! Tile kinds: the checked, rotation-ready form of tile data.
//!
//! Tile files are written in the project's schema ([`TileSetData`], documented in
//! `docs/tile-format.md`). Core only defines the schema as serde types; reading the
//! TOML text is the host's job, so core stays free of any file format parser.
//! [`TileSetData`] is an unchecked description; [`TileCatalog::add_set`] turns it into
//! [`TileKind`]s or says precisely which tile and field is wrong.

use crate::kind::{FeatureKindDef, FeatureKindId, Shape};
use crate::side::{HalfEdge, HalfSet, Rotation, Side, SideSet};
use serde::{Deserialize, Serialize};

/// Index of a tile kind in a [`TileCatalog`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TileKindId(pub u16);

/// One tile file: a named set of tile kinds.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileSetData {
    /// Schema version; only 1 exists.
    pub schema: u32,
    /// The set's name (`base`, `river2`, …).
    pub set: String,
    /// The tile kinds.
    #[serde(rename = "tile", default)]
    pub tiles: Vec<TileData>,
}

/// One tile kind as written in a tile file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileData {
    /// Stable id; JCloisterZone's id where the tile exists there (`BA/RCr`).
    pub id: String,
    /// Other names for the kind (the base game's letters).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Copies in the set.
    pub count: u16,
    /// The kind supplies the set's start tile (that copy is part of `count`).
    #[serde(default)]
    pub start: bool,
    /// Edges N E S W at rotation 0 (`F` field, or the letter of an edge kind: `C`, `R`, …).
    /// Derived from the features and checked against them.
    pub edges: String,
    /// Whether figures may be deployed on this tile at all.
    #[serde(default = "yes")]
    pub deploy: bool,
    /// Free-form tile flags for expansions (`volcano`, …).
    #[serde(default)]
    pub tags: Vec<String>,
    /// The tile's segments.
    #[serde(default)]
    pub features: Vec<SegmentData>,
}

fn yes() -> bool {
    true
}

/// One segment of a tile as written in a tile file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentData {
    /// Feature kind name (`city`, `road`, `field`, `cloister`, or an expansion's kind).
    pub kind: String,
    /// Edge kinds: the sides covered, as letters (`"NW"`).
    pub sides: Option<String>,
    /// Fields: the half-edges covered (`["NL", "NR"]`).
    pub halves: Option<Vec<String>>,
    /// A segment touching no edge (a field enclosed by cities): its name (`I`, `II`).
    pub inner: Option<String>,
    /// Pennants (coats of arms) on a city segment.
    #[serde(default)]
    pub pennants: u8,
    /// Fields: the cities on this tile the field borders, each named by one of its sides.
    #[serde(default)]
    pub cities: Vec<String>,
    /// Free-form segment flags for expansions (`inn`, `pig-herd`, …).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Edge kinds: sides another segment of the same kind covers that this one also meets
    /// (JCloisterZone's `multi-edge`: Hills & Sheep's `HS/CC!.v`, whose east city also
    /// touches the north edge). What lies beyond such a side joins both segments.
    pub shares: Option<String>,
}

/// A checked segment of a tile kind, at rotation 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Feature kind.
    pub kind: FeatureKindId,
    /// Sides covered (edge kinds).
    pub sides: SideSet,
    /// Half-edges covered (fields).
    pub halves: HalfSet,
    /// Name of an inner location (`I` for cloisters and enclosed fields).
    pub inner: Option<String>,
    /// Pennants on the segment.
    pub pennants: u8,
    /// Local indices of the city segments this field borders.
    pub cities: Vec<u8>,
    /// Expansion flags.
    pub tags: Vec<String>,
    /// Sides another segment of the same kind covers that this one also meets (edge
    /// kinds): each is one more open edge of its feature until a tile lies beyond it, whose
    /// facing feature then joins this segment too.
    pub shares: SideSet,
}

impl Segment {
    /// JCloisterZone location of this segment once the tile is turned by `r`
    /// (`N`, `WE`, `NL.NR`, `I`, …).
    pub fn location(&self, r: Rotation) -> String {
        if !self.sides.is_empty() {
            self.sides.rotate(r).jcz_name()
        } else if !self.halves.is_empty() {
            self.halves.rotate(r).jcz_name()
        } else {
            self.inner.clone().unwrap_or_else(|| "I".to_string())
        }
    }
}

/// A checked tile kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileKind {
    /// Stable id (JCloisterZone's id).
    pub id: String,
    /// Other names.
    pub aliases: Vec<String>,
    /// Name of the set that defined it.
    pub set: String,
    /// Copies in the set.
    pub count: u16,
    /// Supplies the set's start tile.
    pub start: bool,
    /// Figures may be deployed on it.
    pub deploy: bool,
    /// Expansion flags.
    pub tags: Vec<String>,
    /// Segments in file order; a segment's index is its local id.
    pub segments: Vec<Segment>,
    /// Bit mask of the local segments whose kind is a centre site (cloister-like).
    pub sites: u16,
    /// Whether one of those sites can complete (its kind `completes`): a tile whose sites
    /// never complete (the Big Top's acrobat space) is left out of the count of site tiles
    /// around a cell ([`crate::Board::site_tiles_around`]).
    pub ring: bool,
    /// The side, half-edge and sharer tables turned by each rotation (board-oriented:
    /// `turned[r]` answers [`TileKind::segment_on_side`] and the others with one load);
    /// `turned[0]` is the tile as drawn, which the others are computed from.
    turned: [Turned; 4],
    /// The segments as `place_tile` adds them, per rotation (rotation-major, `segments.len()`
    /// each): computed once when the kind is loaded ([`SegmentTemplate`]).
    templates: Vec<SegmentTemplate>,
    /// Edge codes per rotation: byte `s` is side `s`'s edge (0 = field, k + 1 = edge kind k).
    edge_codes: [u32; 4],
    /// Every edge is a barrier (edges `XXXX`, the abbey): it matches any neighbouring edge,
    /// closes every road or city facing it, joins no field, and the tile goes only into a
    /// hole (an empty cell with four neighbours). Such a tile has no edge or field segments.
    pub barrier: bool,
    /// A variant ([`TileCatalog::add_variant`]): the kind it was made from, whose segments
    /// it starts with, in the same order. Variants are never in a supply: a placed tile
    /// becomes one when an expansion adds a segment to it (a bridge).
    pub variant_of: Option<TileKindId>,
    /// The variants made from this kind (empty for a variant).
    pub variants: Vec<TileKindId>,
    /// Every field's bordering cities on the tile as local (field, city) pairs, in
    /// segment then `cities` order: the borders `place_tile` adds, one flat list
    /// ([`TileKind::borders`]).
    borders: Vec<(u8, u8)>,
}

impl TileKind {
    /// Packed edge codes of the tile turned by `r` (byte `s` = side `s`).
    #[inline]
    pub fn edge_code(&self, r: Rotation) -> u32 {
        self.edge_codes[r.quarters() as usize]
    }

    /// Edge code (0 = field, k + 1 = edge kind k) on board side `side` when turned by `r`.
    #[inline]
    pub fn edge_at(&self, r: Rotation, side: Side) -> u8 {
        (self.edge_code(r) >> (8 * side.index() as u32)) as u8
    }

    /// Local segment covering board side `side` when the tile is turned by `r`.
    #[inline]
    pub fn segment_on_side(&self, r: Rotation, side: Side) -> Option<u8> {
        let s = self.turned(r).side[side.index() as usize];
        (s != NONE).then_some(s)
    }

    /// Local segment that shares board side `side` with the one covering it
    /// (`Segment::shares`) when the tile is turned by `r`.
    #[inline]
    pub fn sharer_on_side(&self, r: Rotation, side: Side) -> Option<u8> {
        let s = self.turned(r).sharer[side.index() as usize];
        (s != NONE).then_some(s)
    }

    /// Local field segment covering board half-edge `h` when the tile is turned by `r`.
    #[inline]
    pub fn segment_on_half(&self, r: Rotation, h: HalfEdge) -> Option<u8> {
        let s = self.turned(r).half[h.index() as usize];
        (s != NONE).then_some(s)
    }

    /// What a neighbour across board side `side` needs of the tile turned by `r`, from one
    /// load: [`TileKind::segment_on_side`], [`TileKind::sharer_on_side`] and
    /// [`TileKind::segment_on_half`] of the side's two half-edges (clockwise order), each
    /// [`NO_SEGMENT`] for none (`place_tile`'s joins).
    #[inline]
    pub fn side_link(&self, r: Rotation, side: Side) -> [u8; 4] {
        self.turned(r).link[side.index() as usize]
    }

    /// The tables turned by `r`.
    #[inline]
    fn turned(&self, r: Rotation) -> &Turned {
        &self.turned[usize::from(r.quarters() & 3)]
    }

    /// The segments as placed turned by `r`, in local order ([`SegmentTemplate`]).
    #[inline]
    pub fn templates(&self, r: Rotation) -> &[SegmentTemplate] {
        let n = self.segments.len();
        let q = usize::from(r.quarters() & 3);
        self.templates.get(q * n..(q + 1) * n).unwrap_or(&[])
    }

    /// Every field's bordering cities on the tile, local (field, city) pairs in segment
    /// then [`Segment::cities`] order (a variant's added segment borders nothing).
    #[inline]
    pub fn borders(&self) -> &[(u8, u8)] {
        &self.borders
    }

    /// [`TileKind::borders`] computed from the segments.
    fn borders_of(segments: &[Segment]) -> Vec<(u8, u8)> {
        segments
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.cities.iter().map(move |&c| (i as u8, c)))
            .collect()
    }

    /// Computes `turned[1..]` from `turned[0]`.
    fn turn_tables(&mut self) {
        let drawn = self.turned[0];
        for r in Rotation::ALL {
            let t = &mut self.turned[r.quarters() as usize];
            for s in Side::ALL {
                let at = s.rotate(r.inverse()).index() as usize;
                t.side[s.index() as usize] = drawn.side[at];
                t.sharer[s.index() as usize] = drawn.sharer[at];
            }
            for h in 0..8u8 {
                t.half[usize::from(h)] = drawn.half[((h + 8 - 2 * r.quarters()) & 7) as usize];
            }
            for s in 0..4 {
                t.link[s] = [t.side[s], t.sharer[s], t.half[2 * s], t.half[2 * s + 1]];
            }
        }
    }

    /// Whether the tile has the tag.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }

    /// The rotations that give distinct edge layouts are all four; this lists those whose
    /// edge code differs from every smaller rotation (useful for symmetric tiles).
    pub fn distinct_rotations(&self) -> impl Iterator<Item = Rotation> + '_ {
        Rotation::ALL.into_iter().filter(move |r| {
            (0..r.quarters())
                .all(|q| self.edge_codes[q as usize] != self.edge_codes[r.quarters() as usize])
        })
    }
}

/// Marks "no segment" in the per-side and per-half-edge tables.
const NONE: u8 = u8::MAX;

/// "No segment" in [`TileKind::side_link`]'s entries.
pub const NO_SEGMENT: u8 = NONE;

/// A tile kind's side, half-edge and sharer tables at one rotation, board-oriented.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Turned {
    /// Local segment covering each side (`NONE` if the side is a field edge).
    side: [u8; 4],
    /// Local field segment covering each half-edge (`NONE` if none).
    half: [u8; 8],
    /// Local segment sharing each side (`Segment::shares`; `NONE` if none).
    sharer: [u8; 4],
    /// Per side `s`, the four tables' entries a neighbour across it needs, in one word
    /// ([`TileKind::side_link`]): `side[s]`, `sharer[s]`, `half[2s]`, `half[2s + 1]`.
    link: [[u8; 4]; 4],
}

impl Default for Turned {
    fn default() -> Turned {
        Turned {
            side: [NONE; 4],
            half: [NONE; 8],
            sharer: [NONE; 4],
            link: [[NONE; 4]; 4],
        }
    }
}

/// One segment of a tile kind as the engine adds it to the feature graph when the tile is
/// placed at one rotation ([`TileKind::templates`]): what does not depend on the board,
/// computed once when the kind is loaded instead of at every placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentTemplate {
    /// Feature kind.
    pub kind: FeatureKindId,
    /// Sides covered, turned.
    pub sides: SideSet,
    /// Half-edges covered, turned.
    pub halves: HalfSet,
    /// Pennants.
    pub pennants: u8,
    /// Open edges when placed, but for a site's empty surrounding cells: an edge kind's
    /// sides and shared sides, a field's half-edges, 0 otherwise.
    pub open: u16,
    /// Whether its kind is a centre site (its open count is the empty cells around).
    pub site: bool,
    /// Whether its feature can complete (an edge or site kind that `completes`).
    pub completable: bool,
    /// Its [`crate::SegmentMark`]s: the marked tags it carries
    /// ([`TileCatalog::mark_segments`]).
    pub marks: u8,
}

impl SegmentTemplate {
    /// The template of `seg` (of kind `def`) turned by `r`.
    pub(crate) fn new(seg: &Segment, def: &FeatureKindDef, r: Rotation) -> SegmentTemplate {
        let edge = matches!(def.shape, Shape::Edge { .. });
        let site = def.shape == Shape::Site;
        SegmentTemplate {
            kind: seg.kind,
            sides: seg.sides.rotate(r),
            halves: seg.halves.rotate(r),
            pennants: seg.pennants,
            open: u16::from(edge) * (seg.sides.len() + seg.shares.len()) as u16
                + seg.halves.0.count_ones() as u16,
            site,
            completable: def.completes & (edge | site),
            marks: 0,
        }
    }

    /// Every segment's templates, rotation-major.
    fn all(segments: &[Segment], kinds: &[FeatureKindDef]) -> Vec<SegmentTemplate> {
        Rotation::ALL
            .into_iter()
            .flat_map(|r| {
                segments
                    .iter()
                    .map(move |seg| SegmentTemplate::new(seg, &kinds[seg.kind.0 as usize], r))
            })
            .collect()
    }
}

/// What is wrong with a tile kind in a tile file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tile set `{set}`, tile `{tile}`: {message}")]
pub struct TileDataError {
    /// The set being loaded.
    pub set: String,
    /// The tile id (`-` for errors about the whole set).
    pub tile: String,
    /// What is wrong, naming the field.
    pub message: String,
}

/// All tile kinds known to a ruleset.
#[derive(Clone, Debug, Default)]
pub struct TileCatalog {
    kinds: Vec<TileKind>,
}

/// The marks of a segment with tags `seg_tags`: bit `i` when it carries `mark_tags[i]`.
pub(crate) fn marks_of(seg_tags: &[String], mark_tags: &[String]) -> u8 {
    mark_tags
        .iter()
        .enumerate()
        .filter(|(_, tag)| seg_tags.contains(tag))
        .fold(0, |m, (b, _)| m | 1 << b)
}

impl TileCatalog {
    /// Sets every segment template's marks: bit `i` when the segment carries `tags[i]`
    /// ([`crate::Declare::segment_mark`]); variants included.
    pub(crate) fn mark_segments(&mut self, tags: &[String]) {
        if tags.is_empty() {
            return;
        }
        for kind in &mut self.kinds {
            // Rotation-major: each rotation's templates in segment order.
            for turned in kind.templates.chunks_mut(kind.segments.len().max(1)) {
                for (t, seg) in turned.iter_mut().zip(&kind.segments) {
                    t.marks = marks_of(&seg.tags, tags);
                }
            }
        }
    }

    /// Number of kinds, variants included: tables indexed by a placed tile's kind cover
    /// them.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Whether no kind is registered.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The kind with this id.
    ///
    /// # Panics
    /// If the id did not come from this catalog.
    #[inline]
    pub fn get(&self, id: TileKindId) -> &TileKind {
        &self.kinds[id.0 as usize]
    }

    /// All kinds with their ids, variants included (after every set's kinds, with no
    /// copies: tables per kind built from this cover every placed tile).
    pub fn iter(&self) -> impl Iterator<Item = (TileKindId, &TileKind)> {
        self.kinds
            .iter()
            .enumerate()
            .map(|(i, k)| (TileKindId(i as u16), k))
    }

    /// The kinds tile sets define (no variants): what listings show.
    pub fn defined(&self) -> impl Iterator<Item = (TileKindId, &TileKind)> {
        self.iter().filter(|(_, k)| k.variant_of.is_none())
    }

    /// Adds a variant of `base`: the same tile with one more edge segment of `kind` on
    /// `sides` (at rotation 0), which must be field edges of `base`; its fields stay as
    /// they are (the new segment passes over them, as a bridge does). Returns `None`
    /// (adding nothing) when the sides are not all field edges, `base` is a barrier or a
    /// variant, or it already has 16 segments.
    pub fn add_variant(
        &mut self,
        base: TileKindId,
        kind: FeatureKindId,
        def: &FeatureKindDef,
        sides: SideSet,
        tag: &str,
    ) -> Option<TileKindId> {
        let b = self.kinds.get(base.0 as usize)?;
        let Shape::Edge { .. } = def.shape else {
            return None;
        };
        let fields = sides
            .iter()
            .all(|s| b.turned[0].side[s.index() as usize] == NONE);
        if b.barrier || b.variant_of.is_some() || b.segments.len() >= 16 || !fields {
            return None;
        }
        let mut v = b.clone();
        let local = v.segments.len() as u8;
        v.segments.push(Segment {
            kind,
            sides,
            halves: HalfSet::EMPTY,
            inner: None,
            pennants: 0,
            cities: Vec::new(),
            tags: vec![tag.to_string()],
            shares: SideSet::EMPTY,
        });
        let mut edge = v.edge_codes[0].to_le_bytes();
        for s in sides.iter() {
            v.turned[0].side[s.index() as usize] = local;
            edge[s.index() as usize] = kind.0 + 1;
        }
        let code = u32::from_le_bytes(edge);
        for r in Rotation::ALL {
            v.edge_codes[r.quarters() as usize] = code.rotate_left(8 * r.quarters() as u32);
        }
        v.turn_tables();
        // The base's templates, each rotation's followed by the new segment's.
        let n = b.segments.len();
        let added = &v.segments[n];
        v.templates = Rotation::ALL
            .into_iter()
            .flat_map(|r| {
                b.templates(r)
                    .iter()
                    .copied()
                    .chain([SegmentTemplate::new(added, def, r)])
            })
            .collect();
        v.count = 0;
        v.start = false;
        v.variant_of = Some(base);
        v.variants = Vec::new();
        let id = TileKindId(u16::try_from(self.kinds.len()).ok()?);
        self.kinds.push(v);
        self.kinds[base.0 as usize].variants.push(id);
        Some(id)
    }

    /// Finds a kind by id or alias.
    pub fn find(&self, name: &str) -> Option<TileKindId> {
        self.defined()
            .find(|(_, k)| k.id == name || k.aliases.iter().any(|a| a == name))
            .map(|(id, _)| id)
    }

    /// Checks a tile set against the registered feature kinds and adds its tiles.
    /// Nothing is added when any tile is wrong.
    pub fn add_set(
        &mut self,
        data: &TileSetData,
        kinds: &[FeatureKindDef],
    ) -> Result<Vec<TileKindId>, TileDataError> {
        let err = |tile: &str, message: String| TileDataError {
            set: data.set.clone(),
            tile: tile.to_string(),
            message,
        };
        if data.schema != 1 {
            return Err(err(
                "-",
                format!("schema {} is not supported (only 1)", data.schema),
            ));
        }
        let mut checked = Vec::with_capacity(data.tiles.len());
        for t in &data.tiles {
            let mut kind = check_tile(t, &data.set, kinds).map_err(|m| err(&t.id, m))?;
            if let Some(known) = self.find(&t.id) {
                // Two sets may share a tile defined alike in both (River I and II's
                // spring, as JCloisterZone's sets share it): it is one kind, added once.
                kind.set.clone_from(&self.get(known).set);
                if *self.get(known) == kind {
                    continue;
                }
                return Err(err(
                    &t.id,
                    "id: a tile with this id and other data already exists".into(),
                ));
            }
            if checked.iter().any(|k: &TileKind| k.id == t.id) {
                return Err(err(&t.id, "id: a tile with this id already exists".into()));
            }
            kind.set = data.set.clone();
            checked.push(kind);
        }
        let first = self.kinds.len();
        self.kinds.extend(checked);
        Ok((first..self.kinds.len())
            .map(|i| TileKindId(i as u16))
            .collect())
    }
}

fn check_tile(t: &TileData, set: &str, kinds: &[FeatureKindDef]) -> Result<TileKind, String> {
    if t.features.len() > 16 {
        return Err("features: at most 16 segments per tile".into());
    }
    let mut segments = Vec::with_capacity(t.features.len());
    let mut edge = [0u8; 4];
    let mut covered_sides = SideSet::EMPTY;
    let mut full_sides = SideSet::EMPTY;
    let mut covered_halves = HalfSet::EMPTY;
    for (i, f) in t.features.iter().enumerate() {
        let at = |m: &str| format!("features[{i}] ({}): {m}", f.kind);
        let kid = kinds
            .iter()
            .position(|k| k.name == f.kind)
            .ok_or_else(|| at("unknown feature kind (is its expansion loaded?)"))?;
        let def = &kinds[kid];
        let kind = FeatureKindId(kid as u8);
        let sides = match &f.sides {
            Some(s) => SideSet::parse(s)
                .ok_or_else(|| at(&format!("sides `{s}`: use N, E, S, W once each")))?,
            None => SideSet::EMPTY,
        };
        let mut halves = HalfSet::EMPTY;
        for h in f.halves.iter().flatten() {
            let he = HalfEdge::parse(h).ok_or_else(|| {
                at(&format!(
                    "halves: `{h}` is not a half-edge (NL NR EL ER SL SR WL WR)"
                ))
            })?;
            halves.0 |= 1 << he.index();
        }
        match def.shape {
            Shape::Edge { .. } => {
                // One with `inner` and no side is enclosed: it touches no open edge (a city
                // behind gates only, The City Gates), so it is complete once placed.
                if sides.is_empty() && f.inner.is_none() {
                    return Err(at("sides: an edge feature must cover at least one side (or be enclosed: `inner` and no `sides`)"));
                }
                if f.halves.is_some() || (f.inner.is_some() && !sides.is_empty()) {
                    return Err(at(
                        "an edge feature takes `sides`, not `halves`; `inner` only without `sides`",
                    ));
                }
                if sides.0 & covered_sides.0 != 0 {
                    return Err(at("sides: a side is covered by two features"));
                }
                covered_sides.0 |= sides.0;
                if let Shape::Edge {
                    fields_alongside: false,
                    ..
                } = def.shape
                {
                    full_sides.0 |= sides.0;
                }
                for s in sides.iter() {
                    edge[s.index() as usize] = kid as u8 + 1;
                }
            }
            Shape::Field => {
                if f.sides.is_some() {
                    return Err(at("a field takes `halves` (or `inner`), not `sides`"));
                }
                if halves.is_empty() == f.inner.is_none() {
                    return Err(at("a field needs either `halves` or `inner`, not both"));
                }
                if halves.0 & covered_halves.0 != 0 {
                    return Err(at("halves: a half-edge is covered by two fields"));
                }
                covered_halves.0 |= halves.0;
            }
            Shape::Site | Shape::Virtual => {
                if f.sides.is_some() || f.halves.is_some() {
                    return Err(at("a centre feature takes no `sides` or `halves`"));
                }
            }
        }
        if f.pennants > 0
            && !matches!(
                def.scoring,
                crate::kind::Scoring::City | crate::kind::Scoring::Points { .. }
            )
        {
            return Err(at("pennants: only cities and kinds scored by declared points carry pennants (markers)"));
        }
        if def.shape == Shape::Virtual {
            return Err(at("a virtual feature kind cannot be drawn on a tile"));
        }
        let shares = match &f.shares {
            Some(_) if !matches!(def.shape, Shape::Edge { .. }) => {
                return Err(at("shares: only an edge feature shares sides"))
            }
            Some(s) => SideSet::parse(s)
                .filter(|x| x.0 & sides.0 == 0)
                .ok_or_else(|| {
                    at(&format!(
                        "shares `{s}`: use N, E, S, W once each, none of its own sides"
                    ))
                })?,
            None => SideSet::EMPTY,
        };
        segments.push(Segment {
            kind,
            sides,
            halves,
            inner: f.inner.clone(),
            pennants: f.pennants,
            cities: Vec::new(),
            tags: f.tags.clone(),
            shares,
        });
    }
    // A field cannot touch an edge that a city-like feature fills completely.
    for h in covered_halves.iter() {
        if full_sides.contains(h.side()) {
            return Err(format!(
                "halves: {} lies on side {} which a feature fills completely",
                HalfEdge::NAMES[h.index() as usize],
                h.side().letter()
            ));
        }
    }
    // Field → city adjacency, each city named by one of its sides.
    for (i, f) in t.features.iter().enumerate() {
        for c in &f.cities {
            let at = |m: &str| format!("features[{i}] ({}): cities: {m}", f.kind);
            if kinds[segments[i].kind.0 as usize].shape != Shape::Field {
                return Err(at("only fields border cities"));
            }
            let side = SideSet::parse(c)
                .filter(|s| s.len() == 1)
                .ok_or_else(|| at(&format!("`{c}` is not a side letter")))?;
            let target = segments
                .iter()
                .position(|s| {
                    s.sides.0 & side.0 != 0
                        && kinds[s.kind.0 as usize].scoring == crate::kind::Scoring::City
                })
                .ok_or_else(|| at(&format!("no city covers side {c}")))?;
            if !segments[i].cities.contains(&(target as u8)) {
                segments[i].cities.push(target as u8);
            }
        }
    }
    // A shared side is covered by another segment of the same kind, and shared once.
    let mut side_sharer = [NONE; 4];
    for (i, seg) in segments.iter().enumerate() {
        for s in seg.shares.iter() {
            let owner = segments.iter().find(|o| o.sides.contains(s));
            if owner.map(|o| o.kind) != Some(seg.kind) || side_sharer[s.index() as usize] != NONE {
                return Err(format!(
                    "features[{i}] ({}): shares: side {} is not covered by another segment of this kind, or is shared twice",
                    t.features[i].kind,
                    s.letter()
                ));
            }
            side_sharer[s.index() as usize] = i as u8;
        }
    }
    // The declared edge string must agree with the features.
    let letters: Vec<char> = t.edges.chars().collect();
    if letters.len() != 4 {
        return Err(format!(
            "edges `{}`: four letters N E S W expected",
            t.edges
        ));
    }
    let barrier = t.edges == "XXXX";
    if barrier
        && segments
            .iter()
            .any(|s| !s.sides.is_empty() || !s.halves.is_empty())
    {
        return Err(format!(
            "edges `{}`: a barrier tile (`XXXX`) has no edge or field segments",
            t.edges
        ));
    }
    for s in Side::ALL {
        if barrier {
            break;
        }
        let derived = match edge[s.index() as usize] {
            0 => 'F',
            k => match kinds[k as usize - 1].shape {
                Shape::Edge { letter, .. } => letter,
                _ => unreachable!("only edge kinds set edge codes"),
            },
        };
        if letters[s.index() as usize] != derived {
            return Err(format!(
                "edges `{}`: side {} is `{}` but the features make it `{derived}`",
                t.edges,
                s.letter(),
                letters[s.index() as usize]
            ));
        }
    }
    let mut side_segment = [NONE; 4];
    let mut half_segment = [NONE; 8];
    let mut sites = 0u16;
    let mut ring = false;
    for (i, seg) in segments.iter().enumerate() {
        for s in seg.sides.iter() {
            side_segment[s.index() as usize] = i as u8;
        }
        for h in seg.halves.iter() {
            half_segment[h.index() as usize] = i as u8;
        }
        if kinds[seg.kind.0 as usize].shape == Shape::Site {
            sites |= 1 << i;
            ring |= kinds[seg.kind.0 as usize].completes;
        }
    }
    let base = u32::from_le_bytes(edge);
    let mut edge_codes = [0u32; 4];
    for r in Rotation::ALL {
        // Turning clockwise by one moves side s to s + 1: the byte moves up by 8 bits.
        edge_codes[r.quarters() as usize] = base.rotate_left(8 * r.quarters() as u32);
    }
    let templates = SegmentTemplate::all(&segments, kinds);
    let borders = TileKind::borders_of(&segments);
    let mut kind = TileKind {
        id: t.id.clone(),
        aliases: t.aliases.clone(),
        set: set.to_string(),
        count: t.count,
        start: t.start,
        deploy: t.deploy,
        tags: t.tags.clone(),
        segments,
        sites,
        ring,
        turned: [
            Turned {
                side: side_segment,
                half: half_segment,
                sharer: side_sharer,
                link: [[NONE; 4]; 4],
            },
            Turned::default(),
            Turned::default(),
            Turned::default(),
        ],
        templates,
        edge_codes,
        barrier,
        variant_of: None,
        variants: Vec::new(),
        borders,
    };
    kind.turn_tables();
    Ok(kind)
}
