//! # The river's rules, shared by River I and River II (RV-1 … RV-10, R1-1 … R1-10)
//!
//! The plugins `river2` (River II) and `river` (River I) declare their own options and
//! tiles and bind to a [`RiverRules`], which does the work through the hook API. The river
//! is an edge feature kind of its own (letter `W`, [`declare_river`]) that nobody may
//! occupy; fields run along both banks, so the river splits fields wherever the tile data
//! says so (RV-9).
//!
//! - **Start and draw order** (RV-1 … RV-3, R1-1, R1-2), in `prepare_game`: the spring
//!   replaces the start tile (the normal start tile stays in the pack); the supply becomes
//!   the groups `river-fork` (drawn first), `river`, `river-lake` (the lakes, and the
//!   river-into-city end too under River II's `riverEnds=both-last`), then `default`.
//!   Tiles are sorted into groups by their tags, so the tile file decides what is a fork,
//!   an end or a lake; a group with no tiles is left out (River I has no fork).
//! - **With the Count** (RV-10): when another expansion laid a start block, the spring is
//!   attached to it on a field edge with its water facing away (JCZ's spot east of the
//!   block's north-east tile when it fits, else the first fitting cell in reading order).
//! - **Placement** (RV-4 … RV-7), a batched filter on river tiles only: a river tile must
//!   continue exactly one open river end, so it never joins two branches (RV-6); a curve
//!   may not turn the flow the same way as the curve it is attached to (RV-5, immediate
//!   U-turns only). Edge matching already keeps every new open end facing an empty cell
//!   (RV-7's default safeguard); `riverLookahead` also wants the 2×3 area ahead empty.
//!   A river tile with no legal spot is removed by core's rule A-4 (RV-8).
//! - `volcanoExtraTile`: placing the volcano gives an extra part to the turn (RV-9).
//!
//! **As FanCloisterZone plays it** (`jcz-saves.md` §4, §13; the JCZ importer turns both on):
//! - `riverLakes=per-branch`: the pack holds as many lakes as the river has branches
//!   (1 + the forks' river sides − 2 per fork: two with River II's fork), adding copies
//!   of the lake tiles in id order, or removing non-volcano lakes.
//! - `riverPlacement=fcz`: a river tile must touch a placed tile with a river side, and
//!   every river side left open must point at (1) a clear 2×3 area ahead (as
//!   `riverLookahead`), (2) a clear 3-wide strip up to the edge of the board's bounding
//!   box (which always holds (0,0)), and (3) afterwards no two open river ends pointing
//!   that way may lie in neighbouring columns (rows). RV-5 and RV-6 are not checked
//!   separately: these conditions rule out what they forbid.
//! - `riverSetup=mixed` (FCZ with its element `fishermen`, which loads no river capability):
//!   no river phase. The start layout stays; the groups `river-fork`, `river`, `river-lake`
//!   and `river-spring` (the spring) are all active beside the others, so every tile may be
//!   drawn from the start; no placement filter (edges alone), no lake adjustment.

use carcassonne_core::{
    Board, BoundExpansion, Ctx, Declare, FeatureKindDef, FeatureKindId, HookFailure, HookResult,
    HookSet, PlacementCell, PlayerId, Pos, Rotation, Ruleset, Scoring, Shape, Side, StartTile,
    SupplyGroup, TileKind, TileKindId, TurnEndVerdict, View,
};

/// A river bound to one ruleset: the river kind, the parsed options and what the hooks
/// need to know about the loaded tiles, all found once at bind ([`RiverRules::bind`]).
#[derive(Debug)]
pub struct RiverRules {
    /// The edge code of the river kind (its feature kind id + 1).
    code: u8,
    /// The ruleset's options.
    opts: Opts,
    /// The spring, the base start tile and each tile kind's draw group.
    tiles: RiverTiles,
}

/// What `prepare_game` needs to know about the loaded tiles.
#[derive(Debug)]
struct RiverTiles {
    spring: Option<TileKindId>,
    base_start: Option<TileKindId>,
    /// Per tile kind: index into `GROUPS`, or none (stays in the main pack).
    group: Vec<Option<usize>>,
    /// Per group: the copies its kinds have in the tile set (a capacity hint).
    group_sizes: [usize; GROUPS.len()],
    /// Per tile kind: its number of river sides.
    river_sides: Vec<usize>,
    /// Per tile kind and rotation (quarter turns): its river sides (bit `i` = side of
    /// index `i`), all 0 for a tile without river.
    water: Vec<[u8; 4]>,
    /// Per tile kind: tagged `river-lake` / `volcano`.
    lake: Vec<bool>,
    volcano: Vec<bool>,
    /// The lake kinds in id order (what `riverLakes=per-branch` copies).
    lake_order: Vec<TileKindId>,
}

