//! A script as a core expansion: [`ScriptExpansion`], and [`BoundScript`], a script bound to a ruleset, which calls its hooks.

use super::*;

mod bindings;
mod native;
mod pass;

use native::NativePrompt;
use pass::{generic, Bind};
#[cfg(test)]
pub(crate) mod native_tests;
#[cfg(test)]
mod tests;

/// A compiled script as an [`Expansion`]: its `setup()` declares, and binding makes a
/// [`BoundScript`]. One value serves every ruleset the script is added to.
pub struct ScriptExpansion {
    script: Arc<CompiledScript>,
    /// Whether its bound scripts remember hook calls ([`memo`]).
    memo: bool,
}

impl ScriptExpansion {
    /// The expansion of a compiled script (its hook calls are remembered, see
    /// [`ScriptExpansion::without_memo`]).
    pub fn new(script: Arc<CompiledScript>) -> ScriptExpansion {
        ScriptExpansion { script, memo: true }
    }

    /// The same expansion, whose bound scripts run the script for every hook call instead
    /// of answering repeated calls from their memo ([`memo`]). Games are the same either
    /// way (which is what the tests that use this check); only their speed differs.
    pub fn without_memo(self) -> ScriptExpansion {
        ScriptExpansion {
            memo: false,
            ..self
        }
    }

    /// Whether bound scripts of this expansion remember hook calls.
    pub fn memo(&self) -> bool {
        self.memo
    }

    /// The compiled script.
    pub fn script(&self) -> &Arc<CompiledScript> {
        &self.script
    }
}

/// A script bound to one ruleset: what its `setup()` declared, resolved against the
/// ruleset, immutable and shared by every game of the ruleset.
pub struct BoundScript {
    script: Arc<CompiledScript>,
    decl: Decl,
    /// This expansion's index in the ruleset.
    me: carcassonne_core::ExpansionIndex,
    /// Per offer: the roles resolved against the ruleset (names not in it never match).
    roles: Vec<RoleMatch>,
    /// Shared strings for action maps.
    names: Arc<api::Names>,
    /// The pipeline hooks the script needs.
    hook_set: HookSet,
    /// Each hook's guard, resolved.
    guards: [GuardCheck; HOOK_COUNT],
    /// The guards core checks before it calls ([`core_gates`]).
    gates: Vec<HookGate>,
    /// The spacing rules, resolved.
    apart: Vec<ApartRule>,
    /// Prompt codes whose choices are listed natively: `offer_moves` (the feature kinds
    /// their figure may go to, kinds not in the ruleset dropped) and `offer_tiles`.
    moves: Vec<(u16, NativePrompt)>,
    /// Per hook: what the tile placed last must hold for it to run ([`PlacedCheck`]).
    placed: [Option<PlacedCheck>; HOOK_COUNT],
    /// `follow_deployments`, resolved.
    follow: Option<native::FollowRule>,
    /// `tile_bonus_per_figure`, resolved.
    tile_bonus: Option<native::TileBonus>,
    /// Its remembered hook calls, one memo per thread that plays its games ([`memo`]);
    /// `None` when made [`ScriptExpansion::without_memo`].
    memo: Option<ThreadLocal<memo::ScriptMemo>>,
}

impl BoundScript {
    /// The compiled script.
    pub fn script(&self) -> &Arc<CompiledScript> {
        &self.script
    }

    /// This thread's memo of the script's hook calls (`None`: the memo is off).
    fn memo(&self) -> Option<&memo::ScriptMemo> {
        self.memo.as_ref().map(|m| m.get_or_default())
    }

    /// The action-map strings of the ruleset.
    pub(crate) fn names(&self) -> &Arc<api::Names> {
        &self.names
    }

    pub(crate) fn decl(&self) -> &Decl {
        &self.decl
    }

    pub(crate) fn me(&self) -> carcassonne_core::ExpansionIndex {
        self.me
    }

