//! Functions that read the `tags` of a placed tile's segments (a tile file's free-form
//! segment flags, `docs/tile-format.md`): which feature of a tile carries a symbol, for fan
//! sets whose rule belongs to one feature of a tile and not to the whole tile (Robber's
//! Son's road). `tile_has_tag` reads the tile's own tags.

use super::*;

/// The tile-file segment behind the board segment `s`, with the tile it lies on; `None`
/// for a virtual feature (off the board).
fn tile_segment<'v>(v: &View<'v>, s: SegmentId) -> Option<&'v carcassonne_core::Segment> {
    let node = v.state.graph().segment(s);
    if node.is_virtual() {
        return None;
    }
    let t = v.state.board().at(node.pos)?;
    let local = s.index().checked_sub(t.first_segment as usize)?;
    v.rules.tiles().get(t.kind).segments.get(local)
}

pub(crate) fn register_tags(reg: &mut Registry) {
    game_fn!(reg, Read, "segment_has_tag", |c,
                                            s: int,
                                            tag: str|
     -> bool {
        let v = c.view()?;
        let s = segment(v.state, s)?;
        Ok(tile_segment(&v, s).is_some_and(|seg| seg.tags.iter().any(|t| t == tag)))
    });
    game_fn!(reg, Read, "segments_tagged", |c,
                                            x: int,
                                            y: int,
                                            tag: str|
     -> Array {
        let v = c.view()?;
        let Some(t) = v.state.board().at(Pos::new(x as i32, y as i32)) else {
            return Ok(Array::new());
        };
        // In the tile file's segment order, which is the board's (consecutive nodes).
        Ok(v.rules
            .tiles()
            .get(t.kind)
            .segments
            .iter()
            .enumerate()
            .filter(|(_, seg)| seg.tags.iter().any(|g| g == tag))
            .map(|(local, _)| (t.segment(local).index() as INT).into())
            .collect())
    });
}