/// The river draw groups, in draw order (RV-1 … RV-3).
const GROUPS: [&str; 3] = ["river-fork", "river", "river-lake"];

/// The options the river rules read, parsed by the plugin that declares them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Opts {
    /// RV-7 `riverLookahead`: the 2×3 area ahead of every new open end must be empty.
    pub lookahead: bool,
    /// RV-9 `volcanoExtraTile`: placing a `volcano` tile gives the turn an extra part.
    pub volcano_extra: bool,
    /// `riverPlacement=fcz`: FanCloisterZone's placement rule instead of RV-4 … RV-7.
    pub fcz_placement: bool,
    /// `riverLakes=per-branch`: as many lakes as the river has branches.
    pub lakes_per_branch: bool,
    /// `riverSetup=mixed`: no river phase (FanCloisterZone with its element `fishermen`,
    /// which plays without its river capability): the start layout stays, the river tiles,
    /// spring and lakes included, wait in their draw groups, all active, and are placed by
    /// their edges alone (no lake adjustment, no placement filter).
    pub mixed: bool,
}

impl RiverTiles {
    /// Sorts the ruleset's tiles by their tags (`both_last`: River II's `riverEnds=both-last`).
    fn find(rules: &Ruleset, code: u8, both_last: bool) -> RiverTiles {
        let group: Vec<Option<usize>> = rules
            .tiles()
            .iter()
            .map(|(_, k)| {
                if k.has_tag("river-spring") || !is_river_tile(k, code) {
                    None
                } else if k.has_tag("river-fork") {
                    Some(0)
                } else if k.has_tag("river-lake") || (both_last && k.has_tag("river-end")) {
                    Some(2)
                } else {
                    Some(1)
                }
            })
            .collect();
        let mut group_sizes = [0; GROUPS.len()];
        for ((_, k), g) in rules.tiles().iter().zip(&group) {
            if let Some(i) = g {
                group_sizes[*i] += usize::from(k.count);
            }
        }
        RiverTiles {
            group,
            group_sizes,
            spring: rules
                .tiles()
                .iter()
                .find(|(_, k)| k.has_tag("river-spring"))
                .map(|(id, _)| id),
            base_start: rules
                .tiles()
                .iter()
                .find(|(_, k)| k.start)
                .map(|(id, _)| id),
            river_sides: rules
                .tiles()
                .iter()
                .map(|(_, k)| sides_with(k, Rotation::R0, code).count())
                .collect(),
            water: rules
                .tiles()
                .iter()
                .map(|(_, k)| Rotation::ALL.map(|r| sides_coded(k.edge_code(r), code)))
                .collect(),
            lake: rules
                .tiles()
                .iter()
                .map(|(_, k)| k.has_tag("river-lake"))
                .collect(),
            volcano: rules
                .tiles()
                .iter()
                .map(|(_, k)| k.has_tag("volcano"))
                .collect(),
            lake_order: {
                let mut v: Vec<(&str, TileKindId)> = rules
                    .tiles()
                    .iter()
                    .filter(|(_, k)| k.has_tag("river-lake"))
                    .map(|(id, k)| (k.id.as_str(), id))
                    .collect();
                v.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                v.into_iter().map(|(_, id)| id).collect()
            },
        }
    }
}

/// Board sides of a tile turned by `r` whose edge has code `code`.
fn sides_with(tk: &TileKind, r: Rotation, code: u8) -> impl Iterator<Item = Side> + '_ {
    Side::ALL
        .into_iter()
        .filter(move |s| tk.edge_at(r, *s) == code)
}

fn is_river_tile(tk: &TileKind, code: u8) -> bool {
    sides_with(tk, Rotation::R0, code).next().is_some()
}

/// The side a clockwise quarter turn of `s` gives (N → E).
fn clockwise(s: Side) -> Side {
    Side::from_index((s.index() + 1) % 4)
}

/// For a curve entered through `entry` and left through `exit`: +1 right turn, -1 left
/// turn, 0 straight.
fn turn(entry: Side, exit: Side) -> i8 {
    let heading = entry.opposite();
    if exit == heading {
        0
    } else if exit == clockwise(heading) {
        1
    } else {
        -1
    }
}

