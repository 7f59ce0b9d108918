//! The one generic script binding, generated from core's hook table
//! ([`carcassonne_core::for_each_hook!`]): each argument of a core hook passes itself to
//! the script ([`HookArg`]), the hook's return type reads the script's answer
//! ([`ScriptReturn`]), and an argument the hook answers through (`out`, `cells`, a draft)
//! takes the answer back. So a hook added to core's table reaches scripts with no edit
//! here, as long as its argument types are ones this file knows.
//!
//! [`Bind`] is every hook as the host binds it. Its default is the generic binding
//! ([`generic`]); the hooks whose scripts also get native declarations (offers,
//! reactions, spacing rules, moves, strength bonuses) override it in `bindings.rs` and
//! call the generic binding for the script's own part.

use super::*;

/// The most values a hook's arguments give a script.
const MAX_PARAMS: usize = 6;

/// One hook call's arguments, gathered by [`HookArg::take`].
pub(crate) struct Pass<'a, 'b> {
    /// The script hook (a window argument picks its own).
    hook: Hook,
    access: Option<api::Access<'a, 'b>>,
    /// The game as the hook reads it, to check actions and visibles a script returns.
    view: Option<View<'a>>,
    params: [Param<'a>; MAX_PARAMS],
    len: usize,
    /// The player or figure the hook's guards look at.
    index: usize,
    player: Option<PlayerId>,
    /// A prompt argument, whose code and argument the script sees in the script's terms.
    prompt: Option<(usize, Prompt)>,
    /// A scoring the hook only reads.
    draft: Option<&'a ScoreDraft>,
    /// Where the script's answer goes, and where the argument it answers through sits.
    out: Out<'a>,
    out_at: Option<usize>,
    /// An argument could not be passed (more values than [`MAX_PARAMS`]).
    overflow: bool,
}

/// Where the script's answer goes when the hook answers through an argument.
enum Out<'a> {
    /// In the hook's return value.
    Return,
    /// Actions to add to (`out`).
    Actions(&'a mut Vec<Action>),
    /// The offer a filter narrows: the script returns the actions to keep.
    Kept(Offered<'a>),
    /// Placement candidates: the script returns the ones that stay legal.
    Cells(&'a mut [PlacementCell]),
    /// A scoring the script may give new awards.
    Draft(&'a mut ScoreDraft),
    /// The start layout, which the script may replace.
    Start(&'a mut Vec<StartTile>),
    /// What a viewer shows.
    Visible(&'a mut Vec<Visible>),
}

impl<'a, 'b> Pass<'a, 'b> {
    pub(crate) fn new(hook: Hook) -> Self {
        Pass {
            hook,
            access: None,
            view: None,
            params: [Param::Int(0); MAX_PARAMS],
            len: 0,
            index: 0,
            player: None,
            prompt: None,
            draft: None,
            out: Out::Return,
            out_at: None,
            overflow: false,
        }
    }

    fn push(&mut self, p: Param<'a>) {
        match self.params.get_mut(self.len) {
            Some(slot) => {
                *slot = p;
                self.len += 1;
            }
            None => self.overflow = true,
        }
    }

    /// An argument the script gets and answers through.
    fn answer_through(&mut self, out: Out<'a>) {
        self.out_at = Some(self.len);
        self.push(Param::Int(0));
        self.out = out;
    }
}

impl Out<'_> {
    /// What the script gets of an argument it answers through.
    fn param(&self) -> Param<'_> {
        match self {
            Out::Actions(list) => Param::Actions(list),
            Out::Kept(offer) => Param::Actions(offer),
            Out::Cells(cells) => Param::Cells(cells),
            Out::Draft(d) => Param::Draft(d),
            Out::Start(tiles) => Param::Start(tiles),
            Out::Return | Out::Visible(_) => Param::Int(0),
        }
    }
}

/// A core hook argument, as a script gets it.
pub(crate) trait HookArg<'a, 'b> {
    /// Adds this argument (named `name` in core's table) to the call.
    fn take(&'a mut self, name: &'static str, pass: &mut Pass<'a, 'b>);
}

impl<'a, 'b> HookArg<'a, 'b> for &mut Ctx<'b> {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.access = Some(api::Access::Write(self));
    }
}

impl<'a, 'b, 'v: 'a> HookArg<'a, 'b> for View<'v> {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        let view: View<'a> = *self;
        pass.view = Some(view);
        pass.access = Some(api::Access::Read(view));
    }
}

