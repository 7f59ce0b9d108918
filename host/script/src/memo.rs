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

/// How a hook's body uses its parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Bit i: parameter i is only passed straight to traced game functions (so it is not
    /// part of the key).
    pub(crate) opaque: u32,
    /// Where: (call position, argument index, parameter index).
    sites: Vec<(Position, u8, u8)>,
    /// Parameters that are maps the body only reads fields of (`draft.final`): the key
    /// has those fields' values instead of the whole map.
    fields: Vec<(u8, ImmutableString)>,
}

impl Shape {
    /// The hook parameter passed as argument `arg` of the game function called at `pos`.
    pub(crate) fn param_at(&self, pos: Position, arg: usize) -> Option<u8> {
        self.sites
            .iter()
            .find(|(p, a, _)| *p == pos && *a as usize == arg)
            .map(|s| s.2)
    }

    /// Where a call starts: the number of players and the parameters that are not opaque
    /// (written into `key` when there are such parameters).
    pub(crate) fn root<'k>(
        &self,
        players: usize,
        params: &[Param<'_>],
        (rules, names): (Option<&Ruleset>, &super::api::Names),
        key: &'k mut Option<Key>,
    ) -> Option<Root<'k>> {
        let all = (1u32 << params.len()) - 1;
        if self.opaque & all == all {
            return Some(Root::Players(players));
        }
        let key = key.insert(Key::default());
        key.push(players as i64)?;
        for (i, p) in params.iter().enumerate() {
            if self.opaque & (1 << i) != 0 {
                continue;
            }
            let mut fields = self
                .fields
                .iter()
                .filter(|(q, _)| *q as usize == i)
                .peekable();
            if fields.peek().is_some() {
                // Only these fields of the map can make a difference.
                let mut map = None;
                for (_, f) in fields {
                    let v = match p.field(f) {
                        Some(v) => v,
                        None => {
                            let m = map.get_or_insert_with(|| p.value(rules, names));
                            let m = m.read_lock::<Map>()?;
                            match m.get(f.as_str()) {
                                Some(v) => Some(Val::of(v)?),
                                None => None,
                            }
                        }
                    };
                    key.vals.get_or_insert_with(Vec::new).push(v);
                }
            } else {
                p.encode(key)?;
            }
        }
        Some(Root::Key(key))
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
    // Parameters used as a whole somewhere (not only through fields).
    let mut whole = 0u32;
    let mut fields: Vec<(u8, ImmutableString)> = Vec::new();
    let mut sites = Vec::new();
    ast.walk(&mut |path: &[ASTNode]| {
        let node = path[path.len() - 1];
        let parent = path.len().checked_sub(2).map(|i| path[i]);
        let mut shadow = |id: &rhai::Ident| {
            if let Some(p) = index(id.name.as_str()).filter(|_| inside(id.pos)) {
                bad |= 1 << p;
                whole |= 1 << p;
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
                    // `param.field`, read (not assigned, not a method call, not a chain).
                    let field = match parent {
                        Some(ASTNode::Expr(d @ Expr::Dot(x, _, _))) if std::ptr::eq(&x.lhs, e) => {
                            let assigned = path.len().checked_sub(3).is_some_and(|i| {
                                matches!(path[i], ASTNode::Stmt(Stmt::Assignment(a))
                                    if std::ptr::eq(&a.1.lhs, d))
                            });
                            match &x.rhs {
                                Expr::Property(prop, _) if !assigned => Some(prop.2.clone()),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    match (arg, field) {
                        (Some((pos, i)), _) if i < 8 => sites.push((pos, i as u8, p as u8)),
                        (_, Some(f)) => {
                            fields.push((p as u8, f));
                            bad |= 1 << p;
                        }
                        _ => {
                            bad |= 1 << p;
                            whole |= 1 << p;
                        }
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
                whole = u32::MAX;
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
                        whole |= 1 << p;
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
    // A map parameter is keyed by its fields only when it reaches nothing else (a game
    // function given the whole map is checked with the map it was given then).
    let passed = sites.iter().fold(0u32, |m, s| m | 1 << s.2);
    fields.retain(|(p, _)| (whole | passed) & (1 << p) == 0);
    sites.retain(|s| opaque & (1 << s.2) != 0);
    fields.sort();
    fields.dedup();
    Shape {
        opaque,
        sites,
        fields,
    }
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
    /// A score draft (the script gets its map).
    Draft(&'x carcassonne_core::ScoreDraft),
}

impl Param<'_> {
    /// Appends the parameter's key; each encoding says its own length.
    fn encode(&self, k: &mut Key) -> Option<()> {
        match *self {
            Param::Int(v) => k.push(v),
            Param::Tile(t) => k.push(t.0 as i64),
            Param::Reason(r) => k.push(matches!(r, RemovalReason::Expansion) as i64),
            Param::Draft(_) => None,
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

    /// A field of the map the script gets, when it is known without making the map
    /// (`Some(None)`: the map has no such field).
    fn field(&self, name: &str) -> Option<Option<Val>> {
        match (self, name) {
            (Param::Draft(d), "final") => Some(Some(Val::Bool(d.final_scoring))),
            (Param::Draft(d), "placer") => {
                Some(Some(Val::Int(d.placer.map_or(-1, |p| p.0 as INT))))
            }
            _ => None,
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
            Param::Draft(d) => match rules {
                Some(rules) => super::api::draft_value(rules, d),
                None => Dynamic::UNIT,
            },
        }
    }
}

/// The key of a hook call (see [`Shape::root`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    len: u8,
    v: [i64; 12],
    /// The fields read of map parameters (`None`: the map has no such field).
    vals: Option<Vec<Option<Val>>>,
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
            d.read_lock::<ImmutableString>()
                .map(|s| Val::Str(s.clone()))
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
        value: Ix,
    },
    /// A function of the rules with given arguments: what it returned when recorded.
    Const,
    /// `tile_has_feature(tile, kind)`: `set` has the tile kinds that have the feature.
    TileHas { tile: Ix, set: [u64; 2] },
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
    /// `tiles_left()`.
    TilesLeft,
    /// `in_final_scoring()`.
    InFinalScoring,
    /// A function of a segment (`segment_kind` as the feature kind, `feature_…`).
    Segment(SegmentRead, Ix),
    /// A function of a figure (`figure_owner`, `in_play`, `figure_segment`, `is_follower`).
    Figure(FigureRead, Ix),
}

/// What a [`Fast::Segment`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SegmentRead {
    Kind,
    FeatureOf,
    Complete,
    Scored,
    Tiles,
    Pennants,
}

/// What a [`Fast::Figure`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FigureRead {
    Owner,
    InPlay,
    Segment,
    IsFollower,
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

/// The square of cells a `forbidden_cells` item forbids, and the rule it names.
#[derive(Debug)]
pub(crate) struct Square {
    pub(crate) x: i32,
    pub(crate) y: i32,
    pub(crate) radius: i32,
    pub(crate) reason: Option<String>,
}

impl Square {
    /// Whether a cell is in the square.
    pub(crate) fn holds(&self, x: i32, y: i32) -> bool {
        let near = |a: i32, b: i32| (a as i64 - b as i64).abs() <= self.radius as i64;
        near(x, self.x) && near(y, self.y)
    }
}

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
        &self.hooks[h as usize]
    }

    /// The number of nodes of all the script's trees on this thread, which
    /// [`HookMemo::insert`] keeps up to date.
    pub(crate) fn nodes(&self) -> &Cell<usize> {
        &self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{compile_source, ScriptExpansion};
    use carcassonne_core::{Game, GameSetup, OptionDef, OptionType, OptionValue};
    use std::sync::Arc;

    thread_local! {
        /// Calls looked up and answered on this thread (test instrumentation only).
        pub(crate) static CALLS: Cell<u64> = const { Cell::new(0) };
        pub(crate) static HITS: Cell<u64> = const { Cell::new(0) };
    }

    fn shape(text: &str, hook: &str, arity: usize) -> Shape {
        let (engine, traced) = crate::sandbox::new_engine_traced();
        let ast = engine.compile(text).unwrap().clone_functions_only();
        analyze(&ast, hook, arity, &traced)
    }

    fn opaque(text: &str) -> u32 {
        shape(text, "deploy_actions", 3).opaque
    }

    #[test]
    fn parameters_passed_only_to_game_functions_are_opaque() {
        let f = |body: &str| opaque(&format!("fn deploy_actions(p, x, y) {{ {body} }}"));
        // Straight into game functions (reads and commands), or unused.
        assert_eq!(f("tile_has_feature(tile_at(x, y), \"road\")"), 0b111);
        assert_eq!(f("player_state(\"t\", p) + segments_at(x, y).len()"), 0b111);
        // Any other use keeps a parameter in the key.
        assert_eq!(f("if x > 2 { tile_at(x, y) }"), 0b101, "a comparison");
        assert_eq!(f("tile_at(x + 1, y)"), 0b101, "arithmetic");
        assert_eq!(f("let q = y; tile_at(x, q)"), 0b011, "a copy");
        assert_eq!(f("let x = 1; tile_at(x, y)"), 0b101, "shadowed by let");
        assert_eq!(
            f("for x in 0..2 { tile_at(x, y) }"),
            0b101,
            "shadowed by for"
        );
        assert_eq!(f("x.tile_at(y)"), 0b001, "a method call");
        assert_eq!(f("help(x, y)"), 0b001, "a script function");
        assert_eq!(f("`${x}`; tile_at(1, y)"), 0b101, "interpolated");
        assert_eq!(
            f("[x].map(|v| tile_at(v, y))"),
            0b001,
            "in an array, captured"
        );
        assert_eq!(f("let g = |v| tile_at(x, v); g.call(y)"), 0b001, "captured");
        assert_eq!(f("x = 3; tile_at(x, y)"), 0b101, "assigned");
        assert_eq!(
            f("try { tile_at(x, y) } catch (x) { 0 }"),
            0b101,
            "catch variable"
        );
        // A script function of the same name hides the game function.
        let t = "fn tile_at(a, b) { a }\nfn deploy_actions(p, x, y) { tile_at(x, y) }";
        assert_eq!(opaque(t), 0b001);
        // Builders are not traced: their result depends on the parameter.
        assert_eq!(f("figure_action(\"v\", x)"), 0b101);
    }

    #[test]
    fn map_parameters_read_by_field_are_keyed_by_those_fields() {
        let s = |body: &str| {
            shape(
                &format!("fn after_scoring(d) {{ {body} }}"),
                "after_scoring",
                1,
            )
        };
        let fields = |sh: Shape| {
            sh.fields
                .iter()
                .map(|f| f.1.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            fields(s("if d.final || state(\"w\") == 0 { return; }")),
            ["final"]
        );
        assert_eq!(fields(s("d.placer + d.final")), ["final", "placer"]);
        // Anything else: the whole map.
        assert!(fields(s("d.final; d.features.len()")).is_empty());
        assert!(fields(s("d.final; d.final = 1")).is_empty());
        assert!(fields(s("d.final; help(d)")).is_empty());
        assert!(fields(s("d.final; d.keys()")).is_empty());
        assert!(fields(s("d.final; figure_state(\"f\", d)")).is_empty());
    }

    #[test]
    fn squares_hold_cells_far_away_without_overflow() {
        let s = Square {
            x: i32::MAX,
            y: 0,
            radius: 2,
            reason: None,
        };
        assert!(s.holds(i32::MAX - 2, 1) && !s.holds(i32::MIN, 0) && !s.holds(0, i32::MIN));
    }

    #[test]
    fn opaque_arguments_are_found_by_call_position() {
        let s = shape(
            "fn deploy_actions(p, x, y) {\n  tile_at(x, y)\n}",
            "deploy_actions",
            3,
        );
        assert_eq!(s.opaque, 0b111);
        let pos = Position::new(2, 3);
        assert_eq!((s.param_at(pos, 0), s.param_at(pos, 1)), (Some(1), Some(2)));
        assert_eq!(s.param_at(Position::new(2, 4), 0), None);
    }

    /// A script that uses the memo's corners: a caught failing read, a closure, awards
    /// followed by `score`, prompts, redraws, an extra part, strength, removals.
    const TRICKY: &str = r#"
fn setup() {
    declare_state("n", "game", 0);
    declare_state("t", "player", 0);
    declare_state("f", "figure", 0);
    declare_state("extra", "game", 0);
    declare_verb("poke");
    declare_verb("yes");
    declare_label("bonus");
}
fn start_game() { set_state("n", 1); }
fn on_tile_drawn(tile) {
    if state("n") % 7 == 3 && tiles_left() > 5 && tile_has_feature(tile, "city") {
        set_state("n", state("n") + 1);
        "redraw"
    } else { "keep" }
}
fn forbidden_cells(player, tile) {
    let out = [];
    if turn() % 3 == 0 {
        try { segment_kind(999999); } catch { out.push(#{ x: 50, y: 50 }); }
    }
    if turn() % 5 == player { out.push(#{ x: player, y: 4, radius: 1 }); }
    out
}
fn on_tile_placed(x, y) {
    let near = |k| tile_at(k, y);
    if near.call(x + 1) != () { set_state("n", state("n") + 1); }
    let p = active_player();
    if score(p) > 5 {
        award(p, 1, "bonus");
        set_player_state("t", p, score(p));
    }
}
fn deploy_actions(player, x, y) {
    let out = [];
    if player_state("t", player) % 2 == 0 { out.push(custom_action("poke", 3)); }
    if tile_has_feature(tile_at(x, y), "road") { out.push(custom_action("poke", 4)); }
    out
}
fn apply_action(player, action) {
    if action.value == 3 {
        set_player_state("t", player, player_state("t", player) + 1);
    } else {
        prompt((player + 1) % players(), 1, action.value);
    }
}
fn prompt_actions(player, code, arg) { [custom_action("yes"), pass_action()] }
fn apply_prompt(player, code, arg, action) { if action.type == "custom" { award(player, arg); } }
fn strength(f) { figure_state("f", f) }
fn on_figure_removed(f, reason) { if reason == "scored" { set_figure_state("f", f, 1 - figure_state("f", f)); } }
fn window_after_scoring() { let x = 0; for p in 0..players() { x += score(p); } set_state("n", x); }
fn on_turn_end() {
    if state("extra") == 0 && turn() % 11 == 5 { set_state("extra", 1); "extra" }
    else { set_state("extra", 0); "next" }
}
fn final_scoring() { for p in 0..players() { award(p, player_state("t", p)); } }
fn before_scoring(draft) {
    if !draft.final && turn() % 4 == 0 { draft.awards }
}
fn after_scoring(draft) {
    if draft.final { return; }
    if state("n") % 2 == 0 { set_state("n", state("n") + draft.placer + 1); }
}
"#;

    /// A script's rules, with the memo and without it.
    #[derive(Clone)]
    struct Pair {
        memo: Arc<Ruleset>,
        plain: Arc<Ruleset>,
    }

    fn ruleset(id: &str, text: &str, options: &[OptionDef], memo: bool) -> Arc<Ruleset> {
        let script = compile_source(id, "1.0.0", format!("{id}.rhai").into(), text).unwrap();
        let mut x = ScriptExpansion::new(script);
        if !memo {
            x = x.without_memo();
        }
        assert_eq!(x.memo(), memo);
        let mut b = Ruleset::builder()
            .tiles(carcassonne_files::tiles::base_tile_set())
            .expansion(Arc::new(x));
        for o in options {
            b = b.declare_option(o.clone());
        }
        Arc::new(b.build().unwrap())
    }

    fn rules(id: &str, text: &str, options: Vec<OptionDef>) -> Pair {
        Pair {
            memo: ruleset(id, text, &options, true),
            plain: ruleset(id, text, &options, false),
        }
    }

    /// Plays a game with random choices; what happened, as text.
    fn play(rules: &Pair, seed: u64, players: usize, memo: bool) -> String {
        let rules = if memo { &rules.memo } else { &rules.plain };
        let names = (0..players).map(|i| format!("P{i}")).collect();
        let mut g = Game::new(rules.clone(), &GameSetup::new(names, seed)).unwrap();
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut out = String::new();
        while !g.is_over() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = (x % g.action_count() as u64) as usize;
            out.push_str(&format!("{:?};", g.actions()[i]));
            if let Err(e) = g.apply_offered(i) {
                // A hook failed: the error is part of what happened.
                out.push_str(&format!("error: {e:?};"));
                break;
            }
        }
        out.push_str(&format!("{:?}", g.state()));
        out
    }

    /// Memoized calls do exactly what the script does: the same games, action by action
    /// and to the last state value, with the memo off, cold and warm.
    fn same_games(rules: &Pair) {
        for seed in 1..=12 {
            let players = 2 + seed as usize % 3;
            let plain = play(rules, seed, players, false);
            assert_eq!(plain, play(rules, seed, players, true), "seed {seed}");
            assert_eq!(plain, play(rules, seed, players, true), "seed {seed}, warm");
        }
    }

    /// The fan scripts of the project whose games are compared and timed: id, text, the
    /// options their manifest declares.
    fn fan_scripts() -> Vec<(&'static str, &'static str, Vec<OptionDef>)> {
        let pilgrims = vec![
            OptionDef {
                key: "pilgrims.perPlayer".into(),
                ty: OptionType::Int { min: 1, max: 4 },
                default: OptionValue::Int(2),
                description: String::new(),
            },
            OptionDef::choice("pilgrims.lostPilgrim", &["penalty", "free"], ""),
        ];
        vec![
            (
                "ferry-lite",
                include_str!("../../cli/benches/fan/ferry-lite/ferry-lite.rhai"),
                vec![],
            ),
            (
                "promotions",
                include_str!("../../../fan-expansions/promotions/promotions.rhai"),
                vec![],
            ),
            (
                "pilgrims",
                include_str!("../../../docs/examples/pilgrims/pilgrims.rhai"),
                pilgrims,
            ),
        ]
    }

    #[test]
    fn memoized_games_are_the_games_the_script_plays() {
        same_games(&rules("tricky", TRICKY, vec![]));
        for (id, text, options) in fan_scripts() {
            same_games(&rules(id, text, options));
        }
    }

    /// Hooks whose memoized walk sets state values or awards points and then misses
    /// (those must be undone before the script runs), that use `random`, and that fail
    /// (a script error or the operations limit) in some calls.
    const EDGY: &str = r#"
fn setup() {
    declare_state("a", "game", 0);
    declare_state("b", "game", 0);
    declare_state("r", "game", 0);
    declare_state("c", "player", 0);
    declare_label("edge");
}
fn on_tile_placed(x, y) {
    set_state("a", state("a") % 5 + 1);
    award(active_player(), 1, "edge");
    if tile_at(x, y + 1) != () {
        set_state("b", state("b") + state("a"));
        award(active_player(), 2, "edge");
    }
    set_player_state("c", active_player(), score(active_player()) % 3);
}
fn on_turn_end() {
    if turn() % 4 == 1 { set_state("r", random(6)); }
    set_player_state("c", active_player(), player_state("c", active_player()) + state("r"));
    "next"
}
"#;

    /// [`EDGY`] with a hook that fails late in the game, by `throw` or by running out of
    /// operations, after it has set a state value.
    fn failing(how: &str) -> String {
        format!(
            "{EDGY}\nfn window_after_deploy() {{ set_state(\"b\", state(\"b\") + 1); \
             if turn() > 40 && state(\"a\") == 3 {{ {how} }} }}"
        )
    }

    /// Hooks that hand the game functions the integers' extremes, in every turn.
    const EXTREME: &str = r#"
fn setup() {
    declare_state("m", "game", 0);
    declare_state("p", "player", 0);
    declare_state("f", "figure", 0);
}
fn on_tile_placed(x, y) {
    let big = 9223372036854775807;
    let small = -9223372036854775807 - 1;
    if tile_at(big, small) == () && tile_at(x, y) != () { set_state("m", small); }
    try { set_player_state("p", big, 1); } catch { set_state("m", big); }
    try { set_figure_state("f", small, big); } catch { }
    try { let s = score(big); } catch { }
    try { let k = segment_kind(small); } catch { }
    try { let o = figure_owner(big); } catch { }
    set_player_state("p", active_player(), state("m"));
}
fn deploy_actions(player, x, y) {
    if player_state("p", player) == -9223372036854775807 - 1 && tile_at(x, y) != () { [] } else { [] }
}
"#;

    #[test]
    fn extreme_integers_play_the_same_and_never_panic() {
        let r = rules("extreme", EXTREME, vec![]);
        same_games(&r);
        let game = play(&r, 3, 2, true);
        assert!(!game.contains("error:"), "{game}");
    }

    #[test]
    fn undone_walks_random_and_failing_hooks_play_the_same() {
        same_games(&rules("edgy", EDGY, vec![]));
        same_games(&rules("throws", &failing("throw \"boom\";"), vec![]));
        same_games(&rules("loops", &failing("loop {}"), vec![]));
        // The failing scripts do fail in some of those games.
        let r = rules("throws", &failing("throw \"boom\";"), vec![]);
        assert!((1..=12).any(|seed| play(&r, seed, 2, true).contains("boom")));
    }

    /// Games per second with the memo and without it (not a check: run with
    /// `cargo test --release -p carcassonne-script memo_speed -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn memo_speed() {
        let games = 5000u64;
        for (id, text, options) in fan_scripts() {
            let r = rules(id, text, options);
            let mut rate = [0.0; 2];
            for (k, memo) in [false, true].into_iter().enumerate() {
                let t = std::time::Instant::now();
                let rules = if memo { &r.memo } else { &r.plain };
                for seed in 1..=games {
                    let names = vec!["P0".to_string(), "P1".to_string()];
                    let mut g = Game::new(rules.clone(), &GameSetup::new(names, seed)).unwrap();
                    g.set_checkpoints(false);
                    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                    while !g.is_over() {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let i = (x % g.action_count() as u64) as usize;
                        g.apply_offered(i).unwrap();
                    }
                }
                rate[k] = games as f64 / t.elapsed().as_secs_f64();
            }
            println!(
                "{id}: memo off {:.0} games/s, on {:.0} games/s ({:.2}x)",
                rate[0],
                rate[1],
                rate[1] / rate[0]
            );
        }
    }

    #[test]
    fn most_calls_are_answered_from_the_memo() {
        let r = rules(
            "ferry-lite",
            include_str!("../../cli/benches/fan/ferry-lite/ferry-lite.rhai"),
            vec![],
        );
        for seed in 1..=20 {
            play(&r, seed, 2, true);
        }
        let (calls, hits) = (CALLS.with(|c| c.get()), HITS.with(|h| h.get()));
        assert!(hits * 10 > calls * 9, "{hits} hits in {calls} calls");
    }
}