/// The sides (bit `i` = side of index `i`) whose byte in a packed edge code (byte `s` =
/// side `s`) is `code`.
#[inline]
fn sides_coded(edges: u32, code: u8) -> u8 {
    let mut m = 0;
    for i in 0..4 {
        m |= u8::from((edges >> (8 * i)) as u8 == code) << i;
    }
    m
}

/// How many sides a side set holds (a table: no `popcnt` on the baseline x86-64 target).
#[inline]
fn side_count(set: u8) -> u8 {
    const COUNT: [u8; 16] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];
    COUNT[(set & 15) as usize]
}

/// The side of the lowest bit of a non-empty side set.
#[inline]
fn first_side(set: u8) -> Side {
    Side::from_index(set.trailing_zeros() as u8)
}

/// RV-5 and RV-7 for a river tile whose river sides are `water` (turned as placed),
/// entering at `entry` from the tile behind it, whose own turn `prev_turn` gives (+1 /
/// -1 / 0, or none when it is not a two-sided piece of river; asked only for a curve). RV-4 and RV-6 (exactly one
/// open end touched) are the caller's.
fn river_turn_ok(
    board: &Board,
    pos: Pos,
    water: u8,
    entry: Side,
    prev_turn: impl FnOnce() -> Option<i8>,
    lookahead: bool,
) -> bool {
    let exits = water & !(1 << entry.index());
    // RV-5: no two curves in a row turning the same way.
    if side_count(water) == 2 {
        let t = turn(entry, first_side(exits));
        if t != 0 && prev_turn() == Some(t) {
            return false;
        }
    }
    if lookahead {
        let mut rest = exits;
        while rest != 0 {
            let d = first_side(rest);
            rest &= rest - 1;
            let ahead = pos.step(d);
            let (l, r) = (clockwise(d), clockwise(d).opposite());
            let far = ahead.step(d);
            for c in [ahead.step(l), ahead.step(r), far, far.step(l), far.step(r)] {
                if board.is_occupied(c) {
                    return false;
                }
            }
        }
    }
    true
}

/// The turn of the placed river piece at `at` that a new tile enters through its side
/// `exit` (`turn` of its other river side and `exit`), or none when it has not exactly
/// two river sides.
fn turn_behind(board: &Board, at: Pos, exit: Side, code: u8) -> Option<i8> {
    let prev = board.at(at)?;
    let sides = sides_coded(prev.edge_code, code);
    if side_count(sides) != 2 {
        return None;
    }
    // Its other river side (the first of the two if neither is `exit`).
    let other = sides & !(1 << exit.index());
    Some(turn(first_side(other), exit))
}

/// FanCloisterZone's rule (`riverPlacement=fcz`) for one candidate.
fn fcz_placement_ok(board: &Board, tk: &TileKind, pos: Pos, rot: Rotation, code: u8) -> bool {
    let mut touches = false;
    let mut open = [Side::N; 4];
    let mut n_open = 0;
    for s in sides_with(tk, rot, code) {
        if board.is_occupied(pos.step(s)) {
            touches = true;
        } else {
            open[n_open] = s;
            n_open += 1;
        }
    }
    touches
        && open[..n_open]
            .iter()
            .all(|&d| fcz_continuation_free(board, tk, pos, rot, d, code))
}

/// The three conditions of `jcz-saves.md` §13 for an open river side `d` of a tile about
/// to be placed at `pos`.
fn fcz_continuation_free(
    board: &Board,
    tk: &TileKind,
    pos: Pos,
    rot: Rotation,
    d: Side,
    code: u8,
) -> bool {
    let (l, r) = (clockwise(d), clockwise(d).opposite());
    // (1) Beside the cell ahead, the cell beyond it, and beside that.
    let ahead = pos.step(d);
    let far = ahead.step(d);
    if [ahead.step(l), ahead.step(r), far, far.step(l), far.step(r)]
        .into_iter()
        .any(|c| board.is_occupied(c))
    {
        return false;
    }
    // (2) The 3-wide strip ahead up to the bounding box's edge (box of every tile, the
    // new one and (0,0)).
    let (lo, hi) = board.bounds().unwrap_or((pos, pos));
    let (lo, hi) = (
        Pos::new(lo.x.min(pos.x).min(0), lo.y.min(pos.y).min(0)),
        Pos::new(hi.x.max(pos.x).max(0), hi.y.max(pos.y).max(0)),
    );
    let mut c = pos.step(d);
    while c.x >= lo.x && c.x <= hi.x && c.y >= lo.y && c.y <= hi.y {
        if [c, c.step(l), c.step(r)]
            .into_iter()
            .any(|c| board.is_occupied(c))
        {
            return false;
        }
        c = c.step(d);
    }
    // (3) After placing, no two open river ends facing `d` in neighbouring lines.
    let new_edges = Side::ALL.map(|s| tk.edge_at(rot, s));
    let occupied = |c: Pos| c == pos || board.is_occupied(c);
    let mut ends: Vec<Pos> = Vec::new();
    let mut push_end = |from: Pos| {
        let cell = from.step(d);
        if !occupied(cell) {
            ends.push(cell);
        }
    };
    if new_edges[d.index() as usize] == code {
        push_end(pos);
    }
    for t in board.tiles() {
        if (t.edge_code >> (8 * d.index())) as u8 == code {
            push_end(t.pos);
        }
    }
    let beside = |a: Pos, b: Pos| match d {
        Side::N | Side::S => (a.x - b.x).abs() == 1,
        Side::E | Side::W => (a.y - b.y).abs() == 1,
    };
    !ends
        .iter()
        .enumerate()
        .any(|(i, a)| ends[i + 1..].iter().any(|b| beside(*a, *b)))
}

