//! The feature graph: every segment of every placed tile as a node.
//!
//! Nodes are segments (one feature part on one tile, or a virtual feature such as a
//! district of a start block). Edges are [`Link::Borders`]: a field touching a city on the
//! same tile (or a virtual city). A *feature* is the set of segments joined across tile
//! borders; a union-find over node indices keeps the features, their members (a circular
//! list per feature: [`FeatureGraph::members`]) and their running totals (open edges,
//! pennants, occupants), so that merging and completion checks are O(α) instead of graph
//! walks. The joins themselves are not edges of the graph (nothing read them, and a
//! field's few `Borders` edges were found among many: issue 33). Nodes are never removed,
//! so a [`SegmentId`] stays valid for the whole game.
//!
//! The nodes and edges are kept in core's own vectors ([`Segments`], issue 33: a placed
//! tile's nodes are written from its kind's templates by one `extend`, a border is a push
//! and two stores), in petgraph's layout (each node heads its lists of edges, newest first),
//! so [`FeatureGraph::to_petgraph`] builds, on demand, the petgraph graph with the same node
//! and edge indices and every node's edges in the same order.
//!
//! Expansions read the graph through [`FeatureGraph::graph`] (the store: `raw_nodes`,
//! `node_indices`, ...), [`FeatureGraph::to_petgraph`] and the feature queries; only the
//! engine mutates it.

use crate::kind::FeatureKindId;
use crate::pos::Pos;
use crate::side::{HalfSet, SideSet};
use crate::tile::SegmentTemplate;
use petgraph::graph::{NodeIndex, UnGraph};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A node of the feature graph: one segment.
pub type SegmentId = NodeIndex<u32>;

/// Identifies a feature (connected component) at one moment: its representative segment.
/// Merges change the representative, so do not keep a `FeatureId` across placements;
/// keep a [`SegmentId`] and ask [`FeatureGraph::feature_of`] again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FeatureId(pub u32);

impl FeatureId {
    /// The representative segment.
    #[inline]
    pub fn segment(self) -> SegmentId {
        NodeIndex::new(self.0 as usize)
    }
}

/// Index of a placed tile in placement order.
pub type PlacedIndex = u16;

/// Placed-tile index used for virtual segments.
pub const VIRTUAL_TILE: PlacedIndex = PlacedIndex::MAX;

/// A segment node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentNode {
    /// Feature kind.
    pub kind: FeatureKindId,
    /// Cell of its tile; for a virtual segment its anchor cell if `anchored`, else
    /// meaningless.
    pub pos: Pos,
    /// Placed-tile index, or [`VIRTUAL_TILE`].
    pub tile: PlacedIndex,
    /// Local segment index on its tile (or the expansion-chosen slot of a virtual one).
    pub local: u8,
    /// Sides covered, board-oriented.
    pub sides: SideSet,
    /// Half-edges covered, board-oriented.
    pub halves: HalfSet,
    /// Pennants.
    pub pennants: u8,
    /// A virtual segment that stands for a place on the board at `pos`
    /// ([`Ctx::add_virtual_feature_at`](crate::Ctx::add_virtual_feature_at)); `false` for
    /// tile segments.
    pub anchored: bool,
}

impl SegmentNode {
    /// Whether the segment is virtual (not on a grid cell).
    #[inline]
    pub fn is_virtual(&self) -> bool {
        self.tile == VIRTUAL_TILE
    }

    /// The board cell where rules that look at cells find the segment (figures around a
    /// place): its tile's cell, or an anchored virtual segment's anchor; `None` for a
    /// virtual segment without one (an off-board place).
    #[inline]
    pub fn cell(&self) -> Option<Pos> {
        (!self.is_virtual() || self.anchored).then_some(self.pos)
    }
}

/// How two segments relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Parts of one feature meeting across a tile border. Not recorded as an edge: the
    /// union-find keeps which segments form a feature ([`FeatureGraph::feature_of`],
    /// [`FeatureGraph::members`]).
    Joined,
    /// A field bordering a city on the same tile (or a virtual city).
    Borders,
}

/// No edge: the end of a segment's border list.
const NO_EDGE: u32 = u32::MAX;

/// A segment of [`Segments`] with the heads of its border lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// The segment.
    pub weight: SegmentNode,
    /// The newest border from this segment (as its field) and to it (as its city), each
    /// list chained through [`BorderEdge`]s.
    next: [u32; 2],
}

impl Node {
    #[inline]
    fn new(weight: SegmentNode) -> Node {
        Node {
            weight,
            next: [NO_EDGE; 2],
        }
    }
}

/// A [`Link::Borders`] edge of [`Segments`]: `ends[0]` (a field) borders `ends[1]` (a
/// city), with the next older edge of each end's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BorderEdge {
    ends: [u32; 2],
    next: [u32; 2],
}

impl BorderEdge {
    /// The field (the segment it was added from).
    #[inline]
    pub fn source(&self) -> SegmentId {
        NodeIndex::new(self.ends[0] as usize)
    }

    /// The city.
    #[inline]
    pub fn target(&self) -> SegmentId {
        NodeIndex::new(self.ends[1] as usize)
    }
}

/// The feature graph's segments and border edges in core's own vectors (issue 33: a
/// placed tile's segments are written from its kind's templates by one `extend`, and a
/// border is two stores): node `i` is [`SegmentId`] `i`, edges in the order they were
/// added, each segment's borders in two lists (as the field, as the city) newest first,
/// the layout petgraph's `Graph` keeps, so [`Segments::to_petgraph`] rebuilds the same
/// graph (same node and edge indices, same edge order per node). What
/// [`FeatureGraph::graph`] gives.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Segments {
    nodes: Vec<Node>,
    edges: Vec<BorderEdge>,
}

impl Clone for Segments {
    fn clone(&self) -> Segments {
        Segments {
            nodes: self.nodes.clone(),
            edges: self.edges.clone(),
        }
    }

    /// Reuses the buffers (a bot's copies).
    fn clone_from(&mut self, source: &Segments) {
        crate::copy::copy_in_pieces(&mut self.nodes, &source.nodes);
        crate::copy::copy_in_pieces(&mut self.edges, &source.edges);
    }
}

impl std::ops::Index<SegmentId> for Segments {
    type Output = SegmentNode;
    #[inline]
    fn index(&self, s: SegmentId) -> &SegmentNode {
        &self.nodes[s.index()].weight
    }
}

impl Segments {
    fn with_capacity(nodes: usize, edges: usize) -> Segments {
        Segments {
            nodes: Vec::with_capacity(nodes),
            edges: Vec::with_capacity(edges),
        }
    }

    /// The segments in [`SegmentId`] order (each [`Node::weight`]).
    #[inline]
    pub fn raw_nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The border edges in the order they were added.
    #[inline]
    pub fn raw_edges(&self) -> &[BorderEdge] {
        &self.edges
    }

    /// Every segment's id, in order.
    pub fn node_indices(&self) -> impl DoubleEndedIterator<Item = SegmentId> + ExactSizeIterator {
        (0..self.nodes.len()).map(NodeIndex::new)
    }

    /// Number of segments.
    #[inline]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of border edges.
    #[inline]
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// The documented petgraph view, built on demand: an undirected graph with a node per
    /// segment (same indices) and a [`Link::Borders`] edge per border (same indices, each
    /// node's edges listed in the same order as [`FeatureGraph::borders`]).
    pub fn to_petgraph(&self) -> UnGraph<SegmentNode, Link, u32> {
        let mut g = UnGraph::with_capacity(self.nodes.len(), self.edges.len());
        for n in &self.nodes {
            g.add_node(n.weight);
        }
        for e in &self.edges {
            g.add_edge(e.source(), e.target(), Link::Borders);
        }
        g
    }

