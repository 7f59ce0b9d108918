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
//! `set_state`, `set_player_state` and `set_figure_state`: those are nodes of the tree too,
//! carried out while it is walked and undone if the walk does not reach a leaf. A call that
//! uses any other command (points, figures, prompts, the random generator), or a function
//! that is not traced, ends its branch with [`Node::Never`]: from there on the script runs.
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
use carcassonne_core::{Action, RemovalReason, Ruleset, TileKindId};
use rhai::{Array, ASTNode, Dynamic, Expr, ImmutableString, Map, Position, Stmt, AST, INT};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

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

    /// Whether parameter `p` is passed to a game function somewhere.
    fn uses(&self, p: usize) -> bool {
        self.sites.iter().any(|s| s.2 as usize == p)
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

    /// The values of the parameters the tree may pass to game functions.
    pub(crate) fn values(
        &self,
        params: &[Param<'_>],
        rules: Option<&Ruleset>,
        names: &super::api::Names,
        out: &mut [Option<Dynamic>; 4],
    ) {
        for (i, p) in params.iter().enumerate().take(4) {
            if self.opaque & (1 << i) != 0 && self.uses(i) {
                out[i] = Some(p.value(rules, names));
            }
        }
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

/// An argument of a recorded game-function use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Arg {
    /// This value.
    Lit(Val),
    /// The hook's parameter i.
    Param(u8),
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
        next: Vec<(Val, u32)>,
        index: Option<HashMap<Val, u32>>,
    },
    /// The hook's answer.
    Done(Rc<Cached>),
    /// From here the script must run.
    Never,
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
    index: Option<HashMap<Key, u32>>,
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
    /// (`params` are the values of the opaque parameters).
    pub(crate) fn find(
        &self,
        key: &Key,
        call: &mut Call<'_, '_>,
        params: &[Option<Dynamic>; 4],
    ) -> Found {
        let found = self.walk(key, call, params);
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

    fn walk(&self, key: &Key, call: &mut Call<'_, '_>, params: &[Option<Dynamic>; 4]) -> Found {
        let Some(mut i) = self.root(key) else {
            return Found::Miss;
        };
        loop {
            match &self.nodes[i as usize] {
                Node::Empty => return Found::Miss,
                Node::Never => return Found::Never,
                Node::Done(c) => return Found::Hit(c.clone()),
                Node::Op {
                    native,
                    args,
                    next,
                    index,
                } => {
                    let mut buf = [Dynamic::UNIT; 8];
                    for (slot, a) in buf.iter_mut().zip(args.iter()) {
                        *slot = match a {
                            Arg::Lit(v) => v.dynamic(),
                            Arg::Param(p) => match params.get(*p as usize).and_then(|v| v.clone())
                            {
                                Some(v) => v,
                                None => return Found::Miss,
                            },
                        };
                    }
                    let Ok(r) = (native.replay)(call, &buf[..args.len()]) else {
                        return Found::Miss;
                    };
                    let Some(r) = Val::of(&r) else {
                        return Found::Miss;
                    };
                    let child = match index {
                        Some(ix) => ix.get(&r).copied(),
                        None => next.iter().find(|(v, _)| *v == r).map(|c| c.1),
                    };
                    match child {
                        Some(c) => i = c,
                        None => return Found::Miss,
                    }
                }
            }
        }
    }

    /// Adds a recorded call: its trace and, unless the trace was spoiled, its answer.
    pub(crate) fn insert(&mut self, key: Key, trace: Trace, answer: &Rc<Cached>) {
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
                    *n = Node::Op {
                        native: ev.native,
                        args: ev.args,
                        next: Vec::new(),
                        index: None,
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
                Node::Op { next, index, .. } => match index {
                    Some(ix) => ix.get(&ev.result).copied(),
                    None => next.iter().find(|(v, _)| *v == ev.result).map(|c| c.1),
                },
                _ => None,
            };
            i = match existing {
                Some(c) => c,
                None => {
                    let c = self.new_node();
                    if let Node::Op { next, index, .. } = &mut self.nodes[i as usize] {
                        next.push((ev.result.clone(), c));
                        if let Some(ix) = index {
                            ix.insert(ev.result, c);
                        } else if next.len() > 8 {
                            *index = Some(next.iter().cloned().collect());
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