    /// Whether a guarded hook may run: its guard state is non-zero for `index`.
    fn guard_open(&self, hook: Hook, state: &carcassonne_core::GameState, index: usize) -> bool {
        if !self.placed_open(hook, state) {
            return false;
        }
        match self.guards[hook.index()] {
            GuardCheck::Open => true,
            GuardCheck::Slot(scope, slot) => {
                let at = if scope == SlotScope::Game { 0 } else { index };
                state.slot(slot, at) != 0
            }
            GuardCheck::Figure(None)
            | GuardCheck::ScoringNear(None)
            | GuardCheck::ScoringOn(None)
            | GuardCheck::AreaFull(None, _) => false,
            GuardCheck::AreaFull(Some(k), area) => area_full(state, k, area),
            // Needs the draft: the scoring hooks ask `scoring_near` as well.
            GuardCheck::ScoringNear(Some(_))
            | GuardCheck::ScoringOn(Some(_))
            | GuardCheck::ScoringState(..) => true,
            GuardCheck::Figure(Some(k)) => state
                .figures()
                .iter()
                .any(|f| f.kind == k && matches!(f.loc, carcassonne_core::FigureLoc::On(_))),
        }
    }

    /// Whether a scoring hook's guards let it see `draft`: `guard_not_final`, then
    /// [`BoundScript::scoring_near`].
    fn scoring_open(
        &self,
        hook: Hook,
        state: &carcassonne_core::GameState,
        draft: &ScoreDraft,
    ) -> bool {
        !(draft.final_scoring && self.decl.not_final[hook.index()])
            && self.scoring_near(hook, state, draft)
    }

    /// A scoring hook's `guard_scoring_near`: whether a feature of `draft` has a part on a
    /// tile where a figure of the guard's kind stands (always true for other guards).
    fn scoring_near(
        &self,
        hook: Hook,
        state: &carcassonne_core::GameState,
        draft: &ScoreDraft,
    ) -> bool {
        let kind = match self.guards[hook.index()] {
            GuardCheck::ScoringNear(Some(kind)) => kind,
            GuardCheck::ScoringState(scope, slot) => {
                // A scored feature holds a segment the state names (segment + 1).
                let graph = state.graph();
                let n = match scope {
                    SlotScope::Player => state.players().len(),
                    _ => 1,
                };
                return (0..n).any(|i| {
                    let v = state.slot(slot, i);
                    (1..=graph.len() as i64).contains(&v) && {
                        let on = graph.feature_of(carcassonne_core::SegmentId::new(v as usize - 1));
                        draft.features.iter().any(|d| d.feature == on)
                    }
                });
            }
            GuardCheck::ScoringOn(Some(kind)) => {
                // A scored feature holds a figure of the kind.
                let graph = state.graph();
                return state.figures().iter().any(|f| match f.loc {
                    carcassonne_core::FigureLoc::On(seg) if f.kind == kind => {
                        let on = graph.feature_of(seg);
                        draft.features.iter().any(|d| d.feature == on)
                    }
                    _ => false,
                });
            }
            _ => return true,
        };
        let graph = state.graph();
        // The cells of those figures; beyond a handful, run the hook rather than search.
        let mut cells = [carcassonne_core::Pos::new(0, 0); 8];
        let mut n = 0;
        for f in state.figures() {
            let carcassonne_core::FigureLoc::On(seg) = f.loc else {
                continue;
            };
            let node = graph.segment(seg);
            if f.kind != kind || node.is_virtual() {
                continue;
            }
            if n == cells.len() {
                return true;
            }
            cells[n] = node.pos;
            n += 1;
        }
        let cells = &cells[..n];
        !cells.is_empty()
            && draft.features.iter().any(|d| {
                graph.members(d.feature).any(|m| {
                    let node = graph.segment(m);
                    !node.is_virtual() && cells.contains(&node.pos)
                })
            })
    }

