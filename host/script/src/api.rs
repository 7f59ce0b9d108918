//! The game API scripts see: functions to read the game, commands to change it, and the
//! conversions between core's values and Rhai's.
//!
//! Ids are plain integers: players are seats `0..players()`, figures and segments are
//! the engine's indices (stable for the whole game), tiles are tile ids (`"RCr"`), kinds
//! are names (`"city"`, `"small-follower"`). Actions are object maps with a `type`
//! (`"deploy"`, `"custom"`, `"move"`, `"pass"`, `"place"`).
//!
//! Every function reaches the running hook call through a [`Lease`] in the call's tag:
//! the host lends the [`Call`] for exactly one script call ([`lend`]) and revokes it
//! when the call returns; a native holds it exclusively while it runs. Each function
//! checks what the hook may do: reading needs a game, commands need a hook that may
//! change the game, declarations need `setup()`. Commands check their arguments before they act.
//! [`FUNCTIONS`] lists them all for the documentation.
//!
//! **Traced functions.** Every function that reads the rules or the game, and every
//! command, is declared with `game_fn!`: besides its Rhai registration it gets a
//! [`Native`], which says what it touches ([`Effect`]) and can run it again outside Rhai
//! (`replay`). While a hook call is recorded for the memo ([`crate::memo`]) each of these
//! calls is written down with its arguments and result; a function that reaches the call
//! any other way (the declarations) makes the call unrecordable. So a recorded call lists
//! every way the script looked at the game.

use super::{memo, BoundScript, CompiledScript, Decl, Hook};
use carcassonne_core::{
    Action, Ctx, CustomAction, Declare, ExpansionIndex, FigureId, FigureKindId, FigureLoc,
    GameState, OptionValue, PlayerId, Pos, RemovalReason, Rotation, Ruleset, ScoreDraft, SegmentId,
    SlotRef, SlotScope, TileKindId, View,
};
use rhai::{Array, Dynamic, Engine, EvalAltResult, ImmutableString, Map, NativeCallContext, INT};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::Arc;

type R<T> = Result<T, Box<EvalAltResult>>;

/// What the running hook may touch.
pub enum Access<'a, 'b> {
    /// `setup()`: declarations.
    Setup(&'a mut Declare<'b>, &'a RefCell<Decl>),
    /// `filters_tile`: the rules only.
    Rules(&'a Ruleset),
    /// Hooks that only read the game (offers, filters, strength).
    Read(View<'a>),
    /// Hooks that may change the game.
    Write(&'a mut Ctx<'b>),
}

impl<'a, 'b> Access<'a, 'b> {
    /// Write access through a hook's context.
    pub fn write(ctx: &'a mut Ctx<'b>) -> Access<'a, 'b> {
        Access::Write(ctx)
    }

    /// The number of players of the game, if there is one.
    pub(crate) fn players(&self) -> Option<usize> {
        match self {
            Access::Read(v) => Some(v.state.players().len()),
            Access::Write(c) => Some(c.state().players().len()),
            _ => None,
        }
    }
}

/// One running hook call.
pub struct Call<'a, 'b> {
    /// The script.
    pub script: &'a CompiledScript,
    /// The bound expansion (absent while `setup()` declares).
    pub bound: Option<&'a BoundScript>,
    /// What it may touch.
    pub access: Access<'a, 'b>,
    /// The script function running.
    pub hook: &'static str,
    /// Its role.
    pub(crate) role: Hook,
    /// The traced functions this call uses, while it is recorded for the memo.
    pub(crate) trace: Option<memo::Trace>,
    /// While a memoized call is checked: the state values it set, to undo if it does not
    /// match after all.
    pub(crate) undo: Option<Undo>,
    /// While a memoized call is checked: the awards it makes, carried out if it matches.
    pub(crate) awards: Option<Vec<(PlayerId, i32, carcassonne_core::LabelId)>>,
}

impl<'a, 'b> Call<'a, 'b> {
    /// A call of `role` with the game reachable through `access`.
    pub(crate) fn new(
        script: &'a CompiledScript,
        bound: Option<&'a BoundScript>,
        access: Access<'a, 'b>,
        role: Hook,
    ) -> Call<'a, 'b> {
        Call {
            script,
            bound,
            access,
            hook: super::HOOKS[role as usize].name,
            role,
            trace: None,
            undo: None,
            awards: None,
        }
    }
}

fn err<T>(msg: impl Into<String>) -> R<T> {
    Err(msg.into().into())
}

/// The handle natives find in their call's tag: the running [`Call`], lent for the
/// duration of one script call and revoked when it returns.
#[derive(Clone)]
pub struct Lease(Arc<LeaseCell>);

struct LeaseCell {
    /// The lent `Call` (lifetimes erased), null once revoked.
    call: AtomicPtr<()>,
    /// Whether a native holds it now (a second, nested holder is refused).
    busy: AtomicBool,
}

/// Lends `call` to the natives while `run` runs the script (it gets the tag to pass to
/// Rhai), then revokes the lease, so no native can reach the call afterwards.
pub fn lend<T>(call: &mut Call<'_, '_>, run: impl FnOnce(Dynamic) -> T) -> T {
    struct Revoke(Arc<LeaseCell>);
    impl Drop for Revoke {
        fn drop(&mut self) {
            self.0.call.store(std::ptr::null_mut(), Ordering::Release);
        }
    }
    let cell = Arc::new(LeaseCell {
        call: AtomicPtr::new((call as *mut Call<'_, '_>).cast()),
        busy: AtomicBool::new(false),
    });
    let _revoke = Revoke(cell.clone());
    run(Dynamic::from(Lease(cell)))
}

/// A native's hold on the lent call: exclusive while it lives, released on drop.
pub struct Held<'n> {
    cell: Arc<LeaseCell>,
    call: &'n mut Call<'n, 'n>,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.cell.busy.store(false, Ordering::Release);
    }
}

impl<'n> std::ops::Deref for Held<'n> {
    type Target = Call<'n, 'n>;
    fn deref(&self) -> &Call<'n, 'n> {
        self.call
    }
}

impl<'n> std::ops::DerefMut for Held<'n> {
    fn deref_mut(&mut self) -> &mut Call<'n, 'n> {
        self.call
    }
}

/// The running call, held through the lease in the native call context's tag, for a
/// function that is not traced: a recorded call that uses it cannot be memoized.
fn call<'n>(nc: &NativeCallContext<'n>) -> R<Held<'n>> {
    let mut held = lease(nc)?;
    if let Some(t) = held.trace.as_mut() {
        t.spoil();
    }
    Ok(held)
}

/// The running call, held through the lease in the native call context's tag.
fn lease<'n>(nc: &NativeCallContext<'n>) -> R<Held<'n>> {
    let cell = nc
        .tag()
        .and_then(|t| t.read_lock::<Lease>().map(|l| l.0.clone()))
        .ok_or_else(|| -> Box<EvalAltResult> {
            "game functions can only be used inside a hook".into()
        })?;
    let p = cell.call.load(Ordering::Acquire);
    if p.is_null() {
        return err("this hook call has ended");
    }
    if cell.busy.swap(true, Ordering::AcqRel) {
        return err("the game is already in use by another game function");
    }
    // SAFETY: `p` was lent by `lend` from a `&mut Call` that outlives the whole script
    // call, and is revoked (nulled) before that borrow ends; natives run only inside the
    // call, on its thread, and `busy` makes this hold the only one. The lifetimes are
    // shortened to the native's: nothing obtained here can outlive it, and `Call`'s
    // context only takes owned values, so no shorter-lived reference is stored in it.
    let call = unsafe { &mut *p.cast::<Call<'n, 'n>>() };
    Ok(Held { cell, call })
}

/// The state values a memoized call set while it was checked (the first few without
/// allocating).
#[derive(Debug)]
pub(crate) struct Undo {
    n: usize,
    first: [(SlotRef, i64); 4],
    more: Vec<(SlotRef, i64)>,
}

impl Default for Undo {
    fn default() -> Undo {
        let none = (SlotRef::untyped(carcassonne_core::SlotId(0), 0), 0);
        Undo {
            n: 0,
            first: [none; 4],
            more: Vec::new(),
        }
    }
}

