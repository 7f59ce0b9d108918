//! The uses of game functions the memo checks natively, without Rhai values ([`memo::Fast`]).

use super::*;

/// The form of a recorded use that the memo checks without Rhai values, for the
/// functions most hooks read (see [`memo::Fast`]); `None` for the others.
pub(crate) fn prepare(
    bound: &BoundScript,
    rules: &Ruleset,
    native: &Native,
    args: &[memo::Arg],
) -> Option<memo::Fast> {
    use memo::{Arg, Fast, Ix, Val};
    let ix = |a: &Arg| match a {
        Arg::Lit(Val::Int(v)) => Some(Ix::Lit(*v)),
        Arg::Param(p) => Some(Ix::Param(*p)),
        _ => None,
    };
    let slot = |a: &Arg, scope: SlotScope| match a {
        Arg::Lit(Val::Str(n)) => match bound.decl().state(n) {
            Some((s, id)) if s == scope => Some(id),
            _ => None,
        },
        _ => None,
    };
    if native.effect == Effect::Rules && args.iter().all(|a| matches!(a, Arg::Lit(_))) {
        // The rules do not change: the use returns what it returned when recorded.
        return Some(Fast::Const);
    }
    Some(match (native.name, args) {
        ("state", [n]) => Fast::Slot {
            slot: slot(n, SlotScope::Game)?,
            scope: SlotScope::Game,
            index: Ix::Lit(0),
        },
        ("player_state", [n, p]) => Fast::Slot {
            slot: slot(n, SlotScope::Player)?,
            scope: SlotScope::Player,
            index: ix(p)?,
        },
        ("figure_state", [n, f]) => Fast::Slot {
            slot: slot(n, SlotScope::Figure)?,
            scope: SlotScope::Figure,
            index: ix(f)?,
        },
        ("tile_has_feature", [t, Arg::Lit(Val::Str(kind))]) => {
            let tile = match t {
                Arg::Lit(Val::Str(id)) => Ix::Lit(bound.names().tile(id)?.0 as i64),
                Arg::Param(p) => Ix::Param(*p),
                _ => return None,
            };
            // The tile kinds that have a segment of a feature kind so named.
            let tiles = rules.tiles();
            if tiles.len() > 128 {
                return None;
            }
            let mut set = [0u64; 2];
            for (k, t) in tiles.iter() {
                if t.segments
                    .iter()
                    .any(|s| rules.kind(s.kind).name == kind.as_str())
                {
                    set[k.0 as usize / 64] |= 1 << (k.0 % 64);
                }
            }
            Fast::TileHas { tile, set }
        }
        ("tile_at", [x, y]) => Fast::TileAt {
            x: ix(x)?,
            y: ix(y)?,
        },
        ("set_state", [n, value]) => Fast::Set {
            slot: slot(n, SlotScope::Game)?,
            scope: SlotScope::Game,
            index: Ix::Lit(0),
            value: ix(value)?,
        },
        ("set_player_state", [n, p, value]) => Fast::Set {
            slot: slot(n, SlotScope::Player)?,
            scope: SlotScope::Player,
            index: ix(p)?,
            value: ix(value)?,
        },
        ("set_figure_state", [n, f, value]) => Fast::Set {
            slot: slot(n, SlotScope::Figure)?,
            scope: SlotScope::Figure,
            index: ix(f)?,
            value: ix(value)?,
        },
        ("players", []) => Fast::Players,
        ("active_player", []) => Fast::ActivePlayer,
        ("turn", []) => Fast::Turn,
        ("score", [p]) => Fast::Score(ix(p)?),
        ("tiles_left", []) => Fast::TilesLeft,
        ("in_final_scoring", []) => Fast::InFinalScoring,
        ("segment_kind", [s]) => Fast::Segment(memo::SegmentRead::Kind, ix(s)?),
        ("feature_of", [s]) => Fast::Segment(memo::SegmentRead::FeatureOf, ix(s)?),
        ("feature_complete", [s]) => Fast::Segment(memo::SegmentRead::Complete, ix(s)?),
        ("feature_scored", [s]) => Fast::Segment(memo::SegmentRead::Scored, ix(s)?),
        ("feature_tiles", [s]) => Fast::Segment(memo::SegmentRead::Tiles, ix(s)?),
        ("feature_pennants", [s]) => Fast::Segment(memo::SegmentRead::Pennants, ix(s)?),
        ("figure_owner", [f]) => Fast::Figure(memo::FigureRead::Owner, ix(f)?),
        ("in_play", [f]) => Fast::Figure(memo::FigureRead::InPlay, ix(f)?),
        ("figure_segment", [f]) => Fast::Figure(memo::FigureRead::Segment, ix(f)?),
        ("is_follower", [f]) => Fast::Figure(memo::FigureRead::IsFollower, ix(f)?),
        _ => return None,
    })
}

/// What a recorded result is as the code [`eval`] returns for the same use.
pub(crate) fn code(
    bound: &BoundScript,
    rules: &Ruleset,
    f: &memo::Fast,
    v: &memo::Val,
) -> Option<i64> {
    use memo::{Fast, Val};
    match (f, v) {
        (Fast::TileAt { .. }, Val::Unit) => Some(-1),
        (Fast::TileAt { .. }, Val::Str(id)) => bound.names().tile(id).map(|k| k.0 as i64),
        (Fast::TileAt { .. }, _) => None,
        (Fast::Const, _) => Some(0),
        (Fast::Set { .. }, Val::Unit) => Some(0),
        (Fast::Segment(memo::SegmentRead::Kind, _), Val::Str(name)) => {
            rules.kind_named(name).map(|k| k.0 as i64)
        }
        (_, Val::Bool(b)) => Some(*b as i64),
        (_, Val::Int(i)) => Some(*i),
        _ => None,
    }
}

