//! # Heretics & Shrines (rules HS-1 … HS-13)
//!
//! A *shrine* is a new centre-site feature kind scored like a cloister (HS-1): complete
//! with its 8 surrounding cells filled, 9 points, or 1 + neighbours at the end. A
//! follower on it is a heretic. Everything else here is about shrines next to cloisters:
//!
//! - **Placement** (HS-3, HS-4), a batched placement filter: a shrine tile may not have
//!   two cloisters among its 8 surrounding cells, nor sit next to a cloister that already
//!   has a shrine around it; the same with the roles swapped. "Cloister" means any
//!   centre-site kind scored as a cloister other than the shrine (abbeys included). With
//!   the house rule `shrineCrowding` the HS-4 case is allowed, but no follower may go on
//!   that tile's building. On a large board the building tiles are listed in game slots
//!   (`building-tiles*`) as they are placed, so the filter reads no other tile.
//! - **Challenges** (HS-5 … HS-9), in `before_scoring`: when a scoring completes an
//!   occupied building whose rival (the other kind, in a surrounding cell) is occupied and
//!   not complete, the rival's followers score 0 and return; the rival stays incomplete
//!   and may score later if occupied again (its draft item does not close it). Both
//!   completed at once: both score normally (HS-7). An empty completed building changes
//!   nothing (HS-8). Unresolved challenges score as incomplete cloisters at the end (HS-9),
//!   which is core's final scoring unchanged. Owners do not matter (HS-5: self-challenge).
//! - `challengeStakes` (HS-13): the winners also score the loser's incomplete value.
//! - `cultPlaces`: the sixth tile CU/SRCR stays in the supply only with this option.
//! - `shrines = plain-cloisters`: the CU tiles are plain cloisters, as JCloisterZone plays
//!   its cult sets without the element `shrine`. Kinds are declared before options are
//!   known (options are read at bind), so the segments stay of kind `shrine` (scored as a
//!   cloister: same values); the expansion then hooks nothing but `before_scoring`, where
//!   it relabels every drafted shrine item as the core `cloister` kind, so the score events
//!   (and the replay output) say `cloister`. No placement filter (HS-3/HS-4), no
//!   challenge, no crowding rule.

use carcassonne_core::{
    binder, Action, Award, Binder, Binding, BoundExpansion, Ctx, Declare, DraftFeature, Expansion,
    FeatureId, FeatureKindDef, FeatureKindId, GameSlot, HookResult, HookSet, Offered, PlacedTile,
    PlacementCell, PlayerId, Pos, Ruleset, ScoreDraft, Scoring, Shape, StartTile, TileKindId, View,
    MAX_PLAYERS,
};
use smallvec::SmallVec;

/// Option keys.
pub const CULT_PLACES: &str = "heretics-shrines.cultPlaces";
/// HS-13 house rule.
pub const CHALLENGE_STAKES: &str = "heretics-shrines.challengeStakes";
/// HS-4 house rule.
pub const SHRINE_CROWDING: &str = "heretics-shrines.shrineCrowding";
/// `shrines` (default) or `plain-cloisters` (JCZ's cult sets without the element `shrine`).
pub const SHRINES: &str = "heretics-shrines.shrines";

/// The Heretics & Shrines expansion: declares the shrine kind and binds to a ruleset as
/// `ShrinesRules`. It keeps nothing about any ruleset.
#[derive(Debug, Default, Clone, Copy)]
pub struct HereticsShrines;

/// Heretics & Shrines bound to one ruleset: the shrine kind, the parsed options and the
/// tile data the hooks look up, all found once at bind.
#[derive(Debug)]
struct ShrinesRules {
    shrine: FeatureKindId,
    /// The ruleset's options.
    opts: Opts,
    /// Buildings per tile kind (bit 0 shrine, bit 1 cloister).
    tile_buildings: Vec<u8>,
    /// Per feature kind (by id): 1 shrine, 2 cloister (any other centre site scored as a
    /// cloister), 0 neither.
    kind_buildings: [u8; 256],
    /// Tile kinds of the Cult Places edition only.
    cult_places: Vec<TileKindId>,
    /// The building tiles on the board, kept as they are placed ([`BuildingList`]).
    list: BuildingList,
    /// Whether the list is kept: on a board of [`LIST_FROM_TILES`] tiles or more, with the
    /// placement filter on. On a smaller one a scan of the board costs less than the
    /// list's `on_tile_placed` calls (and, with no other implementer, the engine's dispatch
    /// of that hook at every placement).
    listing: bool,
}

