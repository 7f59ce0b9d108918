//! The Tower in JCZ saves (`jcz-saves.md` §3, §11): `PLACE_TOKEN` with token `TOWER_PIECE`
//! (pointer `{position, feature: Tower, location: I}`), `CAPTURE_FOLLOWER` (pointer
//! `{featurePointer, meepleId}`), `PAY_RANSOM` (`{meepleId}` of the prisoner), and
//! `DEPLOY_MEEPLE` onto a `Tower` pointer (a follower capping the tower). Everything goes
//! through the actions our `tower` expansion offers; nothing here knows its rules.
//!
//! Our engine asks the turn player at the start of his turn whether he pays a ransom (a
//! prompt before the draw); JCZ has no such step, so any other message passes that prompt
//! first ([`pass_ransom_prompt`]).

use super::{pointer, str_field, Replayer};
use carcassonne_core::{Action, DecisionKind, FigureId, FigureLoc, Game, SlotId};
use serde_json::Value;

/// The `tower` expansion's verb `name`, if the Tower is loaded.
fn verb(game: &Game, name: &str) -> Option<carcassonne_core::VerbId> {
    let rules = game.rules();
    rules.verb_named(rules.expansion_index("tower")?, name)
}

/// The `tower.jailer` figure slot.
fn jailer_slot(game: &Game) -> Option<SlotId> {
    let rules = game.rules();
    let ix = rules.expansion_index("tower")?;
    rules
        .slots()
        .iter()
        .position(|d| d.expansion == ix && d.name == "jailer")
        .map(|i| SlotId(i as u16))
}

/// Whether the pending decision is the Tower's ransom question before the draw (tag 3 of
/// `TowerPrompt` in `expansions/tower`).
fn at_ransom_prompt(game: &Game) -> bool {
    let Some(ix) = game.rules().expansion_index("tower") else {
        return false;
    };
    matches!(game.decision().kind, DecisionKind::Prompt(p) if p.owner == ix && p.code().tag == 3)
}

/// Passes the Tower's ransom question before the draw when the save places its tile
/// instead (JCZ asks nothing there; a `COMMIT` before it only sets the next draw's random
/// number). A ransom paid in the action step gives the step back, which `COMMIT` passes
/// like any open step.
pub(super) fn pass_ransom_prompt(r: &mut Replayer, kind: &str) -> Result<(), String> {
    if kind == "PLACE_TILE" && at_ransom_prompt(&r.game) {
        r.apply(Action::Pass)?;
    }
    Ok(())
}

/// `PLACE_TOKEN`: a tower piece on the tower the pointer names.
pub(super) fn place_token(r: &mut Replayer, p: &Value) -> Result<bool, String> {
    let token = str_field(p, "token")?;
    if token != "TOWER_PIECE" {
        return Err(format!(
            "token `{token}` is not supported (only `TOWER_PIECE`)"
        ));
    }
    let piece = verb(&r.game, "tower-piece").ok_or("the Tower is not in this game")?;
    let ptr = p.get("pointer").ok_or("payload has no `pointer`")?;
    let segments = pointer::segments(&r.game, ptr)?;
    let action = r
        .game
        .actions()
        .iter()
        .copied()
        .find(|a| {
            matches!(a, Action::Custom(c)
                if c.verb == piece && c.segment.is_some_and(|s| segments.contains(&s)))
        })
        .ok_or_else(|| {
            format!(
                "a tower piece on {} is not legal here ({})",
                pointer::describe(ptr),
                r.game.describe_decision()
            )
        })?;
    let d = r.game.decision();
    r.apply(action)?;
    Ok(r.game.decision().player == d.player)
}

/// `DEPLOY_MEEPLE` onto a `Tower` pointer: the follower caps the tower.
pub(super) fn cap(r: &mut Replayer, meeple: &str, ptr: &Value) -> Result<bool, String> {
    let cap = verb(&r.game, "cap-tower").ok_or("the Tower is not in this game")?;
    let (owner, kind) = pointer::meeple(r.game.rules(), meeple)?;
    let segments = pointer::segments(&r.game, ptr)?;
    let action = r
        .game
        .actions()
        .iter()
        .copied()
        .find(|a| {
            matches!(a, Action::Custom(c)
                if c.verb == cap
                    && c.value == kind.0 as i32
                    && c.segment.is_some_and(|s| segments.contains(&s)))
        })
        .ok_or_else(|| {
            format!(
                "capping the tower {} with `{meeple}` is not legal here ({})",
                pointer::describe(ptr),
                r.game.describe_decision()
            )
        })?;
    let Some(Action::Custom(c)) = Some(action) else {
        unreachable!("found above")
    };
    let seg = c.segment.ok_or("a cap names its tower")?;
    let d = r.game.decision();
    r.apply(action)?;
    let st = r.game.state();
    let placed = (0..st.figures().len())
        .map(|i| FigureId(i as u16))
        .find(|f| {
            let fig = st.figure(*f);
            fig.owner == owner && fig.kind == kind && fig.loc == FigureLoc::On(seg)
        });
    if let Some(f) = placed {
        r.meeples.insert(meeple.to_string(), f);
    }
    Ok(r.game.decision().player == d.player)
}

/// `CAPTURE_FOLLOWER`: the offered capture of the follower with that meeple id.
pub(super) fn capture(r: &mut Replayer, p: &Value) -> Result<bool, String> {
    let capture = verb(&r.game, "capture").ok_or("the Tower is not in this game")?;
    let ptr = p.get("pointer").ok_or("payload has no `pointer`")?;
    let meeple = str_field(ptr, "meepleId")?;
    let figure = r
        .meeples
        .get(meeple)
        .copied()
        .filter(|f| matches!(r.game.state().figure(*f).loc, FigureLoc::On(_)))
        .ok_or_else(|| format!("meeple `{meeple}` is not on the board"))?;
    let action = r
        .game
        .actions()
        .iter()
        .copied()
        .find(|a| matches!(a, Action::Custom(c) if c.verb == capture && c.figure == Some(figure)))
        .ok_or_else(|| {
            format!(
                "capturing `{meeple}` is not legal here ({})",
                r.game.describe_decision()
            )
        })?;
    let d = r.game.decision();
    r.apply(action)?;
    Ok(r.game.decision().player == d.player)
}

/// `PAY_RANSOM`: the turn player buys back the prisoner with that meeple id.
pub(super) fn pay_ransom(r: &mut Replayer, p: &Value) -> Result<bool, String> {
    let ransom = verb(&r.game, "pay-ransom").ok_or("the Tower is not in this game")?;
    let jailer = jailer_slot(&r.game).ok_or("the Tower is not in this game")?;
    let meeple = str_field(p, "meepleId")?;
    let st = r.game.state();
    let figure = r
        .meeples
        .get(meeple)
        .copied()
        .filter(|f| st.figure(*f).loc == FigureLoc::Removed)
        .ok_or_else(|| format!("meeple `{meeple}` is not a prisoner"))?;
    let j = st.slot(jailer, figure.0 as usize) - 1;
    // `pay-ransom`'s value: the jailer's seat + 256 × the figure kind.
    let value = j as i32 + 256 * st.figure(figure).kind.0 as i32;
    let action = r
        .game
        .actions()
        .iter()
        .copied()
        .find(|a| matches!(a, Action::Custom(c) if c.verb == ransom && c.value == value))
        .ok_or_else(|| {
            format!(
                "paying the ransom for `{meeple}` is not legal here ({})",
                r.game.describe_decision()
            )
        })?;
    let d = r.game.decision();
    r.apply(action)?;
    Ok(r.game.decision().player == d.player)
}