impl Undo {
    /// Sets a value, remembering the old one.
    pub(crate) fn set(&mut self, ctx: &mut Ctx<'_>, at: SlotRef, value: i64) {
        let old = ctx.state().get(at);
        match self.first.get_mut(self.n) {
            Some(slot) => *slot = (at, old),
            None => self.more.push((at, old)),
        }
        self.n += 1;
        ctx.set(at, value);
    }

    /// Sets the old values back, last first.
    pub(crate) fn undo(self, ctx: &mut Ctx<'_>) {
        let first = self.first.iter().take(self.n.min(self.first.len()));
        let all: Vec<(SlotRef, i64)> = first.chain(self.more.iter()).copied().collect();
        for (at, old) in all.into_iter().rev() {
            ctx.set(at, old);
        }
    }
}

/// How a traced game function touches the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Reads the rules only: with the same arguments it always returns the same value.
    Rules,
    /// Reads the rules or the game (and nothing else): run again and compared when a
    /// memoized call is checked.
    Read,
    /// Sets one of the script's state values: run again (and undone if the memoized call
    /// does not match after all).
    Set,
    /// Awards points: checked when run again, carried out once the memoized call matched
    /// (only `score` sees points, and it refuses to answer while an award waits).
    Award,
    /// Anything else (figures, prompts, the random generator): a call that uses it is
    /// not memoized.
    Other,
}

/// Runs a traced function again outside Rhai, with its arguments as Rhai values.
pub(crate) type Replay = fn(&mut Call<'_, '_>, &[&Dynamic]) -> R<Dynamic>;

/// A traced game function.
pub(crate) struct Native {
    /// Its name.
    pub(crate) name: &'static str,
    /// What it touches.
    pub(crate) effect: Effect,
    /// Runs it.
    pub(crate) replay: Replay,
}

impl std::fmt::Debug for Native {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl<'a, 'b> Call<'a, 'b> {
    /// The rules, when the hook has a game.
    pub(crate) fn rules_ref(&self) -> Option<&Ruleset> {
        match &self.access {
            Access::Read(v) => Some(v.rules),
            Access::Write(c) => Some(c.rules()),
            _ => None,
        }
    }

    /// Carries out the awards of a memoized call that matched.
    pub(crate) fn make_awards(&mut self) {
        let Some(awards) = self.awards.take() else {
            return;
        };
        if let Access::Write(ctx) = &mut self.access {
            for (p, points, label) in awards {
                ctx.award(p, points, label);
            }
        }
    }

    /// Undoes the state values set while a memoized call was checked.
    pub(crate) fn undo_sets(&mut self) {
        self.awards = None;
        let Some(undo) = self.undo.take() else {
            return;
        };
        if let Access::Write(ctx) = &mut self.access {
            undo.undo(ctx);
        }
    }

    /// Whether the call is being recorded.
    fn recording(&self) -> bool {
        self.trace.as_ref().is_some_and(|t| t.open())
    }

    /// Writes down one use of a traced function.
    fn record<T: rhai::Variant + Clone>(
        &mut self,
        nc: &NativeCallContext,
        native: &'static Native,
        args: Vec<Dynamic>,
        result: &R<T>,
    ) {
        let script = self.script;
        let shape = script.shape(self.role);
        let Some(t) = self.trace.as_mut() else {
            return;
        };
        match result {
            Ok(v) if native.effect != Effect::Other => {
                // Arguments that are the hook's own parameters, passed straight from its
                // body, are written down as such (see `memo::Shape`).
                let direct = nc.call_level() == memo::HOOK_CALL_LEVEL;
                let pos = nc.call_position();
                let param = |i| shape.filter(|_| direct).and_then(|s| s.param_at(pos, i));
                t.push(native, args, param, &Dynamic::from(v.clone()));
            }
            _ => t.spoil(),
        }
    }

    /// Sets a state value, remembering the old one while a memoized call is checked.
    fn set_slot(&mut self, at: SlotRef, value: i64) -> R<()> {
        self.ctx()?;
        match (&mut self.access, self.undo.as_mut()) {
            (Access::Write(ctx), Some(u)) => u.set(ctx, at, value),
            (Access::Write(ctx), None) => ctx.set(at, value),
            _ => {}
        }
        Ok(())
    }
}

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
                F::Owner => fig.owner.0 as i64,
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

/// Declares a traced game function (see the module documentation): `game_fn!(reg, Read,
/// "name", |c, a: int, b: str| -> INT { … })`. Parameter kinds: `int` (an `INT`), `str`
/// (a `&str`), `any` (a `Dynamic`).
macro_rules! game_fn {
    ($reg:ident, $effect:ident, $name:literal, |$c:ident $(, $a:ident : $k:ident)*| -> $ret:ty $body:block) => {{
        #[allow(unused_mut)]
        fn body($c: &mut Call<'_, '_> $(, $a: arg_body!($k))*) -> R<$ret> $body
        #[allow(unused_mut, unused_variables)]
        fn replay(c: &mut Call<'_, '_>, args: &[&Dynamic]) -> R<Dynamic> {
            let mut it = args.iter();
            $( arg_get!($k, $a, it); )*
            body(c $(, $a)*).map(Dynamic::from)
        }
        static NATIVE: Native = Native {
            name: $name,
            effect: Effect::$effect,
            replay,
        };
        $reg.traced.push($name);
        $reg.engine.register_fn(
            $name,
            move |nc: NativeCallContext $(, $a: arg_reg!($k))*| -> R<$ret> {
                let mut held = lease(&nc)?;
                let args = held.recording().then(|| vec![$(arg_rec!($k, $a)),*]);
                let r = body(&mut held $(, arg_pass!($k, $a))*);
                if let Some(args) = args {
                    held.record(&nc, &NATIVE, args, &r);
                }
                r
            },
        );
    }};
}

macro_rules! arg_reg {
    (int) => {
        INT
    };
    (str) => {
        ImmutableString
    };
    (any) => {
        Dynamic
    };
}

macro_rules! arg_body {
    (int) => {
        INT
    };
    (str) => {
        &str
    };
    (any) => {
        Dynamic
    };
}

macro_rules! arg_pass {
    (int, $a:ident) => {
        $a
    };
    (str, $a:ident) => {
        &$a
    };
    (any, $a:ident) => {
        $a
    };
}

macro_rules! arg_rec {
    (int, $a:ident) => {
        Dynamic::from($a)
    };
    (str, $a:ident) => {
        Dynamic::from($a.clone())
    };
    (any, $a:ident) => {
        $a.clone()
    };
}

macro_rules! arg_get {
    (int, $a:ident, $it:ident) => {
        let $a = $it
            .next()
            .and_then(|d| d.as_int().ok())
            .ok_or("an integer argument was expected")?;
    };
    (str, $a:ident, $it:ident) => {
        let held = $it
            .next()
            .and_then(|d| d.read_lock::<ImmutableString>())
            .ok_or("a string argument was expected")?;
        let $a: &str = held.as_str();
    };
    (any, $a:ident, $it:ident) => {
        let $a = $it
            .next()
            .map(|d| (*d).clone())
            .ok_or("an argument was expected")?;
    };
}

/// An engine being given the game API, and the names of its traced functions.
struct Registry<'e> {
    engine: &'e mut Engine,
    traced: Vec<&'static str>,
}

impl<'a, 'b> Call<'a, 'b> {
    fn view(&self) -> R<View<'_>> {
        match &self.access {
            Access::Read(v) => Ok(*v),
            Access::Write(c) => Ok(c.view()),
            _ => err(format!(
                "the game cannot be read in `{}` (only the rules)",
                self.hook
            )),
        }
    }

    fn rules(&self) -> R<&Ruleset> {
        match &self.access {
            Access::Rules(r) => Ok(r),
            Access::Read(v) => Ok(v.rules),
            Access::Write(c) => Ok(c.rules()),
            Access::Setup(..) => err("the rules are not built yet in `setup`"),
        }
    }

    fn ctx(&mut self) -> R<&mut Ctx<'b>> {
        match &mut self.access {
            Access::Write(c) => Ok(c),
            _ => err(format!(
                "`{}` may not change the game (commands are allowed in hooks that return nothing)",
                self.hook
            )),
        }
    }

    fn declarations(&mut self) -> R<(&mut Declare<'b>, &'a RefCell<Decl>)> {
        match &mut self.access {
            Access::Setup(s, d) => Ok((s, *d)),
            _ => err("declarations are only allowed in setup()"),
        }
    }

    fn bound(&self) -> R<&'a BoundScript> {
        self.bound
            .ok_or_else(|| "the game is not running yet in `setup`".into())
    }

    fn decl(&self) -> R<&'a Decl> {
        Ok(self.bound()?.decl())
    }

    fn me(&self) -> R<ExpansionIndex> {
        Ok(self.bound()?.me())
    }
}