/// Game slots listing the board's building tiles in placement order, so that HS-3 / HS-4's
/// placement filter reads a few slots instead of every placed tile (a nine-set board holds
/// about 200 tiles and 25 buildings). `listed` is 0 until `start_game` has listed the start
/// tiles, then the number of tiles listed + 1, or [`LIST_FULL`] once they no longer fit (the
/// filter then scans the board as before). Each entry is 32 bits of a `slots` value, two a
/// slot: x + 512 (11 bits), y + 512 (11 bits), the buildings (bit 22 shrine, bit 23 cloister).
#[derive(Debug, Clone, Copy)]
struct BuildingList {
    listed: GameSlot,
    slots: [GameSlot; LIST_SLOTS],
}

/// Slots of entries ([`BuildingList`]).
const LIST_SLOTS: usize = 16;
/// Entries the slots hold.
const LIST_CAP: usize = 2 * LIST_SLOTS;
/// `listed` once more building tiles were placed than the slots hold.
const LIST_FULL: i64 = LIST_CAP as i64 + 2;
/// Coordinates are stored offset by this (tiles lie within ±`MAX_COORD`, 512).
const LIST_OFFSET: i32 = 512;
/// The ruleset's tiles from which the list is kept (Heretics & Shrines with the base game
/// alone: 78; the nine official sets: 209).
const LIST_FROM_TILES: usize = 120;

/// Parsed options.
#[derive(Debug)]
struct Opts {
    /// [`CULT_PLACES`]: the Cult Places tiles stay in the supply.
    cult_places: bool,
    crowding: bool,
    stakes: bool,
    /// `shrines = plain-cloisters`: the shrine tiles are plain cloisters.
    plain: bool,
}

impl Opts {
    /// The options by their short names (the keys above without `heretics-shrines.`).
    fn read(b: &Binding<'_>) -> HookResult<Opts> {
        Ok(Opts {
            cult_places: b.option_flag("cultPlaces")?,
            crowding: b.option_flag("shrineCrowding")?,
            stakes: b.option_flag("challengeStakes")?,
            plain: b.option_str("shrines")? == "plain-cloisters",
        })
    }
}

/// The two building families that challenge each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Building {
    Shrine,
    Cloister,
}

impl Building {
    fn rival(self) -> Building {
        match self {
            Building::Shrine => Building::Cloister,
            Building::Cloister => Building::Shrine,
        }
    }
}

/// The feature kind of the abbot-and-garden set's gardens (found by name: no building).
const GARDEN: &str = "garden";

impl HereticsShrines {
    /// The expansion (it serves any number of rulesets).
    pub fn new() -> Self {
        Self
    }
}

/// The building family of a feature kind. A monastic building is a cloister: any kind
/// scored like one but the garden of the 2nd/3rd-edition base (AG-2), which is scored like a
/// cloister and is no building [JCZ: a `Garden` is not a `Monastery`].
fn building_of(rules: &Ruleset, shrine: FeatureKindId, kind: FeatureKindId) -> Option<Building> {
    if kind == shrine {
        Some(Building::Shrine)
    } else if rules.kind(kind).scoring == Scoring::Cloister
        && (kind == FeatureKindId::CLOISTER || rules.kind(kind).name != GARDEN)
    {
        Some(Building::Cloister)
    } else {
        None
    }
}

/// Which buildings a tile kind carries (bit 0 shrine, bit 1 cloister).
fn compute_buildings(rules: &Ruleset, shrine: FeatureKindId, tile: TileKindId) -> u8 {
    let tk = rules.tiles().get(tile);
    let mut mask = 0u8;
    for seg in &tk.segments {
        match building_of(rules, shrine, seg.kind) {
            Some(Building::Shrine) => mask |= 1,
            Some(Building::Cloister) => mask |= 2,
            None => {}
        }
    }
    mask
}

impl ShrinesRules {
    fn building_of(&self, rules: &Ruleset, kind: FeatureKindId) -> Option<Building> {
        building_of(rules, self.shrine, kind)
    }

