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

use super::{BoundScript, CompiledScript, Decl};
use carcassonne_core::{
    Action, Ctx, CustomAction, Declare, ExpansionIndex, FigureId, FigureKindId, FigureLoc,
    GameState, OptionValue, PlayerId, Pos, RemovalReason, Rotation, Ruleset, ScoreDraft, SegmentId,
    SlotRef, SlotScope, View,
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

/// The running call, held through the lease in the native call context's tag.
fn call<'n>(nc: &NativeCallContext<'n>) -> R<Held<'n>> {
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

fn tile_kind(rules: &Ruleset, id: &str) -> R<carcassonne_core::TileKindId> {
    rules
        .tiles()
        .find(id)
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
        }
    }
}

/// An action as a script sees it.
pub fn action_to_dynamic(view: View<'_>, names: &Names, a: &Action) -> Dynamic {
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
                view.rules.figure_kind(*figure).follower.into(),
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
            s(
                &mut m,
                "tile",
                view.rules.tiles().get(*tile).id.clone().into(),
            );
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
    let mut m = Map::new();
    m.insert("final".into(), d.final_scoring.into());
    m.insert("placer".into(), d.placer.map_or(-1, |p| p.0 as INT).into());
    let features: Array = d
        .features
        .iter()
        .map(|f| {
            let mut x = Map::new();
            x.insert("kind".into(), view.rules.kind(f.kind).name.clone().into());
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
    doc!("setup", "reaction_deploy(window, player_state, order, code)", "Out of turn: in `window` (\"after-deploy\", …) every other player whose `player_state` is non-zero, in `order` (\"fewest-points\" or \"clockwise\" from the active player's left), may deploy a follower on the tile just placed; then `apply_prompt(player, code, 0, action)` runs."),
    doc!("setup", "reaction_deploy(window, player_state, order, code, effects)", "The same; when a player deploys, his player-scoped states in `effects` are set natively first."),
    doc!("setup", "strength_bonus(figure_state)", "Adds a figure-scoped state (half-units) to every figure's strength natively, with no call to `strength`."),
    doc!("setup", "guard(hook, state)", "Calls `hook` only while `state` is non-zero (for the hook's player or figure)."),
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

/// Registers the game API on an engine.
pub fn register(engine: &mut Engine) {
    // ---- rules
    engine.register_fn("option", |nc: NativeCallContext, key: &str| -> R<Dynamic> {
        let c = call(&nc)?;
        let rules = c.rules()?;
        // Own options first (`perPlayer`), then the base game's (`farmScoring`).
        let own = format!("{}.{key}", c.script.id);
        let found = if key.contains('.') {
            rules.options().get(key)
        } else {
            rules
                .options()
                .get(&own)
                .or_else(|| rules.options().get(key))
        };
        found
            .map(option_dynamic)
            .ok_or_else(|| format!("no option `{key}`").into())
    });
    engine.register_fn(
        "has_expansion",
        |nc: NativeCallContext, id: &str| -> R<bool> {
            Ok(id == "base" || call(&nc)?.rules()?.expansion_index(id).is_some())
        },
    );
    engine.register_fn(
        "has_figure_kind",
        |nc: NativeCallContext, n: &str| -> R<bool> {
            Ok(call(&nc)?.rules()?.figure_named(n).is_some())
        },
    );
    engine.register_fn(
        "tile_features",
        |nc: NativeCallContext, t: &str| -> R<Array> {
            let c = call(&nc)?;
            let rules = c.rules()?;
            let k = rules.tiles().get(tile_kind(rules, t)?);
            Ok(k.segments
                .iter()
                .map(|s| rules.kind(s.kind).name.clone().into())
                .collect())
        },
    );
    engine.register_fn(
        "tile_has_feature",
        |nc: NativeCallContext, t: &str, kind: &str| -> R<bool> {
            let c = call(&nc)?;
            let rules = c.rules()?;
            let k = rules.tiles().get(tile_kind(rules, t)?);
            Ok(k.segments.iter().any(|s| rules.kind(s.kind).name == kind))
        },
    );
    engine.register_fn(
        "tile_has_tag",
        |nc: NativeCallContext, t: &str, tag: &str| -> R<bool> {
            let c = call(&nc)?;
            let rules = c.rules()?;
            Ok(rules.tiles().get(tile_kind(rules, t)?).has_tag(tag))
        },
    );

    // ---- reading the game
    engine.register_fn("players", |nc: NativeCallContext| -> R<INT> {
        Ok(call(&nc)?.view()?.state.players().len() as INT)
    });
    engine.register_fn("active_player", |nc: NativeCallContext| -> R<INT> {
        Ok(call(&nc)?.view()?.state.active_player().0 as INT)
    });
    engine.register_fn("turn", |nc: NativeCallContext| -> R<INT> {
        Ok(call(&nc)?.view()?.state.turn() as INT)
    });
    engine.register_fn("score", |nc: NativeCallContext, p: INT| -> R<INT> {
        let c = call(&nc)?;
        let v = c.view()?;
        let p = player(v.state, p)?;
        Ok(v.state.players()[p.0 as usize].score as INT)
    });
    engine.register_fn("in_final_scoring", |nc: NativeCallContext| -> R<bool> {
        Ok(call(&nc)?.view()?.state.in_final_scoring())
    });
    engine.register_fn("tiles_left", |nc: NativeCallContext| -> R<INT> {
        Ok(call(&nc)?.view()?.state.supply().remaining() as INT)
    });
    engine.register_fn("revealed_tile", |nc: NativeCallContext| -> R<Dynamic> {
        let c = call(&nc)?;
        let v = c.view()?;
        Ok(match v.state.revealed_tile() {
            Some(t) => v.rules.tiles().get(t).id.clone().into(),
            None => Dynamic::UNIT,
        })
    });
    engine.register_fn("last_placed", |nc: NativeCallContext| -> R<Dynamic> {
        let c = call(&nc)?;
        let v = c.view()?;
        let Some(i) = v.state.last_placed() else {
            return Ok(Dynamic::UNIT);
        };
        let t = v.state.board().tile(i);
        let mut m = Map::new();
        m.insert("x".into(), (t.pos.x as INT).into());
        m.insert("y".into(), (t.pos.y as INT).into());
        m.insert("tile".into(), v.rules.tiles().get(t.kind).id.clone().into());
        m.insert("rotation".into(), (t.rotation.degrees() as INT).into());
        m.insert(
            "player".into(),
            v.state.last_placer().map_or(-1, |p| p.0 as INT).into(),
        );
        Ok(m.into())
    });
    engine.register_fn(
        "tile_at",
        |nc: NativeCallContext, x: INT, y: INT| -> R<Dynamic> {
            let c = call(&nc)?;
            let v = c.view()?;
            Ok(v.state
                .board()
                .at(Pos::new(x as i32, y as i32))
                .map_or(Dynamic::UNIT, |t| {
                    v.rules.tiles().get(t.kind).id.clone().into()
                }))
        },
    );
    engine.register_fn(
        "segments_at",
        |nc: NativeCallContext, x: INT, y: INT| -> R<Array> {
            let c = call(&nc)?;
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
        },
    );
    engine.register_fn(
        "segment_kind",
        |nc: NativeCallContext, s: INT| -> R<String> {
            let c = call(&nc)?;
            let v = c.view()?;
            let s = segment(v.state, s)?;
            Ok(v.rules.kind(v.state.graph().segment(s).kind).name.clone())
        },
    );
    engine.register_fn(
        "segment_cell",
        |nc: NativeCallContext, s: INT| -> R<Dynamic> {
            let c = call(&nc)?;
            let v = c.view()?;
            let node = v.state.graph().segment(segment(v.state, s)?);
            Ok(if node.is_virtual() {
                Dynamic::UNIT
            } else {
                cell(node.pos)
            })
        },
    );
    fn totals<T>(
        nc: &NativeCallContext,
        s: INT,
        f: impl Fn(&carcassonne_core::FeatureGraph, carcassonne_core::FeatureId) -> T,
    ) -> R<T> {
        let c = call(nc)?;
        let v = c.view()?;
        let s = segment(v.state, s)?;
        let g = v.state.graph();
        Ok(f(g, g.feature_of(s)))
    }
    engine.register_fn("feature_of", |nc: NativeCallContext, s: INT| {
        totals(&nc, s, |_, f| f.segment().index() as INT)
    });
    engine.register_fn("feature_complete", |nc: NativeCallContext, s: INT| {
        totals(&nc, s, |g, f| g.totals(f).complete())
    });
    engine.register_fn("feature_scored", |nc: NativeCallContext, s: INT| {
        totals(&nc, s, |g, f| g.totals(f).scored)
    });
    engine.register_fn("feature_tiles", |nc: NativeCallContext, s: INT| {
        totals(&nc, s, |g, f| g.tile_count(f) as INT)
    });
    engine.register_fn("feature_pennants", |nc: NativeCallContext, s: INT| {
        totals(&nc, s, |g, f| g.totals(f).pennants as INT)
    });
    engine.register_fn(
        "feature_figures",
        |nc: NativeCallContext, s: INT| -> R<Array> {
            let c = call(&nc)?;
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
        },
    );
    engine.register_fn("figures", |nc: NativeCallContext| -> R<Array> {
        let c = call(&nc)?;
        let v = c.view()?;
        Ok(v.state
            .figures()
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f.loc, FigureLoc::On(_)))
            .map(|(i, _)| (i as INT).into())
            .collect())
    });
    fn with_figure<T>(
        nc: &NativeCallContext,
        f: INT,
        g: impl Fn(View<'_>, FigureId, &carcassonne_core::Figure) -> T,
    ) -> R<T> {
        let c = call(nc)?;
        let v = c.view()?;
        let id = figure(v.state, f)?;
        Ok(g(v, id, v.state.figure(id)))
    }
    engine.register_fn("figure_owner", |nc: NativeCallContext, f: INT| {
        with_figure(&nc, f, |_, _, fig| fig.owner.0 as INT)
    });
    engine.register_fn("figure_kind", |nc: NativeCallContext, f: INT| {
        with_figure(&nc, f, |v, _, fig| {
            v.rules.figure_kind(fig.kind).name.clone()
        })
    });
    engine.register_fn("is_follower", |nc: NativeCallContext, f: INT| {
        with_figure(&nc, f, |v, _, fig| v.rules.figure_kind(fig.kind).follower)
    });
    engine.register_fn("in_play", |nc: NativeCallContext, f: INT| {
        with_figure(&nc, f, |_, _, fig| matches!(fig.loc, FigureLoc::On(_)))
    });
    engine.register_fn("figure_segment", |nc: NativeCallContext, f: INT| {
        with_figure(&nc, f, |_, _, fig| match fig.loc {
            FigureLoc::On(s) => s.index() as INT,
            _ => -1,
        })
    });
    engine.register_fn("figure_role", |nc: NativeCallContext, f: INT| {
        with_figure(&nc, f, |v, _, fig| match fig.loc {
            FigureLoc::On(s) => v.rules.kind(v.state.graph().segment(s).kind).name.clone(),
            _ => String::new(),
        })
    });
    engine.register_fn("figure_cell", |nc: NativeCallContext, f: INT| {
        with_figure(&nc, f, |v, _, fig| match fig.loc {
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
    engine.register_fn("strength", |nc: NativeCallContext, f: INT| -> R<INT> {
        with_figure(&nc, f, |v, id, _| v.strength(id))?
            .map(INT::from)
            .map_err(|e| e.to_string().into())
    });
    engine.register_fn(
        "supply_count",
        |nc: NativeCallContext, p: INT, kind: &str| -> R<INT> {
            let c = call(&nc)?;
            let v = c.view()?;
            let p = player(v.state, p)?;
            let k = v
                .rules
                .figure_named(kind)
                .ok_or_else(|| format!("no figure kind `{kind}`"))?;
            Ok(v.state.in_supply(p, k) as INT)
        },
    );
    engine.register_fn(
        "deployments",
        |nc: NativeCallContext, p: INT, x: INT, y: INT| -> R<Array> {
            let c = call(&nc)?;
            let v = c.view()?;
            let p = player(v.state, p)?;
            let mut out = Vec::new();
            let pos = Pos::new(x as i32, y as i32);
            if v.state.board().is_occupied(pos) {
                v.deployments_on_tile(p, pos, &mut out);
            }
            let names = c.bound()?.names();
            Ok(out.iter().map(|a| action_to_dynamic(v, names, a)).collect())
        },
    );
    engine.register_fn("state", |nc: NativeCallContext, name: &str| -> R<INT> {
        let c = call(&nc)?;
        let slot = state_slot(&c, name, SlotScope::Game)?;
        Ok(c.view()?.state.slot(slot, 0))
    });
    engine.register_fn(
        "player_state",
        |nc: NativeCallContext, name: &str, p: INT| -> R<INT> {
            let c = call(&nc)?;
            let slot = state_slot(&c, name, SlotScope::Player)?;
            let v = c.view()?;
            Ok(v.state.slot(slot, player(v.state, p)?.0 as usize))
        },
    );
    engine.register_fn(
        "figure_state",
        |nc: NativeCallContext, name: &str, f: INT| -> R<INT> {
            let c = call(&nc)?;
            let slot = state_slot(&c, name, SlotScope::Figure)?;
            let v = c.view()?;
            Ok(v.state.slot(slot, figure(v.state, f)?.0 as usize))
        },
    );

    // ---- commands
    engine.register_fn(
        "set_state",
        |nc: NativeCallContext, name: &str, value: INT| -> R<()> {
            let mut c = call(&nc)?;
            let slot = state_slot(&c, name, SlotScope::Game)?;
            c.ctx()?.set(SlotRef::untyped(slot, 0), value);
            Ok(())
        },
    );
    engine.register_fn(
        "set_player_state",
        |nc: NativeCallContext, name: &str, p: INT, value: INT| -> R<()> {
            let mut c = call(&nc)?;
            let slot = state_slot(&c, name, SlotScope::Player)?;
            let ctx = c.ctx()?;
            let p = player(ctx.state(), p)?;
            ctx.set(SlotRef::untyped(slot, p.0 as usize), value);
            Ok(())
        },
    );
    engine.register_fn(
        "set_figure_state",
        |nc: NativeCallContext, name: &str, f: INT, value: INT| -> R<()> {
            let mut c = call(&nc)?;
            let slot = state_slot(&c, name, SlotScope::Figure)?;
            let ctx = c.ctx()?;
            let f = figure(ctx.state(), f)?;
            ctx.set(SlotRef::untyped(slot, f.0 as usize), value);
            Ok(())
        },
    );
    fn award(nc: &NativeCallContext, p: INT, points: INT, label: Option<&str>) -> R<()> {
        let mut c = call(nc)?;
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
        ctx.award(p, points as i32, label);
        Ok(())
    }
    engine.register_fn("award", |nc: NativeCallContext, p: INT, pts: INT| {
        award(&nc, p, pts, None)
    });
    engine.register_fn(
        "award",
        |nc: NativeCallContext, p: INT, pts: INT, label: &str| award(&nc, p, pts, Some(label)),
    );
    engine.register_fn(
        "deploy",
        |nc: NativeCallContext, p: INT, action: Dynamic| -> R<INT> {
            let mut c = call(&nc)?;
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
        },
    );
    engine.register_fn(
        "move_figure",
        |nc: NativeCallContext, f: INT, s: INT| -> R<()> {
            let mut c = call(&nc)?;
            let ctx = c.ctx()?;
            let f = figure(ctx.state(), f)?;
            let s = segment(ctx.state(), s)?;
            check_move(ctx.state(), f, s).map_err(|m| -> Box<EvalAltResult> { m.into() })?;
            ctx.move_figure(f, s)
                .map_err(|e| -> Box<EvalAltResult> { e.0.into() })
        },
    );
    engine.register_fn("return_figure", |nc: NativeCallContext, f: INT| -> R<()> {
        let mut c = call(&nc)?;
        let ctx = c.ctx()?;
        let f = figure(ctx.state(), f)?;
        if !matches!(ctx.state().figure(f).loc, FigureLoc::On(_)) {
            return err(format!("figure {} is not in play", f.0));
        }
        ctx.return_figure(f, RemovalReason::Expansion)
            .map_err(|e| e.to_string().into())
    });
    fn prompt(nc: &NativeCallContext, p: INT, code: INT, arg: INT, next: bool) -> R<()> {
        let mut c = call(nc)?;
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
    engine.register_fn(
        "prompt",
        |nc: NativeCallContext, p: INT, code: INT, arg: INT| prompt(&nc, p, code, arg, false),
    );
    engine.register_fn(
        "prompt_next",
        |nc: NativeCallContext, p: INT, code: INT, arg: INT| prompt(&nc, p, code, arg, true),
    );
    engine.register_fn("return_drawn_tile", |nc: NativeCallContext| -> R<bool> {
        Ok(call(&nc)?.ctx()?.return_drawn_tile())
    });
    engine.register_fn("random", |nc: NativeCallContext, n: INT| -> R<INT> {
        if !(1..=u32::MAX as INT).contains(&n) {
            return err(format!("random({n}): n must be at least 1"));
        }
        Ok(call(&nc)?.ctx()?.random_below(n as u32) as INT)
    });

    // ---- setup
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
    engine.register_fn(
        "guard",
        |nc: NativeCallContext, hook: &str, state: &str| -> R<()> {
            let mut c = call(&nc)?;
            let (_, decl) = c.declarations()?;
            let spec = super::HOOKS
                .iter()
                .find(|h| h.name == hook)
                .ok_or_else(|| format!("no hook `{hook}`"))?;
            let mut d = decl.borrow_mut();
            let i = d
                .states
                .iter()
                .position(|(n, ..)| n == state)
                .ok_or_else(|| format!("state `{state}` is not declared (declare it before the guard)"))?;
            let scope = d.states[i].1;
            let fits = matches!(
                (scope, spec.guard_arg),
                (SlotScope::Game, _)
                    | (SlotScope::Player, super::GuardArg::Player)
                    | (SlotScope::Figure, super::GuardArg::Figure)
            );
            use super::Hook as H;
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
            if !fits {
                return err(format!(
                    "hook `{hook}` cannot be guarded by {}-scoped state `{state}`",
                    scope_name(scope)
                ));
            }
            d.guards[spec.hook as usize] = Some(i);
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
        });
        Ok(())
    }
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

    // ---- action constructors
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
