//! Feature kinds and completion: `open_kind` (`setup()` only), which lets followers stand
//! on a kind another expansion declared closed and unscored (fans' fishermen on River I's
//! river), and `completes_at`, which says which features a placement would complete before
//! it is made (Village Life's donkey forbids completing those on its tile), with
//! `keep_open` to filter placements by it and `placed_tiles` to list the tiles.

use super::*;
use carcassonne_core::{FeatureId, Pos, Scoring, Side};

pub(crate) fn register_kinds(reg: &mut Registry) {
    // open_kind(kind, complete_tile, end_tile): followers may stand on `kind`, and its
    // features go to the majority like a road's, worth `complete_tile` per tile when
    // complete and `end_tile` per tile at the end of the game. `false` when no loaded
    // expansion declares `kind` (nothing to open: Fishermen without a river).
    reg.engine.register_fn(
        "open_kind",
        |nc: NativeCallContext, kind: &str, complete_tile: INT, end_tile: INT| -> R<bool> {
            let mut c = call(&nc)?;
            let (setup, _) = c.declarations()?;
            let Some(k) = setup.kind_named(kind) else {
                return Ok(false);
            };
            let per_tile = |v: INT, what: &str| -> R<i32> {
                if (-100..=100).contains(&v) {
                    Ok(v as i32)
                } else {
                    err(format!("open_kind: `{what}` {v} is outside -100…100"))
                }
            };
            let scoring = Scoring::Points {
                complete_tile: per_tile(complete_tile, "complete_tile")?,
                complete_marker: 0,
                end_tile: per_tile(end_tile, "end_tile")?,
                end_marker: 0,
            };
            setup
                .open_kind(k, scoring)
                .map(|()| true)
                .map_err(|e| format!("open_kind: {e}").into())
        },
    );
    game_fn!(reg, Read, "completes_at", |c,
                                         tile: str,
                                         x: int,
                                         y: int,
                                         degrees: int|
     -> Array {
        let v = c.view()?;
        let (t, pos, r) = unplaced_at(c, v, "completes_at", (tile, x, y, degrees))?;
        Ok(completed_by(v, t, pos, r)
            .into_iter()
            .map(|f| (f.segment().index() as INT).into())
            .collect())
    });
    game_fn!(reg, Read, "placed_tiles", |c| -> Array {
        let v = c.view()?;
        Ok(v.state
            .board()
            .tiles()
            .iter()
            .filter(|t| t.segment_count > 0)
            .map(|t| (t.first_segment as INT).into())
            .collect())
    });
    game_fn!(reg, Read, "keep_open", |c,
                                      tile: str,
                                      cells: any,
                                      segments: any|
     -> Array {
        let cells = cells
            .try_cast::<Array>()
            .ok_or("keep_open: `cells` must be an array")?;
        let segments = segments
            .try_cast::<Array>()
            .ok_or("keep_open: `segments` must be an array")?;
        keep_open(c.view()?, tile, cells, segments)
    });
}

/// `keep_open(tile, cells, segments)`: `cells` (as `filter_placements` gets them) without
/// the rotations whose placement would complete the feature of one of `segments`.
fn keep_open(v: View<'_>, tile: &str, cells: Array, segments: Array) -> R<Array> {
    let t = v
        .rules
        .tiles()
        .find(tile)
        .ok_or_else(|| format!("keep_open: no tile `{tile}`"))?;
    let g = v.state.graph();
    let mut guarded = Vec::with_capacity(segments.len());
    for s in segments {
        let s = s
            .as_int()
            .map_err(|_| "keep_open: segments must be integers")?;
        guarded.push(g.feature_of(segment(v.state, s)?));
    }
    let mut out = Array::with_capacity(cells.len());
    for c in cells {
        let m = c
            .try_cast::<Map>()
            .ok_or("keep_open: each cell must be a map #{x, y, rotations}")?;
        let get = |k: &str| -> R<INT> {
            m.get(k)
                .and_then(|d| d.as_int().ok())
                .ok_or_else(|| format!("keep_open: a cell has no integer `{k}`").into())
        };
        let (x, y, mut bits) = (get("x")?, get("y")?, get("rotations")?);
        let pos = match (i32::try_from(x), i32::try_from(y)) {
            (Ok(x), Ok(y)) => Pos::new(x, y),
            _ => return err(format!("keep_open: ({x},{y}) is out of range")),
        };
        if guarded.is_empty() || v.state.board().is_occupied(pos) || !pos.in_bounds() {
            out.push(Dynamic::from_map(m));
            continue;
        }
        for q in 0..4u8 {
            if bits & (1 << q) != 0
                && completed_by(v, t, pos, Rotation::quarter_turns(q))
                    .iter()
                    .any(|f| guarded.contains(f))
            {
                bits &= !(1 << q);
            }
        }
        if bits != 0 {
            let mut k = Map::new();
            k.insert("x".into(), x.into());
            k.insert("y".into(), y.into());
            k.insert("rotations".into(), bits.into());
            out.push(Dynamic::from_map(k));
        }
    }
    Ok(out)
}