    /// Adds a segment.
    #[inline]
    fn add_node(&mut self, node: SegmentNode) -> SegmentId {
        let id = NodeIndex::new(self.nodes.len());
        self.nodes.push(Node::new(node));
        id
    }

    /// Adds a border edge from `a` to `b` at the head of `a`'s outgoing and `b`'s incoming
    /// list (as petgraph's `add_edge`; a loop heads both of `a`'s). Out-of-range ends are
    /// ignored (no caller passes one; a panic would be worse than a missing border).
    #[inline]
    fn add_edge(&mut self, a: SegmentId, b: SegmentId) {
        let (a, b) = (a.index(), b.index());
        let e = self.edges.len() as u32;
        let n = self.nodes.len();
        if a >= n || b >= n {
            debug_assert!(false, "a border between unknown segments");
            return;
        }
        let next = [self.nodes[a].next[0], self.nodes[b].next[1]];
        self.nodes[a].next[0] = e;
        self.nodes[b].next[1] = e;
        self.edges.push(BorderEdge {
            ends: [a as u32, b as u32],
            next,
        });
    }

    /// Removes the edges from `e` on and the nodes from `n` on, newest edge first (each
    /// heads its ends' lists when it goes, so the older nodes' lists are restored).
    fn truncate(&mut self, n: usize, e: usize) {
        while self.edges.len() > e {
            let Some(edge) = self.edges.pop() else { break };
            for k in 0..2 {
                if let Some(node) = self.nodes.get_mut(edge.ends[k] as usize) {
                    node.next[k] = edge.next[k];
                }
            }
        }
        self.nodes.truncate(n);
    }

    /// The segments bordering `s` ([`Borders`]).
    #[inline]
    fn borders(&self, s: SegmentId) -> Borders<'_> {
        let [out, inc] = self.nodes.get(s.index()).map_or([NO_EDGE; 2], |n| n.next);
        Borders {
            edges: &self.edges,
            s: s.index() as u32,
            out,
            inc,
        }
    }
}

/// The segments bordering one ([`FeatureGraph::borders`]), as petgraph's `edges(s)` lists
/// them: the edges from it newest first, then those to it (a loop once).
pub struct Borders<'a> {
    edges: &'a [BorderEdge],
    s: u32,
    out: u32,
    inc: u32,
}

impl Iterator for Borders<'_> {
    type Item = SegmentId;

    #[inline]
    fn next(&mut self) -> Option<SegmentId> {
        if let Some(e) = self.edges.get(self.out as usize) {
            self.out = e.next[0];
            return Some(e.target());
        }
        while let Some(e) = self.edges.get(self.inc as usize) {
            self.inc = e.next[1];
            if e.ends[0] != self.s {
                return Some(e.source());
            }
        }
        None
    }
}

/// Running totals of a feature, kept at its representative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeatureTotals {
    /// Open edges (edge kinds) or empty surrounding cells (sites); 0 = complete. Fields
    /// (never complete): their segments' half-edges facing an empty cell, 0 = no tile can
    /// extend the field (a closed field).
    pub open: u16,
    /// Pennants over all segments.
    pub pennants: u16,
    /// Figures standing on the feature.
    pub occupants: u16,
    /// Segments in the feature.
    pub segments: u16,
    /// Whether the feature can complete at all (fields cannot).
    pub completable: bool,
    /// Whether the feature has been scored (and so is closed for further scoring).
    pub scored: bool,
    /// Whether another feature took this one's place ([`crate::Ctx::take_over_feature`]:
    /// a castle built on a completed city). It stays complete, so a farm bordering it still
    /// counts it, but it is closed for scoring and no longer one of the complete features
    /// of its kind ([`FeatureGraph::complete_count`]).
    pub taken: bool,
    /// The [`SegmentMark`]s of its segments, or'ed: whether some segment of the feature
    /// carries a tag an expansion asked about ([`crate::Declare::segment_mark`]), in one
    /// read instead of a walk over the feature's segments.
    pub marks: u8,
}

/// A segment tag an expansion asked core to carry into [`FeatureTotals::marks`]
/// ([`crate::Declare::segment_mark`]): one bit, shared by every expansion that asks for the
/// same tag. At most [`SegmentMark::MAX`] tags a ruleset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SegmentMark(pub(crate) u8);

impl SegmentMark {
    /// No tag: [`SegmentMark::on`] is always false (a symbol switched off by an option).
    pub const NONE: SegmentMark = SegmentMark(0);
    /// Tags a ruleset can mark.
    pub const MAX: usize = 8;

    /// Whether a segment of the feature with these totals carries the tag.
    #[inline]
    pub fn on(self, totals: &FeatureTotals) -> bool {
        totals.marks & self.0 != 0
    }
}

impl FeatureTotals {
    /// Whether the feature is complete.
    #[inline]
    pub fn complete(&self) -> bool {
        self.completable && self.open == 0
    }

    /// Whether the feature counts among the complete features of its kind: complete and
    /// not taken over.
    #[inline]
    pub fn counted(&self) -> bool {
        self.complete() && !self.taken
    }
}

/// [`FeatureGraph::rewind_segments`] removes at most this many appended segments (a
/// search's try adds a few tiles' worth; past that, copying costs no more).
const REWIND_SEGMENTS: usize = 256;

/// The feature graph with its union-find.
pub struct FeatureGraph {
    /// Shared between copies until one places a tile (copy on write): the segments and
    /// their links change only when a tile is placed, so a bot's copies that try
    /// deployments, passes and prompts share them instead of copying them element by
    /// element (issue 33).
    graph: Arc<Segments>,
    /// Union-find entry per segment, in one vector (fewer allocations per state clone).
    /// A feature's size for union by size is `totals.segments` at its root.
    links: Links,
    /// Which `links` these are ([`LinksGen`]): this graph's own id and a count of its
    /// writes to them.
    links_gen: LinksGen,
    /// The final scoring's farms and their completed cities, found once and read by every
    /// hook that asks for them ([`FeatureGraph::farm_memo`]).
    memo: FarmMemo,
    /// The generation of the links this graph was last refilled from
    /// ([`FeatureGraph::refill_from`]; `None` after any other copy).
    refilled: Option<LinksGen>,
    /// Every farm's bordering features as the last refill's source had them, kept across
    /// refills from that source when asked for ([`FeatureGraph::keep_farm_borders`]).
    farm_borders: FarmBorders,
}

/// The shape `Debug` had before the memo (a scratch that is empty between scorings).
impl std::fmt::Debug for FeatureGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FeatureGraph")
            .field("graph", &self.graph)
            .field("links", &self.links.v)
            .finish()
    }
}

/// Each listed farm's completed cities (`cities[start..end]`), valid while `on`: from the
/// final scoring's farm draft until the final scoring ends, and only while the graph is
/// not edited (any [`FeatureGraph::edit`] turns it off: a hook may add a border, a
/// segment or an overlay). A copy of the graph starts without one.
#[derive(Default)]
struct FarmMemo {
    on: bool,
    /// Farm, its cities' range, its tile count.
    farms: Vec<(FeatureId, u32, u32, u32)>,
    cities: Vec<FeatureId>,
}

/// Every farm of a refill's source with the features bordering it
/// ([`FeatureGraph::note_farm_borders`]), valid for the graphs refilled from the source of
/// generation `gen` ([`FeatureGraph::farm_borders`]).
#[derive(Default)]
struct FarmBorders {
    /// Asked for ([`FeatureGraph::keep_farm_borders`]).
    on: bool,
    gen: Option<LinksGen>,
    /// The source's segments and border edges.
    nodes: u32,
    edges: u32,
    /// Per segment of the source: its farm's index in `farms` if it represents a farm.
    slot: Vec<u32>,
    farms: Vec<KeptFarm>,
    /// The farms' bordering features (the source's representatives), `start..end` each.
    features: Vec<FeatureId>,
}