fn player(state: &GameState, p: INT) -> R<PlayerId> {
    if (0..state.players().len() as INT).contains(&p) {
        Ok(PlayerId(p as u8))
    } else {
        err(format!(
            "no player {p} (players are 0..{})",
            state.players().len()
        ))
    }
}

fn figure(state: &GameState, f: INT) -> R<FigureId> {
    if (0..state.figures().len() as INT).contains(&f) {
        Ok(FigureId(f as u16))
    } else {
        err(format!("no figure {f}"))
    }
}

fn segment(state: &GameState, s: INT) -> R<SegmentId> {
    if (0..state.graph().len() as INT).contains(&s) {
        Ok(SegmentId::new(s as usize))
    } else {
        err(format!("no segment {s}"))
    }
}

/// A tile kind by id or alias, as `TileCatalog::find` finds it (through the ruleset's
/// [`Names`] when the script is bound).
fn tile_kind(c: &Call<'_, '_>, rules: &Ruleset, id: &str) -> R<TileKindId> {
    match c.bound {
        Some(b) => b.names().tile(id),
        None => rules.tiles().find(id),
    }
    .ok_or_else(|| format!("no tile `{id}`").into())
}

fn cell(p: Pos) -> Dynamic {
    let mut m = Map::new();
    m.insert("x".into(), (p.x as INT).into());
    m.insert("y".into(), (p.y as INT).into());
    m.into()
}

fn option_dynamic(v: &OptionValue) -> Dynamic {
    match v {
        OptionValue::Bool(b) => (*b).into(),
        OptionValue::Int(i) => (*i).into(),
        OptionValue::Str(s) => s.clone().into(),
    }
}

/// The cell of the last placed tile.
pub fn last_cell(view: View<'_>) -> Option<(INT, INT)> {
    let i = view.state.last_placed()?;
    let t = view.state.board().tile(i);
    Some((t.pos.x as INT, t.pos.y as INT))
}

/// Strings the action maps use, made once per ruleset (a Rhai string is shared by
/// reference count, so building a map costs no string allocation).
#[derive(Debug)]
pub struct Names {
    types: [ImmutableString; 6],
    expansions: Vec<ImmutableString>,
    verbs: Vec<ImmutableString>,
    figure_kinds: Vec<ImmutableString>,
    /// Tile ids by tile kind.
    tiles: Vec<ImmutableString>,
    /// Tile kinds by id and alias (the first kind of the catalog that has it).
    tile_ids: memo::FxMap<String, TileKindId>,
    /// `on_figure_removed` reasons.
    reasons: [ImmutableString; 2],
}

impl Names {
    /// The names of a ruleset.
    pub fn new(rules: &Ruleset) -> Names {
        Names {
            types: ["place", "deploy", "move", "pass", "custom", "draw"].map(ImmutableString::from),
            expansions: rules.expansions().iter().map(|e| e.id().into()).collect(),
            verbs: rules
                .verbs()
                .iter()
                .map(|(_, n)| n.as_str().into())
                .collect(),
            figure_kinds: rules
                .figure_kinds()
                .iter()
                .map(|k| k.name.as_str().into())
                .collect(),
            tiles: rules
                .tiles()
                .iter()
                .map(|(_, k)| k.id.as_str().into())
                .collect(),
            tile_ids: {
                let mut ids = memo::FxMap::default();
                for (i, k) in rules.tiles().iter() {
                    for name in std::iter::once(&k.id).chain(&k.aliases) {
                        ids.entry(name.clone()).or_insert(i);
                    }
                }
                ids
            },
            reasons: ["scored", "expansion"].map(ImmutableString::from),
        }
    }

    /// A tile kind's id.
    pub(crate) fn tile_id(&self, k: TileKindId) -> ImmutableString {
        self.tiles[k.0 as usize].clone()
    }

    /// A tile kind by id or alias.
    pub(crate) fn tile(&self, id: &str) -> Option<TileKindId> {
        self.tile_ids.get(id).copied()
    }

    /// The name of a reason a figure left the board.
    pub(crate) fn reason(&self, r: RemovalReason) -> ImmutableString {
        match r {
            RemovalReason::Scored => self.reasons[0].clone(),
            RemovalReason::Expansion => self.reasons[1].clone(),
        }
    }
}

/// An action as a script sees it.
pub fn action_to_dynamic(view: View<'_>, names: &Names, a: &Action) -> Dynamic {
    action_value(view.rules, names, a)
}

/// An action as a script sees it (it only depends on the rules).
pub(crate) fn action_value(rules: &Ruleset, names: &Names, a: &Action) -> Dynamic {
    let mut m = Map::new();
    let s = |m: &mut Map, k: &str, v: Dynamic| {
        m.insert(k.into(), v);
    };
    let name = |list: &Vec<ImmutableString>, i: usize| -> Dynamic {
        list.get(i).cloned().unwrap_or_default().into()
    };
    match a {
        Action::Place { pos, rotation } => {
            s(&mut m, "type", names.types[0].clone().into());
            s(&mut m, "x", (pos.x as INT).into());
            s(&mut m, "y", (pos.y as INT).into());
            s(&mut m, "rotation", (rotation.degrees() as INT).into());
        }
        Action::Deploy { figure, segment } => {
            s(&mut m, "type", names.types[1].clone().into());
            s(
                &mut m,
                "figure_kind",
                name(&names.figure_kinds, figure.0 as usize),
            );
            s(&mut m, "segment", (segment.index() as INT).into());
            s(
                &mut m,
                "follower",
                rules.figure_kind(*figure).follower.into(),
            );
        }
        Action::Move { figure, segment } => {
            s(&mut m, "type", names.types[2].clone().into());
            s(&mut m, "figure", (figure.0 as INT).into());
            s(&mut m, "segment", (segment.index() as INT).into());
        }
        Action::Pass => s(&mut m, "type", names.types[3].clone().into()),
        Action::Draw { tile } => {
            s(&mut m, "type", names.types[5].clone().into());
            s(&mut m, "tile", names.tile_id(*tile).into());
        }
        Action::Custom(c) => {
            s(&mut m, "type", names.types[4].clone().into());
            s(
                &mut m,
                "expansion",
                name(&names.expansions, c.expansion.0 as usize),
            );
            s(&mut m, "verb", name(&names.verbs, c.verb.0 as usize));
            s(&mut m, "figure", c.figure.map_or(-1, |f| f.0 as INT).into());
            s(
                &mut m,
                "segment",
                c.segment.map_or(-1, |x| x.index() as INT).into(),
            );
            s(&mut m, "value", (c.value as INT).into());
        }
    }
    m.into()
}

/// Whether reading these returned actions depends on the rules only: custom actions and
/// `pass` that name no figure and no segment (those are checked against the game).
pub(crate) fn rules_only(list: &Array) -> bool {
    list.iter().all(|item| {
        item.read_lock::<Map>().is_some_and(|m| {
            let ty = m
                .get("type")
                .and_then(|t| t.read_lock::<ImmutableString>().map(|s| s.clone()));
            let none = |k: &str| m.get(k).is_none_or(|v| v.as_int() == Ok(-1));
            ty.is_some_and(|t| t == "custom" || t == "pass") && none("figure") && none("segment")
        })
    })
}

/// Which actions a hook may hand back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allow {
    /// Only this expansion's own verbs (deployment-step offers).
    OwnCustom,
    /// Own verbs, legal deployments, moves, pass (prompts).
    Prompt,
    /// Anything (a filter's answer, matched against what was offered).
    Any,
}

