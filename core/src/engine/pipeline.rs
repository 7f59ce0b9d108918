//! The turn pipeline between two decisions (rule A-16): windows and prompts, draws and discards, the deployment step, scoring, the end of the game.

use super::known;
use super::*;
use crate::offered::Offered;
use crate::state::{DiscardReason, NextOffer, OfferAt};

/// Runs the pipeline until a decision with at least one action is pending.
///
/// One `match` on the stage a pass; the steps that call hooks (a prompt, the deployment
/// offers, the scoring) are out of line, so that entering this function does not load
/// their gates and masks from the ruleset at every call.
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn advance(rules: &Ruleset, st: &mut GameState) -> Result<(), HookError> {
    loop {
        if let Some(p) = st.prompts.pop_front() {
            if ask_prompt(rules, st, p)? {
                return Ok(());
            }
            continue;
        }
        // Window stages: move on first, so the pipeline resumes after the prompts.
        let (next, w) = match st.stage {
            // the game ends after the turn in which the supply ran out, before any
            // start-of-turn effect of a turn that will never be played.
            // An expansion may keep turns going after that (`Ctx::set_more_turns`): such a
            // turn has no `TurnStart` window and plays a tile from outside the supply or
            // nothing; a whole turn (`Ctx::set_more_whole_turns`) opens it as any turn.
            // (`is_exhausted` is `remaining() == 0` without summing every group.)
            Stage::TurnStart => {
                debug_assert_eq!(st.supply.is_exhausted(), st.supply.remaining() == 0);
                if st.supply.is_exhausted() && !st.whole_turns {
                    if st.more_turns {
                        st.turn_prompts = 0;
                        st.stage = Stage::BeforeDraw;
                    } else {
                        st.stage = Stage::BeforeFinal;
                    }
                    continue;
                }
                st.turn_prompts = 0;
                (Stage::BeforeDraw, Window::TurnStart)
            }
            Stage::BeforeDraw => (Stage::Draw, Window::BeforeDraw),
            Stage::AfterDeploy => (Stage::BeforeScoring, Window::AfterDeploy),
            Stage::BeforeScoring => (Stage::Score, Window::BeforeScoring),
            Stage::AfterScoring => (Stage::TurnEnd, Window::AfterScoring),
            // A lookahead copy ends its look before the draw (`Game::set_stop_before_draw`),
            // not before a tile played instead of drawing.
            Stage::Draw
                if st.instead.is_none() && st.stop_before_draw.is_some_and(|t| st.turn >= t) =>
            {
                st.offered.clear();
                st.decision = Decision {
                    player: st.active,
                    kind: DecisionKind::GameOver,
                };
                return Ok(());
            }
            // A tile from outside the supply, chosen in the `BeforeDraw` window, replaces
            // the draw.
            Stage::Draw if st.instead.is_some() => {
                let (tile, pos, rotation) = st.instead.take().expect("tested above");
                play_tile(rules, st, st.active, tile, pos, rotation)?;
                continue;
            }
            Stage::Draw if st.supply.mode == DrawMode::Chosen => {
                offer_draws(st);
                if st.offered.is_empty() {
                    st.stage = if st.more_turns() {
                        Stage::TurnEnd
                    } else {
                        Stage::BeforeFinal
                    };
                    continue;
                }
                st.decision = Decision {
                    player: st.active,
                    kind: DecisionKind::Draw,
                };
                return Ok(());
            }
            Stage::Draw => match draw(rules, st)? {
                // Prompts queued by `on_tile_drawn` are asked before the tile is placed;
                // an answer may send it back (`Ctx::return_drawn_tile`).
                Some(tile) if !st.prompts.is_empty() => {
                    st.revealed = Some(tile);
                    st.stage = Stage::Reveal;
                    continue;
                }
                Some(tile) => {
                    st.offer_tile(tile);
                    return Ok(());
                }
                // Turns after the supply ran out (`Ctx::set_more_turns`) end without a tile.
                None => {
                    st.stage = if st.more_turns() {
                        Stage::TurnEnd
                    } else {
                        Stage::BeforeFinal
                    };
                    continue;
                }
            },
            Stage::Reveal => {
                st.stage = Stage::Draw;
                // Sent back: draw again. Otherwise the prompts changed the game, so the
                // placements are computed afresh (A-4 if none is left).
                if let Some(tile) = st.revealed.take() {
                    legal_placements(rules, st, tile)?;
                    if st.placement_count == 0 {
                        st.discard(tile, DiscardReason::FitsNowhere);
                        continue;
                    }
                    st.offer_tile(tile);
                    return Ok(());
                }
                continue;
            }
            Stage::DeployStep => {
                st.stage = Stage::AfterDeploy;
                // A playout's answer, as if chosen from the offer (`Game::step`): the offer
                // always holds the pass and whatever the tile's own deployments leave.
                // (The state's field first: other play reads only it.)
                if st.next_offer != NextOffer::Listed {
                    match st.next_offer {
                        // A search's copy back at a deployment step it knows.
                        NextOffer::Known => {
                            let tile = st.last_placed.expect("a tile was placed");
                            if known::offer_known(rules, st, OfferAt::deploy(st, tile))? {
                                st.decision = Decision {
                                    player: st.active,
                                    kind: DecisionKind::Deploy { tile },
                                };
                                return Ok(());
                            }
                        }
                        _ if rules.deploy_pass_kept() => {
                            match std::mem::take(&mut st.next_offer) {
                                NextOffer::Pick(pick) => tile_deploy(rules, st, pick)?,
                                _ => st.deploy_choice = Some(Action::Pass),
                            }
                            continue;
                        }
                        _ => {}
                    }
                }
                if deploy_offers(rules, st)? {
                    let tile = st.last_placed.expect("a tile was placed");
                    st.decision = Decision {
                        player: st.active,
                        kind: DecisionKind::Deploy { tile },
                    };
                    return Ok(());
                }
                continue;
            }
            // A copy that stops before this turn's scoring (`Game::set_stop_before_scoring`).
            Stage::Score if st.stop_before_scoring.is_some_and(|t| st.turn >= t) => {
                st.offered.clear();
                st.decision = Decision {
                    player: st.active,
                    kind: DecisionKind::GameOver,
                };
                return Ok(());
            }
            Stage::Score => {
                st.stage = Stage::AfterScoring;
                score_placement(rules, st)?;
                continue;
            }
            Stage::TurnEnd => {
                let extra =
                    rules.hook_members(HookSet::ON_TURN_END) != 0 && turn_end_hooks(rules, st)?;
                st.part_events = st.events.len() as u32;
                if extra && !st.extra_part {
                    st.extra_part = true;
                    st.stage = Stage::BeforeDraw;
                    continue;
                }
                st.extra_part = false;
                // Most rulesets have no `AfterTurn` hook: the next turn at once, without a
                // pass through the `NextTurn` stage.
                if rules.hook_members(HookSet::window(Window::AfterTurn)) == 0 {
                    next_turn(st);
                    continue;
                }
                (Stage::NextTurn, Window::AfterTurn)
            }
            Stage::NextTurn => {
                next_turn(st);
                continue;
            }
            Stage::BeforeFinal => {
                st.final_scoring = true;
                st.stage = Stage::FinalScoring;
                open_window(rules, st, Window::BeforeFinalScoring)?;
                continue;
            }
            Stage::FinalScoring => {
                st.stage = Stage::Over;
                final_scoring(rules, st)?;
                continue;
            }
            Stage::Over => {
                st.offered.clear();
                st.decision = Decision {
                    player: st.active,
                    kind: DecisionKind::GameOver,
                };
                return Ok(());
            }
        };
        st.stage = next;
        // The same check `window` starts with, here, so that its body stays out of this
        // loop (see `open_window`).
        if rules.hook_members(HookSet::window(w)) != 0 {
            open_window(rules, st, w)?;
        }
    }
}