/// A farm of a refill's source ([`FarmBorders`]).
#[derive(Clone, Copy)]
struct KeptFarm {
    /// Its segments then: a feature still represented by the same segment with as many
    /// segments is the same set (features only grow).
    segments: u16,
    tiles: u32,
    start: u32,
    end: u32,
}

/// The farm borders kept from a refill's source, usable for this graph
/// ([`FeatureGraph::farm_borders`]).
pub(crate) struct FarmBordersView<'g> {
    graph: &'g FeatureGraph,
}

impl<'g> FarmBordersView<'g> {
    /// If `farm` (a representative) is a farm of the source unchanged since (not joined to
    /// any segment), the features that bordered it there, each once in order of first
    /// contact as [`FeatureGraph::walk_borders`] meets them (map each through
    /// [`FeatureGraph::feature_of`] for today's features: cities joined since map to one,
    /// met first where the first of them was), and its tile count.
    #[inline]
    pub(crate) fn farm(&self, farm: FeatureId) -> Option<(&'g [FeatureId], u32)> {
        let g = self.graph;
        let fb = &g.farm_borders;
        let k = *fb.slot.get(farm.0 as usize)?;
        let kept = fb.farms.get(k as usize)?;
        if g.totals(farm).segments != kept.segments {
            return None;
        }
        Some((
            &fb.features[kept.start as usize..kept.end as usize],
            kept.tiles,
        ))
    }
}

/// Writes to a [`FeatureGraph`] with its segments borrowed once ([`FeatureGraph::edit`]).
pub(crate) struct GraphEdit<'g> {
    graph: &'g mut Segments,
    links: &'g mut Links,
}

impl GraphEdit<'_> {
    /// Adds a segment as a feature of its own.
    #[inline]
    pub(crate) fn add_segment(&mut self, node: SegmentNode, totals: FeatureTotals) -> SegmentId {
        let id = self.graph.add_node(node);
        let i = id.index() as u32;
        self.links.push(UfLink {
            parent: i,
            next: i,
            totals: FeatureTotals {
                segments: 1,
                pennants: node.pennants as u16,
                ..totals
            },
        });
        if totals.complete() {
            self.count_complete(FeatureId(i), 1);
        }
        id
    }

    /// Adds a placed tile's segments (its kind's templates at its rotation,
    /// [`crate::tile::TileKind::templates`]), each a feature of its own, as
    /// [`GraphEdit::add_segment`] would one by one: `tile` at `pos`, local indices in
    /// order, a site's open count the 8 surrounding cells less the `filled` ones.
    #[inline]
    pub(crate) fn add_tile_segments(
        &mut self,
        templates: &[SegmentTemplate],
        pos: Pos,
        tile: PlacedIndex,
        filled: u16,
    ) {
        let first = self.links.len() as u32;
        debug_assert_eq!(first as usize, self.graph.node_count());
        let empty = 8u16.saturating_sub(filled);
        self.graph
            .nodes
            .extend(templates.iter().enumerate().map(|(i, t)| {
                Node::new(SegmentNode {
                    kind: t.kind,
                    pos,
                    tile,
                    local: i as u8,
                    sides: t.sides,
                    halves: t.halves,
                    pennants: t.pennants,
                    anchored: false,
                })
            }));
        let mut complete = false;
        self.links
            .v
            .extend(templates.iter().enumerate().map(|(i, t)| {
                let j = first + i as u32;
                let totals = FeatureTotals {
                    open: t.open + u16::from(t.site) * empty,
                    pennants: u16::from(t.pennants),
                    occupants: 0,
                    segments: 1,
                    completable: t.completable,
                    scored: false,
                    taken: false,
                    marks: t.marks,
                };
                complete |= totals.complete();
                UfLink {
                    parent: j,
                    next: j,
                    totals,
                }
            }));
        if complete {
            self.count_new_complete(first);
        }
    }

    /// Counts the complete features among the segments from `first` on (each its own
    /// feature): an enclosed city, a cloister placed into a full ring.
    #[cold]
    #[inline(never)]
    fn count_new_complete(&mut self, first: u32) {
        for i in first..self.links.len() as u32 {
            if self.links[i as usize].totals.counted() {
                self.count_complete(FeatureId(i), 1);
            }
        }
    }

    /// Adds `delta` to the complete features of `f`'s kind if `f` (a representative) is
    /// complete: each write to a feature's totals uncounts it before and counts it after.
    /// Most features written are open: that test is inlined, the count is not.
    #[inline(always)]
    fn count(&mut self, f: FeatureId, delta: i32) {
        if self.links[f.0 as usize].totals.counted() {
            self.count_complete(f, delta);
        }
    }

    /// Uncounts two features about to merge (rare: complete features seldom join).
    #[cold]
    #[inline(never)]
    fn count_complete_pair(&mut self, a: FeatureId, b: FeatureId) {
        self.count(a, -1);
        self.count(b, -1);
    }

    #[cold]
    #[inline(never)]
    fn count_complete(&mut self, f: FeatureId, delta: i32) {
        let k = usize::from(self.graph[f.segment()].kind.0);
        if self.links.complete.len() <= k {
            self.links.complete.resize(k + 1, 0);
        }
        self.links.complete[k] = self.links.complete[k].wrapping_add_signed(delta);
        if delta > 0 {
            self.links.completions.seen = self.links.completions.seen.wrapping_add(1);
        }
    }

    /// Notes that a tile is being placed: [`FeatureGraph::completed_since_placement`] is
    /// false until a feature is counted complete again.
    #[inline]
    pub(crate) fn begin_placement(&mut self) {
        self.links.completions.at_placement = self.links.completions.seen;
    }

    /// The feature a segment belongs to.
    #[inline]
    pub(crate) fn feature_of(&self, s: SegmentId) -> FeatureId {
        root(&self.links.v, s)
    }

    /// Joins two segments across a tile border; if `closes_edges`, the feature loses the
    /// two open edges (or field half-edges) that met. Only the union-find records it (no graph edge).
    #[inline]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
    pub(crate) fn join(&mut self, a: SegmentId, b: SegmentId, closes_edges: bool) {
        let (ra, rb) = (self.feature_of(a), self.feature_of(b));
        if ra == rb && !closes_edges {
            return;
        }
        // Uncounted before they are written, counted again after (`count`).
        if ra == rb {
            self.count(ra, -1);
        } else if self.links[ra.0 as usize].totals.complete()
            || self.links[rb.0 as usize].totals.complete()
        {
            self.count_complete_pair(ra, rb);
        }
        let Links { v, journal, .. } = &mut *self.links;
        // The entries as a slice held here: its start and length stay in registers
        // instead of being read again through the vector after every write.
        let mut uf = Union { links: v };
        // A union writes both roots, closing edges the one that stays.
        if journal.on {
            journal.note(ra.0);
            if rb != ra {
                journal.note(rb.0);
            }
        }
        let root = if ra == rb { ra } else { uf.union(ra, rb) };
        if closes_edges {
            let t = &mut uf.links[root.0 as usize].totals;
            t.open = t.open.saturating_sub(2);
        }
        self.count(root, 1);
    }

    /// Joins two field segments whose half-edges meet: the feature loses those two open
    /// half-edges. [`GraphEdit::join`] without its complete counts: a field is never
    /// completable (`place_tile` makes none so, and only fields have half-edges), so this
    /// join, made on most sides of every placement, stays as short as the one it replaced.
    #[inline]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
    pub(crate) fn join_halves(&mut self, a: SegmentId, b: SegmentId) {
        let (ra, rb) = (self.feature_of(a), self.feature_of(b));
        let Links { v, journal, .. } = &mut *self.links;
        debug_assert!(!v[ra.0 as usize].totals.completable && !v[rb.0 as usize].totals.completable);
        if journal.on {
            journal.note(ra.0);
            if rb != ra {
                journal.note(rb.0);
            }
        }
        let mut uf = Union { links: v };
        let root = if ra == rb { ra } else { uf.union(ra, rb) };
        let t = &mut uf.links[root.0 as usize].totals;
        t.open = t.open.saturating_sub(2);
    }

    /// Closes one open edge (or field half-edge) of `s`'s feature without joining anything
    /// (a barrier edge faces it). Not inlined: its callers in `place_tile` are its rare branches (barriers,
    /// shared sides, edges that meet), whose inlined copies lengthened the hot path.
    #[inline(never)]
    pub(crate) fn close_edge(&mut self, s: SegmentId) {
        self.close_feature_edge(self.feature_of(s));
    }

    /// Closes one open edge of feature `f` (a representative).
    #[inline]
    pub(crate) fn close_feature_edge(&mut self, f: FeatureId) {
        if self.links.journal.on {
            self.links.journal.note(f.0);
        }
        self.count(f, -1);
        let t = &mut self.links[f.0 as usize].totals;
        t.open = t.open.saturating_sub(1);
        self.count(f, 1);
    }

    /// Records that a field borders a city.
    pub(crate) fn add_border(&mut self, field: SegmentId, city: SegmentId) {
        self.graph.add_edge(field, city);
    }
}

