//! Memoized hook calls: how a hook that runs in every turn can cost less than a script call.
//!
//! A script function is a deterministic function of its arguments and of what the game
//! functions it calls return: a script has no memory of its own, no clock and no random
//! numbers but `random(n)` (a command), and the sandbox gives it nothing else to look at.
//! So when a hook is called with the same arguments and every game function it called last
//! time returns the same value again, in the same order, the call does exactly what it did
//! last time. The memo keeps, per hook, the calls it has seen as a tree: the root is the
//! hook's arguments, every inner node is one use of a traced game function ([`Native`])
//! with its arguments, its children are keyed by the value it returned, and a leaf holds
//! what the hook returned (already converted by the host: [`Cached`]). A later call walks
//! the tree, running each game function again against the game as it is now; when it
//! reaches a leaf the script is not run at all. When a value differs from every child, the
//! script runs as usual, recorded, and the tree grows by that branch.
//!
//! Hooks that may change the game are memoized the same way when the commands they used are
//! `set_state`, `set_player_state`, `set_figure_state` and `award`: those are nodes of the
//! tree too; state values are set while the tree is walked and set back if the walk does not
//! reach a leaf, awards wait for the leaf (`score`, the one function that sees points,
//! does not answer while one waits). A call that uses any other command (figures, prompts,
//! the random generator), or a function that is not traced, ends its branch with
//! [`Node::Never`]: from there on the script runs.
//!
//! **Parameters that only reach the game.** A hook's argument that differs in every call
//! (the cell of the tile just placed) would make every call new. When the hook's body uses
//! a parameter only as a direct argument of traced game functions (`tile_at(x, y)`), the
//! parameter is left out of the root's key and those arguments are written down as "the
//! hook's parameter i" instead of their value ([`Shape`], found once from the script's
//! syntax tree when it is compiled): the walk passes the current argument, and the values
//! those functions return decide the branch. Any other use (arithmetic, a comparison, a
//! property, a helper function, a closure, a new variable of the same name) keeps the
//! parameter in the key.
//!
//! The memo is per thread and per bound script ([`memo`]), so games on other threads are
//! never slowed by a lock, and the results of a game never depend on it: a memoized call
//! returns exactly what the script would have returned. A hook whose calls rarely repeat
//! turns its memo off on that thread after a few hundred calls.

use super::api::{Call, Native};
use super::{Hook, HOOK_COUNT};
use carcassonne_core::{Action, RemovalReason, Ruleset, SlotId, SlotScope, TileKindId};
use rhai::{Array, ASTNode, Dynamic, Expr, ImmutableString, Map, Position, Stmt, AST, INT};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::rc::Rc;

/// A fast hasher for small keys (the memo's and the tile names'); not for keys an
/// adversary chooses in bulk (a script's tree is bounded by [`MAX_NODES`] anyway).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(b) ^ (rest.len() as u64) << 59);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`Fx`].
pub(crate) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// The call level (Rhai's) of the game functions called straight from a hook's body.
pub(crate) const HOOK_CALL_LEVEL: usize = 1;

/// The most game-function uses one recorded call may have.
const MAX_EVENTS: usize = 64;

/// The most nodes one hook's tree may have on one thread (then its memo is turned off).
const MAX_NODES: usize = 100_000;

/// Calls per period after which a hook's hit rate is looked at.
const PERIOD: u32 = 512;

/// The hooks that can be memoized (the others take values that change in every call, or
/// run once).
pub(crate) const MEMO_HOOKS: &[Hook] = &[
    Hook::StartGame,
    Hook::OnTileDrawn,
    Hook::ForbiddenCells,
    Hook::OnTilePlaced,
    Hook::DeployActions,
    Hook::ApplyAction,
    Hook::WindowTurnStart,
    Hook::WindowAfterDeploy,
    Hook::WindowBeforeScoring,
    Hook::WindowAfterScoring,
    Hook::WindowBeforeFinalScoring,
    Hook::PromptActions,
    Hook::ApplyPrompt,
    Hook::Strength,
    Hook::OnFigureRemoved,
    Hook::OnTurnEnd,
    Hook::FinalScoring,
];

/// How a hook's body uses its parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Bit i: parameter i is only passed straight to traced game functions (so it is not
    /// part of the key).
    pub(crate) opaque: u32,
    /// Where: (call position, argument index, parameter index).
    sites: Vec<(Position, u8, u8)>,
}

