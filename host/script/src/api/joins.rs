//! What a placement would join, and the pennants of single segments: for placement rules
//! about which features may become one (Family Feud's two families of coats of arms, which
//! no city may hold both of). `joins_at` says which board features each segment of a tile
//! would join before the tile is placed; `tile_segments` describes an unplaced tile's
//! segments (kind, pennants, tags); `segment_pennants` and `feature_pennants_tagged` count
//! the pennants of one segment and of a feature's segments that carry a tag.

use super::*;
use carcassonne_core::{FeatureId, HalfEdge, Side};

/// Per segment of tile `t` placed at the empty cell `pos` turned by `r` (in the tile's
/// segment order): the distinct board features it would join across its sides (edge
/// features) or half-edges (fields), in side order. A barrier tile (the abbey) joins
/// nothing.
pub(crate) fn joined_by(v: View<'_>, t: TileKindId, pos: Pos, r: Rotation) -> Vec<Vec<FeatureId>> {
    let g = v.state.graph();
    let board = v.state.board();
    let tk = v.rules.tiles().get(t);
    let mut out: Vec<Vec<FeatureId>> = vec![Vec::new(); tk.segments.len()];
    if tk.barrier {
        return out;
    }
    let mut add = |local: u8, f: FeatureId| {
        let list = &mut out[local as usize];
        if !list.contains(&f) {
            list.push(f);
        }
    };
    for side in Side::ALL {
        let Some(n) = board.at(pos.step(side)) else {
            continue;
        };
        let nk = v.rules.tiles().get(n.kind);
        if nk.barrier {
            continue;
        }
        let theirs = |local: u8| g.feature_of(n.segment(usize::from(local)));
        // Only equal edges join (not those an expansion lets meet: a gate and a road).
        let codes = (tk.edge_at(r, side), nk.edge_at(n.rotation, side.opposite()));
        if let (true, Some(mine), Some(t)) = (
            v.rules.edges_join(codes.0, codes.1),
            tk.segment_on_side(r, side),
            nk.segment_on_side(n.rotation, side.opposite()),
        ) {
            add(mine, theirs(t));
        }
        for h in [
            HalfEdge::from_index(2 * side.index()),
            HalfEdge::from_index(2 * side.index() + 1),
        ] {
            if let (Some(mine), Some(t)) = (
                tk.segment_on_half(r, h),
                nk.segment_on_half(n.rotation, h.facing()),
            ) {
                add(mine, theirs(t));
            }
        }
    }
    out
}

pub(crate) fn register_joins(reg: &mut Registry) {
    game_fn!(reg, Read, "joins_at", |c,
                                     tile: str,
                                     x: int,
                                     y: int,
                                     degrees: int|
     -> Array {
        let v = c.view()?;
        let (t, pos, r) = unplaced_at(c, v, "joins_at", (tile, x, y, degrees))?;
        Ok(joined_by(v, t, pos, r)
            .into_iter()
            .map(|fs| {
                let a: Array = fs
                    .into_iter()
                    .map(|f| (f.segment().index() as INT).into())
                    .collect();
                a.into()
            })
            .collect())
    });
    game_fn!(reg, Rules, "tile_segments", |c, t: str| -> Array {
        let rules = c.rules()?;
        let k = rules.tiles().get(tile_kind(c, rules, t)?);
        Ok(k.segments
            .iter()
            .map(|s| {
                let mut m = Map::new();
                m.insert("kind".into(), rules.kind(s.kind).name.clone().into());
                m.insert("pennants".into(), (s.pennants as INT).into());
                let tags: Array = s.tags.iter().map(|g| g.clone().into()).collect();
                m.insert("tags".into(), tags.into());
                Dynamic::from_map(m)
            })
            .collect())
    });
    game_fn!(reg, Read, "segment_pennants", |c, s: int| -> INT {
        let v = c.view()?;
        let s = segment(v.state, s)?;
        Ok(v.state.graph().segment(s).pennants as INT)
    });
    game_fn!(reg, Read, "feature_pennants_tagged", |c,
                                                    s: int,
                                                    tag: str|
     -> INT {
        let v = c.view()?;
        let s = segment(v.state, s)?;
        let g = v.state.graph();
        let mut n = 0;
        for m in g.members(g.feature_of(s)) {
            let node = g.segment(m);
            if node.pennants > 0 && super::tags::segment_tagged(&v, m, tag) {
                n += node.pennants as INT;
            }
        }
        Ok(n)
    });
}

#[cfg(test)]
mod tests {
    use super::joined_by;
    use crate::bound::native_tests::rules_with;
    use carcassonne_core::{Action, DecisionKind, Game, GameSetup};

    /// `joins_at` foretells the merges a placement makes: over random base games, each
    /// segment of the placed tile ends up in one feature with every board feature it was
    /// said to join, and a segment said to join nothing is alone on its tile's cell in
    /// its feature (its members all lie on the new tile).
    #[test]
    fn joins_at_foretells_every_merge() {
        let rules = rules_with("fn setup() {}");
        let mut joined = 0;
        for seed in 1..=6u64 {
            let players = vec!["A".into(), "B".into()];
            let mut g = Game::new(rules.clone(), &GameSetup::new(players, seed)).unwrap();
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            while !g.is_over() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let i = (x % g.action_count() as u64) as usize;
                let action = g.actions()[i];
                let foretold = match (g.state().decision().kind, action) {
                    (DecisionKind::PlaceTile { tile }, Action::Place { pos, rotation }) => {
                        Some((pos, joined_by(g.view(), tile, pos, rotation)))
                    }
                    _ => None,
                };
                g.apply_offered(i).unwrap();
                let Some((pos, joins)) = foretold else {
                    continue;
                };
                let st = g.state();
                let placed = st.board().at(pos).unwrap();
                let gr = st.graph();
                for (local, fs) in joins.iter().enumerate() {
                    let mine = gr.feature_of(placed.segment(local));
                    for f in fs {
                        assert_eq!(gr.feature_of(f.segment()), mine, "seed {seed}: {pos:?}");
                        joined += 1;
                    }
                    if fs.is_empty() {
                        assert!(
                            gr.members(mine).all(|m| gr.segment(m).pos == pos),
                            "seed {seed}: segment {local} at {pos:?} joined something"
                        );
                    }
                }
            }
        }
        assert!(joined > 100, "placements joined features ({joined})");
    }
}