/// The union-find's entries for [`GraphEdit::join`]'s union.
struct Union<'a> {
    links: &'a mut [UfLink],
}

impl Union<'_> {
    /// Merges two features (their complete counts are the caller's: `GraphEdit::join`).
    fn union(&mut self, a: FeatureId, b: FeatureId) -> FeatureId {
        let (a, b) = (a.0 as usize, b.0 as usize);
        let (big, small) = if self.links[a].totals.segments >= self.links[b].totals.segments {
            (a, b)
        } else {
            (b, a)
        };
        self.links[small].parent = big as u32;
        // Splice the two circular member lists.
        let (nb, ns) = (self.links[big].next, self.links[small].next);
        self.links[big].next = ns;
        self.links[small].next = nb;
        let s = self.links[small].totals;
        let t = &mut self.links[big].totals;
        t.open += s.open;
        t.pennants += s.pennants;
        t.occupants += s.occupants;
        t.segments += s.segments;
        t.scored |= s.scored;
        t.taken |= s.taken;
        t.marks |= s.marks;
        FeatureId(big as u32)
    }
}

/// The representative of `s`'s feature in the union-find.
#[inline]
fn root(links: &[UfLink], s: SegmentId) -> FeatureId {
    // Three loads before the first test: every segment at most two steps below its root
    // (nearly all of them) takes the same path. A loop that stopped after zero, one or two
    // rounds ended on a branch the machine could not predict: the base game ran 10% faster
    // without it (docs/speed-log.md, thirty-third stop).
    let p = links[s.index()].parent;
    let q = links[p as usize].parent;
    let mut i = links[q as usize].parent;
    if i == q {
        return FeatureId(q);
    }
    loop {
        let p = links[i as usize].parent;
        if p == i {
            return FeatureId(i);
        }
        i = p;
    }
}

impl Default for FeatureGraph {
    fn default() -> FeatureGraph {
        FeatureGraph::with_capacity(0)
    }
}

/// A copy has links of its own ([`LinksGen::fresh`]) and no journal.
impl Clone for FeatureGraph {
    fn clone(&self) -> FeatureGraph {
        FeatureGraph {
            graph: Arc::clone(&self.graph),
            links: Links {
                v: self.links.v.clone(),
                journal: LinkJournal::default(),
                complete: self.links.complete.clone(),
                completions: self.links.completions,
            },
            links_gen: LinksGen::fresh(),
            memo: FarmMemo::default(),
            refilled: None,
            farm_borders: FarmBorders::default(),
        }
    }

    /// Reuses this graph's buffer for the links (bots copy states into scratch ones).
    fn clone_from(&mut self, source: &FeatureGraph) {
        self.graph.clone_from(&source.graph);
        crate::copy::copy_in_pieces(&mut self.links.v, &source.links.v);
        self.links.complete.clone_from(&source.links.complete);
        self.links.completions = source.links.completions;
        self.links_gen.version += 1;
        self.links.journal.on = false;
        self.memo.on = false;
        self.refilled = None;
    }
}

/// Which union-find entries a graph holds: the graph's own `id` (unique among all graphs
/// ever made in the process, taken from a global counter when a graph is made or cloned,
/// never on a write) and the `version` its every write (a [`GraphEdit`], an occupant, a
/// scoring mark, a copy into it) counts up. Two graphs never share an id, so a refill that
/// finds its source's generation the one it remembered knows the source's links are the
/// ones it copied last time ([`FeatureGraph::refill_from`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LinksGen {
    id: u64,
    version: u64,
}

impl LinksGen {
    /// A new graph's: an id no other graph has had.
    fn fresh() -> LinksGen {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        LinksGen {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            version: 0,
        }
    }
}

/// A graph's union-find entries, read as the plain vector they are, and the journal of
/// the entries written since a refill, kept beside them so that a [`GraphEdit`] reaches
/// both through one reference.
#[derive(Default)]
struct Links {
    v: Vec<UfLink>,
    journal: LinkJournal,
    /// Complete features per feature kind (by id), kept by every write to a feature's
    /// totals, so that counting them ([`FeatureGraph::complete_count`]) scans nothing: a
    /// search ends a game per playout, and King & Robber's end bonus counts them.
    complete: Vec<u32>,
    /// Counted each time a feature is counted complete after a write (above).
    completions: Completions,
}

/// How many times a feature was counted complete after a write to its totals (`seen`,
/// wrapping), and that number when the last tile was placed ([`GraphEdit::begin_placement`]).
/// Every feature that becomes complete, or is written while complete, counts: so while
/// they are equal, no feature a placement wrote (its tile's segments, the sites around it)
/// is complete, and [`crate::View::completed_by_last_placement`] answers without a walk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Completions {
    seen: u32,
    at_placement: u32,
}

impl std::ops::Deref for Links {
    type Target = Vec<UfLink>;
    #[inline]
    fn deref(&self) -> &Vec<UfLink> {
        &self.v
    }
}

impl std::ops::DerefMut for Links {
    #[inline]
    fn deref_mut(&mut self) -> &mut Vec<UfLink> {
        &mut self.v
    }
}

/// The union-find entries a refilled graph wrote since the refill (`written[..len]`,
/// below `base`, the number of entries then, repeats allowed; those past `base` were
/// appended), so that the next refill from the same unchanged source restores only those.
/// On only from a bot's refill ([`FeatureGraph::refill_from`] with `journal`), not from a
/// plain copy nor a simulation's next game from the set-up state, and off past
/// [`LinkJournal::CAP`] entries (a long try: the next refill copies every entry). A fixed
/// array, so that noting is a store and never a call (a call in `join` made every join,
/// journaled or not, save registers).
struct LinkJournal {
    on: bool,
    len: u8,
    base: u32,
    written: [u32; LinkJournal::CAP],
}

impl Default for LinkJournal {
    fn default() -> LinkJournal {
        LinkJournal {
            on: false,
            len: 0,
            base: 0,
            written: [0; LinkJournal::CAP],
        }
    }
}

impl LinkJournal {
    /// A search's try writes a few features' roots per tile; past this, copying costs
    /// about as much as restoring.
    const CAP: usize = 64;

    /// Notes that entry `i` is about to be written; call only while `on`.
    #[inline(always)]
    fn note(&mut self, i: u32) {
        if i < self.base {
            let n = usize::from(self.len);
            if n < Self::CAP {
                self.written[n] = i;
                self.len += 1;
            } else {
                self.on = false;
            }
        }
    }

    /// The entries noted (while `on`).
    fn written(&self) -> &[u32] {
        &self.written[..usize::from(self.len)]
    }
}

