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
//! those functions return decide the branch. A parameter handed to a helper (a function
//! of the script) counts the same when the helper only hands it on to game functions and
//! the code a call can run is known (`shape::through_helpers`: the hook calls no script
//! function but such helpers, they call none, no function pointers, every call passes the
//! same parameter in the same place): the helper's uses are written down one call level
//! deeper, so how a fan splits a hook into functions does not decide what is remembered.
//! Any other use (arithmetic, a comparison, a property, a closure, a new variable of the
//! same name) keeps the parameter in the key.
//!
//! The memo belongs to the bound script, one [`ScriptMemo`] per thread that plays its
//! games (`BoundScript` keeps them in a `thread_local::ThreadLocal`, no global state), so
//! games on other threads are never slowed by a lock, and the results of a game never
//! depend on it: a memoized call returns exactly what the script would have returned
//! (tested by `memoized_games_are_the_games_the_script_plays`, memo on against off, and
//! the tests beside it). A hook whose calls rarely repeat turns its memo off on that
//! thread after a few hundred calls; a bound script can be made without a memo
//! (`ScriptExpansion::without_memo`).

use super::api::{Call, Native};
use super::{Hook, HOOK_COUNT};
use carcassonne_core::{Action, RemovalReason, Ruleset, SlotId, SlotScope, TileKindId, View};
use rhai::{ASTNode, Array, Dynamic, Expr, ImmutableString, Map, Position, Stmt, AST, INT};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Arc;

mod shape;
mod trace;

pub(crate) use shape::*;
pub(crate) use trace::*;

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
const MAX_NODES: usize = 50_000;

/// The most nodes all trees of one bound script may have together on one thread (then
/// the hook that would grow past it has its memo turned off).
const MAX_SCRIPT_NODES: usize = 200_000;

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
    Hook::WindowAfterTurn,
    Hook::WindowBeforeFinalScoring,
    Hook::PromptActions,
    Hook::ApplyPrompt,
    Hook::Strength,
    Hook::OnFigureRemoved,
    Hook::OnTurnEnd,
    Hook::FinalScoring,
    Hook::BeforeScoring,
    Hook::AfterScoring,
];

/// What a memoized hook call answered, as the host keeps it.
#[derive(Debug)]
pub(crate) enum Cached {
    /// Nothing (the hook's result is not used).
    Unit,
    /// An integer (a strength, a verdict).
    Int(i64),
    /// Forbidden squares.
    Cells(Vec<Square>),
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
    Op(Op),
    /// The hook's answer.
    Done(Arc<Cached>),
    /// From here the script must run.
    Never,
}

/// A game-function use in the tree. What a walk needs first is kept small: the use
/// without Rhai values, when there is one, and the children by its code.
#[derive(Debug)]
struct Op {
    fast: Option<Fast>,
    /// The children by code: up to two in `small`, else all in `big`, sorted, and when
    /// every code is in -1..=254 also in `dense` (child + 1 at code + 1, 0 = none).
    small: [(i64, u32); 2],
    len: u32,
    big: Vec<(i64, u32)>,
    dense: Vec<u32>,
    slow: Box<Slow>,
}

impl Op {
    /// The child for a fast result.
    #[inline]
    fn child(&self, code: i64) -> Option<u32> {
        if self.len <= 2 {
            self.small[..self.len as usize]
                .iter()
                .find(|c| c.0 == code)
                .map(|c| c.1)
        } else if !self.dense.is_empty() {
            let k = usize::try_from(code.checked_add(1)?).ok()?;
            self.dense.get(k)?.checked_sub(1)
        } else {
            let k = self.big.binary_search_by_key(&code, |c| c.0).ok()?;
            Some(self.big[k].1)
        }
    }