/// The next player's turn (after the `AfterTurn` window, if any).
#[inline(always)]
fn next_turn(st: &mut GameState) {
    st.turn += 1;
    // The next seat (a wrap instead of a division).
    debug_assert!((st.active.0 as usize) < st.players.len());
    let next = st.active.0 as usize + 1;
    st.active = PlayerId(if next == st.players.len() { 0 } else { next } as u8);
    st.stage = Stage::TurnStart;
}

/// A prompt taken from the queue: its offers, filtered; `true` when it is the pending
/// decision now, `false` when it asks nothing (no offer, or only passing left after the
/// filters, which then answered it). Out of line (see [`advance`]).
#[inline(never)]
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(super) fn ask_prompt(
    rules: &Ruleset,
    st: &mut GameState,
    p: crate::prompt::Prompt,
) -> Result<bool, HookError> {
    let ix = p.owner.0 as usize;
    st.turn_prompts += 1;
    if st.turn_prompts > crate::hooks::MAX_PROMPTS_PER_TURN {
        return Err(too_many_prompts(rules, ix));
    }
    // Set only by `end_now_passing`, which ends the game: every prompt from then on is the
    // end's.
    if st.end_passing && rules.passes_at_end(p.owner) {
        pass_unlisted(rules, st, p)?;
        return Ok(false);
    }
    if let Some(tile) = p.placements_of() {
        if let Some(asked) = ask_placements(rules, st, p, tile)? {
            return Ok(asked);
        }
    } else {
        // A search's copy back at a prompt it knows.
        if st.next_offer == NextOffer::Known {
            let at = OfferAt::Prompt {
                turn: st.turn,
                asked: st.turn_prompts,
                prompt: p,
            };
            if known::offer_known(rules, st, at)? {
                st.decision = Decision {
                    player: p.player,
                    kind: DecisionKind::Prompt(p),
                };
                return Ok(true);
            }
        }
        list_prompt(rules, st, p)?;
    }
    if !st.offered.is_empty() && rules.any_hooks(HookSet::FILTER_PROMPT_ACTIONS) {
        let before = st.offered.len();
        filter_prompt_actions(rules, st, p)?;
        // Filtered down to passing alone: nothing is left to choose, so the owner gets
        // the pass without asking (its prompt chain goes on as after a pass).
        if st.offered.len() < before && st.offered.as_slice() == [Action::Pass] {
            st.offered.clear();
            one(rules, st, p.owner, "apply_prompt", |e, ctx| {
                e.apply_prompt(ctx, p, Action::Pass)
            })?;
            return Ok(false);
        }
    }
    if st.offered.is_empty() {
        return Ok(false);
    }
    if rules.any_hooks(HookSet::FREE_ACTIONS) {
        free_actions(rules, st, p.player, Some(p.owner.0 as usize))?;
    }
    st.decision = Decision {
        player: p.player,
        kind: DecisionKind::Prompt(p),
    };
    Ok(true)
}