/// A graph's segments kept aside ([`FeatureGraph::segments_handle`]).
pub(crate) struct SegmentsHandle(Arc<Segments>);

/// A segment's union-find parent, its successor in its feature's circular member list,
/// and the running totals of its feature (meaningful at a representative only).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct UfLink {
    parent: u32,
    next: u32,
    totals: FeatureTotals,
}

impl FeatureGraph {
    /// An empty graph with room for `segments` nodes.
    pub fn with_capacity(segments: usize) -> FeatureGraph {
        FeatureGraph {
            graph: Arc::new(Segments::with_capacity(segments, segments)),
            links: Links {
                v: Vec::with_capacity(segments),
                journal: LinkJournal::default(),
                complete: Vec::new(),
                completions: Completions::default(),
            },
            links_gen: LinksGen::fresh(),
            memo: FarmMemo::default(),
            refilled: None,
            farm_borders: FarmBorders::default(),
        }
    }

    /// Room for `segments` segments in all (and as many borders) without growing: a
    /// clone keeps only what is in use, and a game then grows from there.
    pub fn reserve_total(&mut self, segments: usize) {
        let graph = Arc::make_mut(&mut self.graph);
        graph
            .nodes
            .reserve(segments.saturating_sub(graph.nodes.len()));
        graph
            .edges
            .reserve(segments.saturating_sub(graph.edges.len()));
        let links = &mut self.links.v;
        links.reserve(segments.saturating_sub(links.len()));
    }

