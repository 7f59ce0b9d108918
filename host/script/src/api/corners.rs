//! Functions that read tile corners and rectangles of cells: where four tiles meet, which
//! segment covers a corner there, how many tiles a rectangle holds; and the guard that runs
//! a hook only when a tile fills the area around a figure. For figures that stand on a junction of
//! tiles (The Obelisk) or score an area of the board around them (Děčínský Sněžník).
//!
//! Corners are numbered clockwise from the north-west: 0 NW, 1 NE, 2 SE, 3 SW (as the
//! JCZ importer's `value = "corner"` actions). A corner is covered by a segment when one
//! segment holds both half-edges beside it (a field: only fields have half-edges).

use super::*;
use carcassonne_core::HalfEdge;

/// A corner's two half-edges, clockwise from the north-west (WR+NL, NR+EL, ER+SL, SR+WL).
const CORNER_HALVES: [(u8, u8); 4] = [(7, 0), (1, 2), (3, 4), (5, 6)];

/// The four tiles meeting at corner `c` of a cell: their offsets from it and the corner
/// of each at that point (the cell itself first).
const JUNCTION: [[(i32, i32, u8); 4]; 4] = [
    [(0, 0, 0), (-1, 0, 1), (-1, -1, 2), (0, -1, 3)],
    [(0, 0, 1), (0, -1, 2), (1, -1, 3), (1, 0, 0)],
    [(0, 0, 2), (1, 0, 3), (1, 1, 0), (0, 1, 1)],
    [(0, 0, 3), (0, 1, 0), (-1, 1, 1), (-1, 0, 2)],
];

/// The segment of the tile at `pos` covering its corner `c` (as placed), if one does.
fn corner_of(v: View<'_>, pos: Pos, c: u8) -> Option<SegmentId> {
    let t = v.state.board().at(pos)?;
    let kind = v.rules.tiles().get(t.kind);
    let (a, b) = CORNER_HALVES[c as usize & 3];
    let la = kind.segment_on_half(t.rotation, HalfEdge::from_index(a))?;
    let lb = kind.segment_on_half(t.rotation, HalfEdge::from_index(b))?;
    (la == lb).then(|| v.state.segment_at(pos, la)).flatten()
}

/// The segment a figure put on the junction at corner `c` of the cell at `pos` stands on:
/// the one covering the north-west corner of the tile south-east of the junction (as
/// FanCloisterZone points at a junction), so a junction has one segment whichever of its
/// four tiles was placed last.
pub(crate) fn junction_anchor(v: View<'_>, pos: Pos, c: u8) -> Option<SegmentId> {
    let (dx, dy) = [(0, 0), (1, 0), (1, 1), (0, 1)][c as usize & 3];
    corner_of(v, Pos::new(pos.x + dx, pos.y + dy), 0)
}

/// The corners of the cell at `pos` where four placed tiles meet, each covering its corner
/// there with one segment of a kind in `kinds` (a mask of feature kind ids), in corner order.
pub(crate) fn junction_corners_of(
    v: View<'_>,
    pos: Pos,
    kinds: u64,
) -> impl Iterator<Item = u8> + '_ {
    let board = v.state.board();
    (0..4u8).filter(move |&corner| {
        let cells = &JUNCTION[corner as usize];
        // Most corners fail for an empty cell: look at the board before the tiles.
        cells[1..]
            .iter()
            .all(|&(dx, dy, _)| board.is_occupied(Pos::new(pos.x + dx, pos.y + dy)))
            && cells.iter().all(|&(dx, dy, cc)| {
                corner_of(v, Pos::new(pos.x + dx, pos.y + dy), cc)
                    .is_some_and(|s| kinds & (1 << v.state.graph().segment(s).kind.0) != 0)
            })
    })
}

fn corner_arg(c: INT) -> R<u8> {
    match c {
        0..=3 => Ok(c as u8),
        _ => err(format!(
            "corner {c} is not one of 0 (NW), 1 (NE), 2 (SE), 3 (SW)"
        )),
    }
}

/// The hooks `guard_area_full` may guard: those that run after this turn's placement.
const AFTER_PLACEMENT: [&str; 6] = [
    "on_tile_placed",
    "deploy_actions",
    "window_after_deploy",
    "window_before_scoring",
    "window_after_scoring",
    "on_turn_end",
];

/// The `[dx, dy]` pairs of a `guard_area_full` area as a mask.
fn area_mask(cells: &Array) -> R<u128> {
    let mut mask = 0;
    for cell in cells {
        let pair = cell.clone().try_cast::<Array>().unwrap_or_default();
        let xy: Vec<INT> = pair.iter().filter_map(|v| v.as_int().ok()).collect();
        let bit = match xy[..] {
            [dx, dy] if pair.len() == 2 => crate::decl::area_bit(dx as i32, dy as i32),
            _ => None,
        };
        mask |= bit.ok_or_else(|| {
            format!(
                "guard_area_full: a cell must be [dx, dy] with both from -{r} to {r}, not {cell}",
                r = crate::decl::AREA_REACH
            )
        })?;
    }
    if mask == 0 {
        return err("guard_area_full: the area has no cell");
    }
    Ok(mask)
}

/// Corners and rectangles of cells, and the guard on an area.
pub(crate) fn register_corners(reg: &mut Registry) {
    reg.engine.register_fn(
        "guard_area_full",
        |nc: NativeCallContext, hook: &str, kind: &str, cells: Array| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            if !AFTER_PLACEMENT.contains(&hook) {
                return err(format!(
                    "guard_area_full: hook `{hook}` is not one of {}",
                    AFTER_PLACEMENT.join(", ")
                ));
            }
            let mask = area_mask(&cells)?;
            let spec = super::setup::guarded_hook(hook)?;
            // Resolved when the ruleset is complete: the kind may be another expansion's.
            decl.borrow_mut().guards[spec.hook.index()] =
                Some(crate::Guard::AreaFull(kind.to_string(), mask));
            Ok(())
        },
    );
    game_fn!(reg, Read, "corner_segment", |c,
                                           x: int,
                                           y: int,
                                           corner: int|
     -> INT {
        let v = c.view()?;
        let corner = corner_arg(corner)?;
        Ok(corner_of(v, Pos::new(x as i32, y as i32), corner).map_or(-1, |s| s.index() as INT))
    });
    game_fn!(reg, Read, "junction_corners", |c,
                                             x: int,
                                             y: int,
                                             kind: str|
     -> Array {
        let v = c.view()?;
        let Some(k) = v.rules.kind_named(kind) else {
            return err(format!("no feature kind `{kind}`"));
        };
        // Only the corner is returned, so that a hook's calls repeat (a remembered call;
        // segments are new in every call).
        Ok(
            junction_corners_of(v, Pos::new(x as i32, y as i32), 1 << k.0)
                .map(|c| INT::from(c).into())
                .collect(),
        )
    });
    game_fn!(reg, Read, "tiles_in_rect", |c,
                                          x0: int,
                                          y0: int,
                                          x1: int,
                                          y1: int|
     -> INT {
        let v = c.view()?;
        if x1 < x0 || y1 < y0 || (x1 - x0 + 1).saturating_mul(y1 - y0 + 1) > 10_000 {
            return err(format!(
                "({x0},{y0})…({x1},{y1}) is not a rectangle of at most 10000 cells"
            ));
        }
        let board = v.state.board();
        let mut n = 0;
        for y in y0..=y1 {
            for x in x0..=x1 {
                n += INT::from(board.is_occupied(Pos::new(x as i32, y as i32)));
            }
        }
        Ok(n)
    });
}
