//! Functions that read the rules and the board: tiles, segments, features, scores.

use super::*;

pub(crate) fn register_rules(reg: &mut Registry) {
    game_fn!(reg, Rules, "option", |c, key: str| -> Dynamic {
        let rules = c.rules()?;
        // Own options first (`perPlayer`), then the base game's (`farmScoring`).
        let found = if key.contains('.') {
            rules.options().get(key)
        } else {
            let own = format!("{}.{key}", c.script.id);
            rules
                .options()
                .get(&own)
                .or_else(|| rules.options().get(key))
        };
        found
            .map(option_dynamic)
            .ok_or_else(|| format!("no option `{key}`").into())
    });
    game_fn!(reg, Rules, "has_expansion", |c, id: str| -> bool {
        Ok(id == "base" || c.rules()?.expansion_index(id).is_some())
    });
    game_fn!(reg, Rules, "has_figure_kind", |c, n: str| -> bool {
        Ok(c.rules()?.figure_named(n).is_some())
    });
    game_fn!(reg, Rules, "tile_features", |c, t: str| -> Array {
        let rules = c.rules()?;
        let k = rules.tiles().get(tile_kind(c, rules, t)?);
        Ok(k.segments
            .iter()
            .map(|s| rules.kind(s.kind).name.clone().into())
            .collect())
    });
    game_fn!(reg, Rules, "tile_has_feature", |c,
                                              t: str,
                                              kind: str|
     -> bool {
        let rules = c.rules()?;
        let k = rules.tiles().get(tile_kind(c, rules, t)?);
        Ok(k.segments.iter().any(|s| rules.kind(s.kind).name == kind))
    });
    game_fn!(reg, Rules, "tile_has_tag", |c, t: str, tag: str| -> bool {
        let rules = c.rules()?;
        Ok(rules.tiles().get(tile_kind(c, rules, t)?).has_tag(tag))
    });
}

fn totals<T>(
    c: &Call<'_, '_>,
    s: INT,
    f: impl Fn(&carcassonne_core::FeatureGraph, carcassonne_core::FeatureId) -> T,
) -> R<T> {
    let v = c.view()?;
    let s = segment(v.state, s)?;
    let g = v.state.graph();
    Ok(f(g, g.feature_of(s)))
}

