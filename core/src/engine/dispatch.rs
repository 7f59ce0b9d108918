//! Calling expansion hooks: one expansion, or every implementer of a hook in load order; failures become `HookError`s naming the expansion and the hook.

use super::*;

#[cold]
pub(crate) fn hook_error(
    rules: &Ruleset,
    ix: usize,
    hook: &'static str,
    m: crate::hooks::HookFailure,
) -> HookError {
    HookError {
        expansion: rules.expansions()[ix].id().to_string(),
        hook,
        message: m.0,
    }
}

/// A hook's result, failed if it tried to queue more prompts than the queue takes.
#[inline]
pub(crate) fn checked_hook(
    rules: &Ruleset,
    ix: usize,
    hook: &'static str,
    state: &mut GameState,
    r: HookResult,
) -> Result<(), HookError> {
    // Nearly every call: the hook succeeded and touched neither the supply nor the queue.
    if r.is_ok() && !state.supply_touched && !state.prompt_overflow {
        return Ok(());
    }
    checked_hook_rest(rules, ix, hook, state, r)
}

#[cold]
#[inline(never)]
fn checked_hook_rest(
    rules: &Ruleset,
    ix: usize,
    hook: &'static str,
    state: &mut GameState,
    r: HookResult,
) -> Result<(), HookError> {
    r.map_err(|m| hook_error(rules, ix, hook, m))?;
    if std::mem::take(&mut state.supply_touched) {
        if let Some(t) = state.supply.unknown_kind(rules.tiles().len()) {
            return Err(hook_error(
                rules,
                ix,
                hook,
                crate::hooks::HookFailure(format!(
                    "put tile kind {} in the supply, which the ruleset does not have",
                    t.0
                )),
            ));
        }
    }
    if std::mem::take(&mut state.prompt_overflow) {
        return Err(hook_error(
            rules,
            ix,
            hook,
            crate::hooks::HookFailure(format!(
                "queued more than {} prompts at once",
                crate::hooks::MAX_QUEUED_PROMPTS
            )),
        ));
    }
    Ok(())
}

/// Calls `f` for one expansion with a context.
pub(crate) fn one(
    rules: &Ruleset,
    state: &mut GameState,
    ix: ExpansionIndex,
    hook: &'static str,
    f: impl FnOnce(&dyn BoundExpansion, &mut Ctx<'_>) -> HookResult,
) -> Result<(), HookError> {
    let e = &rules.bound()[ix.0 as usize];
    let mut ctx = Ctx {
        rules,
        state,
        me: ix,
    };
    let r = f(e.as_ref(), &mut ctx);
    checked_hook(rules, ix.0 as usize, hook, state, r)
}

/// A hook called with a context for one implementer, as [`each_member`] takes it.
type MemberHook<'f> = dyn FnMut(&dyn BoundExpansion, &mut Ctx<'_>) -> HookResult + 'f;