impl Shape {
    /// The hook parameter passed as argument `arg` of the game function called at `pos`.
    pub(crate) fn param_at(&self, pos: Position, arg: usize) -> Option<u8> {
        self.sites
            .iter()
            .find(|(p, a, _)| *p == pos && *a as usize == arg)
            .map(|s| s.2)
    }

    /// The key of a call: the number of players and the parameters that are not opaque.
    pub(crate) fn key(&self, players: usize, params: &[Param<'_>]) -> Option<Key> {
        let mut k = Key::default();
        k.push(players as i64)?;
        for (i, p) in params.iter().enumerate() {
            if self.opaque & (1 << i) == 0 {
                p.encode(&mut k)?;
            }
        }
        Some(k)
    }
}

/// Finds the [`Shape`] of the hook function `name` with `arity` parameters: `traced` are
/// the names of the traced game functions (a script function of the same name hides one).
pub(crate) fn analyze(ast: &AST, name: &str, arity: usize, traced: &[&str]) -> Shape {
    let script_fns: Vec<String> = ast.iter_fn_def().map(|f| f.name.to_string()).collect();
    let Some(def) = ast
        .iter_fn_def()
        .find(|f| f.name == name && f.params.len() == arity)
    else {
        return Shape::default();
    };
    let params: Vec<String> = def.params.iter().map(|p| p.to_string()).collect();
    if params.len() > 16 {
        return Shape::default();
    }
    // The hook's body, by position (closures written inside it are in it too: their own
    // parameters can only make the analysis more careful).
    let at = |p: Position| Some((p.line()?, p.position().unwrap_or(0)));
    let (Some(start), Some(end)) = (at(def.body.start_position()), at(def.body.end_position()))
    else {
        return Shape::default();
    };
    let inside = |p: Position| at(p).is_some_and(|p| start <= p && p <= end);
    let index = |n: &str| params.iter().position(|p| p == n);
    let is_traced = |n: &str| traced.contains(&n) && !script_fns.iter().any(|f| f == n);
    let mut bad = 0u32;
    let mut sites = Vec::new();
    ast.walk(&mut |path: &[ASTNode]| {
        let node = path[path.len() - 1];
        let parent = path.len().checked_sub(2).map(|i| path[i]);
        let mut shadow = |id: &rhai::Ident| {
            if let Some(p) = index(id.name.as_str()).filter(|_| inside(id.pos)) {
                bad |= 1 << p;
            }
        };
        match node {
            ASTNode::Expr(e @ Expr::Variable(v, _, pos)) if inside(*pos) => {
                if let Some(p) = index(v.1.as_str()) {
                    let call = match parent {
                        Some(ASTNode::Expr(Expr::FnCall(fc, pos)))
                        | Some(ASTNode::Stmt(Stmt::FnCall(fc, pos))) => Some((fc, *pos)),
                        _ => None,
                    };
                    let arg = call.and_then(|(fc, pos)| {
                        let i = fc.args.iter().position(|a| std::ptr::eq(a, e))?;
                        (is_traced(fc.name.as_str()) && !fc.capture_parent_scope)
                            .then_some((pos, i))
                    });
                    match arg {
                        Some((pos, i)) if i < 8 => sites.push((pos, i as u8, p as u8)),
                        _ => bad |= 1 << p,
                    }
                }
            }
            ASTNode::Expr(Expr::FnCall(fc, pos))
            | ASTNode::Expr(Expr::MethodCall(fc, pos))
            | ASTNode::Stmt(Stmt::FnCall(fc, pos))
                if fc.capture_parent_scope && inside(*pos) =>
            {
                // The callee sees every variable.
                bad = u32::MAX;
            }
            ASTNode::Stmt(Stmt::Var(x, ..)) => shadow(&x.0),
            ASTNode::Stmt(Stmt::For(x, ..)) => {
                shadow(&x.0);
                if let Some(c) = &x.1 {
                    shadow(c);
                }
            }
            ASTNode::Stmt(Stmt::TryCatch(x, pos)) if inside(*pos) => {
                if let Expr::Variable(v, _, _) = &x.expr {
                    if let Some(p) = index(v.1.as_str()) {
                        bad |= 1 << p;
                    }
                }
            }
            ASTNode::Stmt(Stmt::Share(x)) => {
                for (id, _) in x.iter() {
                    shadow(id);
                }
            }
            _ => {}
        }
        true
    });
    let all = (1u32 << params.len()) - 1;
    let opaque = all & !bad;
    sites.retain(|s| opaque & (1 << s.2) != 0);
    Shape { opaque, sites }
}

/// A hook argument, as the memo keys it and the script sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Param<'x> {
    /// An integer.
    Int(i64),
    /// A tile kind (the script gets its id).
    Tile(TileKindId),
    /// An action (the script gets its map).
    Action(&'x Action),
    /// Why a figure left the board (the script gets `"scored"` or `"expansion"`).
    Reason(RemovalReason),
}

impl Param<'_> {
    /// Appends the parameter's key; each encoding says its own length.
    fn encode(&self, k: &mut Key) -> Option<()> {
        match *self {
            Param::Int(v) => k.push(v),
            Param::Tile(t) => k.push(t.0 as i64),
            Param::Reason(r) => k.push(matches!(r, RemovalReason::Expansion) as i64),
            Param::Action(a) => {
                let opt = |v: Option<usize>| v.map_or(-1, |v| v as i64);
                match *a {
                    Action::Place { pos, rotation } => {
                        k.push(0)?;
                        k.push(pos.x as i64)?;
                        k.push(pos.y as i64)?;
                        k.push(rotation.degrees() as i64)
                    }
                    Action::Deploy { figure, segment } => {
                        k.push(1)?;
                        k.push(figure.0 as i64)?;
                        k.push(segment.index() as i64)
                    }
                    Action::Move { figure, segment } => {
                        k.push(2)?;
                        k.push(figure.0 as i64)?;
                        k.push(segment.index() as i64)
                    }
                    Action::Pass => k.push(3),
                    Action::Custom(c) => {
                        k.push(4)?;
                        k.push(c.expansion.0 as i64)?;
                        k.push(c.verb.0 as i64)?;
                        k.push(opt(c.figure.map(|f| f.0 as usize)))?;
                        k.push(opt(c.segment.map(|s| s.index())))?;
                        k.push(c.value as i64)
                    }
                    Action::Draw { tile } => {
                        k.push(5)?;
                        k.push(tile.0 as i64)
                    }
                }
            }
        }
    }