pub(crate) fn register_reads(reg: &mut Registry) {
    game_fn!(reg, Read, "players", |c| -> INT {
        Ok(c.view()?.state.players().len() as INT)
    });
    game_fn!(reg, Read, "active_player", |c| -> INT {
        Ok(c.view()?.state.active_player().0 as INT)
    });
    game_fn!(reg, Read, "turn", |c| -> INT {
        Ok(c.view()?.state.turn() as INT)
    });
    game_fn!(reg, Read, "score", |c, p: int| -> INT {
        if c.awards.as_ref().is_some_and(|a| !a.is_empty()) {
            return err("an award is waiting");
        }
        let v = c.view()?;
        let p = player(v.state, p)?;
        Ok(v.state.players()[p.0 as usize].score as INT)
    });
    game_fn!(reg, Read, "in_final_scoring", |c| -> bool {
        Ok(c.view()?.state.in_final_scoring())
    });
    game_fn!(reg, Read, "tiles_left", |c| -> INT {
        Ok(c.view()?.state.supply().remaining() as INT)
    });
    game_fn!(reg, Read, "revealed_tile", |c| -> Dynamic {
        let v = c.view()?;
        Ok(v.state
            .revealed_tile()
            .map_or(Dynamic::UNIT, |t| tile_name(c, v.rules, t)))
    });
    game_fn!(reg, Read, "tile_chosen_instead", |c| -> Dynamic {
        let v = c.view()?;
        Ok(v.state
            .tile_chosen_instead()
            .map_or(Dynamic::UNIT, |t| tile_name(c, v.rules, t)))
    });
    game_fn!(reg, Read, "last_placed", |c| -> Dynamic {
        let v = c.view()?;
        let Some(i) = v.state.last_placed() else {
            return Ok(Dynamic::UNIT);
        };
        let t = v.state.board().tile(i);
        let mut m = Map::new();
        m.insert("x".into(), (t.pos.x as INT).into());
        m.insert("y".into(), (t.pos.y as INT).into());
        m.insert("tile".into(), tile_name(c, v.rules, t.kind));
        m.insert("rotation".into(), (t.rotation.degrees() as INT).into());
        m.insert(
            "player".into(),
            v.state.last_placer().map_or(-1, |p| p.0 as INT).into(),
        );
        Ok(Dynamic::from_map(m))
    });
    game_fn!(reg, Read, "tile_at", |c, x: int, y: int| -> Dynamic {
        let v = c.view()?;
        Ok(v.state
            .board()
            .at(Pos::new(x as i32, y as i32))
            .map_or(Dynamic::UNIT, |t| tile_name(c, v.rules, t.kind)))
    });
    game_fn!(reg, Read, "segments_at", |c, x: int, y: int| -> Array {
        let v = c.view()?;
        let pos = Pos::new(x as i32, y as i32);
        // Every segment of the tile there (as many as its kind has: a tile may have more
        // than eight).
        let count = v
            .state
            .board()
            .at(pos)
            .map_or(0, |t| v.rules.tiles().get(t.kind).segments.len());
        let mut out = Array::new();
        for local in 0..count.min(u8::MAX as usize + 1) {
            match v.state.segment_at(pos, local as u8) {
                Some(s) => out.push((s.index() as INT).into()),
                None => break,
            }
        }
        Ok(out)
    });
    game_fn!(reg, Read, "segment_kind", |c, s: int| -> String {
        let v = c.view()?;
        let s = segment(v.state, s)?;
        Ok(v.rules.kind(v.state.graph().segment(s).kind).name.clone())
    });
    game_fn!(reg, Read, "segment_cell", |c, s: int| -> Dynamic {
        let v = c.view()?;
        let node = v.state.graph().segment(segment(v.state, s)?);
        Ok(node.cell().map_or(Dynamic::UNIT, cell))
    });
    game_fn!(reg, Read, "feature_of", |c, s: int| -> INT {
        totals(c, s, |_, f| f.segment().index() as INT)
    });
    game_fn!(reg, Read, "feature_complete", |c, s: int| -> bool {
        totals(c, s, |g, f| g.totals(f).complete())
    });
    game_fn!(reg, Read, "feature_scored", |c, s: int| -> bool {
        totals(c, s, |g, f| g.totals(f).scored)
    });
    game_fn!(reg, Read, "feature_tiles", |c, s: int| -> INT {
        totals(c, s, |g, f| g.tile_count(f) as INT)
    });
    game_fn!(reg, Read, "feature_pennants", |c, s: int| -> INT {
        totals(c, s, |g, f| g.totals(f).pennants as INT)
    });
    game_fn!(reg, Read, "feature_figures", |c, s: int| -> Array {
        let v = c.view()?;
        let s = segment(v.state, s)?;
        // `figures_on` already lists the figures on the whole feature, once each.
        Ok(v.state.figures_on(s).map(|f| (f.0 as INT).into()).collect())
    });
    game_fn!(reg, Read, "figures", |c| -> Array {
        let v = c.view()?;
        Ok(v.state
            .figures()
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f.loc, FigureLoc::On(_)))
            .map(|(i, _)| (i as INT).into())
            .collect())
    });
    game_fn!(reg, Read, "figures_of_kind", |c, kind: str| -> Array {
        let v = c.view()?;
        let Some(k) = v.rules.figure_named(kind) else {
            return Ok(Array::new());
        };
        Ok(v.state
            .figures()
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == k && matches!(f.loc, FigureLoc::On(_)))
            .map(|(i, _)| (i as INT).into())
            .collect())
    });
    game_fn!(reg, Read, "segments_of_kind", |c, kind: str| -> Array {
        let v = c.view()?;
        let Some(k) = v.rules.kind_named(kind) else {
            return Ok(Array::new());
        };
        let mut out = Array::new();
        for t in v.state.board().tiles() {
            let tile = v.rules.tiles().get(t.kind);
            for (local, seg) in tile.segments.iter().enumerate() {
                if seg.kind == k {
                    out.push((t.segment(local).index() as INT).into());
                }
            }
        }
        Ok(out)
    });
    game_fn!(reg, Read, "supply_groups", |c| -> Array {
        let v = c.view()?;
        Ok(v.state
            .supply()
            .groups
            .iter()
            .map(|g| {
                let mut m = Map::new();
                m.insert("name".into(), g.name.clone().into());
                m.insert("active".into(), g.active.into());
                let tiles: Array = g.tiles.iter().map(|t| tile_name(c, v.rules, *t)).collect();
                m.insert("tiles".into(), Dynamic::from_array(tiles));
                Dynamic::from_map(m)
            })
            .collect())
    });
    game_fn!(reg, Read, "completed_features", |c| -> Array {
        let v = c.view()?;
        let mut out = Vec::new();
        v.completed_by_last_placement(&mut out);
        Ok(out
            .iter()
            .map(|f| (f.segment().index() as INT).into())
            .collect())
    });
    game_fn!(reg, Read, "farm_cities", |c, s: int| -> Array {
        let v = c.view()?;
        let s = segment(v.state, s)?;
        let mut out = Vec::new();
        v.farm_cities(v.state.graph().feature_of(s), &mut out);
        Ok(out
            .iter()
            .map(|f| (f.segment().index() as INT).into())
            .collect())
    });
    game_fn!(reg, Read, "placements_of", |c, tile: str| -> Array {
        let v = c.view()?;
        let t = v
            .rules
            .tiles()
            .find(tile)
            .ok_or_else(|| format!("placements_of: no tile `{tile}`"))?;
        let mut cells = Vec::new();
        v.placements_of(t, &mut cells)
            .map_err(|e| -> Box<EvalAltResult> { e.to_string().into() })?;
        Ok(cells
            .iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("x".into(), (c.pos.x as INT).into());
                m.insert("y".into(), (c.pos.y as INT).into());
                m.insert("rotations".into(), (c.rotations as INT).into());
                Dynamic::from_map(m)
            })
            .collect())
    });
    game_fn!(reg, Read, "open_features", |c, kind: str| -> Array {
        let v = c.view()?;
        let Some(k) = v.rules.kind_named(kind) else {
            return Ok(Array::new());
        };
        let mut out = Array::new();
        open_features(v, k, |s| out.push((s.index() as INT).into()));
        Ok(out)
    });
}

/// One segment per unfinished feature of kind `k` on the board (neither complete nor
/// scored): the first of each in placement order, in that order.
pub(crate) fn open_features(v: View<'_>, k: FeatureKindId, mut each: impl FnMut(SegmentId)) {
    let g = v.state.graph();
    // Features already listed, marked by their representative segment.
    let mut seen = vec![false; g.len()];
    for t in v.state.board().tiles() {
        let tile = v.rules.tiles().get(t.kind);
        for (local, seg) in tile.segments.iter().enumerate() {
            if seg.kind != k {
                continue;
            }
            let s = t.segment(local);
            let f = g.feature_of(s);
            let totals = g.totals(f);
            if !std::mem::replace(&mut seen[f.segment().index()], true)
                && !totals.complete()
                && !totals.scored
            {
                each(s);
            }
        }
    }
}

/// A tile kind's id as a Rhai string.
fn tile_name(c: &Call<'_, '_>, rules: &Ruleset, k: TileKindId) -> Dynamic {
    match c.bound {
        Some(b) => b.names().tile_id(k).into(),
        None => rules.tiles().get(k).id.clone().into(),
    }
}