fn int_field(m: &Map, k: &str) -> Result<Option<INT>, String> {
    match m.get(k) {
        None => Ok(None),
        Some(v) => v
            .as_int()
            .map(Some)
            .map_err(|t| format!("field `{k}` is a {t}, not an integer")),
    }
}

fn str_field(m: &Map, k: &str) -> Result<String, String> {
    m.get(k)
        .and_then(|v| v.clone().into_string().ok())
        .ok_or_else(|| format!("field `{k}` is missing or not a string"))
}

/// Reads and checks an action a script handed back.
pub fn action_from_dynamic(
    view: View<'_>,
    me: ExpansionIndex,
    decl: &Decl,
    value: Dynamic,
    who: PlayerId,
    allow: Allow,
) -> Result<Action, String> {
    let m = value
        .try_cast::<Map>()
        .ok_or("an action must be an object map")?;
    let ty = str_field(&m, "type")?;
    let state = view.state;
    let seg = |v: Option<INT>| -> Result<Option<SegmentId>, String> {
        match v {
            None | Some(-1) => Ok(None),
            Some(s) => segment(state, s).map(Some).map_err(|e| e.to_string()),
        }
    };
    let fig = |v: Option<INT>| -> Result<Option<FigureId>, String> {
        match v {
            None | Some(-1) => Ok(None),
            Some(f) => figure(state, f).map(Some).map_err(|e| e.to_string()),
        }
    };
    match ty.as_str() {
        "custom" => {
            if let Some(e) = m.get("expansion") {
                let e = e.clone().into_string().unwrap_or_default();
                if allow != Allow::Any
                    && !e.is_empty()
                    && e != view.rules.expansions()[me.0 as usize].id()
                {
                    return Err(format!(
                        "a script may only offer its own verbs, not `{e}`'s"
                    ));
                }
                if allow == Allow::Any && !e.is_empty() {
                    // A filter may keep another expansion's action: match it as offered.
                    let idx = view
                        .rules
                        .expansion_index(&e)
                        .ok_or_else(|| format!("no expansion `{e}`"))?;
                    let verb = str_field(&m, "verb")?;
                    let v = view
                        .rules
                        .verb_named(idx, &verb)
                        .ok_or_else(|| format!("`{e}` has no verb `{verb}`"))?;
                    return Ok(Action::Custom(CustomAction {
                        expansion: idx,
                        verb: v,
                        figure: fig(int_field(&m, "figure")?)?,
                        segment: seg(int_field(&m, "segment")?)?,
                        value: value_i32(int_field(&m, "value")?.unwrap_or(0))?,
                    }));
                }
            }
            let verb = str_field(&m, "verb")?;
            let v = decl
                .verb(&verb)
                .ok_or_else(|| format!("verb `{verb}` was not declared in setup()"))?;
            Ok(Action::Custom(CustomAction {
                expansion: me,
                verb: v,
                figure: fig(int_field(&m, "figure")?)?,
                segment: seg(int_field(&m, "segment")?)?,
                value: value_i32(int_field(&m, "value")?.unwrap_or(0))?,
            }))
        }
        "pass" if allow != Allow::OwnCustom => Ok(Action::Pass),
        "deploy" if allow != Allow::OwnCustom => {
            let kind = str_field(&m, "figure_kind")?;
            let k = view
                .rules
                .figure_named(&kind)
                .ok_or_else(|| format!("no figure kind `{kind}`"))?;
            let s = seg(int_field(&m, "segment")?)?.ok_or("a deploy action needs a segment")?;
            let a = Action::Deploy {
                figure: k,
                segment: s,
            };
            if allow == Allow::Prompt && !legal_deployment(view, who, k, s) {
                return Err(format!(
                    "deploying a `{kind}` of player {} on segment {} is not legal",
                    who.0,
                    s.index()
                ));
            }
            Ok(a)
        }
        "move" if allow != Allow::OwnCustom => {
            let f = fig(int_field(&m, "figure")?)?.ok_or("a move action needs a figure")?;
            let s = seg(int_field(&m, "segment")?)?.ok_or("a move action needs a segment")?;
            if allow == Allow::Prompt {
                check_move(state, f, s)?;
            }
            Ok(Action::Move {
                figure: f,
                segment: s,
            })
        }
        "place" if allow == Allow::Any => {
            let x = int_field(&m, "x")?.ok_or("a place action needs x")?;
            let y = int_field(&m, "y")?.ok_or("a place action needs y")?;
            let r = int_field(&m, "rotation")?.unwrap_or(0);
            Ok(Action::Place {
                pos: Pos::new(x as i32, y as i32),
                rotation: Rotation::from_degrees(r).ok_or("rotation must be 0, 90, 180 or 270")?,
            })
        }
        other => Err(format!("action type `{other}` is not allowed here")),
    }
}

fn value_i32(v: INT) -> Result<i32, String> {
    i32::try_from(v).map_err(|_| format!("value {v} is out of range"))
}

/// Whether `who` may deploy a figure of kind `k` on segment `s` under the base rules
/// (the tile's features, unoccupied, figure in supply).
fn legal_deployment(view: View<'_>, who: PlayerId, k: FigureKindId, s: SegmentId) -> bool {
    let node = view.state.graph().segment(s);
    if node.is_virtual() {
        return false;
    }
    let mut legal = Vec::new();
    view.deployments_on_tile(who, node.pos, &mut legal);
    legal.contains(&Action::Deploy {
        figure: k,
        segment: s,
    })
}

fn check_move(state: &GameState, f: FigureId, s: SegmentId) -> Result<(), String> {
    if !matches!(state.figure(f).loc, FigureLoc::On(_)) {
        return Err(format!("figure {} is not in play", f.0));
    }
    let g = state.graph();
    let t = g.totals(g.feature_of(s));
    if t.occupants > 0 || t.scored {
        return Err(format!(
            "segment {} is on an occupied or scored feature",
            s.index()
        ));
    }
    Ok(())
}

/// A score draft as a script sees it.
pub fn draft_to_dynamic(view: View<'_>, d: &ScoreDraft) -> Dynamic {
    draft_value(view.rules, d)
}

/// A score draft as a script sees it (it only depends on the rules).
pub(crate) fn draft_value(rules: &Ruleset, d: &ScoreDraft) -> Dynamic {
    let mut m = Map::new();
    m.insert("final".into(), d.final_scoring.into());
    m.insert("placer".into(), d.placer.map_or(-1, |p| p.0 as INT).into());
    let features: Array = d
        .features
        .iter()
        .map(|f| {
            let mut x = Map::new();
            x.insert("kind".into(), rules.kind(f.kind).name.clone().into());
            x.insert(
                "segment".into(),
                (f.feature.segment().index() as INT).into(),
            );
            x.insert("tiles".into(), (f.tiles as INT).into());
            x.insert("complete".into(), f.complete.into());
            x.insert("value".into(), (f.value as INT).into());
            x.insert("closes".into(), f.closes.into());
            x.into()
        })
        .collect();
    m.insert("features".into(), features.into());
    let awards: Array = d
        .awards
        .iter()
        .map(|a| {
            let mut x = Map::new();
            x.insert("item".into(), (a.item as INT).into());
            x.insert("player".into(), (a.player.0 as INT).into());
            x.insert("points".into(), (a.points as INT).into());
            x.into()
        })
        .collect();
    m.insert("awards".into(), awards.into());
    m.into()
}

/// A registered function, for the documentation.
#[derive(Clone, Copy, Debug)]
pub struct FunctionDoc {
    /// Group: `read`, `rules`, `command`, `setup`, `action`.
    pub group: &'static str,
    /// Signature as a script writes it.
    pub signature: &'static str,
    /// What it does.
    pub doc: &'static str,
}

macro_rules! doc {
    ($g:literal, $s:literal, $d:literal) => {
        FunctionDoc {
            group: $g,
            signature: $s,
            doc: $d,
        }
    };
}

