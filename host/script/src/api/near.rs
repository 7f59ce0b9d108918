//! Functions about one tile and what is near it, so that a script needs no loop over the
//! whole board for them: `figures_near` and `followers_near` (the figures within a square
//! around a cell), `features_near` (the unfinished features their followers stand on),
//! `tiles_around` (how many of the eight cells around a cell hold a tile)
//! and `neutral_to_tile` (a neutral figure led to a tile, onto a feature it may stand on).

use super::*;

/// The figures standing on a tile of the (2r+1)² square around (x, y), in figure order,
/// that `keep` accepts.
fn near(
    v: View<'_>,
    what: &str,
    (x, y, r): (INT, INT, INT),
    keep: impl Fn(&carcassonne_core::Figure) -> bool,
) -> R<Array> {
    if !(0..=64).contains(&r) {
        return err(format!("{what}: radius {r} is not in 0..=64"));
    }
    let g = v.state.graph();
    Ok(v.state
        .figures()
        .iter()
        .enumerate()
        .filter(|(_, f)| match f.loc {
            FigureLoc::On(s) => {
                let n = g.segment(s);
                !n.is_virtual()
                    && (n.pos.x as INT - x).abs() <= r
                    && (n.pos.y as INT - y).abs() <= r
                    && keep(f)
            }
            _ => false,
        })
        .map(|(i, _)| (i as INT).into())
        .collect())
}

pub(crate) fn register_near(reg: &mut Registry) {
    game_fn!(reg, Read, "figures_near", |c,
                                         x: int,
                                         y: int,
                                         r: int|
     -> Array {
        near(c.view()?, "figures_near", (x, y, r), |_| true)
    });
    game_fn!(reg, Read, "followers_near", |c,
                                           x: int,
                                           y: int,
                                           r: int,
                                           p: int|
     -> Array {
        let v = c.view()?;
        // -1: anyone's followers; else one seat's.
        let owner = if p < 0 {
            None
        } else {
            Some(player(v.state, p)?)
        };
        near(v, "followers_near", (x, y, r), |f| {
            v.rules.figure_kind(f.kind).follower && owner.is_none_or(|o| f.owner == o)
        })
    });
    game_fn!(reg, Other, "neutral_to_tile", |c,
                                             kind: str,
                                             s: int|
     -> INT {
        let ctx = c.ctx()?;
        let k = ctx
            .rules()
            .figure_named(kind)
            .ok_or_else(|| format!("neutral_to_tile: no figure kind `{kind}`"))?;
        let s = segment(ctx.state(), s)?;
        lead_neutral(ctx, k, s)
            .map(|f| f.map_or(-1, |f| f.0 as INT))
            .map_err(|e| format!("neutral_to_tile: {e}").into())
    });
    game_fn!(reg, Read, "features_near", |c,
                                          x: int,
                                          y: int,
                                          r: int,
                                          kinds: any|
     -> Array {
        let v = c.view()?;
        let names = kinds
            .try_cast::<Array>()
            .ok_or("features_near: `kinds` must be an array of feature kind names")?;
        let mut mask = 0u64;
        for n in names {
            let n = n
                .into_immutable_string()
                .map_err(|t| format!("features_near: a feature kind is a string, not {t}"))?;
            // A kind no loaded expansion declares matches nothing.
            if let Some(k) = v.rules.kind_named(&n).filter(|k| k.0 < 64) {
                mask |= 1 << k.0;
            }
        }
        if !(0..=64).contains(&r) {
            return err(format!("features_near: radius {r} is not in 0..=64"));
        }
        // A cell beyond any board holds no follower.
        let (Ok(x), Ok(y)) = (i32::try_from(x), i32::try_from(y)) else {
            return Ok(Array::new());
        };
        Ok(unfinished_features_near(v, Pos::new(x, y), r as i32, mask)
            .into_iter()
            .map(|s| (s.index() as INT).into())
            .collect())
    });
    game_fn!(reg, Read, "tiles_around", |c, x: int, y: int| -> INT {
        let v = c.view()?;
        let (Ok(x), Ok(y)) = (i32::try_from(x), i32::try_from(y)) else {
            return err(format!("tiles_around: ({x},{y}) is out of range"));
        };
        Ok(v.state.board().surrounding_count(Pos::new(x, y)) as INT)
    });
}

/// `neutral_to_tile`, and an `offer_tiles` prompt that leads a figure: the neutral figure
/// of kind `k` goes to the tile of segment `s`, onto its first segment (in segment order)
/// the figure may stand on; its copy on the board moves there, else one off the board is
/// placed. With no such segment the copy on the board goes off it. The figure now on that
/// tile, if any.
pub(crate) fn lead_neutral(
    ctx: &mut Ctx<'_>,
    k: FigureKindId,
    s: SegmentId,
) -> Result<Option<FigureId>, String> {
    let st = ctx.state();
    let node = st.graph().segment(s);
    let tile = st
        .board()
        .at(node.pos)
        .filter(|_| !node.is_virtual())
        .ok_or_else(|| format!("segment {} is not on a tile", s.index()))?;
    let spot = tile
        .segments()
        .find(|&t| check_stand(ctx.view(), k, t).is_ok());
    let on = st
        .figures()
        .iter()
        .position(|f| f.kind == k && f.is_neutral() && matches!(f.loc, FigureLoc::On(_)));
    let fail = |e: carcassonne_core::HookFailure| e.0;
    match (spot, on) {
        (Some(t), Some(f)) => {
            let f = FigureId(f as u16);
            if ctx.state().figure(f).loc != FigureLoc::On(t) {
                ctx.move_figure(f, t).map_err(fail)?;
            }
            Ok(Some(f))
        }
        (Some(t), None) => Ok(Some(ctx.place_neutral(k, t).map_err(fail)?)),
        (None, Some(f)) => {
            ctx.return_figure(FigureId(f as u16), RemovalReason::Expansion)
                .map_err(|e| e.to_string())?;
            Ok(None)
        }
        (None, None) => Ok(None),
    }
}

/// One segment per unfinished feature of a kind in `kinds` (bit k: kind k) that a follower
/// standing on a tile within `r` cells of `at` (a square) stands on: the segment of the first
/// such follower in figure order (`features_near`, `follow_deployments`' message).
pub(crate) fn unfinished_features_near(v: View<'_>, at: Pos, r: i32, kinds: u64) -> Vec<SegmentId> {
    let g = v.state.graph();
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for f in v.state.figures() {
        let FigureLoc::On(s) = f.loc else {
            continue;
        };
        let n = g.segment(s);
        let feature = g.feature_of(s);
        if v.rules.figure_kind(f.kind).follower
            && !n.is_virtual()
            // In i64: a script may ask about any cell.
            && (i64::from(n.pos.x) - i64::from(at.x)).abs() <= i64::from(r)
            && (i64::from(n.pos.y) - i64::from(at.y)).abs() <= i64::from(r)
            && n.kind.0 < 64
            && kinds & (1 << n.kind.0) != 0
            && !g.totals(feature).complete()
            && !seen.contains(&feature)
        {
            seen.push(feature);
            out.push(s);
        }
    }
    out
}