/// Calls `f` for every expansion in order with a context.
#[inline(always)]
pub(crate) fn each(
    rules: &Ruleset,
    state: &mut GameState,
    bit: HookSet,
    hook: &'static str,
    f: impl FnMut(&dyn BoundExpansion, &mut Ctx<'_>) -> HookResult,
) -> Result<(), HookError> {
    // Most calls in a base game: nobody implements the hook.
    let members = rules.hook_members(bit);
    if members == 0 {
        return Ok(());
    }
    // Moved here, so that what the closure captures is written to memory (for the call
    // through a pointer) only on this path, not before the test above.
    let mut f = f;
    each_member(rules, state, bit, members, hook, &mut f)
}

/// [`each`] for the implementers in `members` only (a subset of the hook's members, as
/// [`Ruleset::tile_placed_members`] gives).
#[inline(always)]
pub(crate) fn each_in(
    rules: &Ruleset,
    state: &mut GameState,
    bit: HookSet,
    members: u64,
    hook: &'static str,
    f: impl FnMut(&dyn BoundExpansion, &mut Ctx<'_>) -> HookResult,
) -> Result<(), HookError> {
    if members == 0 {
        return Ok(());
    }
    // As in `each`.
    let mut f = f;
    each_member(rules, state, bit, members, hook, &mut f)
}

/// The loop of [`each`] over the implementers in `members`, in load order, skipping those
/// whose gate is shut ([`crate::HookGate`]). One copy serves every hook: `f` is called
/// through a pointer. A copy per hook kind, with `f` inlined, saved that call but made
/// every kind's dispatch its own code, so a turn touched several of them and each
/// evicted the others (and the pipeline's code) from the instruction cache.
#[inline(never)]
fn each_member(
    rules: &Ruleset,
    state: &mut GameState,
    bit: HookSet,
    members: u64,
    hook: &'static str,
    f: &mut MemberHook<'_>,
) -> Result<(), HookError> {
    // Many calls of a gated hook: every implementer is shut, found by the hook's test
    // (Abbey & Mayor's barn and wagon gates, the castles' gates), without the loop's frame.
    if rules.quick_shut_hook(bit, state) {
        debug_assert!(rules.all_shut(bit, members, state));
        return Ok(());
    }
    each_member_loop(rules, state, bit, members, hook, f)
}

/// [`each_member`]'s loop (its own function, so that a call that finds every implementer
/// shut saves no register).
#[inline(never)]
fn each_member_loop(
    rules: &Ruleset,
    state: &mut GameState,
    bit: HookSet,
    members: u64,
    hook: &'static str,
    f: &mut MemberHook<'_>,
) -> Result<(), HookError> {
    let gated = rules.gated_members(bit);
    let bound = rules.bound();
    let mut m = members & !(1 << 63);
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        if gated & (1 << i) != 0 && !rules.gates_open(bit, i, state) {
            continue;
        }
        let mut ctx = Ctx {
            rules,
            state,
            me: ExpansionIndex(i as u8),
        };
        let r = f(bound[i].as_ref(), &mut ctx);
        checked_hook(rules, i, hook, state, r)?;
    }
    if members & (1 << 63) != 0 {
        late_members(rules, state, bit, hook, f)?;
    }
    Ok(())
}

/// [`each_member`] for expansions 63 and up (bit 63 of a member mask), which no real
/// ruleset has: every later implementer of the hook, gates checked as above.
#[cold]
#[inline(never)]
fn late_members(
    rules: &Ruleset,
    state: &mut GameState,
    bit: HookSet,
    hook: &'static str,
    f: &mut MemberHook<'_>,
) -> Result<(), HookError> {
    let gated = rules.gated_members(bit) & (1 << 63) != 0;
    for i in 63..rules.expansions().len() {
        if !rules.hook_sets()[i].has(bit) || (gated && !rules.gates_open(bit, i, state)) {
            continue;
        }
        let mut ctx = Ctx {
            rules,
            state,
            me: ExpansionIndex(i as u8),
        };
        let r = f(rules.bound()[i].as_ref(), &mut ctx);
        checked_hook(rules, i, hook, state, r)?;
    }
    Ok(())
}

/// Calls `call` for the expansions of a member mask in load order: bit `i` is expansion
/// `i`, and bit 63 also stands for every later expansion for which `late` holds.
#[inline(always)]
pub(crate) fn visit(
    rules: &Ruleset,
    members: u64,
    late: impl Fn(usize) -> bool,
    mut call: impl FnMut(usize) -> Result<(), HookError>,
) -> Result<(), HookError> {
    let mut m = members & !(1 << 63);
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        call(i)?;
    }
    if members & (1 << 63) != 0 {
        for i in 63..rules.expansions().len() {
            if late(i) {
                call(i)?;
            }
        }
    }
    Ok(())
}