    /// How prompt `code`'s choices are listed natively, if `offer_moves` or `offer_tiles`
    /// declared it.
    fn move_kinds(&self, code: u16) -> Option<&NativePrompt> {
        self.moves.iter().find(|(c, _)| *c == code).map(|(_, k)| k)
    }

    /// The choices of a native prompt: `offer_tiles` ([`BoundScript::tile_actions`]), or
    /// `offer_moves`: pass, then a move of `figure` onto one segment of every unfinished
    /// feature of its kinds it may move to (not the one it stands on).
    fn move_actions(
        view: View<'_>,
        figure: i32,
        native: &NativePrompt,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let kinds = match native {
            NativePrompt::Moves(kinds) => kinds,
            NativePrompt::Tiles(t) => {
                Self::tile_actions(view, t, out);
                return Ok(());
            }
        };
        let st = view.state;
        let f = usize::try_from(figure)
            .ok()
            .filter(|f| *f < st.figures().len())
            .map(|f| FigureId(f as u16))
            .ok_or_else(|| {
                HookFailure(format!(
                    "offer_moves: the prompt's arg {figure} is not a figure"
                ))
            })?;
        let carcassonne_core::FigureLoc::On(at) = st.figure(f).loc else {
            return Ok(());
        };
        let here = st.graph().feature_of(at);
        out.push(Action::Pass);
        for &k in kinds.iter() {
            api::open_features(view, k, |s| {
                if st.graph().feature_of(s) != here && api::check_move(st, f, s).is_ok() {
                    out.push(Action::Move {
                        figure: f,
                        segment: s,
                    });
                }
            });
        }
        Ok(())
    }

