//! Calling expansion hooks: one expansion, or every implementer of a hook in load order; failures become `HookError`s naming the expansion and the hook.

use super::*;

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
    each_member(rules, state, bit, members, hook, f)
}

/// [`each`] once some expansion implements the hook.
#[inline]
fn each_member(
    rules: &Ruleset,
    state: &mut GameState,
    bit: HookSet,
    members: u64,
    hook: &'static str,
    mut f: impl FnMut(&dyn BoundExpansion, &mut Ctx<'_>) -> HookResult,
) -> Result<(), HookError> {
    // A plain closure over `f` (not `&mut dyn FnMut`): the hook's own call is then the
    // only indirect one, which matters on paths that run several hooks per tile.
    let mut call = |i: usize, state: &mut GameState| {
        let e = &rules.bound()[i];
        let mut ctx = Ctx {
            rules,
            state,
            me: ExpansionIndex(i as u8),
        };
        let r = f(e.as_ref(), &mut ctx);
        checked_hook(rules, i, hook, state, r)
    };
    // Implementers that gate the hook on a slot are skipped while it is 0 (HookGate).
    let gated = rules.gated_members(bit);
    let open = |i: usize, state: &GameState| {
        gated & (1 << i.min(63)) == 0 || rules.gates_open(bit, i, state)
    };
    // Visit only the implementers; bit 63 also stands for every later expansion.
    let mut m = members & !(1 << 63);
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        if open(i, state) {
            call(i, state)?;
        }
    }
    if members & (1 << 63) != 0 {
        for i in 63..rules.expansions().len() {
            if rules.hook_sets()[i].has(bit) && open(i, state) {
                call(i, state)?;
            }
        }
    }
    Ok(())
}

#[inline(always)]
pub(crate) fn window(rules: &Ruleset, state: &mut GameState, w: Window) -> Result<(), HookError> {
    each(rules, state, HookSet::window(w), "open_window", |e, ctx| {
        e.open_window(ctx, w)
    })
}