    /// The value the script gets.
    pub(crate) fn value(&self, rules: Option<&Ruleset>, names: &super::api::Names) -> Dynamic {
        match *self {
            Param::Int(v) => (v as INT).into(),
            Param::Tile(t) => names.tile_id(t).into(),
            Param::Reason(r) => names.reason(r).into(),
            Param::Action(a) => match rules {
                Some(rules) => super::api::action_value(rules, names, a),
                None => Dynamic::UNIT,
            },
        }
    }
}

/// The key of a hook call (see [`Shape::key`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    len: u8,
    v: [i64; 12],
}

impl Key {
    fn push(&mut self, x: i64) -> Option<()> {
        *self.v.get_mut(self.len as usize)? = x;
        self.len += 1;
        Some(())
    }
}

/// A value a game function returned or was given, comparable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Val {
    Unit,
    Bool(bool),
    Int(INT),
    Str(ImmutableString),
    Array(Box<[Val]>),
    Map(Box<[(ImmutableString, Val)]>),
}

impl Val {
    /// The value of a Rhai value of one of the types game functions use.
    pub(crate) fn of(d: &Dynamic) -> Option<Val> {
        if d.is_unit() {
            Some(Val::Unit)
        } else if let Ok(i) = d.as_int() {
            Some(Val::Int(i))
        } else if let Ok(b) = d.as_bool() {
            Some(Val::Bool(b))
        } else if d.is_string() {
            d.read_lock::<ImmutableString>().map(|s| Val::Str(s.clone()))
        } else if d.is_array() {
            let a = d.read_lock::<Array>()?;
            a.iter().map(Val::of).collect::<Option<_>>().map(Val::Array)
        } else if d.is_map() {
            let m = d.read_lock::<Map>()?;
            m.iter()
                .map(|(k, v)| Some((ImmutableString::from(k.as_str()), Val::of(v)?)))
                .collect::<Option<_>>()
                .map(Val::Map)
        } else {
            None
        }
    }