    fn spec(hook: Hook) -> &'static HookSpec {
        &HOOKS[hook.index()]
    }

    /// Calls a script function with the game reachable through `access`.
    fn call(
        &self,
        hook: Hook,
        access: api::Access<'_, '_>,
        args: impl rhai::FuncArgs,
    ) -> Result<Dynamic, HookFailure> {
        call_script(
            &mut api::Call::new(&self.script, Some(self), access, hook),
            args,
        )
    }

    /// Calls a memoizable hook ([`memo`]): answers from this thread's memo when the same
    /// call was seen before, else runs the script, converts its result with `keep`
    /// (whose errors are the hook's) and remembers the call.
    fn invoke<T>(
        &self,
        hook: Hook,
        mut access: api::Access<'_, '_>,
        params: &[Param<'_>],
        keep: impl FnOnce(Dynamic) -> HookResult<Cached>,
        answer: impl FnOnce(&Cached) -> HookResult<T>,
    ) -> HookResult<T> {
        let mut key_buf = None;
        // A hook whose memo is off on this thread (its calls rarely repeat) skips the key,
        // which can cost as much as the call's arguments.
        let memo_on = self
            .memo()
            .is_some_and(|m| m.hook(hook).try_borrow().is_ok_and(|hm| !hm.off()));
        let key = match (self.script.shape(hook), access.players()) {
            (Some(shape), Some(players)) if memo_on => {
                let rules = (access_rules(&access), &*self.names);
                shape.root(players, params, rules, &mut key_buf)
            }
            _ => None,
        };
        let memo = key.as_ref().and_then(|_| self.memo());
        if let (Some(key), Some(m), api::Access::Read(view)) = (&key, memo, &access) {
            // The common case, without a `Call`: a hook that only reads, answered by
            // functions the memo runs itself.
            if let Ok(hm) = m.hook(hook).try_borrow() {
                if !hm.off() {
                    if let Some(c) = hm.find_read(key, *view, params) {
                        return answer(c);
                    }
                }
            }
        }
        if let (Some(key), Some(m), api::Access::Write(ctx)) = (&key, memo, &mut access) {
            // The same for a hook that may change the game, when it only sets state values.
            if let Ok(hm) = m.hook(hook).try_borrow() {
                if !hm.off() {
                    let mut undo = api::Undo::default();
                    match hm.find_write(key, ctx, &mut undo, params) {
                        Some(c) => return answer(c),
                        None => undo.undo(ctx),
                    }
                }
            }
        }
        let memo = key.and_then(|k| Some((memo?, k)));
        let mut call = api::Call::new(&self.script, Some(self), access, hook);
        let mut record = None;
        let value = |c: &api::Call<'_, '_>, i: usize| params[i].value(c.rules_ref(), &self.names);
        if let Some((m, key)) = memo {
            let found = match m.hook(hook).try_borrow() {
                Ok(hm) if !hm.off() => {
                    if matches!(call.access, api::Access::Write(_)) {
                        call.undo = Some(api::Undo::default());
                        call.awards = Some(Vec::new());
                    }
                    Some(hm.find(&key, &mut call, params, &value))
                }
                _ => None,
            };
            match found {
                Some(Found::Hit(c)) => {
                    call.make_awards();
                    drop(call);
                    return answer(&c);
                }
                Some(Found::Miss) => {
                    call.undo_sets();
                    record = Some((m, key));
                }
                Some(Found::Never) => call.undo_sets(),
                None => {}
            }
        }
        if record.is_some() {
            call.trace = Some(memo::Trace::default());
        }
        // A map the body only reads some fields of is made with those fields alone.
        let shape = self.script.shape(hook);
        let args: Vec<Dynamic> = (0..params.len())
            .map(|i| {
                let fields = shape.and_then(|s| s.needed_fields(i));
                params[i].value_with(call.rules_ref(), &self.names, fields)
            })
            .collect();
        let r = call_script(&mut call, args)?;
        let trace = call.trace.take();
        let kept = Arc::new(keep(r)?);
        if let (Some(trace), Some((m, key)), Some(rules)) = (trace, record, call.rules_ref()) {
            if let Ok(mut hm) = m.hook(hook).try_borrow_mut() {
                let prep =
                    |n: &'static api::Native, a: &[memo::Arg]| api::prepare(self, rules, n, a);
                let code = |f: &memo::Fast, v: &memo::Val| api::code(self, rules, f, v);
                hm.insert(key, trace, &kept, m.nodes(), &prep, &code);
            }
        }
        drop(call);
        answer(&kept)
    }

    /// A hook's answer that is one of `words` (or unit, the first), as its index.
    fn verdict(&self, hook: Hook, r: Dynamic, words: &[&str]) -> HookResult<Cached> {
        if r.is_unit() {
            return Ok(Cached::Int(0));
        }
        let word = r.clone().into_string().ok();
        match words.iter().position(|w| word.as_deref() == Some(*w)) {
            Some(i) => Ok(Cached::Int(i as i64)),
            None => Err(self.bad_return(hook, format!("`{r}`"))),
        }
    }

    fn bad_return(&self, hook: Hook, what: String) -> HookFailure {
        let (line, column) = self.script.defined_at[hook.index()];
        HookFailure(format!(
            "{}:{line}:{column}: in `{}`: returned {what} (expected {})",
            self.script.file.display(),
            Self::spec(hook).name,
            Self::spec(hook).returns
        ))
    }

    /// Runs a filter hook on `actions` (as maps, passed by `args`) and keeps those its
    /// answer lists: a filter only removes.
    fn filter_actions<A: rhai::FuncArgs>(
        &self,
        hook: Hook,
        view: View<'_>,
        player: PlayerId,
        actions: &mut Offered<'_>,
        args: impl FnOnce(Array) -> A,
    ) -> HookResult {
        let list: Array = actions
            .iter()
            .map(|a| api::action_to_dynamic(view, &self.names, a))
            .collect();
        let r = self.call(hook, api::Access::Read(view), args(list))?;
        let mut kept = Vec::new();
        self.actions_from(hook, view, player, r, api::Allow::Any, &mut kept)?;
        actions.retain(|a| kept.contains(a));
        Ok(())
    }

    fn actions_from(
        &self,
        hook: Hook,
        view: View<'_>,
        player: PlayerId,
        value: Dynamic,
        allow: api::Allow,
        out: &mut Vec<Action>,
    ) -> HookResult {
        let decl = &self.decl;
        let me = self.me;
        let array = value
            .try_cast::<Array>()
            .ok_or_else(|| self.bad_return(hook, "something else than an array".into()))?;
        for item in array {
            let a = api::action_from_dynamic(view, me, decl, item, player, allow)
                .map_err(|m| self.bad_return(hook, format!("an invalid action: {m}")))?;
            if !out.contains(&a) {
                out.push(a);
            }
        }
        Ok(())
    }
}