/// The owner's offer for list prompt `p`, unfiltered, into `st.offered`.
#[inline(always)]
fn list_prompt(
    rules: &Ruleset,
    st: &mut GameState,
    p: crate::prompt::Prompt,
) -> Result<(), HookError> {
    let mut offered = std::mem::take(&mut st.offered);
    offered.clear();
    let r = one_read(rules, st, p.owner.0 as usize, "prompt_actions", |e, v| {
        e.prompt_actions(v, p, &mut offered)
    });
    st.offered = offered;
    r
}

/// A prompt of the game's end answered with the pass without listing its offer
/// ([`crate::Game::end_now_passing`]). Debug builds list it, filtered, and check that the
/// pass is offered, as its owner promised. Out of line: only a search's copy comes here.
#[cold]
#[inline(never)]
fn pass_unlisted(
    rules: &Ruleset,
    st: &mut GameState,
    p: crate::prompt::Prompt,
) -> Result<(), HookError> {
    if cfg!(debug_assertions) {
        list_prompt(rules, st, p)?;
        if rules.any_hooks(HookSet::FILTER_PROMPT_ACTIONS) {
            filter_prompt_actions(rules, st, p)?;
        }
        debug_assert!(
            st.offered.contains(&Action::Pass),
            "a prompt passed at the game's end offers the pass: {p:?} offers {:?}",
            st.offered.as_slice()
        );
    }
    st.offered.clear();
    one(rules, st, p.owner, "apply_prompt", |e, ctx| {
        e.apply_prompt(ctx, p, Action::Pass)
    })
}