    /// Which buildings a tile kind carries (bit 0 shrine, bit 1 cloister).
    fn buildings_of_tile(&self, tile: TileKindId) -> u8 {
        self.tile_buildings
            .get(tile.0 as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Files a placed tile's position under the player's own family (`our_bit`) and/or the
    /// rival family (`rival_bit`) by the buildings its kind carries.
    #[inline(always)]
    fn sort_building(
        &self,
        t: &carcassonne_core::PlacedTile,
        our_bit: u8,
        rival_bit: u8,
        ours: &mut PosList,
        rivals: &mut PosList,
    ) {
        if t.sites == 0 {
            return;
        }
        file_building(
            t.pos,
            self.buildings_of_tile(t.kind),
            our_bit,
            rival_bit,
            ours,
            rivals,
        );
    }

    /// Whether the tile at `pos` carries a building of family `b`.
    fn has_building(&self, v: &View<'_>, pos: Pos, b: Building) -> bool {
        let Some(t) = v.state.board().at(pos) else {
            return false;
        };
        if t.sites == 0 {
            return false;
        }
        self.buildings_of_tile(t.kind) & bit(b) != 0
    }

    /// Buildings of family `b` in the 8 cells around `pos`, not counting the cell `skip`.
    fn around(&self, v: &View<'_>, pos: Pos, b: Building, skip: Pos) -> usize {
        let mut n = 0;
        for q in pos.surrounding() {
            if q != skip {
                n += self.has_building(v, q, b) as usize;
            }
        }
        n
    }

    /// HS-3 (too many rivals around) and HS-4 (a rival around that already has one of
    /// ours around it) for a building of family `b` at `pos`. The cell `pos` itself never
    /// counts, so this gives the same answer before the tile is placed (placement filter)
    /// and after (`crowded_site`): "already has one of ours" means one other than this.
    fn violations(&self, v: &View<'_>, pos: Pos, b: Building) -> (bool, bool) {
        let rival = b.rival();
        let hs3 = self.around(v, pos, rival, pos) >= 2;
        let mut hs4 = false;
        for q in pos.surrounding() {
            if self.has_building(v, q, rival) && self.around(v, q, b, pos) >= 1 {
                hs4 = true;
                break;
            }
        }
        (hs3, hs4)
    }

    /// The crowded building segment on the tile just placed (house rule `shrineCrowding`).
    fn crowded_site(&self, v: &View<'_>) -> Option<carcassonne_core::SegmentId> {
        let idx = v.state.last_placed()?;
        let t = *v.state.board().tile(idx);
        let tk = v.rules.tiles().get(t.kind);
        for (i, seg) in tk.segments.iter().enumerate() {
            if let Some(b) = self.building_of(v.rules, seg.kind) {
                // The tile is on the board now; `violations` does not count its cell.
                if self.violations(v, t.pos, b).1 {
                    return Some(t.segment(i));
                }
            }
        }
        None
    }
}

impl ShrinesRules {
    /// HS-3 / HS-4 for a tile of buildings `mask`: the building tiles of the board (from
    /// the list the slots keep if `listed` and there is one now, [`BuildingList`], else
    /// from the board), then each candidate against them.
    #[inline(always)]
    fn filter_cells(&self, v: &View<'_>, mask: u8, cells: &mut [PlacementCell], listed: bool) {
        let crowding = self.opts.crowding;
        for b in [Building::Shrine, Building::Cloister] {
            if mask & bit(b) == 0 {
                continue;
            }
            // The buildings on the board, then each candidate against them. Buildings sit
            // in the tile centre, so the rotation does not matter.
            let (our_bit, rival_bit) = (bit(b), bit(b.rival()));
            let mut ours = PosList::new();
            let mut rivals = PosList::new();
            if !listed || !self.listed_buildings(v, our_bit, rival_bit, &mut ours, &mut rivals) {
                self.scan_buildings(v, our_bit, rival_bit, &mut ours, &mut rivals);
            }
            if rivals.is_empty() {
                continue;
            }
            let (ours, rivals) = (ours.as_slice(), rivals.as_slice());
            if rivals.len() > 32 {
                filter_by_grid(ours, rivals, crowding, cells);
                continue;
            }
            // Only some rivals can forbid a cell: HS-3 needs two rivals touching it, so
            // both lie within two cells of each other; HS-4 needs a rival that already
            // has one of ours around it (and no `shrineCrowding`). The others are left
            // out, which changes no count that matters (≥ 2 stays ≥ 2, and "a taken
            // rival touches it" is unchanged). Bit `i` = `rivals[i]`.
            let mut taken = 0u32;
            let mut paired = 0u32;
            for (i, r) in rivals.iter().enumerate() {
                if !crowding && ours.iter().any(|o| touches(*o, *r) && o != r) {
                    taken |= 1 << i;
                }
                for (j, q) in rivals.iter().enumerate().skip(i + 1) {
                    if q != r && within2(*q, *r) {
                        paired |= 1 << i | 1 << j;
                    }
                }
            }
            let relevant = taken | paired;
            if relevant == 0 {
                continue;
            }
            if relevant & (relevant - 1) == 0 {
                // One rival that matters: it is taken (a paired rival has its partner
                // among them), so only HS-4 applies, to the cells around it.
                let r = rivals[relevant.trailing_zeros() as usize];
                // Masked, not branched on: whether a candidate touches the rival follows
                // no pattern the branch predictor could learn.
                for c in cells.iter_mut() {
                    c.rotations &= u8::from(touches_flat(c.pos, r)).wrapping_sub(1);
                }
                continue;
            }
            // The block covering the rivals' surroundings.
            let (mut lo, mut hi) = (Pos::new(i32::MAX, i32::MAX), Pos::new(i32::MIN, i32::MIN));
            let mut rest = relevant;
            while rest != 0 {
                let r = rivals[rest.trailing_zeros() as usize];
                rest &= rest - 1;
                lo = Pos::new(lo.x.min(r.x), lo.y.min(r.y));
                hi = Pos::new(hi.x.max(r.x), hi.y.max(r.y));
            }
            let (x0, y0) = (lo.x.wrapping_sub(1), lo.y.wrapping_sub(1));
            let w = hi.x.wrapping_sub(lo.x).wrapping_add(2) as u32;
            let h = hi.y.wrapping_sub(lo.y).wrapping_add(2) as u32;
            if w < 32 && h < KILL_ROWS as u32 {
                // Small enough for a bitmap of the forbidden cells, one row a word: the
                // cells two rivals touch (HS-3) and those a taken rival touches (HS-4).
                let mut once = [0u32; KILL_ROWS];
                let mut twice = [0u32; KILL_ROWS];
                let mut hs4 = [0u32; KILL_ROWS];
                let mut rest = relevant;
                while rest != 0 {
                    let i = rest.trailing_zeros();
                    rest &= rest - 1;
                    let r = rivals[i as usize];
                    // Its 3×3 block (its own cell included: a candidate is never there).
                    let bits = 0b111u32 << (r.x.wrapping_sub(x0) - 1) as u32;
                    let row = (r.y.wrapping_sub(y0) - 1) as usize;
                    for k in row..row + 3 {
                        twice[k] |= once[k] & bits;
                        once[k] |= bits;
                        if taken & (1 << i) != 0 {
                            hs4[k] |= bits;
                        }
                    }
                }
                // Each candidate masked by its bit, without a branch (as above); one
                // outside the block reads some row of it and is kept by `inside`.
                for c in cells.iter_mut() {
                    let (dx, dy) = (
                        c.pos.x.wrapping_sub(x0) as u32,
                        c.pos.y.wrapping_sub(y0) as u32,
                    );
                    let inside = (dx <= w) & (dy <= h);
                    // Within the bitmap either way (`h < KILL_ROWS`): a `min`, not a
                    // branch on `inside`.
                    let row = dy.min(h) as usize;
                    let hit = (twice[row] | hs4[row]) >> (dx & 31) & u32::from(inside);
                    c.rotations &= ((hit & 1) as u8).wrapping_sub(1);
                }
                continue;
            }
            // Otherwise only candidates inside the block are compared with each rival.
            for c in cells.iter_mut() {
                let p = c.pos;
                if (p.x.wrapping_sub(x0) as u32 > w) | (p.y.wrapping_sub(y0) as u32 > h) {
                    continue;
                }
                let mut around = 0u32;
                let mut hs4 = false;
                let mut rest = relevant;
                while rest != 0 {
                    let i = rest.trailing_zeros();
                    rest &= rest - 1;
                    // A candidate cell is empty, so it is never the rival's own.
                    if touches(p, rivals[i as usize]) {
                        around += 1;
                        hs4 |= taken & (1 << i) != 0;
                    }
                }
                if around >= 2 || hs4 {
                    c.rotations = 0;
                }
            }
        }
    }

    /// [`Self::filter_cells`] with the list.
    #[inline(never)]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn filter_listed(&self, v: &View<'_>, mask: u8, cells: &mut [PlacementCell]) {
        self.filter_cells(v, mask, cells, true);
    }

    /// Files every building tile of the board (`t.sites != 0` and a building in its kind,
    /// in placement order) under our family and/or the rival one, from the list, if there
    /// is one now (else `false`).
    #[inline(never)]
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn listed_buildings(
        &self,
        v: &View<'_>,
        our_bit: u8,
        rival_bit: u8,
        ours: &mut PosList,
        rivals: &mut PosList,
    ) -> bool {
        let listed = v.get(self.list.listed);
        if !(1..=LIST_CAP as i64 + 1).contains(&listed) {
            return false;
        }
        let n = (listed - 1) as usize;
        let mut last = None;
        // One slot read for two entries.
        for (j, slot) in self.list.slots.iter().enumerate().take(n.div_ceil(2)) {
            let word = v.get(*slot) as u64;
            for h in 0..(n - 2 * j).min(2) {
                let e = (word >> (32 * h)) as u32;
                let pos = Pos::new(
                    (e & 0x7ff) as i32 - LIST_OFFSET,
                    (e >> 11 & 0x7ff) as i32 - LIST_OFFSET,
                );
                file_building(pos, (e >> 22) as u8, our_bit, rival_bit, ours, rivals);
                last = Some(pos);
            }
        }
        // A filter asked from the `on_tile_placed` hook of an expansion loaded before this
        // one sees the tile just placed before it is listed: it comes last in either order.
        if let Some(i) = v.state.last_placed() {
            let t = v.state.board().tile(i);
            if Some(t.pos) != last {
                self.sort_building(t, our_bit, rival_bit, ours, rivals);
            }
        }
        true
    }

    /// [`Self::listed_buildings`] from the board: few among many tiles, so the scan reads
    /// four tiles' site masks at a time.
    #[inline(always)]
    fn scan_buildings(
        &self,
        v: &View<'_>,
        our_bit: u8,
        rival_bit: u8,
        ours: &mut PosList,
        rivals: &mut PosList,
    ) {
        let tiles = v.state.board().tiles();
        let mut quads = tiles.chunks_exact(4);
        for q in &mut quads {
            if q[0].sites | q[1].sites | q[2].sites | q[3].sites != 0 {
                for t in q {
                    self.sort_building(t, our_bit, rival_bit, ours, rivals);
                }
            }
        }
        for t in quads.remainder() {
            self.sort_building(t, our_bit, rival_bit, ours, rivals);
        }
    }

    /// Adds placed tile `t` to the list if it carries a building ([`BuildingList`]), once
    /// the list is started and while it has room; past that the filter scans the board.
    #[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_plugin_hot")]
    fn list_tile(&self, ctx: &mut Ctx<'_>, t: &PlacedTile) {
        let m = self.buildings_of_tile(t.kind);
        if t.sites == 0 || m == 0 {
            return;
        }
        let listed = ctx.get(self.list.listed);
        if !(1..=LIST_CAP as i64 + 1).contains(&listed) {
            return;
        }
        let k = (listed - 1) as usize;
        let (x, y) = (t.pos.x + LIST_OFFSET, t.pos.y + LIST_OFFSET);
        if k == LIST_CAP || !(0..0x800).contains(&x) || !(0..0x800).contains(&y) {
            ctx.set(self.list.listed, LIST_FULL);
            return;
        }
        let e = x as u32 | (y as u32) << 11 | u32::from(m) << 22;
        let slot = self.list.slots[k / 2];
        let shift = 32 * (k % 2);
        let old = ctx.get(slot) & !(0xffff_ffff << shift);
        ctx.set(slot, old | i64::from(e) << shift);
        ctx.set(self.list.listed, listed + 1);
    }
}

/// Files a building tile at `pos` carrying buildings `m` under the player's own family
/// (`our_bit`) and/or the rival family (`rival_bit`).
#[inline(always)]
fn file_building(
    pos: Pos,
    m: u8,
    our_bit: u8,
    rival_bit: u8,
    ours: &mut PosList,
    rivals: &mut PosList,
) {
    if m & rival_bit != 0 {
        rivals.push(pos);
    }
    if m & our_bit != 0 {
        ours.push(pos);
    }
}

/// Board positions in insertion order, on the stack up to 16 (no allocation per draw).
type PosList = SmallVec<[Pos; 16]>;

/// Rows of the placement filter's bitmap of forbidden cells (a block up to 32 wide).
const KILL_ROWS: usize = 32;

/// Whether `a` and `b` are at most two cells apart on both axes (their 3×3 blocks
/// overlap).
#[inline]
fn within2(a: Pos, b: Pos) -> bool {
    (a.x.wrapping_sub(b.x).wrapping_add(2) as u32) <= 4
        && (a.y.wrapping_sub(b.y).wrapping_add(2) as u32) <= 4
}

/// [`touches`] with both comparisons evaluated (no short circuit, so no branch).
#[inline]
fn touches_flat(a: Pos, b: Pos) -> bool {
    ((a.x.wrapping_sub(b.x).wrapping_add(1) as u32) <= 2)
        & ((a.y.wrapping_sub(b.y).wrapping_add(1) as u32) <= 2)
}

/// Whether `a` lies in the 3×3 block centred on `b` (`b` itself included).
#[inline]
fn touches(a: Pos, b: Pos) -> bool {
    (a.x.wrapping_sub(b.x).wrapping_add(1) as u32) <= 2
        && (a.y.wrapping_sub(b.y).wrapping_add(1) as u32) <= 2
}

/// HS-3 / HS-4 for many rivals (more than the placement filter's bit sets hold): a small
/// grid over the rivals' surroundings: per cell, how many rivals touch it (HS-3) and
/// whether one of them already has one of ours around it (HS-4, bit 7). Then each
/// candidate is one lookup.
fn filter_by_grid(ours: &[Pos], rivals: &[Pos], crowding: bool, cells: &mut [PlacementCell]) {
    let (min_x, max_x) = rivals.iter().fold((i32::MAX, i32::MIN), |(a, b), r| {
        (a.min(r.x - 1), b.max(r.x + 1))
    });
    let (min_y, max_y) = rivals.iter().fold((i32::MAX, i32::MIN), |(a, b), r| {
        (a.min(r.y - 1), b.max(r.y + 1))
    });
    let w = (max_x - min_x + 1) as usize;
    let mut grid = vec![0u8; w * (max_y - min_y + 1) as usize];
    for r in rivals {
        let taken = ours.iter().any(|o| touches(*o, *r) && o != r);
        for q in r.surrounding() {
            let cell = &mut grid[(q.y - min_y) as usize * w + (q.x - min_x) as usize];
            *cell = (*cell + 1) | if taken { 0x80 } else { 0 };
        }
    }
    for c in cells.iter_mut() {
        let p = c.pos;
        if p.x < min_x || p.x > max_x || p.y < min_y || p.y > max_y {
            continue;
        }
        let cell = grid[(p.y - min_y) as usize * w + (p.x - min_x) as usize];
        if cell & 0x7f >= 2 || (cell & 0x80 != 0 && !crowding) {
            c.rotations = 0;
        }
    }
}

fn bit(b: Building) -> u8 {
    match b {
        Building::Shrine => 1,
        Building::Cloister => 2,
    }
}

impl Expansion for HereticsShrines {
    fn id(&self) -> &str {
        "heretics-shrines"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    /// The shrine kind (HS-1). It is declared in both `shrines` modes: options are only
    /// known at bind.
    fn declare(&self, d: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let shrine = d
            .feature_kind(FeatureKindDef {
                // Renderers draw it as a shrine (a dark temple with a dome).
                look: "shrine".into(),
                ..FeatureKindDef::new("shrine", Shape::Site, Scoring::Cloister, true)
            })
            .map_err(|e| e.to_string())?;
        let list = BuildingList {
            listed: d.game_slot("building-tiles", 0),
            slots: std::array::from_fn(|k| d.game_slot(&format!("building-tiles.{k}"), 0)),
        };
        Ok(binder(move |b: &Binding<'_>| {
            let rules = b.rules();
            let opts = Opts::read(b)?;
            let tiles: usize = rules
                .tiles()
                .defined()
                .map(|(_, k)| usize::from(k.count))
                .sum();
            Ok(ShrinesRules {
                list,
                listing: !opts.plain && tiles >= LIST_FROM_TILES,
                shrine,
                opts,
                tile_buildings: rules
                    .tiles()
                    .iter()
                    .map(|(id, _)| compute_buildings(rules, shrine, id))
                    .collect(),
                kind_buildings: {
                    let mut t = [0u8; 256];
                    for (i, slot) in t.iter_mut().enumerate().take(rules.kinds().len()) {
                        *slot = building_of(rules, shrine, FeatureKindId(i as u8)).map_or(0, bit);
                    }
                    t
                },
                cult_places: rules
                    .tiles()
                    .iter()
                    .filter(|(_, k)| k.has_tag("cult-places"))
                    .map(|(id, _)| id)
                    .collect(),
            })
        }))
    }
}

impl BoundExpansion for ShrinesRules {
    fn hook_set(&self) -> HookSet {
        // Plain cloisters: the cult-places supply and the relabelling only.
        if self.opts.plain {
            return HookSet::GAME_START | HookSet::BEFORE_SCORING;
        }
        let mut base = HookSet::GAME_START | HookSet::FILTER_PLACEMENTS | HookSet::BEFORE_SCORING;
        // `on_tile_placed` lists the building tiles for the placement filter.
        if self.listing {
            base = base | HookSet::ON_TILE_PLACED;
        }
        // The deployment filter only serves the shrineCrowding house rule.
        if self.opts.crowding {
            base | HookSet::FILTER_DEPLOY_ACTIONS
        } else {
            base
        }
    }