/// Carries out the declared `effects` for `player` (no script call): sets his
/// player-scoped states, then asks him the `offer_prompt` prompt.
fn apply_effects(ctx: &mut Ctx<'_>, decl: &Decl, effects: &Effects, player: PlayerId) {
    for (state, value) in &effects.sets {
        let (_, _, slot) = decl.states[*state];
        ctx.set(SlotRef::untyped(slot, player.0 as usize), *value);
    }
    if let Some(code) = effects.prompt {
        ctx.prompt(player, ScriptPrompt::Script { code, arg: 0 });
    }
}

/// The rules a hook call can reach.
fn access_rules<'a>(access: &'a api::Access<'_, '_>) -> Option<&'a Ruleset> {
    match access {
        api::Access::Read(v) => Some(v.rules),
        api::Access::Write(c) => Some(c.rules()),
        api::Access::Rules(r) => Some(r),
        api::Access::Setup(..) => None,
    }
}

pub(crate) fn window_hook(w: Window) -> Hook {
    match w {
        Window::TurnStart => Hook::WindowTurnStart,
        Window::AfterDeploy => Hook::WindowAfterDeploy,
        Window::BeforeScoring => Hook::WindowBeforeScoring,
        Window::AfterScoring => Hook::WindowAfterScoring,
        Window::AfterTurn => Hook::WindowAfterTurn,
        Window::BeforeFinalScoring => Hook::WindowBeforeFinalScoring,
        Window::BeforeDraw => Hook::WindowBeforeDraw,
    }
}

impl Expansion for ScriptExpansion {
    fn id(&self) -> &str {
        &self.script.id
    }

    fn version(&self) -> &str {
        &self.script.version
    }

    /// Runs the script's `setup()` (declarations only); binding resolves the roles of its
    /// offers and the hooks it needs.
    fn declare(&self, declare: &mut Declare<'_>) -> HookResult<Box<dyn Binder>> {
        let decl = std::cell::RefCell::new(Decl::default());
        {
            let label = declare.score_label(&self.script.id);
            decl.borrow_mut()
                .labels
                .push((self.script.id.clone(), label));
        }
        if self.script.defines(Hook::Setup) {
            let access = api::Access::Setup(declare, &decl);
            call_script(
                &mut api::Call::new(&self.script, None, access, Hook::Setup),
                (),
            )
            .map(drop)?;
        }
        let decl = decl.into_inner();
        // A reaction asks in the words of its prompt code.
        for (i, r) in decl.reactions.iter().enumerate() {
            if let Some((_, text)) = decl.prompt_texts.iter().find(|(c, _)| *c == r.code) {
                declare.prompt_in_words(crate::decl::ScriptPrompt::Reaction(i as u16), text);
            }
        }
        let script = self.script.clone();
        let memo = self.memo;
        Ok(binder(move |b: &Binding<'_>| {
            BoundScript::bind(script, decl, b, memo)
        }))
    }
}