/// A placements prompt ([`crate::Ctx::prompt_placements`]): core's offer, the owner is not
/// asked for a list. `Some(asked)` as [`ask_prompt`]'s answer when given by index (or
/// nothing to offer); `None` when listed in `offered` for the prompt filters and free
/// actions, which [`ask_prompt`] then runs. Out of line: most prompts are lists.
#[inline(never)]
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
fn ask_placements(
    rules: &Ruleset,
    st: &mut GameState,
    p: crate::prompt::Prompt,
    tile: TileKindId,
) -> Result<Option<bool>, HookError> {
    st.offered.clear();
    offer_placements(rules, st, tile)?;
    if st.placement_count == 0 {
        return Ok(Some(false));
    }
    if !rules.any_hooks(HookSet::FILTER_PROMPT_ACTIONS | HookSet::FREE_ACTIONS) {
        // Given by index from `placements`, as a tile step's (`offered` left empty).
        st.decision = Decision {
            player: p.player,
            kind: DecisionKind::Prompt(p),
        };
        return Ok(Some(true));
    }
    let mut offered = std::mem::take(&mut st.offered);
    st.push_placement_actions(&mut offered);
    st.offered = offered;
    Ok(None)
}

/// The error of a turn that asked more than [`crate::hooks::MAX_PROMPTS_PER_TURN`] prompts
/// (out of line, as the other rare paths of [`advance`]).
#[cold]
#[inline(never)]
fn too_many_prompts(rules: &Ruleset, ix: usize) -> HookError {
    hook_error(
        rules,
        ix,
        "apply_prompt",
        crate::hooks::HookFailure(format!(
            "more than {} prompts in one turn: does answering a prompt always ask another?",
            crate::hooks::MAX_PROMPTS_PER_TURN
        )),
    )
}

/// Offers the draws a caller may choose ([`DrawMode::Chosen`]: JCZ replays, never random
/// play), out of line so that `advance` stays short.
#[cold]
#[inline(never)]
fn offer_draws(st: &mut GameState) {
    let mut offered = std::mem::take(&mut st.offered);
    let mut kinds = Vec::new();
    st.supply.choices(&mut kinds);
    offered.clear();
    offered.extend(kinds.into_iter().map(|tile| Action::Draw { tile }));
    st.offered = offered;
}

// The per-turn functions' section starts on a cache line (64 bytes): their place in the
// lines, which moves the base game's time by several per cent (the branch predictor and the
// decoded-µop cache work by 32- and 64-byte blocks), no longer depends on the size of
// everything the linker puts before them (a panic message more shifted them all by 16 bytes
// and made the base game 7.6% slower, not one instruction more).
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
std::arch::global_asm!(
    ".pushsection .text.carcassonne_hot,\"ax\",@progbits",
    ".p2align 6",
    ".popsection",
);

/// [`window`] out of line. Inlined into [`advance`], the hook calls of every window made
/// the compiler load their gates and masks from the ruleset at each entry to `advance`
/// (about 110 instructions a call, most decisions of a base game opening no window).
#[inline(never)]
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
fn open_window(rules: &Ruleset, st: &mut GameState, w: Window) -> Result<(), HookError> {
    // Most windows of a game with them: every implementer shut, found by the hook's test
    // chosen at build ([`Ruleset::quick_shut_hook`]) before any register is saved.
    if rules.quick_shut_hook(HookSet::window(w), st) {
        debug_assert!(rules.all_shut(
            HookSet::window(w),
            rules.hook_members(HookSet::window(w)),
            st
        ));
        return Ok(());
    }
    open_window_gated(rules, st, w)
}