/// Whether `kind` turned by `rot` fits at `pos` against the layout tiles (edge codes).
fn fits_layout(
    rules: &Ruleset,
    layout: &[StartTile],
    kind: TileKindId,
    pos: Pos,
    rot: Rotation,
) -> bool {
    if layout.iter().any(|t| t.pos == pos) {
        return false;
    }
    let tk = rules.tiles().get(kind);
    let mut touches = false;
    for s in Side::ALL {
        if let Some(n) = layout.iter().find(|t| t.pos == pos.step(s)) {
            touches = true;
            let nk = rules.tiles().get(n.kind);
            if nk.edge_at(n.rotation, s.opposite()) != tk.edge_at(rot, s) {
                return false;
            }
        }
    }
    touches
}

/// `riverLakes=per-branch`: as many lakes as branches (1 + the forks' river sides − 2 per
/// fork), copying the lake tiles in id order or dropping non-volcano lakes, last first.
fn lakes_per_branch(known: &RiverTiles, groups: &mut [SupplyGroup]) {
    let lake = |t: &TileKindId| known.lake[t.0 as usize];
    let volcano = |t: &TileKindId| known.volcano[t.0 as usize];
    let forks = &groups[0].tiles;
    let sides: usize = forks.iter().map(|t| known.river_sides[t.0 as usize]).sum();
    let branches = (1 + sides).saturating_sub(2 * forks.len());
    let lakes = &mut groups[2].tiles;
    let mut have = lakes.iter().filter(|t| lake(t)).count();
    // Only lakes that are in the pack are copied.
    let present: Vec<TileKindId> = known
        .lake_order
        .iter()
        .copied()
        .filter(|k| lakes.contains(k))
        .collect();
    let mut next = present.iter().cycle();
    while have < branches {
        let Some(k) = next.next() else { break };
        lakes.push(*k);
        have += 1;
    }
    while have > branches {
        let Some(i) = lakes.iter().rposition(|t| lake(t) && !volcano(t)) else {
            break;
        };
        lakes.remove(i);
        have -= 1;
    }
}

/// RV-10: a cell and rotation for the spring beside a start block, its water facing an
/// empty cell that touches no layout tile.
fn spring_spot(
    rules: &Ruleset,
    layout: &[StartTile],
    spring: TileKindId,
    code: u8,
) -> Option<(Pos, Rotation)> {
    let min_x = layout.iter().map(|t| t.pos.x).min()?;
    let max_x = layout.iter().map(|t| t.pos.x).max()?;
    let min_y = layout.iter().map(|t| t.pos.y).min()?;
    let max_y = layout.iter().map(|t| t.pos.y).max()?;
    let tk = rules.tiles().get(spring);
    let water_free = |pos: Pos, rot: Rotation| {
        sides_with(tk, rot, code).all(|s| {
            // No layout tile on the cell ahead nor next to it (one pass over the layout).
            let ahead = pos.step(s);
            !layout.iter().any(|t| {
                let (dx, dy) = (
                    i64::from(t.pos.x) - i64::from(ahead.x),
                    i64::from(t.pos.y) - i64::from(ahead.y),
                );
                dx.abs() + dy.abs() <= 1
            })
        })
    };
    let jcz = (Pos::new(max_x + 1, min_y), Rotation::R0);
    if fits_layout(rules, layout, spring, jcz.0, jcz.1) && water_free(jcz.0, jcz.1) {
        return Some(jcz);
    }
    for y in min_y - 1..=max_y + 1 {
        for x in min_x - 1..=max_x + 1 {
            for rot in Rotation::ALL {
                let p = Pos::new(x, y);
                if fits_layout(rules, layout, spring, p, rot) && water_free(p, rot) {
                    return Some((p, rot));
                }
            }
        }
    }
    None
}