/// Every game function a script can call (the `docs/modding.md` tables come from this).
pub const FUNCTIONS: &[FunctionDoc] = &[
    doc!("rules", "option(key) -> bool | int | string", "An option's value: `key` without a dot is one of your own options or else a base-game option (`farmScoring`), with a dot any option (`count.countMove`)."),
    doc!("rules", "has_expansion(id) -> bool", "Whether an expansion is loaded in this game."),
    doc!("rules", "has_figure_kind(name) -> bool", "Whether a figure kind exists (`builder`, `mayor`, …)."),
    doc!("rules", "tile_features(tile) -> array", "Feature kind names of a tile's segments (`[\"city\", \"road\", \"field\"]`)."),
    doc!("rules", "tile_has_feature(tile, kind) -> bool", "Whether a tile has a segment of that feature kind."),
    doc!("rules", "tile_has_tag(tile, tag) -> bool", "Whether a tile carries a tag of its tile file."),
    doc!("read", "players() -> int", "Number of players; players are seats 0..players()."),
    doc!("read", "active_player() -> int", "The seat whose turn it is."),
    doc!("read", "turn() -> int", "The turn counter (0-based)."),
    doc!("read", "score(player) -> int", "A player's current score."),
    doc!("read", "in_final_scoring() -> bool", "Whether final scoring has begun."),
    doc!("read", "tiles_left() -> int", "Tiles still to draw."),
    doc!("read", "revealed_tile() -> string | ()", "The drawn tile while the prompts you queued in `on_tile_drawn` are asked, before it is placed; `()` otherwise."),
    doc!("read", "last_placed() -> map | ()", "The last placed tile: `#{x, y, tile, rotation, player}`."),
    doc!("read", "tile_at(x, y) -> string | ()", "The tile id on a cell."),
    doc!("read", "segments_at(x, y) -> array", "The segment ids of the tile on a cell (empty if none)."),
    doc!("read", "segment_kind(segment) -> string", "The feature kind of a segment."),
    doc!("read", "segment_cell(segment) -> map | ()", "`#{x, y}` of a segment's tile, `()` for a virtual feature."),
    doc!("read", "feature_of(segment) -> int", "The feature a segment belongs to now, as its representative segment: two segments are in one feature when their `feature_of` agree (features merge as tiles are placed, so compare within one hook call; draft items carry the same id as `segment`)."),
    doc!("read", "feature_complete(segment) -> bool", "Whether the feature of a segment is complete."),
    doc!("read", "feature_scored(segment) -> bool", "Whether it has been scored."),
    doc!("read", "feature_tiles(segment) -> int", "Distinct tiles of the feature."),
    doc!("read", "feature_pennants(segment) -> int", "Pennants in the feature."),
    doc!("read", "feature_figures(segment) -> array", "Figures standing on the feature."),
    doc!("read", "figures() -> array", "Every figure in play (on a feature), in figure order."),
    doc!("read", "figures_of_kind(kind) -> array", "Every figure of the figure kind `kind` in play, in figure order (empty if the kind is not in the rules)."),
    doc!("read", "segments_of_kind(kind) -> array", "Every segment of the feature kind `kind` on the board's tiles, in placement order (it looks at the whole board: use it in hooks that run rarely)."),
    doc!("read", "figure_owner(figure) -> int", "Its owner's seat."),
    doc!("read", "figure_kind(figure) -> string", "Its kind (`small-follower`, `count`, …)."),
    doc!("read", "is_follower(figure) -> bool", "Whether its kind is a follower."),
    doc!("read", "in_play(figure) -> bool", "Whether it stands on a feature."),
    doc!("read", "figure_segment(figure) -> int", "The segment it stands on, or -1."),
    doc!("read", "figure_role(figure) -> string", "The feature kind it stands on (`city` = knight, `road` = thief, `field` = farmer, `cloister` = monk, `shrine` = heretic), or \"\"."),
    doc!("read", "figure_cell(figure) -> map | ()", "`#{x, y}` of its tile, `()` if virtual or not in play."),
    doc!("read", "strength(figure) -> int", "Its strength in half-units, every expansion's changes included."),
    doc!("read", "supply_count(player, kind) -> int", "Figures of a kind in a player's supply."),
    doc!("read", "deployments(player, x, y) -> array", "The legal `deploy` actions of a player on the tile at (x, y) under the base rules."),
    doc!("read", "state(name) -> int", "A game-scoped state value you declared."),
    doc!("read", "expansion_state(expansion, name) -> int", "A game-scoped state value of another loaded expansion (e.g. `expansion_state(\"princess-dragon\", \"fairy-figure\")`); 0 when that expansion is not loaded or has no such state."),
    doc!("read", "player_state(name, player) -> int", "A player-scoped state value."),
    doc!("read", "figure_state(name, figure) -> int", "A figure-scoped state value."),
    doc!("command", "set_state(name, value)", "Sets a game-scoped state value."),
    doc!("command", "set_player_state(name, player, value)", "Sets a player-scoped state value."),
    doc!("command", "set_figure_state(name, figure, value)", "Sets a figure-scoped state value."),
    doc!("command", "award(player, points)", "Points outside feature scoring, labelled with your expansion id."),
    doc!("command", "award(player, points, label)", "The same with a label declared in setup()."),
    doc!("command", "deploy(player, action)", "Carries out a `deploy` action for a player (out of turn too); it must be legal."),
    doc!("command", "move_figure(figure, segment)", "Moves a figure in play onto an unoccupied, unscored feature."),
    doc!("command", "return_figure(figure)", "Returns a figure in play to its owner's supply."),
    doc!("command", "prompt(player, code, arg)", "Queues a decision for a player; `prompt_actions` lists its choices."),
    doc!("command", "prompt_next(player, code, arg)", "The same, asked before anything already queued."),
    doc!("command", "return_drawn_tile() -> bool", "While the prompts queued in `on_tile_drawn` are asked: puts the drawn tile back into the supply (shuffled in) and the player draws again; `false` if no tile is waiting."),
    doc!("command", "random(n) -> int", "A number in 0..n from the game's seeded random generator."),
    doc!("setup", "declare_state(name, scope, default)", "Declares an integer state value; `scope` is \"game\", \"player\" or \"figure\"."),
    doc!("setup", "declare_verb(name)", "Declares an action verb of yours."),
    doc!("setup", "declare_label(name)", "Declares a score label for `award`."),
    doc!("setup", "offer(verb, player_state)", "Offers your verb natively in every deployment step of a player whose `player_state` is non-zero (no script call until chosen; then `apply_action`)."),
    doc!("setup", "offer(verb, player_state, effects)", "The same; when chosen, the chooser's player-scoped states in `effects` (`#{token: 1}`) are set natively, and `apply_action` runs only if you define it."),
    doc!("setup", "offer_per_figure(verb, player_state, figure_state, roles)", "The same, once per figure in play on a tile whose `figure_state` is 0 and whose role is in `roles` (followers: the feature kind they stand on; other figures: their kind)."),
    doc!("setup", "offer_per_figure(verb, player_state, figure_state, roles, effects)", "The same with `effects` on the chooser's player-scoped states."),
    doc!("setup", "offer_protect(verb, expansion, state)", "The per-figure offer `verb` skips the figure whose id + 1 is in game-scoped state `state` of another `expansion` (when it is loaded), unless the chooser owns that figure (Promotions: no downgrading disc beside the fairy)."),
    doc!("setup", "reaction_deploy(window, player_state, order, code)", "Out of turn: in `window` (\"after-deploy\", …) every other player whose `player_state` is non-zero, in `order` (\"fewest-points\" or \"clockwise\" from the active player's left), may deploy a follower on the tile just placed; then `apply_prompt(player, code, 0, action)` runs."),
    doc!("setup", "reaction_deploy(window, player_state, order, code, effects)", "The same; when a player deploys, his player-scoped states in `effects` are set natively first."),
    doc!("setup", "strength_bonus(figure_state)", "Adds a figure-scoped state (half-units) to every figure's strength natively, with no call to `strength`."),
    doc!("setup", "keep_apart(kind, near, radius, reason)", "Placement rule checked natively: a tile with a feature of kind `kind` may not be placed within `radius` cells (the square around it) of a placed tile with a feature of kind `near`; a refused placement says `reason (x,y)`, naming that tile's cell."),
    doc!("setup", "guard(hook, state)", "Calls `hook` only while `state` is non-zero (for the hook's player or figure)."),
    doc!("setup", "guard_figure(hook, kind)", "Calls `hook` only while at least one figure of the figure kind `kind` is in play (never if no loaded expansion declares it)."),
    doc!("setup", "guard_scoring_near(hook, kind)", "`before_scoring` / `after_scoring` only: calls `hook` only when a feature being scored has a part on a tile where a figure of the figure kind `kind` stands."),
    doc!("action", "custom_action(verb) -> map", "An action of yours: `#{type: \"custom\", verb, figure: -1, segment: -1, value: 0}`."),
    doc!("action", "custom_action(verb, value) -> map", "The same with a value."),
    doc!("action", "figure_action(verb, figure) -> map", "An action of yours about a figure."),
    doc!("action", "pass_action() -> map", "Declining a prompt."),
];