    fn prepare_game(&self, ctx: &mut Ctx<'_>, _start: &mut Vec<StartTile>) -> HookResult {
        if !self.opts.cult_places {
            for &id in &self.cult_places {
                while ctx.supply_mut().take(id) {}
            }
        }
        Ok(())
    }

    /// The start tiles' buildings (or a position's) are listed in board order
    /// ([`BuildingList`]).
    fn start_game(&self, ctx: &mut Ctx<'_>) -> HookResult {
        if !self.listing {
            return Ok(());
        }
        ctx.set(self.list.listed, 1);
        for i in 0..ctx.state().board().tiles().len() {
            let t = ctx.state().board().tiles()[i];
            self.list_tile(ctx, &t);
        }
        Ok(())
    }

    /// Only a tile with a building is listed.
    fn on_tile_placed_for(&self, _rules: &Ruleset, tile: TileKindId) -> bool {
        self.listing && self.buildings_of_tile(tile) != 0
    }

    #[inline(always)]
    fn on_tile_placed(&self, ctx: &mut Ctx<'_>, pos: Pos) -> HookResult {
        let board = ctx.state().board();
        // The tile just placed is the last one: no cell lookup.
        let t = match ctx.state().last_placed().map(|i| board.tile(i)) {
            Some(t) if t.pos == pos => *t,
            _ => match board.at(pos) {
                Some(t) => *t,
                None => return Ok(()),
            },
        };
        self.list_tile(ctx, &t);
        Ok(())
    }

