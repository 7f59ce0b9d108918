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
    Action, Ctx, CustomAction, Declare, ExpansionIndex, FeatureKindId, FigureId, FigureKindId,
    FigureLoc, GameState, OptionValue, PlayerId, Pos, RemovalReason, Rotation, Ruleset, ScoreDraft,
    SegmentId, SlotRef, SlotScope, StartTile, TileKindId, View, Visible,
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
    /// (player, points, label, whether `award_scoring` made it).
    pub(crate) awards: Option<Vec<(PlayerId, i32, carcassonne_core::LabelId, bool)>>,
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
            hook: super::HOOKS[role.index()].name,
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
    // SAFETY: what makes `&mut *p` a valid, unique `&mut Call` for the native's lifetime:
    // 1. Live: `p` was made by `lend` from a `&mut Call` borrowed for the whole of `run`
    //    (one synchronous Rhai call), and `Revoke` nulls it before that borrow ends, also
    //    on unwinding; a non-null `p` is therefore a live `Call`. Natives run only inside
    //    that Rhai call, on its thread (Rhai calls them synchronously), and a `Lease`
    //    cloned out of the tag is only ever read through this function.
    // 2. Unique: while the native holds the lease `busy` is set, so no other native (a
    //    nested one) gets a second `&mut`; the host itself does not touch the `Call`
    //    during `run` (it lent it by `&mut`). `Held` clears `busy` on drop.
    // 3. Lifetimes: `Call<'a, 'b>` is invariant in `'b` (through `&mut Ctx<'b>`), so
    //    shortening both to `'n` is sound only if nothing of lifetime `'n` is written into
    //    the `Call`: the natives (this module) only call methods on its fields and
    //    assign owned values (`trace`, `undo`, `awards`), never a field that holds a
    //    reference (`access`, `script`, `bound`), nor do they `mem::swap`/`replace` the
    //    `Ctx`/`View` it lends. This invariant is kept by review of `api/`: it is the
    //    one thing a new game function must not break.
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
            for (p, points, label, scoring) in awards {
                if scoring {
                    ctx.award_scoring(p, points, label);
                } else {
                    ctx.award(p, points, label);
                }
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
                // body or from a helper's it called, are written down as such (see
                // `memo::Shape`).
                let (pos, level) = (nc.call_position(), nc.call_level());
                let param = |i| shape.and_then(|s| s.param_at(pos, i, level));
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

/// Registers the game API on an engine; returns the names of the traced functions.
pub fn register(engine: &mut Engine) -> Vec<&'static str> {
    let mut reg = Registry {
        engine,
        traced: Vec::new(),
    };
    let reg = &mut reg;
    register_rules(reg);
    register_reads(reg);
    register_figures(reg);
    register_corners(reg);
    register_state_reads(reg);
    register_commands(reg);
    register_setup(reg.engine);
    register_kinds(reg);
    near::register_near(reg);
    tags::register_tags(reg);
    joins::register_joins(reg);
    edges::register_edges(reg.engine);
    tags::register_marks(reg.engine);
    register_builders(reg.engine);
    std::mem::take(&mut reg.traced)
}

mod commands;
mod corners;
mod edges;
mod fast;
mod figures;
mod functions;
mod joins;
mod kinds;
mod near;
mod reads;
mod setup;
mod state;
mod tags;
mod values;

use commands::*;
use corners::register_corners;
pub(crate) use corners::{junction_anchor, junction_corners_of};
pub(crate) use fast::*;
use figures::*;
pub use functions::*;
pub(crate) use kinds::completed_by;
use kinds::register_kinds;
pub(crate) use near::{lead_neutral, unfinished_features_near};
pub(crate) use reads::open_features;
use reads::*;
use setup::*;
use state::*;
pub use values::*;