impl<'a, 'b, 'r: 'a> HookArg<'a, 'b> for &'r Ruleset {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.access = Some(api::Access::Rules(self));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for PlayerId {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.index = self.0 as usize;
        pass.player = Some(*self);
        pass.push(Param::Int(self.0 as i64));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for FigureId {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.index = self.0 as usize;
        pass.push(Param::Int(self.0 as i64));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for SegmentId {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.push(Param::Int(self.index() as i64));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for TileKindId {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.push(Param::Tile(*self));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for Pos {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.push(Param::Int(self.x as i64));
        pass.push(Param::Int(self.y as i64));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for Window {
    /// Each window is a script hook of its own.
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.hook = window_hook(*self);
    }
}

impl<'a, 'b> HookArg<'a, 'b> for Prompt {
    /// `player, code, arg`; the code and argument are filled in by the bound script.
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.index = self.player.0 as usize;
        pass.player = Some(self.player);
        pass.push(Param::Int(self.player.0 as i64));
        pass.prompt = Some((pass.len, *self));
        pass.push(Param::Int(-1));
        pass.push(Param::Int(-1));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for Action {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.push(Param::Action(*self));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for CustomAction {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.push(Param::Action(Action::Custom(*self)));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for RemovalReason {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.push(Param::Reason(*self));
    }
}

impl<'a, 'b, 's: 'a> HookArg<'a, 'b> for &'s str {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.push(Param::Str(self));
    }
}

impl<'a, 'b, 'd: 'a> HookArg<'a, 'b> for &'d ScoreDraft {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.draft = Some(self);
        pass.push(Param::Draft(self));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for &mut ScoreDraft {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.answer_through(Out::Draft(self));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for &mut Vec<Action> {
    /// `out` collects what the script adds.
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.out = Out::Actions(self);
    }
}

impl<'a, 'b> HookArg<'a, 'b> for &mut Offered<'_> {
    /// A filter's offer: the script returns the actions that stay.
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.answer_through(Out::Kept(self.reborrow()));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for &mut [PlacementCell] {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.answer_through(Out::Cells(self));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for &mut Vec<StartTile> {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.answer_through(Out::Start(self));
    }
}

impl<'a, 'b> HookArg<'a, 'b> for &mut Vec<Visible> {
    fn take(&'a mut self, _: &'static str, pass: &mut Pass<'a, 'b>) {
        pass.out = Out::Visible(self);
    }
}

/// A core hook's return type, read from the script's answer.
pub(crate) trait ScriptReturn: Sized {
    /// The answer in the form the memo keeps (errors are the hook's).
    fn keep(b: &BoundScript, h: Hook, r: Dynamic) -> HookResult<Cached>;
    /// The hook's result from a kept answer.
    fn answer(c: &Cached) -> Self;
    /// The result of a hook that answered through an argument.
    fn done() -> Self;
    /// A failed call.
    fn failed(e: HookFailure) -> Self;
}

macro_rules! hook_result {
    ($t:ty, $done:expr, |$b:ident, $h:ident, $r:ident| $keep:expr, |$c:ident| $answer:expr) => {
        impl ScriptReturn for HookResult<$t> {
            fn keep($b: &BoundScript, $h: Hook, $r: Dynamic) -> HookResult<Cached> {
                $keep
            }
            fn answer($c: &Cached) -> Self {
                Ok($answer)
            }
            fn done() -> Self {
                Ok($done)
            }
            fn failed(e: HookFailure) -> Self {
                Err(e)
            }
        }
    };
}

hook_result!((), (), |_b, _h, _r| Ok(Cached::Unit), |_c| ());
hook_result!(
    DrawVerdict,
    DrawVerdict::Keep,
    |b, h, r| b.verdict(h, r, &["keep", "redraw", "discard"]),
    |c| match c {
        Cached::Int(1) => DrawVerdict::Redraw,
        Cached::Int(2) => DrawVerdict::Discard,
        _ => DrawVerdict::Keep,
    }
);
hook_result!(
    TurnEndVerdict,
    TurnEndVerdict::Next,
    |b, h, r| b.verdict(h, r, &["next", "extra"]),
    |c| match c {
        Cached::Int(1) => TurnEndVerdict::ExtraPart,
        _ => TurnEndVerdict::Next,
    }
);
hook_result!(
    bool,
    false,
    |b, h, r| r
        .as_bool()
        .map(|v| Cached::Int(v as i64))
        .map_err(|t| b.bad_return(h, format!("a value of type {t}"))),
    |c| matches!(c, Cached::Int(v) if *v != 0)
);
hook_result!(
    i32,
    0,
    |b, h, r| r
        .as_int()
        .map(Cached::Int)
        .map_err(|t| b.bad_return(h, format!("a value of type {t}"))),
    // Numbers from scripts are kept within what a score or a strength can use.
    |c| match *c {
        Cached::Int(v) => v.clamp(-1000, 1000) as i32,
        _ => 0,
    }
);
hook_result!(
    Option<String>,
    None,
    |b, h, r| {
        if r.is_unit() {
            Ok(Cached::Unit)
        } else if r.is_string() {
            Ok(Cached::Value(r))
        } else {
            Err(b.bad_return(h, format!("a value of type {}", r.type_name())))
        }
    },
    |c| match c {
        // A reason is one line of at most 200 characters.
        Cached::Value(v) => v.clone().into_string().ok().map(|s| {
            s.chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .take(200)
                .collect()
        }),
        _ => None,
    }
);

impl BoundScript {
    /// Runs a hook call through the generic binding. `None`: the script does not define
    /// the hook or a guard keeps it from running, and the hook gives core's default.
    pub(crate) fn run_generic<R: ScriptReturn>(&self, pass: Pass<'_, '_>) -> Option<R> {
        let Pass {
            hook: h,
            access,
            view,
            mut params,
            len,
            index,
            player,
            prompt,
            draft,
            mut out,
            out_at,
            overflow,
        } = pass;
        if !self.script.defines(h) {
            return None;
        }
        let access = match (access, overflow) {
            (Some(a), false) => a,
            _ => {
                return Some(R::failed(HookFailure(format!(
                    "hook `{}` cannot be passed to a script (no game, or more than {MAX_PARAMS} values)",
                    HOOKS[h.index()].name
                ))))
            }
        };
        let state = match &access {
            api::Access::Read(v) => Some(v.state),
            api::Access::Write(c) => Some(c.state()),
            _ => None,
        };
        let players = state.map_or(0, |s| s.players().len());
        if let Some(state) = state {
            let scored = match &out {
                Out::Draft(d) => Some(&**d),
                _ => draft,
            };
            if !self.guard_open(h, state, index)
                || scored.is_some_and(|d| !self.scoring_open(h, state, d))
            {
                return None;
            }
        }
        if let Some((at, p)) = prompt {
            let (code, arg) = self.script_prompt(p);
            params[at] = Param::Int(code);
            params[at + 1] = Param::Int(arg);
        }
        let through = !matches!(out, Out::Return);
        let mut params: [Param<'_>; MAX_PARAMS] = params;
        if let Some(at) = out_at {
            params[at] = out.param();
        }
        let params = &params[..len];
        if !through {
            let r = self.invoke(
                h,
                access,
                params,
                |r| R::keep(self, h, r),
                |c| Ok(R::answer(c)),
            );
            return Some(r.unwrap_or_else(R::failed));
        }
        // The answer goes into an argument. A hook the memo never remembers is called
        // straight away, without keeping (and copying) its answer.
        let value = if self.script.shape(h).is_none() {
            let rules = access_rules(&access);
            let args: Vec<Dynamic> = params.iter().map(|p| p.value(rules, &self.names)).collect();
            self.call(h, access, args)
        } else {
            self.invoke(
                h,
                access,
                params,
                |r| Ok(Cached::Value(r)),
                |c| {
                    Ok(match c {
                        Cached::Value(v) => v.clone(),
                        _ => Dynamic::UNIT,
                    })
                },
            )
        };
        let stored = value.and_then(|v| self.store(h, &mut out, v, view, player, players));
        Some(stored.map_or_else(R::failed, |()| R::done()))
    }

    /// Puts a script's answer into the argument the hook answers through.
    fn store(
        &self,
        h: Hook,
        out: &mut Out<'_>,
        v: Dynamic,
        view: Option<View<'_>>,
        player: Option<PlayerId>,
        players: usize,
    ) -> HookResult {
        let array = |v: Dynamic| {
            v.try_cast::<Array>()
                .ok_or_else(|| self.bad_return(h, "not an array".into()))
        };
        let need_view = || {
            view.ok_or_else(|| {
                HookFailure(format!(
                    "hook `{}` returns what only a view of the game can check, and has none",
                    HOOKS[h.index()].name
                ))
            })
        };
        match out {
            Out::Return => Ok(()),
            Out::Actions(list) => {
                let view = need_view()?;
                let player = player.unwrap_or_else(|| view.state.active_player());
                self.actions_from(h, view, player, v, api::Allow::OwnCustom, list)
            }
            Out::Kept(offer) => {
                let view = need_view()?;
                let player = player.unwrap_or_else(|| view.state.active_player());
                let mut kept = Vec::new();
                self.actions_from(h, view, player, v, api::Allow::Any, &mut kept)?;
                offer.retain(|a| kept.contains(a));
                Ok(())
            }
            Out::Cells(cells) => {
                let mut allowed: Vec<(i32, i32, u8)> = Vec::new();
                for k in array(v)? {
                    allowed.push(self.cell_of(h, k, true)?);
                }
                for c in cells.iter_mut() {
                    let keep = allowed
                        .iter()
                        .filter(|(x, y, _)| *x == c.pos.x && *y == c.pos.y)
                        .fold(0u8, |m, (_, _, r)| m | r);
                    // A filter only removes: bits it adds are ignored.
                    c.rotations &= keep;
                }
                Ok(())
            }
            Out::Draft(draft) => {
                if v.is_unit() {
                    return Ok(());
                }
                let awards = array(v)?;
                let mut made = Vec::with_capacity(awards.len());
                for a in awards {
                    made.push(self.award_of(h, a, draft.features.len(), players)?);
                }
                draft.awards = made;
                Ok(())
            }
            Out::Start(start) => {
                if v.is_unit() {
                    return Ok(());
                }
                let laid = array(v)?
                    .into_iter()
                    .map(|item| api::start_tile_from(&self.names, item))
                    .collect::<Result<Vec<_>, String>>()
                    .map_err(|m| self.bad_return(h, m))?;
                **start = laid;
                Ok(())
            }
            Out::Visible(list) => {
                let view = need_view()?;
                for item in array(v)? {
                    let shown = api::visible_from(view, item).map_err(|m| self.bad_return(h, m))?;
                    list.push(shown);
                }
                Ok(())
            }
        }
    }

    /// One award of a `before_scoring` answer: `#{item, player, points}`, and `bonus`
    /// (optional, `false` if absent).
    fn award_of(&self, h: Hook, a: Dynamic, items: usize, players: usize) -> HookResult<Award> {
        let m = a
            .try_cast::<Map>()
            .ok_or_else(|| self.bad_return(h, "a non-map award".into()))?;
        let get = |f: &str| m.get(f).and_then(|v| v.as_int().ok());
        let bonus = match m.get("bonus") {
            None => false,
            Some(v) => v
                .as_bool()
                .map_err(|_| self.bad_return(h, "an award whose `bonus` is not a bool".into()))?,
        };
        match (get("item"), get("player"), get("points")) {
            (Some(i), Some(p), Some(pts))
                if (0..items as i64).contains(&i)
                    && (0..players as i64).contains(&p)
                    && (-10_000..=10_000).contains(&pts) =>
            {
                Ok(Award {
                    item: i as u16,
                    player: PlayerId(p as u8),
                    points: pts as i32,
                    bonus,
                })
            }
            _ => Err(self.bad_return(
                h,
                "an award without a valid item, player and points (|points| ≤ 10000)".into(),
            )),
        }
    }

    /// A prompt's code and argument as the script knows them (`-1, -1` for another
    /// expansion's prompt).
    fn script_prompt(&self, p: Prompt) -> (i64, i64) {
        if p.owner != self.me {
            return (-1, -1);
        }
        match p.decode::<ScriptPrompt>() {
            Ok(ScriptPrompt::Script { code, arg }) => (code as i64, arg as i64),
            Ok(ScriptPrompt::Reaction(i)) => (
                self.decl
                    .reactions
                    .get(i as usize)
                    .map_or(-1, |r| r.code as i64),
                0,
            ),
            Err(_) => (-1, -1),
        }
    }
}

macro_rules! generic_bindings {
    ($(
        $(#[doc = $doc:literal])*
        [$($kind:ident $bit:ident $(= $n:expr)?)?]
        fn $name:ident(&self $(, $arg:ident : $ty:ty)* $(,)?) -> $ret:ty $default:block
    )*) => {
        /// Every core hook through the generic binding: all a hook without native
        /// declarations is, and the script's part of one with them.
        pub(crate) mod generic {
            use super::*;
            $(
                #[allow(unused_mut, unused_variables, clippy::too_many_arguments)]
                pub(crate) fn $name(b: &BoundScript $(, mut $arg: $ty)*) -> $ret {
                    const H: Hook = Hook::of_core(stringify!($name));
                    if !b.script.defines_core(H) {
                        return $default;
                    }
                    let mut pass = Pass::new(H);
                    $(HookArg::take(&mut $arg, stringify!($arg), &mut pass);)*
                    match b.run_generic(pass) {
                        Some(r) => r,
                        None => $default,
                    }
                }
            )*
        }

        /// Each core hook as the script host binds it: the generic binding unless
        /// `bindings.rs` adds native declarations first.
        pub(crate) trait Bind {
            /// The bound script.
            fn bound(&self) -> &BoundScript;
            $(
                fn $name(&self $(, $arg: $ty)*) -> $ret {
                    generic::$name(self.bound() $(, $arg)*)
                }
            )*
        }

        impl BoundExpansion for BoundScript {
            fn hook_set(&self) -> HookSet {
                self.hook_set
            }

            fn hook_gates(&self) -> Vec<HookGate> {
                self.gates.clone()
            }

            $(
                fn $name(&self $(, $arg: $ty)*) -> $ret {
                    <Self as Bind>::$name(self $(, $arg)*)
                }
            )*
        }
    };
}

carcassonne_core::for_each_hook!(generic_bindings);