/// Runs a [`memo::Fast`] use: the code of what the game function would return now
/// (`None`: it would fail, or cannot be run this way).
pub(crate) fn eval(
    f: &memo::Fast,
    c: &mut Call<'_, '_>,
    params: &[memo::Param<'_>],
) -> Option<i64> {
    let v = match &c.access {
        Access::Read(v) => *v,
        Access::Write(ctx) => ctx.view(),
        _ => return None,
    };
    if let Some(set) = set_of(f, v, params) {
        let (at, value) = set?;
        c.set_slot(at, value).ok()?;
        return Some(0);
    }
    let waiting = c.awards.as_ref().is_some_and(|a| !a.is_empty());
    eval_read(f, v, params, waiting)
}

/// [`eval`] in a hook that may change the game, without a [`Call`]: state values set are
/// written down in `undo`; `None` for the uses it cannot run this way.
pub(crate) fn eval_write(
    f: &memo::Fast,
    ctx: &mut Ctx<'_>,
    undo: &mut Undo,
    params: &[memo::Param<'_>],
) -> Option<i64> {
    let v = ctx.view();
    if let Some(set) = set_of(f, v, params) {
        let (at, value) = set?;
        undo.set(ctx, at, value);
        return Some(0);
    }
    eval_read(f, v, params, false)
}

/// The state value a [`memo::Fast::Set`] use sets, and to what (`None`: not such a use;
/// `Some(None)`: the game function would fail).
fn set_of(
    f: &memo::Fast,
    v: View<'_>,
    params: &[memo::Param<'_>],
) -> Option<Option<(SlotRef, i64)>> {
    let memo::Fast::Set {
        slot,
        scope,
        index,
        value,
    } = *f
    else {
        return None;
    };
    let at = slot_index(v, scope, index, params).map(|i| SlotRef::untyped(slot, i));
    Some(at.zip(value.get(params)))
}

/// The index of a slot value, checked as the game functions check it.
fn slot_index(
    v: View<'_>,
    scope: SlotScope,
    index: memo::Ix,
    params: &[memo::Param<'_>],
) -> Option<usize> {
    let i = index.get(params)?;
    let n = match scope {
        SlotScope::Game => 1,
        SlotScope::Player => v.state.players().len(),
        SlotScope::Figure => v.state.figures().len(),
    };
    (0..n as i64).contains(&i).then_some(i as usize)
}

/// [`eval`] of a use that only reads (`None` for a command); `awards_waiting`: `score`
/// does not answer.
pub(crate) fn eval_read(
    f: &memo::Fast,
    v: View<'_>,
    params: &[memo::Param<'_>],
    awards_waiting: bool,
) -> Option<i64> {
    use memo::Fast;
    Some(match *f {
        Fast::Slot { slot, scope, index } => {
            v.state.slot(slot, slot_index(v, scope, index, params)?)
        }
        Fast::Set { .. } => return None,
        Fast::Const => 0,
        Fast::TileHas { tile, set } => {
            let k = tile.get(params)?;
            if !(0..v.rules.tiles().len() as i64).contains(&k) {
                return None;
            }
            ((set[k as usize / 64] >> (k % 64)) & 1) as i64
        }
        Fast::TileAt { x, y } => {
            let pos = Pos::new(x.get(params)? as i32, y.get(params)? as i32);
            v.state.board().at(pos).map_or(-1, |t| t.kind.0 as i64)
        }
        Fast::Players => v.state.players().len() as i64,
        Fast::ActivePlayer => v.state.active_player().0 as i64,
        Fast::Turn => v.state.turn() as i64,
        Fast::Score(p) => {
            let p = p.get(params)?;
            if !(0..v.state.players().len() as i64).contains(&p) || awards_waiting {
                return None;
            }
            v.state.players()[p as usize].score as i64
        }
        Fast::TilesLeft => v.state.supply().remaining() as i64,
        Fast::InFinalScoring => v.state.in_final_scoring() as i64,
        Fast::Segment(what, s) => {
            let s = s.get(params)?;
            let g = v.state.graph();
            if !(0..g.len() as i64).contains(&s) {
                return None;
            }
            let s = SegmentId::new(s as usize);
            use memo::SegmentRead as S;
            match what {
                S::Kind => g.segment(s).kind.0 as i64,
                S::FeatureOf => g.feature_of(s).segment().index() as i64,
                S::Complete => g.totals(g.feature_of(s)).complete() as i64,
                S::Scored => g.totals(g.feature_of(s)).scored as i64,
                S::Tiles => g.tile_count(g.feature_of(s)) as i64,
                S::Pennants => g.totals(g.feature_of(s)).pennants as i64,
            }
        }
        Fast::Figure(what, f) => {
            let f = f.get(params)?;
            if !(0..v.state.figures().len() as i64).contains(&f) {
                return None;
            }
            let fig = v.state.figure(FigureId(f as u16));
            use memo::FigureRead as F;
            match what {
                F::Owner => fig.seat().map_or(-1, |p| i64::from(p.0)),
                F::InPlay => matches!(fig.loc, FigureLoc::On(_)) as i64,
                F::Segment => match fig.loc {
                    FigureLoc::On(s) => s.index() as i64,
                    _ => -1,
                },
                F::IsFollower => v.rules.figure_kind(fig.kind).follower as i64,
            }
        }
    })
}