/// Calls `f` with a view for every expansion that implements a reading hook (`bit`, one
/// hook of [`HookSet`]), in load order; the first failure stops the loop.
#[inline(always)]
pub(crate) fn each_read(
    rules: &Ruleset,
    state: &GameState,
    bit: HookSet,
    hook: &'static str,
    f: impl FnMut(&dyn BoundExpansion, View<'_>) -> HookResult,
) -> Result<(), HookError> {
    let members = rules.hook_members(bit);
    if members == 0 {
        return Ok(());
    }
    read_members(
        rules,
        state,
        members,
        |i| rules.hook_sets()[i].has(bit),
        hook,
        f,
    )
}

/// [`each_read`] for the expansions of a member mask (as in [`visit`]): a per-tile
/// placement filter mask, or every expansion ([`read_all`]).
#[inline(always)]
pub(crate) fn read_members(
    rules: &Ruleset,
    state: &GameState,
    members: u64,
    late: impl Fn(usize) -> bool,
    hook: &'static str,
    mut f: impl FnMut(&dyn BoundExpansion, View<'_>) -> HookResult,
) -> Result<(), HookError> {
    visit(rules, members, late, |i| {
        one_read(rules, state, i, hook, &mut f)
    })
}

/// Calls a reading hook of one expansion (the owner of a prompt).
#[inline(always)]
pub(crate) fn one_read(
    rules: &Ruleset,
    state: &GameState,
    ix: usize,
    hook: &'static str,
    f: impl FnOnce(&dyn BoundExpansion, View<'_>) -> HookResult,
) -> Result<(), HookError> {
    f(rules.bound()[ix].as_ref(), View { rules, state }).map_err(|m| hook_error(rules, ix, hook, m))
}

/// [`each_read`] for the hooks without a bit, which every expansion has (`describe`).
pub(crate) fn read_all(
    rules: &Ruleset,
    state: &GameState,
    hook: &'static str,
    f: impl FnMut(&dyn BoundExpansion, View<'_>) -> HookResult,
) -> Result<(), HookError> {
    let everyone = match rules.expansions().len() {
        0 => return Ok(()),
        n if n >= 64 => u64::MAX,
        n => (1 << n) - 1,
    };
    read_members(rules, state, everyone, |_| true, hook, f)
}

/// Asks every expansion in load order until one answers: the answer and who gave it.
pub(crate) fn first_answer<T>(
    rules: &Ruleset,
    state: &GameState,
    hook: &'static str,
    mut f: impl FnMut(&dyn BoundExpansion, View<'_>) -> HookResult<Option<T>>,
) -> Result<Option<(usize, T)>, HookError> {
    for (i, e) in rules.bound().iter().enumerate() {
        let answer =
            f(e.as_ref(), View { rules, state }).map_err(|m| hook_error(rules, i, hook, m))?;
        if let Some(t) = answer {
            return Ok(Some((i, t)));
        }
    }
    Ok(None)
}

#[inline(always)]
pub(crate) fn window(rules: &Ruleset, state: &mut GameState, w: Window) -> Result<(), HookError> {
    let bit = HookSet::window(w);
    // Most windows of a base game: nobody opens it (nothing to note either).
    if rules.hook_members(bit) == 0 {
        return Ok(());
    }
    // After a placement, only the implementers that act after a tile of its kind
    // (`BoundExpansion::opens_window_for`).
    let members = rules.window_members(w, state);
    if members == 0 || rules.all_shut(bit, members, state) {
        return Ok(());
    }
    state.open_window = Some(w);
    let r = each_in(rules, state, bit, members, "open_window", |e, ctx| {
        // A hook reopened the deployment step (`Ctx::repeat_deploy_step`): the window
        // opens again after it, so the later hooks wait until then.
        if ctx.state.stage == crate::state::Stage::DeployStep {
            return Ok(());
        }
        e.open_window(ctx, w)
    });
    state.open_window = None;
    r
}