    /// Adds the child for a code (a code already known keeps its child).
    fn add_child(&mut self, code: i64, child: u32) {
        if self.child(code).is_some() {
            return;
        }
        if self.len < 2 {
            self.small[self.len as usize] = (code, child);
        } else {
            if self.len == 2 {
                self.big.extend_from_slice(&self.small);
                self.big.sort_by_key(|c| c.0);
            }
            if let Err(at) = self.big.binary_search_by_key(&code, |c| c.0) {
                self.big.insert(at, (code, child));
            }
            self.dense.clear();
            if self.big.iter().all(|c| (-1..=254).contains(&c.0)) {
                let n = self.big.iter().map(|c| c.0 + 2).max().unwrap_or(0) as usize;
                self.dense.resize(n, 0);
                for &(k, c) in &self.big {
                    self.dense[(k + 1) as usize] = c + 1;
                }
            }
        }
        self.len += 1;
    }
}

/// The use with Rhai values, and the children by value.
#[derive(Debug)]
struct Slow {
    native: &'static Native,
    args: Box<[Arg]>,
    /// The literal arguments as Rhai values (unit for the parameters).
    lits: Box<[Dynamic]>,
    next: Vec<(Val, u32)>,
    /// With many children: their indices in `next` by the hash of their value.
    index: Option<FxMap<u64, Vec<u32>>>,
}

/// The child of an `Op` whose value a Rhai value matches.
fn child(slow: &Slow, r: &Dynamic) -> Option<u32> {
    match &slow.index {
        Some(ix) => ix
            .get(&hash_of(r)?)?
            .iter()
            .map(|&k| &slow.next[k as usize])
            .find(|(v, _)| v.matches(r))
            .map(|c| c.1),
        None => slow.next.iter().find(|(v, _)| v.matches(r)).map(|c| c.1),
    }
}

/// Runs a use with Rhai values; the child its result leads to.
#[cold]
fn slow_step(
    slow: &Slow,
    call: &mut Call<'_, '_>,
    values: &mut [Option<Dynamic>; 4],
    value: &dyn Fn(&Call<'_, '_>, usize) -> Dynamic,
) -> Option<u32> {
    for a in slow.args.iter() {
        if let Arg::Param(p) = a {
            let v = values.get_mut(*p as usize)?;
            if v.is_none() {
                *v = Some(value(call, *p as usize));
            }
        }
    }
    let unit = Dynamic::UNIT;
    let mut refs = [&unit; 8];
    for ((slot, a), lit) in refs.iter_mut().zip(slow.args.iter()).zip(slow.lits.iter()) {
        *slot = match a {
            Arg::Lit(_) => lit,
            Arg::Param(p) => values[*p as usize].as_ref().unwrap_or(&unit),
        };
    }
    // Game functions take at most three arguments; more would not be replayed.
    let r = (slow.native.replay)(call, refs.get(..slow.args.len())?).ok()?;
    child(slow, &r)
}

/// Where a call starts in a hook's tree: by the number of players alone when every
/// parameter is opaque, else by its [`Key`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Root<'k> {
    Players(usize),
    Key(&'k Key),
}

/// The outcome of looking a call up.
pub(crate) enum Found {
    /// Answered.
    Hit(Arc<Cached>),
    /// Not known yet: run and record.
    Miss,
    /// Known not to be memoizable: run.
    Never,
}

/// One hook's memo on one thread.
#[derive(Debug, Default)]
pub(crate) struct HookMemo {
    /// Roots by number of players (node index + 1; 0 = none).
    by_players: [u32; 9],
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

    fn root(&self, root: &Root<'_>) -> Option<u32> {
        match *root {
            Root::Players(n) => self.by_players.get(n).and_then(|r| r.checked_sub(1)),
            Root::Key(key) => match &self.index {
                Some(ix) => ix.get(key).copied(),
                None => self.roots.iter().find(|(k, _)| k == key).map(|r| r.1),
            },
        }
    }