/// [`open_window`] past the hook's test, out of line (off the per-turn section).
#[inline(never)]
fn open_window_gated(rules: &Ruleset, st: &mut GameState, w: Window) -> Result<(), HookError> {
    window(rules, st, w)
}

/// Runs `on_turn_end` (out of line, as [`open_window`]); returns whether an expansion asks
/// for an extra part of the turn.
#[inline(never)]
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
fn turn_end_hooks(rules: &Ruleset, st: &mut GameState) -> Result<bool, HookError> {
    let mut extra = false;
    // `advance` calls this only when some expansion implements the hook.
    let members = rules.hook_members(HookSet::ON_TURN_END);
    // Most turn ends: every implementer waits for the empty supply ([`Ruleset::all_shut`]).
    if rules.all_shut(HookSet::ON_TURN_END, members, st) {
        return Ok(false);
    }
    each_in(
        rules,
        st,
        HookSet::ON_TURN_END,
        members,
        "on_turn_end",
        |e, ctx| {
            extra |= e.on_turn_end(ctx)? == TurnEndVerdict::ExtraPart;
            Ok(())
        },
    )?;
    Ok(extra)
}

/// Lets every expansion with the hook remove actions from a prompt's offer (an [`Offered`]:
/// a filter can only remove). Out of line, as [`open_window`].
#[inline(never)]
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
fn filter_prompt_actions(
    rules: &Ruleset,
    st: &mut GameState,
    p: crate::prompt::Prompt,
) -> Result<(), HookError> {
    let mut offered = std::mem::take(&mut st.offered);
    let result = each_read(
        rules,
        st,
        HookSet::FILTER_PROMPT_ACTIONS,
        "filter_prompt_actions",
        |e, v| e.filter_prompt_actions(v, p, &mut Offered::new(&mut offered)),
    );
    st.offered = offered;
    result
}

/// Adds to the pending offer (a deployment step, or a prompt of expansion `owner`) the free
/// actions of every expansion with the hook but the owner, in load order: only each one's
/// own custom actions, each once. (A prompt's owner offers its own among its actions.)
#[inline(never)]
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
fn free_actions(
    rules: &Ruleset,
    st: &mut GameState,
    player: PlayerId,
    owner: Option<usize>,
) -> Result<(), HookError> {
    // Most calls with the Tower: its one gate (`captives`, a follower held) shut, found by
    // the hook's test chosen at build ([`Ruleset::quick_shut_hook`]) without a frame.
    if rules.quick_shut_hook(HookSet::FREE_ACTIONS, st) {
        debug_assert!(!any_gate_open(
            rules,
            st,
            HookSet::FREE_ACTIONS,
            rules.hook_members(HookSet::FREE_ACTIONS),
            None
        ));
        return Ok(());
    }
    free_actions_gated(rules, st, player, owner)
}

/// [`free_actions`] past the hook's test, out of line (off the per-turn section): the
/// gates one by one, then the hooks.
#[inline(never)]
fn free_actions_gated(
    rules: &Ruleset,
    st: &mut GameState,
    player: PlayerId,
    owner: Option<usize>,
) -> Result<(), HookError> {
    let bit = HookSet::FREE_ACTIONS;
    // Implementers that gate the hook (`HookGate`, the free actions' own state: a ransom
    // while some follower is held) are skipped while a gate is shut, as in `each`.
    let gated = rules.gated_members(bit);
    let members = rules.hook_members(bit);
    // Most calls when every implementer gates it: every gate shut (the hooks only read,
    // so the gates cannot open during the loop below), and nothing to ask.
    if members & !gated == 0 && !any_gate_open(rules, st, bit, members, owner) {
        return Ok(());
    }
    ask_free_actions(rules, st, player, owner, gated, members)
}