/// Declares the river kind (shared: a second declaration returns the same kind).
pub fn declare_river(d: &mut Declare<'_>) -> HookResult<FeatureKindId> {
    d.feature_kind(FeatureKindDef {
        // Renderers draw it as a river (blue band, ponds).
        look: "river".into(),
        ..FeatureKindDef::new(
            "river",
            Shape::Edge {
                letter: 'W',
                fields_alongside: true,
            },
            Scoring::Unscored,
            false,
        )
    })
    .map_err(|e| HookFailure(e.to_string()))
}

impl RiverRules {
    /// The rules for `river` in `rules`; `both_last` (River II's `riverEnds=both-last`)
    /// holds the `river-end` tiles back with the lakes.
    pub fn bind(rules: &Ruleset, river: FeatureKindId, opts: Opts, both_last: bool) -> Self {
        let code = river.0 + 1;
        RiverRules {
            code,
            opts,
            tiles: RiverTiles::find(rules, code, both_last),
        }
    }
}

impl RiverRules {
    /// `riverSetup=mixed`: the river groups and the spring's, all active, beside the others
    /// (JCZ's group names, so the importer's draws sort them as JCZ does).
    fn mixed_supply(&self, ctx: &mut Ctx<'_>) {
        let known = &self.tiles;
        let supply = ctx.supply_mut();
        let mut groups: Vec<SupplyGroup> = GROUPS
            .iter()
            .chain(&["river-spring"])
            .map(|n| SupplyGroup {
                name: n.to_string(),
                tiles: Vec::new(),
                active: true,
            })
            .collect();
        for g in supply.groups.iter_mut() {
            g.active = true;
            g.tiles.retain(|t| {
                let to = if Some(*t) == known.spring {
                    Some(GROUPS.len())
                } else {
                    known.group[t.0 as usize]
                };
                match to {
                    Some(i) => {
                        groups[i].tiles.push(*t);
                        false
                    }
                    None => true,
                }
            });
        }
        groups.retain(|g| !g.tiles.is_empty());
        groups.append(&mut supply.groups);
        supply.groups = groups;
    }
}

impl BoundExpansion for RiverRules {
    fn hook_set(&self) -> HookSet {
        let base = if self.opts.mixed {
            HookSet::GAME_START
        } else {
            HookSet::GAME_START | HookSet::FILTER_PLACEMENTS
        };
        if self.opts.volcano_extra {
            base | HookSet::ON_TURN_END
        } else {
            base
        }
    }

    /// RV-1 … RV-3, RV-10: the spring starts the game; the river tiles come first.
    fn prepare_game(&self, ctx: &mut Ctx<'_>, start: &mut Vec<StartTile>) -> HookResult {
        if self.opts.mixed {
            self.mixed_supply(ctx);
            return Ok(());
        }
        let code = self.code;
        let rules = ctx.rules();
        let known = &self.tiles;
        let spring = known
            .spring
            .ok_or_else(|| HookFailure("no tile tagged `river-spring` is loaded".into()))?;
        let base_start = known.base_start;
        let only_default_start =
            start.len() == 1 && start[0].pos == Pos::new(0, 0) && Some(start[0].kind) == base_start;
        if only_default_start {
            start[0] = StartTile {
                kind: spring,
                pos: Pos::new(0, 0),
                rotation: Rotation::R0,
            };
        } else {
            let (pos, rotation) = spring_spot(rules, start, spring, code).ok_or_else(|| {
                HookFailure("no cell beside the start layout takes the spring (RV-10)".into())
            })?;
            start.push(StartTile {
                kind: spring,
                pos,
                rotation,
            });
        }
        let kinds = &known.group;
        let per_branch = self.opts.lakes_per_branch;
        let supply = ctx.supply_mut();
        // Each river group sized at once for the copies its kinds have in the tile set.
        let mut groups: Vec<SupplyGroup> = Vec::with_capacity(GROUPS.len() + supply.groups.len());
        groups.extend(
            GROUPS
                .iter()
                .zip(known.group_sizes)
                .map(|(n, size)| SupplyGroup {
                    name: n.to_string(),
                    tiles: Vec::with_capacity(size),
                    active: false,
                }),
        );
        for g in supply.groups.iter_mut() {
            g.active = false;
            g.tiles.retain(|t| match kinds[t.0 as usize] {
                Some(i) => {
                    groups[i].tiles.push(*t);
                    false
                }
                None => true,
            });
        }
        if per_branch {
            lakes_per_branch(known, &mut groups);
        }
        groups.retain(|g| !g.tiles.is_empty());
        if let Some(first) = groups.first_mut() {
            first.active = true;
        }
        // The river groups first, then the others in their order.
        groups.append(&mut supply.groups);
        supply.groups = groups;
        Ok(())
    }