    /// Whether a Rhai value is this value.
    fn matches(&self, d: &Dynamic) -> bool {
        match self {
            Val::Unit => d.is_unit(),
            Val::Bool(b) => d.as_bool() == Ok(*b),
            Val::Int(i) => d.as_int() == Ok(*i),
            Val::Str(s) => d
                .read_lock::<ImmutableString>()
                .is_some_and(|x| x.as_str() == s.as_str()),
            Val::Array(a) => d.read_lock::<Array>().is_some_and(|x| {
                x.len() == a.len() && a.iter().zip(x.iter()).all(|(v, d)| v.matches(d))
            }),
            Val::Map(m) => d.read_lock::<Map>().is_some_and(|x| {
                x.len() == m.len()
                    && m.iter()
                        .zip(x.iter())
                        .all(|((k, v), (k2, d))| k.as_str() == k2.as_str() && v.matches(d))
            }),
        }
    }

    /// A hash of the value, equal to [`hash_of`] of a Rhai value it [`matches`](Val::matches).
    fn hash(&self) -> u64 {
        let mut h = Fx::default();
        self.feed(&mut h);
        h.finish()
    }

    fn feed(&self, h: &mut Fx) {
        match self {
            Val::Unit => h.write_u8(0),
            Val::Bool(b) => h.write_u64(1 + *b as u64),
            Val::Int(i) => {
                h.write_u8(3);
                h.write_i64(*i)
            }
            Val::Str(s) => {
                h.write_u8(4);
                h.write(s.as_bytes())
            }
            Val::Array(a) => {
                h.write_u8(5);
                h.write_usize(a.len());
                a.iter().for_each(|v| v.feed(h));
            }
            Val::Map(m) => {
                h.write_u8(6);
                h.write_usize(m.len());
                for (k, v) in m.iter() {
                    h.write(k.as_bytes());
                    v.feed(h);
                }
            }
        }
    }

    /// Back to a Rhai value.
    fn dynamic(&self) -> Dynamic {
        match self {
            Val::Unit => Dynamic::UNIT,
            Val::Bool(b) => (*b).into(),
            Val::Int(i) => (*i).into(),
            Val::Str(s) => s.clone().into(),
            Val::Array(a) => a.iter().map(Val::dynamic).collect::<Array>().into(),
            Val::Map(m) => m
                .iter()
                .map(|(k, v)| (k.as_str().into(), v.dynamic()))
                .collect::<Map>()
                .into(),
        }
    }
}

/// The hash of a Rhai value, as [`Val::hash`] of its value (`None`: not a value of the
/// memo's types).
fn hash_of(d: &Dynamic) -> Option<u64> {
    fn feed(d: &Dynamic, h: &mut Fx) -> Option<()> {
        if d.is_unit() {
            h.write_u8(0);
        } else if let Ok(i) = d.as_int() {
            h.write_u8(3);
            h.write_i64(i);
        } else if let Ok(b) = d.as_bool() {
            h.write_u64(1 + b as u64);
        } else if d.is_string() {
            h.write_u8(4);
            h.write(d.read_lock::<ImmutableString>()?.as_bytes());
        } else if d.is_array() {
            let a = d.read_lock::<Array>()?;
            h.write_u8(5);
            h.write_usize(a.len());
            for v in a.iter() {
                feed(v, h)?;
            }
        } else if d.is_map() {
            let m = d.read_lock::<Map>()?;
            h.write_u8(6);
            h.write_usize(m.len());
            for (k, v) in m.iter() {
                h.write(k.as_bytes());
                feed(v, h)?;
            }
        } else {
            return None;
        }
        Some(())
    }
    let mut h = Fx::default();
    feed(d, &mut h)?;
    Some(h.finish())
}

/// An argument of a recorded game-function use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Arg {
    /// This value.
    Lit(Val),
    /// The hook's parameter i.
    Param(u8),
}

/// An integer argument of a [`Fast`] use: a value, or the hook's parameter i.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ix {
    Lit(i64),
    Param(u8),
}