/// [`free_actions`] past its check, out of line: most calls stop at the check (every gate
/// shut), and stay a few cache lines long.
#[inline(never)]
fn ask_free_actions(
    rules: &Ruleset,
    st: &mut GameState,
    player: PlayerId,
    owner: Option<usize>,
    gated: u64,
    members: u64,
) -> Result<(), HookError> {
    let bit = HookSet::FREE_ACTIONS;
    let mut offered = std::mem::take(&mut st.offered);
    // Only the implementers (the hook's member mask), in load order.
    let result = visit(
        rules,
        members,
        |i| rules.hook_sets()[i].has(bit),
        |i| {
            if Some(i) == owner || (gated & (1 << i.min(63)) != 0 && !rules.gates_open(bit, i, st))
            {
                return Ok(());
            }
            let start = offered.len();
            one_read(rules, st, i, "free_actions", |e, v| {
                e.free_actions(v, player, &mut offered)
            })?;
            let own = |a: &Action| matches!(a, Action::Custom(c) if c.expansion.0 as usize == i);
            // Only an action of expansion `i` can equal one of its free actions, so only
            // those are compared whole (with the nine, a deployment step offers 100+
            // placements and moves). From the end: a repeat is usually one of the offer's
            // last actions (the Tower's deployment step lists its ransoms last).
            let mut k = start;
            while k < offered.len() {
                let a = &offered[k];
                if own(a) && !offered[..k].iter().rev().any(|b| own(b) && b == a) {
                    k += 1;
                } else {
                    offered.remove(k);
                }
            }
            Ok(())
        },
    );
    st.offered = offered;
    result
}

/// Whether some implementer of `bit` in `members` (every one gated; bit 63 for the
/// expansions from 63 on) other than `owner` has its gates open.
fn any_gate_open(
    rules: &Ruleset,
    st: &GameState,
    bit: HookSet,
    members: u64,
    owner: Option<usize>,
) -> bool {
    let mut found = false;
    let _ = visit(
        rules,
        members,
        |i| rules.hook_sets()[i].has(bit),
        |i| {
            found |= Some(i) != owner && rules.gates_open(bit, i, st);
            Ok(())
        },
    );
    found
}

/// Draws until a placeable tile comes up; fills the offered placements.
pub(crate) fn draw(rules: &Ruleset, st: &mut GameState) -> Result<Option<TileKindId>, HookError> {
    let mut redraws = 0usize;
    loop {
        let Some(tile) = st.supply.draw(&mut st.rng) else {
            return Ok(None);
        };
        if consider_drawn(rules, st, tile, &mut redraws)? {
            return Ok(Some(tile));
        }
    }
}

/// A tile just taken from the supply: the expansions' verdicts, then A-4. `true` when it is
/// to be placed (its placements are offered), `false` when it was discarded or sent back.
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn consider_drawn(
    rules: &Ruleset,
    st: &mut GameState,
    tile: TileKindId,
    redraws: &mut usize,
) -> Result<bool, HookError> {
    let mut verdict = DrawVerdict::Keep;
    let mut by = ExpansionIndex(0);
    let bit = HookSet::ON_TILE_DRAWN;
    let members = rules.hook_members(bit);
    // Nearly every draw of a game with the hook: it waits for the empty supply.
    let members = if members != 0 && rules.all_shut(bit, members, st) {
        0
    } else {
        members
    };
    each_in(rules, st, bit, members, "on_tile_drawn", |e, ctx| {
        if verdict == DrawVerdict::Keep {
            verdict = e.on_tile_drawn(ctx, tile)?;
            by = ctx.me();
        }
        Ok(())
    })?;
    match verdict {
        DrawVerdict::Keep => {}
        DrawVerdict::Discard => {
            st.discard(tile, DiscardReason::Expansion(by));
            return Ok(false);
        }
        DrawVerdict::Redraw => {
            *redraws += 1;
            if *redraws > st.supply.remaining() + 1 {
                return Err(HookError {
                    expansion: "core".into(),
                    hook: "on_tile_drawn",
                    message: "every remaining tile was sent back: the supply cannot be drawn from"
                        .into(),
                });
            }
            st.supply.put_back(tile);
            return Ok(false);
        }
    }
    legal_placements(rules, st, tile)?;
    if st.placement_count == 0 {
        st.discard(tile, DiscardReason::FitsNowhere);
        return Ok(false);
    }
    Ok(true)
}