    /// Only river tiles are restricted (not at all under `riverSetup=mixed`).
    fn filters_tile(&self, rules: &Ruleset, tile: TileKindId) -> HookResult<bool> {
        Ok(is_river_tile(rules.tiles().get(tile), self.code))
    }

    /// RV-4 … RV-7 for river tiles.
    fn filter_placements(
        &self,
        v: View<'_>,
        _player: PlayerId,
        tile: TileKindId,
        cells: &mut [PlacementCell],
    ) -> HookResult {
        let code = self.code;
        // Only river tiles are restricted (their river sides were found at bind).
        let Some(water) = self.tiles.water.get(tile.0 as usize) else {
            return Ok(());
        };
        if water[0] == 0 {
            return Ok(());
        }
        let tk = v.rules.tiles().get(tile);
        let opts = &self.opts;
        let lookahead = opts.lookahead;
        let board = v.state.board();
        if opts.fcz_placement {
            for c in cells.iter_mut() {
                for rot in Rotation::ALL {
                    let bit = 1 << rot.quarters();
                    if c.rotations & bit != 0 && !fcz_placement_ok(board, tk, c.pos, rot, code) {
                        c.rotations &= !bit;
                    }
                }
            }
            return Ok(());
        }
        // RV-4: only cells facing an open river end can take a river tile: those whose
        // edge constraints name the river on some side. The candidates are frontier
        // cells in frontier order, so one walk along the frontier finds each one's
        // constraints without looking at its neighbours (a candidate not found ahead
        // asks the board).
        let frontier = board.frontier();
        let pattern = u32::from(code) * 0x0101_0101;
        let mut next = 0;
        for c in cells.iter_mut() {
            let pos = c.pos;
            let want = match frontier[next..].iter().position(|f| f.pos == pos) {
                Some(i) => {
                    next += i + 1;
                    frontier[next - 1].want
                }
                None => board.constraints(pos).0,
            };
            // A zero byte where a side wants the river. `want` is 0 on unconstrained
            // sides (a tile fits when `edge_code & mask == want`) and the river's code
            // is not 0, so the mask need not be read.
            let x = want ^ pattern;
            if x.wrapping_sub(0x0101_0101) & !x & 0x8080_8080 == 0 {
                c.rotations = 0;
                continue;
            }
            let facing = sides_coded(want, code);
            // RV-4 continue an open end; RV-6 never join two. Every rotation offered
            // fits its neighbours' edges, so its river sides touching a tile are exactly
            // the sides facing an open end, the same for every rotation.
            if facing == 0 || facing & (facing - 1) != 0 {
                c.rotations = 0;
                continue;
            }
            let entry = first_side(facing);
            let behind = pos.step(entry);
            for rot in Rotation::ALL {
                let bit = 1 << rot.quarters();
                if c.rotations & bit != 0
                    && !river_turn_ok(
                        board,
                        pos,
                        water[rot.quarters() as usize],
                        entry,
                        || turn_behind(board, behind, entry.opposite(), code),
                        lookahead,
                    )
                {
                    c.rotations &= !bit;
                }
            }
        }
        Ok(())
    }

    /// RV-9 `volcanoExtraTile`.
    fn on_turn_end(&self, ctx: &mut Ctx<'_>) -> HookResult<TurnEndVerdict> {
        if !self.opts.volcano_extra {
            return Ok(TurnEndVerdict::Next);
        }
        let Some(idx) = ctx.state().last_placed() else {
            return Ok(TurnEndVerdict::Next);
        };
        let kind = ctx.state().board().tile(idx).kind;
        Ok(if ctx.rules().tiles().get(kind).has_tag("volcano") {
            TurnEndVerdict::ExtraPart
        } else {
            TurnEndVerdict::Next
        })
    }
}