impl Ix {
    /// Its value in a call with `params` (`None`: the parameter is not a number).
    pub(crate) fn get(self, params: &[Param<'_>]) -> Option<i64> {
        match self {
            Ix::Lit(v) => Some(v),
            Ix::Param(p) => match params.get(p as usize)? {
                Param::Int(v) => Some(*v),
                Param::Tile(t) => Some(t.0 as i64),
                _ => None,
            },
        }
    }
}

/// A game-function use the memo checks without Rhai values (made from a recorded use by
/// `api::prepare`, run by `api::eval`); its result is a code: the integer, 0 or 1 for a
/// bool, the tile kind or -1 for a tile.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fast {
    /// `state`, `player_state`, `figure_state` of a declared name.
    Slot {
        slot: SlotId,
        scope: SlotScope,
        index: Ix,
    },
    /// `set_state`, `set_player_state`, `set_figure_state` of a declared name to a value.
    Set {
        slot: SlotId,
        scope: SlotScope,
        index: Ix,
        value: i64,
    },
    /// `tile_has_feature(tile, kind)`: `kinds` is the mask of the feature kinds so named.
    TileHas { tile: Ix, kinds: u64 },
    /// `tile_at(x, y)`.
    TileAt { x: Ix, y: Ix },
    /// `players()`.
    Players,
    /// `active_player()`.
    ActivePlayer,
    /// `turn()`.
    Turn,
    /// `score(player)`.
    Score(Ix),
}

/// One use of a traced game function.
#[derive(Debug)]
pub(crate) struct Event {
    native: &'static Native,
    args: Box<[Arg]>,
    result: Val,
}

/// The game functions a recorded call used, in order.
#[derive(Debug, Default)]
pub(crate) struct Trace {
    events: Vec<Event>,
    /// The call did something that cannot be replayed after the events so far.
    spoiled: bool,
}

impl Trace {
    /// Whether uses are still written down.
    pub(crate) fn open(&self) -> bool {
        !self.spoiled
    }

    /// The call cannot be replayed from here on.
    pub(crate) fn spoil(&mut self) {
        self.spoiled = true;
    }

    /// Writes down a use: `native(args) = result`; `param(i)` says which arguments are
    /// the hook's own parameters.
    pub(crate) fn push(
        &mut self,
        native: &'static Native,
        args: Vec<Dynamic>,
        param: impl Fn(usize) -> Option<u8>,
        result: &Dynamic,
    ) {
        if self.spoiled {
            return;
        }
        if self.events.len() >= MAX_EVENTS {
            return self.spoil();
        }
        let Some(result) = Val::of(result) else {
            return self.spoil();
        };
        let mut a = Vec::with_capacity(args.len());
        for (i, d) in args.iter().enumerate() {
            match param(i) {
                Some(p) => a.push(Arg::Param(p)),
                None => match Val::of(d) {
                    Some(v) => a.push(Arg::Lit(v)),
                    None => return self.spoil(),
                },
            }
        }
        self.events.push(Event {
            native,
            args: a.into(),
            result,
        });
    }
}

/// What a memoized hook call answered, as the host keeps it.
#[derive(Debug)]
pub(crate) enum Cached {
    /// Nothing (the hook's result is not used).
    Unit,
    /// An integer (a strength, a verdict).
    Int(i64),
    /// Forbidden squares `(x, y, radius)`.
    Cells(Vec<(i32, i32, i32)>),
    /// Actions that were checked against nothing but the rules.
    Actions(Vec<Action>),
    /// The script's own value, to be checked again against the game each time.
    Value(Dynamic),
}

#[derive(Debug)]
enum Node {
    /// Nothing recorded yet.
    Empty,
    /// A game-function use; the children by the value it returns.
    Op {
        native: &'static Native,
        args: Box<[Arg]>,
        /// The literal arguments as Rhai values (unit for the parameters).
        lits: Box<[Dynamic]>,
        next: Vec<(Val, u32)>,
        /// With many children: their indices in `next` by the hash of their value.
        index: Option<FxMap<u64, Vec<u32>>>,
        /// The use without Rhai values, when there is one; then `codes` are the children's
        /// results as codes.
        fast: Option<Fast>,
        codes: Vec<Option<i64>>,
    },
    /// The hook's answer.
    Done(Rc<Cached>),
    /// From here the script must run.
    Never,
}

/// The child of an `Op` whose value a Rhai value matches.
fn child(next: &[(Val, u32)], index: &Option<FxMap<u64, Vec<u32>>>, r: &Dynamic) -> Option<u32> {
    match index {
        Some(ix) => ix
            .get(&hash_of(r)?)?
            .iter()
            .map(|&k| &next[k as usize])
            .find(|(v, _)| v.matches(r))
            .map(|c| c.1),
        None => next.iter().find(|(v, _)| v.matches(r)).map(|c| c.1),
    }
}