    /// Walks the tree for a call from `root`, running the game functions through `call`
    /// (`params` are the hook's arguments, `value` makes the Rhai value of one).
    pub(crate) fn find(
        &self,
        root: &Root<'_>,
        call: &mut Call<'_, '_>,
        params: &[Param<'_>],
        value: &dyn Fn(&Call<'_, '_>, usize) -> Dynamic,
    ) -> Found {
        let found = match self.root(root) {
            Some(i) => self.walk(i, call, params, value),
            None => Found::Miss,
        };
        self.count(matches!(found, Found::Hit(_)));
        found
    }

    /// Answers a call of a hook that only reads the game when the whole walk is made of
    /// [`Fast`] uses (`None`: look it up with [`HookMemo::find`]).
    pub(crate) fn find_read(
        &self,
        root: &Root<'_>,
        view: View<'_>,
        params: &[Param<'_>],
    ) -> Option<&Cached> {
        let mut i = self.root(root)?;
        loop {
            let op = match &self.nodes[i as usize] {
                Node::Op(op) => op,
                Node::Done(c) => {
                    self.count(true);
                    return Some(c);
                }
                _ => return None,
            };
            let code = super::api::eval_read(op.fast.as_ref()?, view, params, false)?;
            i = op.child(code)?;
        }
    }

    /// [`HookMemo::find_read`] for a hook that may change the game: state values set on
    /// the way are written down in `undo` (to be set back when this returns `None`).
    pub(crate) fn find_write(
        &self,
        root: &Root<'_>,
        ctx: &mut carcassonne_core::Ctx<'_>,
        undo: &mut super::api::Undo,
        params: &[Param<'_>],
    ) -> Option<&Cached> {
        let mut i = self.root(root)?;
        loop {
            let op = match &self.nodes[i as usize] {
                Node::Op(op) => op,
                Node::Done(c) => {
                    self.count(true);
                    return Some(c);
                }
                _ => return None,
            };
            let code = super::api::eval_write(op.fast.as_ref()?, ctx, undo, params)?;
            i = op.child(code)?;
        }
    }

    fn count(&self, hit: bool) {
        #[cfg(test)]
        {
            tests::CALLS.with(|c| c.set(c.get() + 1));
            tests::HITS.with(|c| c.set(c.get() + hit as u64));
        }
        let calls = self.calls.get() + 1;
        let hits = self.hits.get() + hit as u32;
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
    }

    fn walk(
        &self,
        mut i: u32,
        call: &mut Call<'_, '_>,
        params: &[Param<'_>],
        value: &dyn Fn(&Call<'_, '_>, usize) -> Dynamic,
    ) -> Found {
        let mut values: Option<[Option<Dynamic>; 4]> = None;
        loop {
            let op = match &self.nodes[i as usize] {
                Node::Op(op) => op,
                Node::Done(c) => return Found::Hit(c.clone()),
                Node::Empty => return Found::Miss,
                Node::Never => return Found::Never,
            };
            if let Some(f) = &op.fast {
                if let Some(code) = super::api::eval(f, call, params) {
                    match op.child(code) {
                        Some(c) => {
                            i = c;
                            continue;
                        }
                        None => return Found::Miss,
                    }
                }
            }
            let values = values.get_or_insert_with(Default::default);
            match slow_step(&op.slow, call, values, value) {
                Some(c) => i = c,
                None => return Found::Miss,
            }
        }
    }

    /// Adds a recorded call: its trace and, unless the trace was spoiled, its answer.
    /// `prep` makes the fast form of a use, `code` the code of a result.
    pub(crate) fn insert(
        &mut self,
        root: Root<'_>,
        trace: Trace,
        answer: &Arc<Cached>,
        total: &Cell<usize>,
        prep: &dyn Fn(&'static Native, &[Arg]) -> Option<Fast>,
        code: &dyn Fn(&Fast, &Val) -> Option<i64>,
    ) {
        if self.off.get() {
            self.clear(total);
            return;
        }
        let more = trace.events.len() + 1;
        if self.nodes.len() + more > MAX_NODES
            || total.get().saturating_add(more) > MAX_SCRIPT_NODES
        {
            self.off.set(true);
            self.clear(total);
            return;
        }
        if matches!(root, Root::Players(n) if n >= self.by_players.len()) {
            // More players than the roots by players have room for: not remembered.
            return;
        }
        let mut i = match self.root(&root) {
            Some(r) => r,
            None => {
                let r = self.new_node(total);
                match root {
                    Root::Players(n) if n < self.by_players.len() => self.by_players[n] = r + 1,
                    Root::Players(_) => return,
                    Root::Key(key) => {
                        self.roots.push((key.clone(), r));
                        if let Some(ix) = &mut self.index {
                            ix.insert(key.clone(), r);
                        } else if self.roots.len() > 16 {
                            self.index = Some(self.roots.iter().cloned().collect());
                        }
                    }
                }
                r
            }
        };
        for ev in trace.events {
            let node = &mut self.nodes[i as usize];
            match node {
                Node::Empty => {
                    let lits = ev
                        .args
                        .iter()
                        .map(|a| match a {
                            Arg::Lit(v) => v.dynamic(),
                            Arg::Param(_) => Dynamic::UNIT,
                        })
                        .collect();
                    *node = Node::Op(Op {
                        fast: prep(ev.native, &ev.args),
                        small: [(0, 0); 2],
                        len: 0,
                        big: Vec::new(),
                        dense: Vec::new(),
                        slow: Box::new(Slow {
                            native: ev.native,
                            args: ev.args,
                            lits,
                            next: Vec::new(),
                            index: None,
                        }),
                    });
                }
                Node::Op(op)
                    if std::ptr::eq(op.slow.native, ev.native) && *op.slow.args == *ev.args => {}
                _ => {
                    // Not what the script did last time with the same values: cannot
                    // happen for a deterministic script; forget everything to be safe.
                    self.clear(total);
                    return;
                }
            }
            let existing = match &self.nodes[i as usize] {
                Node::Op(op) => match &op.slow.index {
                    Some(ix) => ix.get(&ev.result.hash()).and_then(|ks| {
                        ks.iter()
                            .map(|&k| &op.slow.next[k as usize])
                            .find(|(v, _)| *v == ev.result)
                            .map(|c| c.1)
                    }),
                    None => op
                        .slow
                        .next
                        .iter()
                        .find(|(v, _)| *v == ev.result)
                        .map(|c| c.1),
                },
                _ => None,
            };
            i = match existing {
                Some(c) => c,
                None => {
                    let c = self.new_node(total);
                    if let Node::Op(op) = &mut self.nodes[i as usize] {
                        if let Some(k) = op.fast.as_ref().and_then(|f| code(f, &ev.result)) {
                            op.add_child(k, c);
                        }
                        let slow = &mut *op.slow;
                        slow.next.push((ev.result, c));
                        if slow.next.len() > 8 {
                            let ix = slow.index.get_or_insert_with(FxMap::default);
                            if ix.is_empty() {
                                for (k, (v, _)) in slow.next.iter().enumerate() {
                                    ix.entry(v.hash()).or_default().push(k as u32);
                                }
                            } else {
                                let k = slow.next.len() - 1;
                                ix.entry(slow.next[k].0.hash()).or_default().push(k as u32);
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
            _ => self.clear(total),
        }
    }

    fn new_node(&mut self, total: &Cell<usize>) -> u32 {
        self.nodes.push(Node::Empty);
        total.set(total.get() + 1);
        (self.nodes.len() - 1) as u32
    }

    /// Forgets the tree (`total`: the script's node count on this thread).
    fn clear(&mut self, total: &Cell<usize>) {
        total.set(total.get().saturating_sub(self.nodes.len()));
        self.by_players = [0; 9];
        self.roots.clear();
        self.index = None;
        self.nodes = Vec::new();
    }
}

/// A bound script's memos on one thread.
#[derive(Debug)]
pub(crate) struct ScriptMemo {
    hooks: Vec<RefCell<HookMemo>>,
    /// The nodes of all its trees (bounded by [`MAX_SCRIPT_NODES`]).
    nodes: Cell<usize>,
}

impl Default for ScriptMemo {
    fn default() -> ScriptMemo {
        ScriptMemo {
            hooks: (0..HOOK_COUNT).map(|_| RefCell::default()).collect(),
            nodes: Cell::new(0),
        }
    }
}

impl ScriptMemo {
    /// The memo of a hook.
    pub(crate) fn hook(&self, h: Hook) -> &RefCell<HookMemo> {
        &self.hooks[h.index()]
    }

    /// The number of nodes of all the script's trees on this thread, which
    /// [`HookMemo::insert`] keeps up to date.
    pub(crate) fn nodes(&self) -> &Cell<usize> {
        &self.nodes
    }
}

#[cfg(test)]
mod tests;