    /// Only tiles with a shrine or a cloister are restricted.
    fn filters_tile(&self, rules: &Ruleset, tile: TileKindId) -> HookResult<bool> {
        Ok(compute_buildings(rules, self.shrine, tile) != 0)
    }

    /// HS-3 / HS-4.
    #[inline(always)]
    fn filter_placements(
        &self,
        v: View<'_>,
        _player: PlayerId,
        tile: TileKindId,
        cells: &mut [PlacementCell],
    ) -> HookResult {
        let mask = self.buildings_of_tile(tile);
        if mask == 0 {
            return Ok(());
        }
        // The board scan's code as it was, inline; the list's out of line.
        if self.listing {
            self.filter_listed(&v, mask, cells);
        } else {
            self.filter_cells(&v, mask, cells, false);
        }
        Ok(())
    }

    /// HS-4's house rule drops deployments only.
    fn keeps_deploy_pass(&self) -> bool {
        true
    }

    /// HS-4 house rule: no follower on a crowded building.
    #[inline(always)]
    fn filter_deploy_actions(
        &self,
        v: View<'_>,
        _player: PlayerId,
        actions: &mut Offered<'_>,
    ) -> HookResult {
        if !self.opts.crowding {
            return Ok(());
        }
        if let Some(site) = self.crowded_site(&v) {
            actions.retain(|a| !matches!(a, Action::Deploy { segment, .. } if *segment == site));
        }
        Ok(())
    }