/// The features on the board that placing `t` at `pos` turned by `r` would complete, each
/// once, in the order found: sites (cloisters) whose last empty neighbour `pos` is, then
/// edge features whose every open edge the tile closes without opening new ones.
pub(crate) fn completed_by(v: View<'_>, t: TileKindId, pos: Pos, r: Rotation) -> Vec<FeatureId> {
    let g = v.state.graph();
    let board = v.state.board();
    let open = |f: FeatureId| {
        let tot = g.totals(f);
        (tot.completable && !tot.scored && tot.open > 0).then_some(tot.open)
    };
    let mut done: Vec<FeatureId> = Vec::new();
    for p in pos.surrounding() {
        let Some(placed) = board.at(p) else { continue };
        let kind = v.rules.tiles().get(placed.kind);
        for (local, _) in kind.segments.iter().enumerate() {
            if placed.sites & (1 << local) == 0 {
                continue;
            }
            let f = g.feature_of(placed.segment(local));
            if open(f) == Some(1) && !done.contains(&f) {
                done.push(f);
            }
        }
    }
    // Per side of the new tile: the neighbour's feature it joins, if any.
    let tk = v.rules.tiles().get(t);
    let mut facing: [Option<FeatureId>; 4] = [None; 4];
    let mut ended: Vec<FeatureId> = Vec::new();
    for side in Side::ALL {
        let Some(n) = board.at(pos.step(side)) else {
            continue;
        };
        let nk = v.rules.tiles().get(n.kind);
        if let Some(local) = nk.segment_on_side(n.rotation, side.opposite()) {
            let f = g.feature_of(n.segment(usize::from(local)));
            if !tk.barrier
                && v.rules
                    .edges_meet(tk.edge_at(r, side), nk.edge_at(n.rotation, side.opposite()))
            {
                // An edge declared to meet this one without joining (a gate): it ends here.
                ended.push(f);
            } else {
                facing[side.index() as usize] = Some(f);
            }
        }
    }
    if tk.barrier {
        // A barrier tile closes each edge facing it and opens none.
        let mut closes: Vec<(FeatureId, u16)> = Vec::new();
        for f in facing.into_iter().flatten() {
            match closes.iter_mut().find(|(g, _)| *g == f) {
                Some((_, n)) => *n += 1,
                None => closes.push((f, 1)),
            }
        }
        for (f, n) in closes {
            if open(f) == Some(n) && !done.contains(&f) {
                done.push(f);
            }
        }
        return done;
    }
    // Each edge segment of the new tile, with what it joins: the new segments that share
    // a neighbour's feature become one feature, so they are grouped first.
    let mut segs: Vec<(u8, Vec<FeatureId>, u16)> = (0..tk.segments.len() as u8)
        .filter_map(|local| {
            let seg = &tk.segments[local as usize];
            if seg.sides.is_empty() || !v.rules.kind(seg.kind).completes {
                return None;
            }
            let mut joins = Vec::new();
            let mut opens = 0u16;
            for side in seg.sides.rotate(r).iter() {
                match facing[side.index() as usize] {
                    Some(f) => joins.push(f),
                    None if board.at(pos.step(side)).is_none() => opens += 1,
                    None => {}
                }
            }
            Some((local, joins, opens))
        })
        .collect();
    // Each edge ended by a gate counts as a join that opens nothing.
    segs.extend(ended.into_iter().map(|f| (u8::MAX, vec![f], 0)));
    let mut group: Vec<usize> = (0..segs.len()).collect();
    for i in 0..segs.len() {
        for j in 0..i {
            if segs[i].1.iter().any(|f| segs[j].1.contains(f)) {
                let (gi, gj) = (group[i], group[j]);
                group.iter_mut().filter(|x| **x == gi).for_each(|x| *x = gj);
            }
        }
    }
    for root in 0..segs.len() {
        let members: Vec<usize> = (0..segs.len()).filter(|&i| group[i] == root).collect();
        let mut features: Vec<FeatureId> = Vec::new();
        let (mut joined, mut opens) = (0u32, 0u32);
        let mut closable = true;
        for &i in &members {
            opens += u32::from(segs[i].2);
            for &f in &segs[i].1 {
                joined += 1;
                if !features.contains(&f) {
                    closable &= open(f).is_some();
                    features.push(f);
                }
            }
        }
        if features.is_empty() || !closable {
            continue;
        }
        let before: u32 = features.iter().map(|&f| u32::from(g.totals(f).open)).sum();
        if before + opens == joined {
            for f in features {
                if !done.contains(&f) {
                    done.push(f);
                }
            }
        }
    }
    done
}