/// A playout's deployment step answered from the tile's own deployments
/// ([`crate::Game::apply_tile_deploy`]): the step's offer without the expansions' additions
/// or free actions. Where the ruleset keeps the pass, each filter judges an action by
/// itself, so what is left is part of the listed offer, and the action at `pick`'s share
/// of it is applied as `Game::step` applies a chosen deployment.
#[inline(never)]
fn tile_deploy(rules: &Ruleset, st: &mut GameState, pick: u64) -> Result<(), HookError> {
    list_deploy_step::<false>(rules, st)?;
    // Multiply and shift: the index at `pick / 2⁶⁴` of the way along, without a division.
    let at = ((u128::from(pick) * st.offered.len() as u128) >> 64) as usize;
    let action = st.offered.get(at).copied().unwrap_or(Action::Pass);
    let (player, tile) = (st.active, st.last_placed.expect("a tile was placed"));
    st.decision = Decision {
        player,
        kind: DecisionKind::Deploy { tile },
    };
    st.deploy_choice = Some(action);
    match action {
        Action::Deploy { figure, segment } => {
            if let Some(f) = st.deploy(rules, player, figure, segment) {
                figure_placed(rules, st, f, segment)?;
            }
        }
        Action::Pass => {}
        _ => unreachable!("the tile's own deployments are deployments"),
    }
    Ok(())
}

/// Fills the deployment step's offers; returns whether there is a real choice. Out of line
/// (see [`advance`]).
#[inline(never)]
#[cfg_attr(target_os = "linux", link_section = ".text.carcassonne_hot")]
pub(crate) fn deploy_offers(rules: &Ruleset, st: &mut GameState) -> Result<bool, HookError> {
    list_deploy_step::<true>(rules, st)?;
    // With nothing to choose but passing there is no decision (JCZ also sends none), and
    // so no free action either.
    if matches!(st.offered.as_slice(), [] | [Action::Pass]) {
        return Ok(false);
    }
    if rules.any_hooks(HookSet::FREE_ACTIONS) {
        free_actions(rules, st, st.active, None)?;
    }
    Ok(true)
}

/// The deployment step's offer into the state's: core's deployments on the tile just
/// placed and the pass, what expansions add (`ADDED`), then every deployment filter.
#[inline(always)]
fn list_deploy_step<const ADDED: bool>(
    rules: &Ruleset,
    st: &mut GameState,
) -> Result<(), HookError> {
    let mut offered = std::mem::take(&mut st.offered);
    offered.clear();
    let player = st.active;
    let pos = st
        .board
        .tile(st.last_placed.expect("a tile was placed"))
        .pos;
    deployments_on_tile(rules, st, player, pos, &mut offered);
    offered.push(Action::Pass);
    let added = match ADDED {
        true => each_read(
            rules,
            st,
            HookSet::DEPLOY_STEP_ACTIONS,
            "deploy_step_actions",
            |e, v| e.deploy_step_actions(v, player, &mut offered),
        ),
        false => Ok(()),
    };
    let result = added.and_then(|()| {
        each_read(
            rules,
            st,
            HookSet::FILTER_DEPLOY_ACTIONS,
            "filter_deploy_actions",
            |e, v| e.filter_deploy_actions(v, player, &mut Offered::new(&mut offered)),
        )
    });
    st.offered = offered;
    result
}