impl BoundScript {
    fn bind(
        script: Arc<CompiledScript>,
        decl: Decl,
        b: &Binding<'_>,
        memo: bool,
    ) -> HookResult<BoundScript> {
        let rules = b.rules();
        let follow = decl
            .follow
            .as_ref()
            .map(|f| native::FollowRule::resolve(f, b))
            .transpose()?;
        let roles = decl
            .offers
            .iter()
            .map(|o| {
                let mut m = RoleMatch::default();
                let names = o.per_figure.iter().flat_map(|(_, r)| r);
                let kinds = o.per_segment.iter().chain(&o.per_corner).flatten();
                for name in names.chain(kinds) {
                    if let Some(k) = rules.kind_named(name) {
                        m.feature_kinds |= 1 << k.0;
                    }
                    if let Some(f) = rules.figure_named(name) {
                        if !rules.figure_kind(f).follower {
                            m.figure_kinds.push(f);
                        }
                    }
                }
                m
            })
            .collect();
        let hook_set = Self::needed_hooks(&script, &decl);
        let guards = std::array::from_fn(|h| match &decl.guards[h] {
            None => GuardCheck::Open,
            Some(Guard::State(i)) => {
                let (_, scope, slot) = decl.states[*i];
                GuardCheck::Slot(scope, slot)
            }
            Some(Guard::Figure(name)) => GuardCheck::Figure(rules.figure_named(name)),
            Some(Guard::ScoringNear(name)) => GuardCheck::ScoringNear(rules.figure_named(name)),
            Some(Guard::ScoringOn(name)) => GuardCheck::ScoringOn(rules.figure_named(name)),
            Some(Guard::ScoringState(i)) => {
                let (_, scope, slot) = decl.states[*i];
                GuardCheck::ScoringState(scope, slot)
            }
            Some(Guard::AreaFull(name, area)) => {
                GuardCheck::AreaFull(rules.figure_named(name), *area)
            }
        });
        let gates = core_gates(&decl, &guards, hook_set);
        let apart = decl
            .apart
            .iter()
            .map(|a| ApartRule::resolve(a, &decl, rules))
            .collect();
        let mut moves: Vec<(u16, NativePrompt)> = decl
            .moves
            .iter()
            .map(|(code, kinds)| {
                let kinds = kinds.iter().filter_map(|k| rules.kind_named(k)).collect();
                (*code, NativePrompt::Moves(kinds))
            })
            .collect();
        moves.extend(native::tile_prompts(&decl, rules, b.me()));
        let placed = native::placed_checks(&decl, rules);
        let tile_bonus = decl
            .tile_bonus
            .as_ref()
            .map(|t| native::TileBonus::resolve(t, rules));
        Ok(BoundScript {
            apart,
            moves,
            placed,
            follow,
            tile_bonus,
            names: Arc::new(api::Names::new(rules)),
            me: b.me(),
            script,
            decl,
            roles,
            hook_set,
            guards,
            gates,
            memo: memo.then(ThreadLocal::new),
        })
    }

    /// The pipeline hooks a script needs: those it defines, and those its declarations
    /// (offers, reactions, strength bonus) run natively.
    fn needed_hooks(s: &CompiledScript, decl: &Decl) -> HookSet {
        let mut set = HookSet::NONE;
        if !decl.offers.is_empty() {
            set = set | HookSet::DEPLOY_STEP_ACTIONS;
        }
        for r in &decl.reactions {
            set = set | HookSet::window(r.window);
        }
        if decl.strength_bonus.is_some() {
            set = set | HookSet::STRENGTH_DELTA;
        }
        if !decl.apart.is_empty() {
            set = set | HookSet::FILTER_PLACEMENTS;
        }
        if decl.follow.is_some() {
            set = set | HookSet::window(Window::AfterScoring);
        }
        if decl.tile_bonus.is_some() {
            set = set | HookSet::BEFORE_SCORING;
        }
        for spec in HOOKS {
            if let Some(bit) = core_bit(spec.hook).filter(|_| s.defines(spec.hook)) {
                set = set | bit;
            }
        }
        set
    }
}