/// The outcome of looking a call up.
pub(crate) enum Found {
    /// Answered.
    Hit(Rc<Cached>),
    /// Not known yet: run and record.
    Miss,
    /// Known not to be memoizable: run.
    Never,
}

/// One hook's memo on one thread.
#[derive(Debug, Default)]
pub(crate) struct HookMemo {
    roots: Vec<(Key, u32)>,
    index: Option<FxMap<Key, u32>>,
    nodes: Vec<Node>,
    calls: Cell<u32>,
    hits: Cell<u32>,
    off: Cell<bool>,
}

impl HookMemo {
    /// Whether the memo is off (the hook's calls rarely repeat).
    pub(crate) fn off(&self) -> bool {
        self.off.get()
    }

    fn root(&self, key: &Key) -> Option<u32> {
        match &self.index {
            Some(ix) => ix.get(key).copied(),
            None => self.roots.iter().find(|(k, _)| k == key).map(|r| r.1),
        }
    }

    /// Walks the tree for a call with `key`, running the game functions through `call`
    /// (`params` are the hook's arguments, `value` makes the Rhai value of one).
    pub(crate) fn find(
        &self,
        key: &Key,
        call: &mut Call<'_, '_>,
        params: &[Param<'_>],
        value: &dyn Fn(&Call<'_, '_>, usize) -> Dynamic,
    ) -> Found {
        let found = self.walk(key, call, params, value);
        let calls = self.calls.get() + 1;
        let hits = self.hits.get() + matches!(found, Found::Hit(_)) as u32;
        if calls >= PERIOD {
            // Fewer than one call in eight answered: the memo costs more than it saves.
            if hits < PERIOD / 8 {
                self.off.set(true);
            }
            self.calls.set(0);
            self.hits.set(0);
        } else {
            self.calls.set(calls);
            self.hits.set(hits);
        }
        found
    }

    fn walk(
        &self,
        key: &Key,
        call: &mut Call<'_, '_>,
        params: &[Param<'_>],
        value: &dyn Fn(&Call<'_, '_>, usize) -> Dynamic,
    ) -> Found {
        let Some(mut i) = self.root(key) else {
            return Found::Miss;
        };
        let unit = Dynamic::UNIT;
        let mut values: [Option<Dynamic>; 4] = Default::default();
        loop {
            match &self.nodes[i as usize] {
                Node::Empty => return Found::Miss,
                Node::Never => return Found::Never,
                Node::Done(c) => return Found::Hit(c.clone()),
                Node::Op {
                    native,
                    args,
                    lits,
                    next,
                    index,
                    fast,
                    codes,
                } => {
                    if let Some(code) = fast.and_then(|f| super::api::eval(&f, call, params)) {
                        match codes.iter().position(|c| *c == Some(code)) {
                            Some(k) => {
                                i = next[k].1;
                                continue;
                            }
                            None => return Found::Miss,
                        }
                    }
                    for a in args.iter() {
                        if let Arg::Param(p) = a {
                            let p = *p as usize;
                            if p >= values.len() {
                                return Found::Miss;
                            }
                            if values[p].is_none() {
                                values[p] = Some(value(call, p));
                            }
                        }
                    }
                    let mut refs = [&unit; 8];
                    for ((slot, a), lit) in refs.iter_mut().zip(args.iter()).zip(lits.iter()) {
                        *slot = match a {
                            Arg::Lit(_) => lit,
                            Arg::Param(p) => values[*p as usize].as_ref().unwrap_or(&unit),
                        };
                    }
                    let Ok(r) = (native.replay)(call, &refs[..args.len()]) else {
                        return Found::Miss;
                    };
                    match child(next, index, &r) {
                        Some(c) => i = c,
                        None => return Found::Miss,
                    }
                }
            }
        }
    }

    /// Adds a recorded call: its trace and, unless the trace was spoiled, its answer.
    pub(crate) fn insert(
        &mut self,
        key: Key,
        trace: Trace,
        answer: &Rc<Cached>,
        prep: &dyn Fn(&'static Native, &[Arg]) -> Option<Fast>,
        code: &dyn Fn(&Fast, &Val) -> Option<i64>,
    ) {
        if self.off.get() {
            self.clear();
            return;
        }
        if self.nodes.len() + trace.events.len() + 1 > MAX_NODES {
            self.off.set(true);
            self.clear();
            return;
        }
        let mut i = match self.root(&key) {
            Some(r) => r,
            None => {
                let r = self.new_node();
                self.roots.push((key, r));
                if let Some(ix) = &mut self.index {
                    ix.insert(key, r);
                } else if self.roots.len() > 16 {
                    self.index = Some(self.roots.iter().copied().collect());
                }
                r
            }
        };
        for ev in trace.events {
            match &mut self.nodes[i as usize] {
                n @ Node::Empty => {
                    let lits = ev
                        .args
                        .iter()
                        .map(|a| match a {
                            Arg::Lit(v) => v.dynamic(),
                            Arg::Param(_) => Dynamic::UNIT,
                        })
                        .collect();
                    let fast = prep(ev.native, &ev.args);
                    *n = Node::Op {
                        native: ev.native,
                        args: ev.args,
                        lits,
                        next: Vec::new(),
                        index: None,
                        fast,
                        codes: Vec::new(),
                    }
                }
                Node::Op { native, args, .. }
                    if std::ptr::eq(*native, ev.native) && *args == ev.args => {}
                _ => {
                    // Not what the script did last time with the same values: cannot
                    // happen for a deterministic script; forget everything to be safe.
                    self.clear();
                    return;
                }
            }
            let existing = match &self.nodes[i as usize] {
                Node::Op { next, .. } => next.iter().find(|(v, _)| *v == ev.result).map(|c| c.1),
                _ => None,
            };
            i = match existing {
                Some(c) => c,
                None => {
                    let c = self.new_node();
                    if let Node::Op {
                        next,
                        index,
                        fast,
                        codes,
                        ..
                    } = &mut self.nodes[i as usize]
                    {
                        codes.push(fast.as_ref().and_then(|f| code(f, &ev.result)));
                        next.push((ev.result, c));
                        if next.len() > 8 {
                            let ix = index.get_or_insert_with(FxMap::default);
                            if ix.is_empty() {
                                for (k, (v, _)) in next.iter().enumerate() {
                                    ix.entry(v.hash()).or_default().push(k as u32);
                                }
                            } else {
                                let k = next.len() - 1;
                                ix.entry(next[k].0.hash()).or_default().push(k as u32);
                            }
                        }
                    }
                    c
                }
            };
        }
        let leaf = &mut self.nodes[i as usize];
        match (&*leaf, trace.spoiled) {
            (Node::Empty, false) => *leaf = Node::Done(answer.clone()),
            (Node::Empty, true) => *leaf = Node::Never,
            (Node::Done(_), false) | (Node::Never, true) => {}
            _ => self.clear(),
        }
    }

    fn new_node(&mut self) -> u32 {
        self.nodes.push(Node::Empty);
        (self.nodes.len() - 1) as u32
    }

    fn clear(&mut self) {
        self.roots.clear();
        self.index = None;
        self.nodes.clear();
    }
}

/// A bound script's memos on one thread.
#[derive(Debug)]
pub(crate) struct ScriptMemo {
    hooks: Vec<RefCell<HookMemo>>,
}

impl ScriptMemo {
    /// The memo of a hook.
    pub(crate) fn hook(&self, h: Hook) -> &RefCell<HookMemo> {
        &self.hooks[h as usize]
    }
}

thread_local! {
    static MEMOS: RefCell<Vec<(u64, Rc<ScriptMemo>)>> = const { RefCell::new(Vec::new()) };
}

/// At most this many bound scripts keep a memo on one thread (the oldest is dropped).
const MAX_SCRIPTS: usize = 16;

/// This thread's memo of the bound script `serial`.
pub(crate) fn memo(serial: u64) -> Option<Rc<ScriptMemo>> {
    MEMOS
        .try_with(|m| {
            let mut m = m.try_borrow_mut().ok()?;
            if let Some((_, s)) = m.iter().find(|(k, _)| *k == serial) {
                return Some(s.clone());
            }
            if m.len() >= MAX_SCRIPTS {
                m.remove(0);
            }
            let s = Rc::new(ScriptMemo {
                hooks: (0..HOOK_COUNT).map(|_| RefCell::default()).collect(),
            });
            m.push((serial, s.clone()));
            Some(s)
        })
        .ok()
        .flatten()
}

/// Drops this thread's memo of a bound script that is going away.
pub(crate) fn forget(serial: u64) {
    let _ = MEMOS.try_with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            m.retain(|(k, _)| *k != serial);
        }
    });
}