fn custom(verb: &str, figure: INT, value: INT) -> Map {
    let mut m = Map::new();
    m.insert("type".into(), "custom".into());
    m.insert("verb".into(), verb.to_string().into());
    m.insert("figure".into(), figure.into());
    m.insert("segment".into(), (-1 as INT).into());
    m.insert("value".into(), value.into());
    m
}

fn state_slot(c: &Call<'_, '_>, name: &str, want: SlotScope) -> R<carcassonne_core::SlotId> {
    let (scope, slot) = c
        .decl()?
        .state(name)
        .ok_or_else(|| format!("state `{name}` was not declared in setup()"))?;
    if scope != want {
        return err(format!("state `{name}` is {}-scoped", scope_name(scope)));
    }
    Ok(slot)
}

fn scope_name(s: SlotScope) -> &'static str {
    match s {
        SlotScope::Game => "game",
        SlotScope::Player => "player",
        SlotScope::Figure => "figure",
    }
}

/// Registers the game API on an engine; returns the names of the traced functions.
pub fn register(engine: &mut Engine) -> Vec<&'static str> {
    let mut reg = Registry {
        engine,
        traced: Vec::new(),
    };
    let reg = &mut reg;
    register_rules(reg);
    register_reads(reg);
    register_commands(reg);
    register_setup(reg.engine);
    register_builders(reg.engine);
    std::mem::take(&mut reg.traced)
}

fn register_rules(reg: &mut Registry) {
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

fn with_figure<T>(
    c: &Call<'_, '_>,
    f: INT,
    g: impl Fn(View<'_>, FigureId, &carcassonne_core::Figure) -> T,
) -> R<T> {
    let v = c.view()?;
    let id = figure(v.state, f)?;
    Ok(g(v, id, v.state.figure(id)))
}

fn register_reads(reg: &mut Registry) {
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
        Ok(match v.state.revealed_tile() {
            Some(t) => v.rules.tiles().get(t).id.clone().into(),
            None => Dynamic::UNIT,
        })
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
        Ok(m.into())
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
        let mut out = Array::new();
        for local in 0..8u8 {
            match v.state.segment_at(pos, local) {
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
        Ok(if node.is_virtual() {
            Dynamic::UNIT
        } else {
            cell(node.pos)
        })
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
        let g = v.state.graph();
        let mut out = Array::new();
        for m in g.members(g.feature_of(s)) {
            for f in v.state.figures_on(m) {
                out.push((f.0 as INT).into());
            }
        }
        Ok(out)
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
                    out.push(((t.first_segment as usize + local) as INT).into());
                }
            }
        }
        Ok(out)
    });
    game_fn!(reg, Read, "figure_owner", |c, f: int| -> INT {
        with_figure(c, f, |_, _, fig| fig.owner.0 as INT)
    });
    game_fn!(reg, Read, "figure_kind", |c, f: int| -> String {
        with_figure(c, f, |v, _, fig| v.rules.figure_kind(fig.kind).name.clone())
    });
    game_fn!(reg, Read, "is_follower", |c, f: int| -> bool {
        with_figure(c, f, |v, _, fig| v.rules.figure_kind(fig.kind).follower)
    });
    game_fn!(reg, Read, "in_play", |c, f: int| -> bool {
        with_figure(c, f, |_, _, fig| matches!(fig.loc, FigureLoc::On(_)))
    });
    game_fn!(reg, Read, "figure_segment", |c, f: int| -> INT {
        with_figure(c, f, |_, _, fig| match fig.loc {
            FigureLoc::On(s) => s.index() as INT,
            _ => -1,
        })
    });
    game_fn!(reg, Read, "figure_role", |c, f: int| -> String {
        with_figure(c, f, |v, _, fig| match fig.loc {
            FigureLoc::On(s) => v.rules.kind(v.state.graph().segment(s).kind).name.clone(),
            _ => String::new(),
        })
    });
    game_fn!(reg, Read, "figure_cell", |c, f: int| -> Dynamic {
        with_figure(c, f, |v, _, fig| match fig.loc {
            FigureLoc::On(s) => {
                let node = v.state.graph().segment(s);
                if node.is_virtual() {
                    Dynamic::UNIT
                } else {
                    cell(node.pos)
                }
            }
            _ => Dynamic::UNIT,
        })
    });
    game_fn!(reg, Read, "strength", |c, f: int| -> INT {
        with_figure(c, f, |v, id, _| v.strength(id))?
            .map(INT::from)
            .map_err(|e| e.to_string().into())
    });
    game_fn!(reg, Read, "supply_count", |c, p: int, kind: str| -> INT {
        let v = c.view()?;
        let p = player(v.state, p)?;
        let k = v
            .rules
            .figure_named(kind)
            .ok_or_else(|| format!("no figure kind `{kind}`"))?;
        Ok(v.state.in_supply(p, k) as INT)
    });
    game_fn!(reg, Read, "deployments", |c,
                                        p: int,
                                        x: int,
                                        y: int|
     -> Array {
        let v = c.view()?;
        let p = player(v.state, p)?;
        let mut out = Vec::new();
        let pos = Pos::new(x as i32, y as i32);
        if v.state.board().is_occupied(pos) {
            v.deployments_on_tile(p, pos, &mut out);
        }
        let names = c.bound()?.names();
        Ok(out.iter().map(|a| action_to_dynamic(v, names, a)).collect())
    });
    game_fn!(reg, Read, "state", |c, name: str| -> INT {
        let slot = state_slot(c, name, SlotScope::Game)?;
        Ok(c.view()?.state.slot(slot, 0))
    });
    game_fn!(reg, Read, "expansion_state", |c,
                                            id: str,
                                            name: str|
     -> INT {
        // Another expansion's game-scoped slot (e.g. `princess-dragon`'s `fairy-figure`):
        // 0 when that expansion is not loaded or declares no such slot.
        let v = c.view()?;
        let Some(ix) = v.rules.expansion_index(id) else {
            return Ok(0);
        };
        Ok(v.rules
            .slots()
            .iter()
            .position(|d| d.expansion == ix && d.name == name && d.scope == SlotScope::Game)
            .map_or(0, |i| v.state.slot(carcassonne_core::SlotId(i as u16), 0)))
    });
    game_fn!(reg, Read, "player_state", |c, name: str, p: int| -> INT {
        let slot = state_slot(c, name, SlotScope::Player)?;
        let v = c.view()?;
        Ok(v.state.slot(slot, player(v.state, p)?.0 as usize))
    });
    game_fn!(reg, Read, "figure_state", |c, name: str, f: int| -> INT {
        let slot = state_slot(c, name, SlotScope::Figure)?;
        let v = c.view()?;
        Ok(v.state.slot(slot, figure(v.state, f)?.0 as usize))
    });
}

/// A tile kind's id as a Rhai string.
fn tile_name(c: &Call<'_, '_>, rules: &Ruleset, k: TileKindId) -> Dynamic {
    match c.bound {
        Some(b) => b.names().tile_id(k).into(),
        None => rules.tiles().get(k).id.clone().into(),
    }
}

fn award(c: &mut Call<'_, '_>, p: INT, points: INT, label: Option<&str>) -> R<()> {
    let decl = c.decl()?;
    let label = match label {
        None => decl.label(&c.script.id).ok_or("no default label")?,
        Some(l) => decl
            .label(l)
            .ok_or_else(|| format!("label `{l}` was not declared in setup()"))?,
    };
    if !(-10_000..=10_000).contains(&points) {
        return err(format!(
            "{points} points is out of range (|points| ≤ 10000)"
        ));
    }
    let ctx = c.ctx()?;
    let p = player(ctx.state(), p)?;
    match c.awards.as_mut() {
        Some(later) => later.push((p, points as i32, label)),
        None => c.ctx()?.award(p, points as i32, label),
    }
    Ok(())
}