    /// The graph for writing, borrowed once: this state's own copy of the segments, made
    /// with room for a few more tiles if it was shared ([`Arc::make_mut`] would copy at the
    /// exact length, and the push that follows would copy the whole graph again to grow).
    /// Taking the segments out of their `Arc` costs an atomic operation, so a placement,
    /// which makes a dozen writes, takes them once ([`GraphEdit`]), and with one atomic
    /// compare-exchange: more than one holder (a plain load) means shared, so copied here;
    /// one holder leaves only [`crate::state::unshared_mut`]'s check, inline (no weak
    /// references are ever made, so it copies nothing then). Turns off the final scoring's farm memo.
    pub(crate) fn edit(&mut self) -> GraphEdit<'_> {
        self.memo.on = false;
        self.links_gen.version += 1;
        if Arc::strong_count(&self.graph) != 1 {
            let (n, e) = (self.graph.node_count(), self.graph.edge_count());
            let mut own = Segments::with_capacity(n + 64, e + 64);
            own.clone_from(&self.graph);
            self.graph = Arc::new(own);
        }
        GraphEdit {
            graph: crate::state::unshared_mut(&mut self.graph),
            links: &mut self.links,
        }
    }

    /// A handle on this graph's segments, to give their buffers back with
    /// [`FeatureGraph::adopt_segments`] after a `clone_from` made the graph share another's.
    pub(crate) fn segments_handle(&self) -> SegmentsHandle {
        SegmentsHandle(Arc::clone(&self.graph))
    }

    /// Copies the segments this graph shares into the buffers of `old` (its segments before
    /// a `clone_from`, [`FeatureGraph::segments_handle`]) if nothing else holds them, so
    /// this graph owns its segments again without allocating.
    pub(crate) fn adopt_segments(&mut self, old: SegmentsHandle) {
        let mut own = old.0;
        if Arc::ptr_eq(&own, &self.graph) {
            return;
        }
        if let Some(g) = Arc::get_mut(&mut own) {
            g.clone_from(&self.graph);
            self.graph = own;
        }
    }

    /// [`FeatureGraph::adopt_segments`], and whether this graph owns its segments then;
    /// but when `old`'s segments were a copy of `base`'s, this graph shares `base`'s, and
    /// `old` has only been appended to since (all a [`GraphEdit`] does), removes the
    /// appended edges and nodes, newest first (each edge heads its nodes' lists, so that
    /// restores them), instead of copying every segment (issue 33: `engine/snapshot.rs`).
    pub(crate) fn rewind_segments(
        &mut self,
        mut old: SegmentsHandle,
        base: Option<&SegmentsHandle>,
    ) -> bool {
        let base = base
            .filter(|b| Arc::ptr_eq(&b.0, &self.graph))
            .map(|b| (b.0.node_count(), b.0.edge_count()));
        if let (Some(g), Some((n, e))) = (Arc::get_mut(&mut old.0), base) {
            if (n..=n + REWIND_SEGMENTS).contains(&g.node_count()) && g.edge_count() >= e {
                g.truncate(n, e);
                self.graph = old.0;
                return true;
            }
        }
        self.adopt_segments(old);
        Arc::strong_count(&self.graph) == 1
    }

    /// `clone_from` for a refill ([`GameState::refill_from`](crate::state::GameState)):
    /// when `base`, the generation of the source's links at this graph's last refill, is
    /// still theirs (so they are the entries this graph copied then) and this graph's
    /// journal has kept every entry it wrote since, restores only those from `source` and
    /// drops the appended ones instead of copying every entry (issue 33: ~15 KB late in a
    /// game of the nine, some 40 refills a greedy decision). Starts the journal again if
    /// `journal` (a search's try; not a simulation's next game). Returns the source's
    /// generation, the next refill's `base`.
    pub(crate) fn refill_from(
        &mut self,
        source: &FeatureGraph,
        base: Option<LinksGen>,
        journal: bool,
    ) -> LinksGen {
        self.graph.clone_from(&source.graph);
        self.memo.on = false;
        let n = source.links.len();
        self.links.complete.clone_from(&source.links.complete);
        self.links.completions = source.links.completions;
        let Links { v, journal: j, .. } = &mut self.links;
        if base == Some(source.links_gen) && j.on && j.base as usize == n && v.len() >= n {
            v.truncate(n);
            for &i in j.written() {
                v[i as usize] = source.links[i as usize];
            }
        } else {
            crate::copy::copy_in_pieces(v, &source.links.v);
        }
        self.links_gen.version += 1;
        j.on = journal;
        j.base = n as u32;
        j.len = 0;
        debug_assert!(*v == source.links.v, "a refill's links equal its source's");
        self.refilled = Some(source.links_gen);
        source.links_gen
    }

    /// Asks this graph to keep, across its refills from one source, every farm's bordering
    /// features as that source has them ([`FeatureGraph::farm_borders`]): for a search that
    /// refills a copy from one position again and again and ends every copy in the final
    /// scoring (MCTS), where walking each farm's segments for its cities was the largest
    /// part of the valuation. Off by default; a clone starts without it.
    pub(crate) fn keep_farm_borders(&mut self, on: bool) {
        self.farm_borders.on = on;
        self.farm_borders.gen = None;
    }

    /// Whether [`FeatureGraph::note_farm_borders`] is due: kept borders asked for and this
    /// graph was just refilled from a source other than the one they describe.
    #[inline]
    pub(crate) fn farm_borders_due(&self) -> bool {
        self.farm_borders.on && self.refilled.is_some() && self.farm_borders.gen != self.refilled
    }

    /// Notes every farm's bordering features (the features of the segments
    /// [`FeatureGraph::walk_borders`] gives, each once, in order of first contact) and tile
    /// count, for the source this graph was just refilled from (it equals it now);
    /// `is_farm` says which feature kinds are farms.
    pub(crate) fn note_farm_borders(&mut self, is_farm: impl Fn(FeatureKindId) -> bool) {
        let mut fb = std::mem::take(&mut self.farm_borders);
        let n = self.links.len();
        fb.slot.clear();
        fb.slot.resize(n, u32::MAX);
        fb.farms.clear();
        fb.features.clear();
        for i in 0..n {
            let s = SegmentId::new(i);
            if !self.represents(s) || !is_farm(self.graph[s].kind) {
                continue;
            }
            let f = FeatureId(i as u32);
            let start = fb.features.len();
            let tiles = self.walk_borders(f, |c| {
                let b = self.feature_of(c);
                if !fb.features[start..].contains(&b) {
                    fb.features.push(b);
                }
            });
            fb.slot[i] = fb.farms.len() as u32;
            fb.farms.push(KeptFarm {
                segments: self.totals(f).segments,
                tiles,
                start: start as u32,
                end: fb.features.len() as u32,
            });
        }
        fb.nodes = self.graph.node_count() as u32;
        fb.edges = self.graph.edge_count() as u32;
        fb.gen = self.refilled;
        self.farm_borders = fb;
    }

    /// The kept farm borders ([`FeatureGraph::keep_farm_borders`]) if they describe the
    /// source of this graph's last refill and no border has been added since to a segment
    /// that source had (the borders added since are a new tile's, between its own
    /// segments): then a farm the copy has not joined to anything has the same segments,
    /// in the same order, with the same borders, as in the source.
    pub(crate) fn farm_borders(&self) -> Option<FarmBordersView<'_>> {
        let fb = &self.farm_borders;
        if fb.gen.is_none() || fb.gen != self.refilled {
            return None;
        }
        let edges = self.graph.raw_edges();
        let old = fb.nodes as usize;
        let new_borders = edges.get(fb.edges as usize..)?;
        if new_borders
            .iter()
            .any(|e| e.source().index() < old || e.target().index() < old)
        {
            return None;
        }
        Some(FarmBordersView { graph: self })
    }

    /// The segments and their border edges (read-only; [`Segments`]): the segments as
    /// nodes, and a [`Link::Borders`] edge for each field bordering a city (no edge for
    /// joins). [`FeatureGraph::to_petgraph`] gives them as a petgraph graph.
    #[inline]
    pub fn graph(&self) -> &Segments {
        &self.graph
    }

    /// The feature graph as a petgraph graph, built on demand ([`Segments::to_petgraph`]):
    /// a node per segment, a [`Link::Borders`] edge per field bordering a city, indices as
    /// [`SegmentId`]s.
    pub fn to_petgraph(&self) -> UnGraph<SegmentNode, Link, u32> {
        self.graph.to_petgraph()
    }

    /// Number of segments.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether there is no segment.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The node data of a segment.
    #[inline]
    pub fn segment(&self, s: SegmentId) -> &SegmentNode {
        &self.graph[s]
    }

    /// Adds a segment as a feature of its own.
    pub(crate) fn add_segment(&mut self, node: SegmentNode, totals: FeatureTotals) -> SegmentId {
        self.edit().add_segment(node, totals)
    }

    /// The feature a segment belongs to.
    #[inline]
    pub fn feature_of(&self, s: SegmentId) -> FeatureId {
        root(&self.links, s)
    }

    /// Whether `s` represents its feature (`feature_of(s).segment() == s`), read without
    /// walking the union-find: a scan of every segment for features keeps only these.
    #[inline]
    pub fn represents(&self, s: SegmentId) -> bool {
        self.links[s.index()].parent == s.index() as u32
    }

    /// The running totals of a feature.
    #[inline]
    pub fn totals(&self, f: FeatureId) -> &FeatureTotals {
        &self.links[f.0 as usize].totals
    }

    /// Marks a feature scored (closed for further scoring; its completeness is unchanged).
    pub(crate) fn mark_scored(&mut self, f: FeatureId) {
        self.links_gen.version += 1;
        if self.links.journal.on {
            self.links.journal.note(f.0);
        }
        self.links[f.0 as usize].totals.scored = true;
    }

    /// Marks a complete feature taken over by another (a castle on a city): closed for
    /// scoring as if scored, and out of its kind's complete count. Its completeness is
    /// unchanged: farms bordering it still count it.
    pub(crate) fn take_over(&mut self, f: FeatureId) {
        self.links_gen.version += 1;
        if self.links.journal.on {
            self.links.journal.note(f.0);
        }
        if self.links[f.0 as usize].totals.counted() {
            let k = usize::from(self.graph[f.segment()].kind.0);
            if let Some(n) = self.links.complete.get_mut(k) {
                *n = n.saturating_sub(1);
            }
        }
        let t = &mut self.links[f.0 as usize].totals;
        t.scored = true;
        t.taken = true;
    }

    /// The complete features (scored or not, virtual ones included, taken-over ones not:
    /// [`crate::Ctx::take_over_feature`]), in the order of their representatives: one pass
    /// over the union-find, no walk of the segments.
    pub fn complete_features(&self) -> impl Iterator<Item = FeatureId> + '_ {
        self.links
            .iter()
            .enumerate()
            .filter(|(i, l)| l.totals.counted() && l.parent == *i as u32)
            .map(|(i, _)| FeatureId(i as u32))
    }

    /// How many complete features (scored or not, virtual ones included, taken-over ones
    /// not) of `kind` there are: as many as [`FeatureGraph::complete_features`] lists with
    /// that kind, kept as the graph changes instead of counted.
    #[inline]
    pub fn complete_count(&self, kind: FeatureKindId) -> u32 {
        self.links
            .complete
            .get(usize::from(kind.0))
            .copied()
            .unwrap_or(0)
    }

    /// Whether a feature was counted complete after a write since the last tile was
    /// placed ([`Completions`]): false after most placements.
    #[inline]
    pub(crate) fn completed_since_placement(&self) -> bool {
        self.links.completions.seen != self.links.completions.at_placement
    }

    /// The kind of a feature.
    #[inline]
    pub fn kind(&self, f: FeatureId) -> FeatureKindId {
        self.graph[f.segment()].kind
    }

    /// Records that a field borders a city.
    pub(crate) fn add_border(&mut self, field: SegmentId, city: SegmentId) {
        self.edit().add_border(field, city);
    }

    /// The half-edges of `f`'s segments that face an empty cell (`occupied` false), by a
    /// walk of its segments: what [`FeatureTotals::open`] keeps for a field, for checks.
    pub fn open_halves(&self, f: FeatureId, occupied: impl Fn(Pos) -> bool) -> u16 {
        let mut open = 0;
        for s in self.members(f) {
            let node = &self.graph[s];
            for i in 0..8u8 {
                let side = crate::side::Side::from_index(i / 2);
                if node.halves.0 & (1 << i) != 0 && !occupied(node.pos.step(side)) {
                    open += 1;
                }
            }
        }
        open
    }

    /// Every field (a feature of kind [`FeatureKindId::FIELD`]) with its kept open count
    /// and [`FeatureGraph::open_halves`]'s, for checks.
    pub fn field_counts<'a>(
        &'a self,
        occupied: impl Fn(Pos) -> bool + Copy + 'a,
    ) -> impl Iterator<Item = (FeatureId, u16, u16)> + 'a {
        (0..self.len())
            .map(|i| FeatureId(i as u32))
            .filter(|f| self.represents(f.segment()) && self.kind(*f) == FeatureKindId::FIELD)
            .map(move |f| (f, self.totals(f).open, self.open_halves(f, occupied)))
    }

    /// The segments of a feature, starting at its representative.
    pub fn members(&self, f: FeatureId) -> Members<'_> {
        Members {
            graph: self,
            start: f.0,
            cur: Some(f.0),
        }
    }

    /// Number of distinct tiles in a feature (A-9: each tile counts once per feature).
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
    pub fn tile_count(&self, f: FeatureId) -> u32 {
        let mut tiles = TileSet::default();
        for s in self.members(f) {
            if !tiles.add(self.graph[s].tile) {
                return self.tile_count_sorted(f);
            }
        }
        tiles.n
    }

    /// One walk of a feature's segments for farm scoring: gives `border` every segment
    /// linked to one of them by a [`Link::Borders`] edge, in the order [`Self::members`]
    /// then [`Self::borders`] list them, and returns [`Self::tile_count`]. The edges are read
    /// from petgraph's lists directly, and a segment without any is passed over on its
    /// node alone (most of a farm's).
    pub(crate) fn walk_borders(&self, f: FeatureId, mut border: impl FnMut(SegmentId)) -> u32 {
        let g = &*self.graph;
        let mut tiles = TileSet::default();
        let mut sorted = false;
        for s in self.members(f) {
            let node = &g.nodes[s.index()];
            sorted |= !tiles.add(node.weight.tile);
            if node.next == [NO_EDGE; 2] {
                continue;
            }
            for c in g.borders(s) {
                border(c);
            }
        }
        if sorted {
            self.tile_count_sorted(f)
        } else {
            tiles.n
        }
    }

    /// [`FeatureGraph::tile_count`] for a feature on any tile index: sorts them.
    fn tile_count_sorted(&self, f: FeatureId) -> u32 {
        let mut tiles: Vec<u16> = self
            .members(f)
            .map(|s| self.graph[s].tile)
            .filter(|t| *t != VIRTUAL_TILE)
            .collect();
        tiles.sort_unstable();
        tiles.dedup();
        tiles.len() as u32
    }

    /// Segments linked to `s` by a [`Link::Borders`] edge (cities of a field, fields of a city).
    pub fn borders(&self, s: SegmentId) -> Borders<'_> {
        self.graph.borders(s)
    }

    /// The distinct features of kind-shape city bordering a field feature, complete or not,
    /// written into `out` (cleared first) in order of first contact.
    pub fn bordering_features(&self, field: FeatureId, out: &mut Vec<FeatureId>) {
        out.clear();
        for s in self.members(field) {
            for c in self.borders(s) {
                let f = self.feature_of(c);
                if !out.contains(&f) {
                    out.push(f);
                }
            }
        }
    }

    /// The completed cities of `farm` and its tile count, if the final scoring's farm draft
    /// found them and the graph has not been edited since ([`FeatureGraph::remember_farms`]).
    #[inline]
    pub(crate) fn farm_memo(&self, farm: FeatureId) -> Option<(&[FeatureId], u32)> {
        if !self.memo.on {
            return None;
        }
        let m = &self.memo;
        let &(_, a, b, tiles) = m.farms.iter().find(|(f, ..)| *f == farm)?;
        Some((&m.cities[a as usize..b as usize], tiles))
    }

    /// Starts the farm memo: forgets what it held, and keeps what `fill` records (each farm
    /// with its completed cities, [`FarmRecorder::record`]) until the graph is edited or
    /// [`FeatureGraph::forget_farms`].
    pub(crate) fn remember_farms(&mut self, fill: impl FnOnce(&FeatureGraph, &mut FarmRecorder)) {
        let mut rec = FarmRecorder {
            farms: std::mem::take(&mut self.memo.farms),
            cities: std::mem::take(&mut self.memo.cities),
        };
        rec.farms.clear();
        rec.cities.clear();
        self.memo.on = false;
        fill(self, &mut rec);
        self.memo.farms = rec.farms;
        self.memo.cities = rec.cities;
        self.memo.on = true;
    }

    /// Ends the farm memo (kept empty between final scorings, so a copy copies nothing).
    pub(crate) fn forget_farms(&mut self) {
        self.memo.on = false;
        self.memo.farms.clear();
        self.memo.cities.clear();
    }

    pub(crate) fn add_occupant(&mut self, s: SegmentId, delta: i32) {
        let f = self.feature_of(s);
        self.links_gen.version += 1;
        if self.links.journal.on {
            self.links.journal.note(f.0);
        }
        let t = &mut self.links[f.0 as usize].totals;
        t.occupants = (t.occupants as i32 + delta).max(0) as u16;
    }
}