    /// HS-5 … HS-8, HS-13: resolve challenges of the buildings this scoring completes.
    /// With `shrines = plain-cloisters`: every drafted shrine is scored as the core
    /// `cloister` kind (placement and final scorings), nothing else.
    #[inline(always)]
    fn before_scoring(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        if self.opts.plain {
            let shrine = self.shrine;
            for d in &mut draft.features {
                if d.kind == shrine {
                    d.kind = FeatureKindId::CLOISTER;
                }
            }
            return Ok(());
        }
        if draft.final_scoring {
            return Ok(());
        }
        // Only a completed building challenges anyone: most scorings have none.
        if !draft
            .features
            .iter()
            .any(|d| d.complete && self.kind_buildings[d.kind.0 as usize] != 0)
        {
            return Ok(());
        }
        self.challenges(ctx, draft)
    }
}

impl ShrinesRules {
    /// HS-5 … HS-8, HS-13 for a draft holding a completed building.
    #[inline(never)]
    fn challenges(&self, ctx: &mut Ctx<'_>, draft: &mut ScoreDraft) -> HookResult {
        let stakes = self.opts.stakes;
        let n_items = draft.features.len();
        for item in 0..n_items {
            let d = draft.features[item];
            let v = ctx.view();
            let Some(b) = self.building_of(v.rules, d.kind) else {
                continue;
            };
            let g = v.state.graph();
            if !d.complete || g.totals(d.feature).occupants == 0 {
                continue; // HS-8: an empty completed building challenges nobody.
            }
            let at = g.segment(d.feature.segment()).pos;
            let mut losers: Vec<FeatureId> = Vec::new();
            for q in at.surrounding() {
                let Some(t) = v.state.board().at(q) else {
                    continue;
                };
                let tk = v.rules.tiles().get(t.kind);
                for (i, seg) in tk.segments.iter().enumerate() {
                    if self.building_of(v.rules, seg.kind) != Some(b.rival()) {
                        continue;
                    }
                    let f = g.feature_of(t.segment(i));
                    let tot = g.totals(f);
                    let completed_now = draft.features.iter().any(|x| x.feature == f && x.complete);
                    if tot.occupants > 0 && !tot.complete() && !completed_now {
                        losers.push(f);
                    }
                }
            }
            let winners: Vec<PlayerId> = draft
                .awards
                .iter()
                .filter(|a| a.item as usize == item && !a.bonus)
                .map(|a| a.player)
                .collect();
            for f in losers {
                if draft.features.iter().any(|x| x.feature == f) {
                    continue;
                }
                let g = ctx.state().graph();
                let tot = *g.totals(f);
                let loser_item = draft.features.len() as u16;
                draft.features.push(DraftFeature {
                    feature: f,
                    kind: g.kind(f),
                    tiles: g.tile_count(f),
                    complete: false,
                    value: 0,
                    return_figures: true,
                    closes: false,
                    forfeit: true,
                });
                // One 0-point event per owner of a losing follower (HS-6); a neutral
                // figure there (the Courier shares every feature) has no owner to name.
                let mut owners = [false; MAX_PLAYERS];
                for fig in ctx.state().figures_on(f.segment()) {
                    if let Some(p) = ctx.state().figure(fig).seat() {
                        owners[p.index()] = true;
                    }
                }
                for (p, _) in owners.iter().enumerate().filter(|(_, o)| **o) {
                    draft.awards.push(Award {
                        item: loser_item,
                        player: PlayerId(p as u8),
                        points: 0,
                        bonus: false,
                    });
                }
                if stakes {
                    let value = 9 - tot.open as i32;
                    for &w in &winners {
                        draft.awards.push(Award {
                            item: loser_item,
                            player: w,
                            points: value,
                            bonus: false,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

carcassonne_core::export_expansion!("heretics-shrines", HereticsShrines::new());