/// The bit of core's hook set through which the engine reaches a script hook (`None`: a
/// hook core calls without one). Read from the two tables, not written per hook: a window
/// hook has its window's bit, any other the bit of the core hook its [`HOOKS`] row names.
fn core_bit(h: Hook) -> Option<HookSet> {
    if let Some(w) = Window::ALL.into_iter().find(|w| window_hook(*w) == h) {
        return Some(HookSet::window(w));
    }
    let core = HOOKS.iter().find(|s| s.hook == h)?.core;
    let info = carcassonne_core::HOOKS.iter().find(|c| c.name == core)?;
    (info.set != HookSet::NONE).then_some(info.set)
}

/// The guards core checks itself ([`HookGate`]): a game-scoped state guarding a hook that
/// is all its core hook does for this script (a window with declared reactions is not),
/// so while the state is 0 core skips the call without entering the host at all.
/// `guard_area_full`: whether the tile placed last is one of the cells of `area` (an
/// [`crate::decl::area_bit`] mask of offsets) around the tile of a figure of kind `k` in play,
/// and every cell of that area now holds a tile.
fn area_full(
    state: &carcassonne_core::GameState,
    k: carcassonne_core::FigureKindId,
    area: u128,
) -> bool {
    use crate::decl::{area_bit, AREA_REACH};
    use carcassonne_core::Pos;
    let Some(i) = state.last_placed() else {
        return false;
    };
    let at = state.board().tile(i).pos;
    let graph = state.graph();
    let r = AREA_REACH;
    state.figures().iter().any(|f| match f.loc {
        carcassonne_core::FigureLoc::On(seg) if f.kind == k => {
            let node = graph.segment(seg);
            let o = node.pos;
            !node.is_virtual()
                && area_bit(at.x - o.x, at.y - o.y).is_some_and(|b| area & b != 0)
                && (-r..=r).all(|dy| {
                    (-r..=r).all(|dx| {
                        area_bit(dx, dy).is_some_and(|b| area & b == 0)
                            || state.board().is_occupied(Pos::new(o.x + dx, o.y + dy))
                    })
                })
        }
        _ => false,
    })
}

fn core_gates(decl: &Decl, guards: &[GuardCheck], set: HookSet) -> Vec<HookGate> {
    let mut gates = Vec::new();
    for (spec, guard) in HOOKS.iter().zip(guards) {
        let GuardCheck::Slot(SlotScope::Game, slot) = guard else {
            continue;
        };
        let Some(bit) = core_bit(spec.hook) else {
            continue;
        };
        let reacts = decl
            .reactions
            .iter()
            .any(|r| HookSet::window(r.window) == bit);
        let typed = decl.game_slots.iter().find(|g| g.id() == *slot);
        if let (Some(&slot), false, true) =
            (typed, reacts, HookSet::GATEABLE.has(bit) && set.has(bit))
        {
            gates.push(HookGate { hooks: bit, slot });
        }
    }
    gates
}

/// Calls the script function of a hook call, with the game lent to the natives for the
/// duration of the call ([`api::lend`]).
fn call_script(
    call: &mut api::Call<'_, '_>,
    args: impl rhai::FuncArgs,
) -> Result<Dynamic, HookFailure> {
    let script = call.script;
    let hook = call.role;
    let name = HOOKS[hook.index()].name;
    api::lend(call, |tag| {
        let options = CallFnOptions::new()
            .eval_ast(false)
            .rewind_scope(false)
            .with_tag(tag);
        let mut scope = Scope::new();
        script
            .engine
            .call_fn_with_options::<Dynamic>(options, &mut scope, &script.ast, name, args)
    })
    .map_err(|e| {
        let e = script.runtime_error(hook, &e);
        HookFailure(format!(
            "{}:{}:{}: in `{}`: {}",
            e.file, e.line, e.column, e.hook, e.message
        ))
    })
}