/// The distinct tiles seen: a bit per placed-tile index below `BITS` (every tile of a real
/// game); a feature reaching a later tile is counted by sorting its tile indices instead.
struct TileSet {
    seen: [u64; TileSet::WORDS],
    n: u32,
}

impl Default for TileSet {
    fn default() -> TileSet {
        TileSet {
            seen: [0; TileSet::WORDS],
            n: 0,
        }
    }
}

impl TileSet {
    const WORDS: usize = 16;
    const BITS: u16 = (TileSet::WORDS * 64) as u16;

    /// Counts tile `t` (a virtual segment's none); `false` if it is beyond the bits.
    #[inline]
    fn add(&mut self, t: PlacedIndex) -> bool {
        if t == VIRTUAL_TILE {
            return true;
        }
        if t >= Self::BITS {
            return false;
        }
        let (w, bit) = (usize::from(t / 64), 1u64 << (t % 64));
        self.n += u32::from(self.seen[w] & bit == 0);
        self.seen[w] |= bit;
        true
    }
}

/// Where [`FeatureGraph::remember_farms`] records farms and their cities.
pub(crate) struct FarmRecorder {
    farms: Vec<(FeatureId, u32, u32, u32)>,
    cities: Vec<FeatureId>,
}

impl FarmRecorder {
    /// Records `farm`'s completed cities and tile count (the first record of a farm is the
    /// one read).
    pub(crate) fn record(&mut self, farm: FeatureId, cities: &[FeatureId], tiles: u32) {
        let a = self.cities.len() as u32;
        self.cities.extend_from_slice(cities);
        self.farms.push((farm, a, self.cities.len() as u32, tiles));
    }
}

/// Iterator over the segments of a feature.
pub struct Members<'a> {
    graph: &'a FeatureGraph,
    start: u32,
    cur: Option<u32>,
}