fn prompt(c: &mut Call<'_, '_>, p: INT, code: INT, arg: INT, next: bool) -> R<()> {
    let ctx = c.ctx()?;
    let p = player(ctx.state(), p)?;
    let code = u16::try_from(code)
        .ok()
        .filter(|c| *c <= super::MAX_SCRIPT_PROMPT_CODE)
        .ok_or_else(|| {
            format!(
                "prompt code {code} is not 0..={}",
                super::MAX_SCRIPT_PROMPT_CODE
            )
        })?;
    let arg = i32::try_from(arg).map_err(|_| format!("prompt arg {arg} is out of range"))?;
    if ctx.state().queued_prompts().count() >= 256 {
        return err("more than 256 prompts queued");
    }
    if next {
        ctx.prompt_next(p, super::ScriptPrompt::Script { code, arg });
    } else {
        ctx.prompt(p, super::ScriptPrompt::Script { code, arg });
    }
    Ok(())
}

fn register_commands(reg: &mut Registry) {
    game_fn!(reg, Set, "set_state", |c, name: str, value: int| -> () {
        let slot = state_slot(c, name, SlotScope::Game)?;
        c.set_slot(SlotRef::untyped(slot, 0), value)
    });
    game_fn!(reg, Set, "set_player_state", |c,
                                            name: str,
                                            p: int,
                                            value: int|
     -> () {
        let slot = state_slot(c, name, SlotScope::Player)?;
        let p = player(c.ctx()?.state(), p)?;
        c.set_slot(SlotRef::untyped(slot, p.0 as usize), value)
    });
    game_fn!(reg, Set, "set_figure_state", |c,
                                            name: str,
                                            f: int,
                                            value: int|
     -> () {
        let slot = state_slot(c, name, SlotScope::Figure)?;
        let f = figure(c.ctx()?.state(), f)?;
        c.set_slot(SlotRef::untyped(slot, f.0 as usize), value)
    });
    game_fn!(reg, Award, "award", |c, p: int, pts: int| -> () {
        award(c, p, pts, None)
    });
    game_fn!(reg, Award, "award", |c,
                                   p: int,
                                   pts: int,
                                   label: str|
     -> () {
        award(c, p, pts, Some(label))
    });
    game_fn!(reg, Other, "deploy", |c, p: int, action: any| -> INT {
        let me = c.me()?;
        let decl = c.decl()?;
        let ctx = c.ctx()?;
        let who = player(ctx.state(), p)?;
        let a = action_from_dynamic(ctx.view(), me, decl, action, who, Allow::Prompt)
            .map_err(|m| -> Box<EvalAltResult> { format!("deploy: {m}").into() })?;
        let Action::Deploy { figure, segment } = a else {
            return err("deploy: the action is not a `deploy` action");
        };
        let f = ctx
            .deploy(who, figure, segment)
            .map_err(|e| -> Box<EvalAltResult> { e.0.into() })?;
        Ok(f.0 as INT)
    });
    game_fn!(reg, Other, "move_figure", |c, f: int, s: int| -> () {
        let ctx = c.ctx()?;
        let f = figure(ctx.state(), f)?;
        let s = segment(ctx.state(), s)?;
        check_move(ctx.state(), f, s).map_err(|m| -> Box<EvalAltResult> { m.into() })?;
        ctx.move_figure(f, s)
            .map_err(|e| -> Box<EvalAltResult> { e.0.into() })
    });
    game_fn!(reg, Other, "return_figure", |c, f: int| -> () {
        let ctx = c.ctx()?;
        let f = figure(ctx.state(), f)?;
        if !matches!(ctx.state().figure(f).loc, FigureLoc::On(_)) {
            return err(format!("figure {} is not in play", f.0));
        }
        ctx.return_figure(f, RemovalReason::Expansion)
            .map_err(|e| e.to_string().into())
    });
    game_fn!(reg, Other, "prompt", |c,
                                    p: int,
                                    code: int,
                                    arg: int|
     -> () {
        prompt(c, p, code, arg, false)
    });
    game_fn!(reg, Other, "prompt_next", |c,
                                         p: int,
                                         code: int,
                                         arg: int|
     -> () {
        prompt(c, p, code, arg, true)
    });
    game_fn!(reg, Other, "return_drawn_tile", |c| -> bool {
        Ok(c.ctx()?.return_drawn_tile())
    });
    game_fn!(reg, Other, "random", |c, n: int| -> INT {
        if !(1..=u32::MAX as INT).contains(&n) {
            return err(format!("random({n}): n must be at least 1"));
        }
        Ok(c.ctx()?.random_below(n as u32) as INT)
    });
}