impl Iterator for Members<'_> {
    type Item = SegmentId;

    fn next(&mut self) -> Option<SegmentId> {
        let c = self.cur?;
        let n = self.graph.links[c as usize].next;
        self.cur = (n != self.start).then_some(n);
        Some(NodeIndex::new(c as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `root`'s first three loads and its loop agree with a plain walk at every depth.
    #[test]
    fn root_finds_the_top_of_chains_of_every_depth() {
        // Segment i's parent is i - 1: segment i lies i steps below segment 0.
        let mut links: Vec<UfLink> = (0..8u32)
            .map(|i| UfLink {
                parent: i.saturating_sub(1),
                next: i,
                totals: FeatureTotals::default(),
            })
            .collect();
        for i in 0..8 {
            assert_eq!(root(&links, SegmentId::new(i)), FeatureId(0), "depth {i}");
        }
        // A root of its own, beside the chain.
        links.push(UfLink {
            parent: 8,
            next: 8,
            totals: FeatureTotals::default(),
        });
        assert_eq!(root(&links, SegmentId::new(8)), FeatureId(8));
    }

    fn node(tile: PlacedIndex) -> SegmentNode {
        SegmentNode {
            kind: FeatureKindId::ROAD,
            pos: Pos::default(),
            tile,
            local: 0,
            sides: SideSet(0),
            halves: HalfSet(0),
            pennants: 0,
            anchored: false,
        }
    }

    /// A road over these tile indices, joined in order.
    fn road(tiles: &[PlacedIndex]) -> (FeatureGraph, FeatureId) {
        let mut g = FeatureGraph::default();
        let segs: Vec<SegmentId> = tiles
            .iter()
            .map(|&t| g.add_segment(node(t), FeatureTotals::default()))
            .collect();
        for w in segs.windows(2) {
            g.edit().join(w[0], w[1], false);
        }
        let f = g.feature_of(segs[0]);
        (g, f)
    }

    /// each tile counts once per feature, virtual segments not at all, whether the
    /// tile indices fit the bit set or not.
    #[test]
    fn tile_count_counts_each_tile_once() {
        let (g, f) = road(&[3, 7, 3, VIRTUAL_TILE, 63, 64, 7, 1023]);
        assert_eq!(g.tile_count(f), 5);
        let (g, f) = road(&[3, 2000, 7, 2000, VIRTUAL_TILE, 3, 1024]);
        assert_eq!(g.tile_count(f), 4);
        let (g, f) = road(&[VIRTUAL_TILE]);
        assert_eq!(g.tile_count(f), 0);
    }

    /// An edge segment with two open edges (a road piece).
    fn piece(g: &mut FeatureGraph, tile: PlacedIndex) -> SegmentId {
        let totals = FeatureTotals {
            open: 2,
            completable: true,
            ..FeatureTotals::default()
        };
        g.add_segment(node(tile), totals)
    }

    /// A feature taken over (a castle on a city) stays complete but leaves its kind's
    /// complete count and listing, for good: later writes to it (an occupant) and a
    /// refill back to before it keep the counts exact.
    #[test]
    fn a_taken_over_feature_leaves_the_complete_count() {
        let mut g = FeatureGraph::default();
        let (a, b) = (piece(&mut g, 1), piece(&mut g, 2));
        g.edit().join(a, b, true);
        g.edit().close_edge(a);
        g.edit().close_edge(b);
        let f = g.feature_of(a);
        assert!(g.totals(f).complete());
        assert_eq!(g.complete_count(FeatureKindId::ROAD), 1);
        let before = g.clone();
        g.take_over(f);
        let t = *g.totals(f);
        assert!(t.complete() && t.scored && t.taken);
        assert_eq!(g.complete_count(FeatureKindId::ROAD), 0);
        assert_eq!(g.complete_features().count(), 0);
        g.add_occupant(a, 1);
        g.add_occupant(a, -1);
        assert_eq!(g.complete_count(FeatureKindId::ROAD), 0);
        let mut copy = g.clone();
        copy.refill_from(&before, None, true);
        assert_eq!(copy.complete_count(FeatureKindId::ROAD), 1);
        assert!(!copy.totals(f).taken);
    }

    /// The store's border lists against petgraph's: borders added later between old and
    /// new segments, a loop, a segment bordering several; then a truncation (a refill's
    /// rewind) back to an earlier length restores the older segments' lists, equal to a
    /// store that never had the removed ones.
    #[test]
    fn border_lists_match_petgraph_and_truncate_restores_them() {
        use petgraph::visit::EdgeRef;
        let mut g = FeatureGraph::default();
        let mut segs: Vec<SegmentId> = (0..4).map(|t| piece(&mut g, t)).collect();
        let b = |g: &mut FeatureGraph, segs: &[SegmentId], x: usize, y: usize| {
            g.add_border(segs[x], segs[y])
        };
        b(&mut g, &segs, 0, 1);
        b(&mut g, &segs, 2, 1);
        b(&mut g, &segs, 0, 3);
        let (n, e) = (4, g.graph().edge_count());
        let before = g.graph().clone();
        segs.extend((4..6).map(|t| piece(&mut g, t)));
        b(&mut g, &segs, 4, 1);
        b(&mut g, &segs, 0, 5);
        b(&mut g, &segs, 3, 3);
        b(&mut g, &segs, 5, 0);
        b(&mut g, &segs, 1, 4);
        let check = |g: &FeatureGraph| {
            let pg = g.to_petgraph();
            for s in g.graph().node_indices() {
                let want: Vec<SegmentId> = pg
                    .edges(s)
                    .map(|e| {
                        if e.source() == s {
                            e.target()
                        } else {
                            e.source()
                        }
                    })
                    .collect();
                assert_eq!(
                    g.borders(s).collect::<Vec<_>>(),
                    want,
                    "segment {}",
                    s.index()
                );
            }
        };
        check(&g);
        assert_eq!(
            g.borders(segs[0]).collect::<Vec<_>>(),
            [segs[5], segs[3], segs[1], segs[5]]
        );
        assert_eq!(g.borders(segs[3]).collect::<Vec<_>>(), [segs[3], segs[0]]);
        let mut store = g.graph().clone();
        store.truncate(n, e);
        assert!(store == before);
        g.graph = Arc::new(store);
        check(&g);
    }

    /// A refill restores from an unchanged source only the union-find entries its copy
    /// wrote (joins' roots, closed edges by segment and by feature, occupants, scoring
    /// marks) and drops the appended ones; it copies every entry after the source wrote,
    /// after a plain `clone_from`, after a refill without journal, and past the journal's
    /// cap.
    #[test]
    fn refill_restores_only_the_links_the_copy_wrote() {
        let mut source = FeatureGraph::default();
        let segs: Vec<SegmentId> = (0..40).map(|t| piece(&mut source, t)).collect();
        for w in segs[..10].windows(2) {
            source.edit().join(w[0], w[1], true);
        }
        let mut copy = FeatureGraph::default();
        // Whether the next refill from `source` remembering `base` restores the journaled
        // entries alone (else it copies every entry); a debug build checks every refill's
        // entries against the source's.
        let undoes = |c: &FeatureGraph, source: &FeatureGraph, base: Option<LinksGen>| {
            c.links.journal.on && base == Some(source.links_gen)
        };
        let gen = copy.refill_from(&source, None, true);
        assert_eq!(gen, source.links_gen);
        assert!(copy.links.v == source.links.v);
        let try_writes = |c: &mut FeatureGraph| {
            let new = piece(c, 500);
            let mut e = c.edit();
            e.join(new, segs[0], true);
            e.join(segs[10], segs[11], true);
            e.join(segs[10], segs[11], false);
            e.close_edge(segs[12]);
            e.close_feature_edge(FeatureId(segs[13].index() as u32));
            c.add_occupant(segs[14], 1);
            c.mark_scored(c.feature_of(segs[15]));
        };
        for _ in 0..3 {
            try_writes(&mut copy);
            assert!(copy.links.v != source.links.v);
            // The roots written, once each (the appended segment not among them; a join
            // within a feature that closes nothing writes nothing).
            let root0 = source.feature_of(segs[0]).0;
            let mut noted = copy.links.journal.written().to_vec();
            noted.sort_unstable();
            let mut expected = vec![root0, 10, 11, 12, 13, 14, 15];
            expected.sort_unstable();
            assert_eq!(noted, expected);
            assert!(undoes(&copy, &source, Some(gen)));
            assert_eq!(copy.refill_from(&source, Some(gen), true), gen);
            assert!(copy.links.v == source.links.v, "restored");
        }
        // The source deploys: a new generation, so the copy copies every entry.
        source.add_occupant(segs[20], 1);
        assert_ne!(source.links_gen, gen);
        try_writes(&mut copy);
        assert!(!undoes(&copy, &source, Some(gen)));
        let gen = copy.refill_from(&source, Some(gen), true);
        assert!(copy.links.v == source.links.v);
        // A plain copy of another graph in between.
        try_writes(&mut copy);
        copy.clone_from(&FeatureGraph::default());
        assert!(!undoes(&copy, &source, Some(gen)));
        copy.refill_from(&source, Some(gen), true);
        assert!(copy.links.v == source.links.v);
        // Past the cap: more written entries than the journal keeps.
        for &s in segs[16..].iter().chain(&segs[16..]) {
            copy.add_occupant(s, 1);
            copy.add_occupant(s, -1);
        }
        assert!(!undoes(&copy, &source, Some(gen)), "past the cap");
        copy.refill_from(&source, Some(gen), true);
        assert!(copy.links.v == source.links.v);
        // A refill without journal (a simulation's next game) is not undone.
        copy.refill_from(&source, Some(gen), false);
        try_writes(&mut copy);
        assert!(!undoes(&copy, &source, Some(gen)));
        copy.refill_from(&source, Some(gen), true);
        assert!(copy.links.v == source.links.v);
        // A clone is a graph of its own: equal entries, another generation.
        assert_ne!(source.clone().links_gen.id, source.links_gen.id);
    }
}