fn register_setup(engine: &mut Engine) {
    fn check_name(name: &str) -> R<()> {
        if name.is_empty()
            || name.len() > 64
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return err(format!(
                "`{name}` is not a valid name (1–64 letters, digits, `-`, `_`)"
            ));
        }
        Ok(())
    }
    engine.register_fn(
        "declare_state",
        |nc: NativeCallContext, name: &str, scope: &str, default: INT| -> R<()> {
            let mut c = call(&nc)?;
            let (setup, decl) = c.declarations()?;
            check_name(name)?;
            let scope = match scope {
                "game" => SlotScope::Game,
                "player" => SlotScope::Player,
                "figure" => SlotScope::Figure,
                other => {
                    return err(format!(
                        "scope `{other}`: expected \"game\", \"player\" or \"figure\""
                    ))
                }
            };
            let mut d = decl.borrow_mut();
            if d.state(name).is_some() {
                return err(format!("state `{name}` is declared twice"));
            }
            if d.states.len() >= 64 {
                return err("more than 64 state values");
            }
            let id = setup.slot(name, scope, default);
            d.states.push((name.to_string(), scope, id));
            Ok(())
        },
    );
    engine.register_fn(
        "declare_verb",
        |nc: NativeCallContext, name: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (setup, decl) = c.declarations()?;
            check_name(name)?;
            let mut d = decl.borrow_mut();
            if d.verb(name).is_some() {
                return err(format!("verb `{name}` is declared twice"));
            }
            let id = setup.verb(name);
            d.verbs.push((name.to_string(), id));
            Ok(())
        },
    );
    engine.register_fn(
        "declare_label",
        |nc: NativeCallContext, name: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (setup, decl) = c.declarations()?;
            check_name(name)?;
            let mut d = decl.borrow_mut();
            if d.label(name).is_none() {
                let id = setup.score_label(name);
                d.labels.push((name.to_string(), id));
            }
            Ok(())
        },
    );
    /// The hook a guard names, if it may be guarded at all.
    fn guarded_hook(hook: &str) -> R<&'static super::HookSpec> {
        use super::Hook as H;
        let spec = super::HOOKS
            .iter()
            .find(|h| h.name == hook)
            .ok_or_else(|| format!("no hook `{hook}`"))?;
        if matches!(
            spec.hook,
            H::Setup
                | H::FiltersTile
                | H::StartGame
                | H::ApplySetting
                | H::ApplyAction
                | H::PromptActions
                | H::ApplyPrompt
        ) {
            return err(format!(
                "hook `{hook}` cannot be guarded (it runs only when your own declaration, action or prompt calls for it)"
            ));
        }
        Ok(spec)
    }
    engine.register_fn(
        "guard",
        |nc: NativeCallContext, hook: &str, state: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let spec = guarded_hook(hook)?;
            let mut d = decl.borrow_mut();
            let i = d
                .states
                .iter()
                .position(|(n, ..)| n == state)
                .ok_or_else(|| {
                    format!("state `{state}` is not declared (declare it before the guard)")
                })?;
            let scope = d.states[i].1;
            let fits = matches!(
                (scope, spec.guard_arg),
                (SlotScope::Game, _)
                    | (SlotScope::Player, super::GuardArg::Player)
                    | (SlotScope::Figure, super::GuardArg::Figure)
            );
            if !fits {
                return err(format!(
                    "hook `{hook}` cannot be guarded by {}-scoped state `{state}`",
                    scope_name(scope)
                ));
            }
            d.guards[spec.hook as usize] = Some(super::Guard::State(i));
            Ok(())
        },
    );
    engine.register_fn(
        "keep_apart",
        |nc: NativeCallContext, kind: &str, near: &str, radius: INT, reason: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            if !(0..=16).contains(&radius) {
                return err(format!("keep_apart: radius {radius} is not in 0..=16"));
            }
            let mut d = decl.borrow_mut();
            if d.apart.len() >= 16 {
                return err("keep_apart: at most 16 spacing rules".to_string());
            }
            d.apart.push(super::Apart {
                kind: kind.to_string(),
                near: near.to_string(),
                radius: radius as i32,
                reason: reason
                    .chars()
                    .filter(|c| !c.is_control())
                    .take(160)
                    .collect(),
            });
            Ok(())
        },
    );
    engine.register_fn(
        "guard_figure",
        |nc: NativeCallContext, hook: &str, kind: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let spec = guarded_hook(hook)?;
            // Resolved when the ruleset is complete: the kind may be another expansion's.
            decl.borrow_mut().guards[spec.hook as usize] =
                Some(super::Guard::Figure(kind.to_string()));
            Ok(())
        },
    );
    engine.register_fn(
        "guard_scoring_near",
        |nc: NativeCallContext, hook: &str, kind: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let spec = guarded_hook(hook)?;
            if !matches!(spec.hook, super::Hook::BeforeScoring | super::Hook::AfterScoring) {
                return err(format!(
                    "hook `{hook}` has no scoring to look at (guard_scoring_near guards `before_scoring` and `after_scoring`)"
                ));
            }
            decl.borrow_mut().guards[spec.hook as usize] =
                Some(super::Guard::ScoringNear(kind.to_string()));
            Ok(())
        },
    );

    fn state_index(d: &Decl, name: &str, want: SlotScope) -> R<usize> {
        let i = d
            .states
            .iter()
            .position(|(n, ..)| n == name)
            .ok_or_else(|| format!("state `{name}` is not declared (declare it first)"))?;
        if d.states[i].1 != want {
            return err(format!(
                "state `{name}` must be {}-scoped here",
                scope_name(want)
            ));
        }
        Ok(i)
    }
    fn effects(d: &Decl, m: Option<Map>) -> R<Vec<(usize, i64)>> {
        let mut out = Vec::new();
        for (k, v) in m.unwrap_or_default() {
            let i = state_index(d, k.as_str(), SlotScope::Player)?;
            let v = v
                .as_int()
                .map_err(|t| format!("effect `{k}`: a {t}, not an integer"))?;
            out.push((i, v));
        }
        Ok(out)
    }
    fn add_offer(
        nc: &NativeCallContext,
        verb: &str,
        player_state: &str,
        per_figure: Option<(&str, Array)>,
        effects_map: Option<Map>,
    ) -> R<()> {
        let mut c = call(nc)?;
        let (_, decl) = c.declarations()?;
        let mut d = decl.borrow_mut();
        let v = d
            .verb(verb)
            .ok_or_else(|| format!("verb `{verb}` is not declared (declare_verb first)"))?;
        let player_state = state_index(&d, player_state, SlotScope::Player)?;
        let per_figure = match per_figure {
            None => None,
            Some((fs, roles)) => {
                let fs = state_index(&d, fs, SlotScope::Figure)?;
                let roles = roles
                    .into_iter()
                    .map(|r| {
                        r.into_string()
                            .map_err(|t| format!("a role must be a string, not {t}"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Some((fs, roles))
            }
        };
        let effects = effects(&d, effects_map)?;
        d.offers.push(super::Offer {
            verb: v,
            player_state,
            per_figure,
            effects,
            protect: Vec::new(),
        });
        Ok(())
    }
    engine.register_fn(
        "offer_protect",
        |nc: NativeCallContext, verb: &str, expansion: &str, state: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let mut d = decl.borrow_mut();
            let v = d
                .verb(verb)
                .ok_or_else(|| format!("verb `{verb}` is not declared (declare_verb first)"))?;
            let o = d
                .offers
                .iter_mut()
                .find(|o| o.verb == v && o.per_figure.is_some())
                .ok_or_else(|| {
                    format!("`{verb}` is not offered per figure (offer_per_figure first)")
                })?;
            o.protect.push((expansion.to_string(), state.to_string()));
            Ok(())
        },
    );
    engine.register_fn(
        "offer",
        |nc: NativeCallContext, verb: &str, player_state: &str| {
            add_offer(&nc, verb, player_state, None, None)
        },
    );
    engine.register_fn(
        "offer",
        |nc: NativeCallContext, verb: &str, player_state: &str, effects: Map| {
            add_offer(&nc, verb, player_state, None, Some(effects))
        },
    );
    engine.register_fn(
        "offer_per_figure",
        |nc: NativeCallContext,
         verb: &str,
         player_state: &str,
         figure_state: &str,
         roles: Array| {
            add_offer(&nc, verb, player_state, Some((figure_state, roles)), None)
        },
    );
    engine.register_fn(
        "offer_per_figure",
        |nc: NativeCallContext,
         verb: &str,
         player_state: &str,
         figure_state: &str,
         roles: Array,
         effects: Map| {
            add_offer(
                &nc,
                verb,
                player_state,
                Some((figure_state, roles)),
                Some(effects),
            )
        },
    );
    fn add_reaction(
        nc: &NativeCallContext,
        window: &str,
        player_state: &str,
        order: &str,
        code: INT,
        effects_map: Option<Map>,
    ) -> R<()> {
        let mut c = call(nc)?;
        let (_, decl) = c.declarations()?;
        let mut d = decl.borrow_mut();
        let window = match window {
            "turn-start" => carcassonne_core::Window::TurnStart,
            "after-deploy" => carcassonne_core::Window::AfterDeploy,
            "before-scoring" => carcassonne_core::Window::BeforeScoring,
            "after-scoring" => carcassonne_core::Window::AfterScoring,
            other => return err(format!("window `{other}`: expected \"turn-start\", \"after-deploy\", \"before-scoring\" or \"after-scoring\"")),
        };
        let fewest_points_first = match order {
            "fewest-points" => true,
            "clockwise" => false,
            other => {
                return err(format!(
                    "order `{other}`: expected \"fewest-points\" or \"clockwise\""
                ))
            }
        };
        let code = u16::try_from(code)
            .ok()
            .filter(|c| *c <= super::MAX_SCRIPT_PROMPT_CODE)
            .ok_or_else(|| {
                format!(
                    "reaction code {code} is not 0..={}",
                    super::MAX_SCRIPT_PROMPT_CODE
                )
            })?;
        let player_state = state_index(&d, player_state, SlotScope::Player)?;
        let effects = effects(&d, effects_map)?;
        d.reactions.push(super::Reaction {
            window,
            player_state,
            fewest_points_first,
            code,
            effects,
        });
        Ok(())
    }
    engine.register_fn(
        "reaction_deploy",
        |nc: NativeCallContext, window: &str, player_state: &str, order: &str, code: INT| {
            add_reaction(&nc, window, player_state, order, code, None)
        },
    );
    engine.register_fn(
        "reaction_deploy",
        |nc: NativeCallContext,
         window: &str,
         player_state: &str,
         order: &str,
         code: INT,
         effects: Map| {
            add_reaction(&nc, window, player_state, order, code, Some(effects))
        },
    );

    engine.register_fn(
        "strength_bonus",
        |nc: NativeCallContext, figure_state: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let mut d = decl.borrow_mut();
            let i = state_index(&d, figure_state, SlotScope::Figure)?;
            d.strength_bonus = Some(i);
            Ok(())
        },
    );
}

fn register_builders(engine: &mut Engine) {
    engine.register_fn("custom_action", |verb: &str| -> Map { custom(verb, -1, 0) });
    engine.register_fn("custom_action", |verb: &str, value: INT| -> Map {
        custom(verb, -1, value)
    });
    engine.register_fn("figure_action", |verb: &str, f: INT| -> Map {
        custom(verb, f, 0)
    });
    engine.register_fn("pass_action", || -> Map {
        let mut m = Map::new();
        m.insert("type".into(), "pass".into());
        m
    });
}
