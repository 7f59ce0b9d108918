//! Abbey & Mayor in JCZ saves (`jcz-saves.md` §11): the abbey is a `PLACE_TILE` of `AM/A`
//! in the step before the draw (a `PASS` there declines it and the tile is drawn); a
//! wagon's move after its feature scored is a `DEPLOY_MEEPLE` of `P.wagon.k` (pointer = the
//! target feature) or a `PASS`; the barn is a `DEPLOY_MEEPLE` of `P.barn.k` on a `Field`
//! pointer. Everything goes through what our `abbey-mayor` expansion offers; nothing here
//! knows its rules.
//!
//! JCZ points a barn at the tile whose north-west corner is the barn's corner (the field
//! of that tile at its NW corner); our `barn` action names the placed tile's field at one of
//! its corners (`value` 0 NW, 1 NE, 2 SE, 3 SW). The two meet through the cell offset.

use super::{pointer, Replayer};
use carcassonne_core::{Action, DecisionKind, Game, HalfEdge, Pos};
use carcassonne_play::record::{target_of, RecordAction};
use carcassonne_play::replay::DeploymentOut;
use serde_json::Value;

/// The JCZ id of the abbey tile.
pub(super) const ABBEY_TILE: &str = "AM/A";

/// Whether the pending decision is one of `abbey-mayor`'s prompts with tag in `tags`
/// (1 = the abbey instead of a draw, 2 and 3 = a wagon's move).
fn at_prompt(game: &Game, tags: &[u16]) -> bool {
    let Some(ix) = game.rules().expansion_index("abbey-mayor") else {
        return false;
    };
    matches!(game.decision().kind, DecisionKind::Prompt(p) if p.owner == ix && tags.contains(&p.code().tag))
}

/// The abbey prompt (AM-3) is pending.
pub(super) fn at_abbey_prompt(game: &Game) -> bool {
    at_prompt(game, &[1])
}

/// Passes a wagon question JCZ never asks (AMQ-3: our C1 lets a wagon scored on an abbey
/// move to a road or city the abbey closed; JCZ offers no move there). Any message other
/// than a wagon's deployment, a `PASS` or the `COMMIT` (our engine scores as soon as the
/// action step ends, JCZ after the `COMMIT`, so the question is already pending then)
/// answers it with a pass first.
pub(super) fn pass_unasked_wagon(r: &mut Replayer, kind: &str, p: &Value) -> Result<(), String> {
    let wagon_msg = kind == "PASS"
        || kind == "COMMIT"
        || (kind == "DEPLOY_MEEPLE"
            && p.get("meepleId")
                .and_then(Value::as_str)
                .is_some_and(|m| m.split('.').nth(1) == Some("wagon")));
    while !wagon_msg && at_prompt(&r.game, &[2, 3]) {
        r.apply(Action::Pass)?;
    }
    Ok(())
}

/// `PLACE_TILE` of `AM/A`: the offered abbey placement into that hole. JCZ offers every
/// rotation of the abbey; ours only rotation 0 (its edges are all alike), so any rotation
/// the save names is that placement.
pub(super) fn place_abbey(r: &mut Replayer, pos: Pos) -> Result<bool, String> {
    if !at_abbey_prompt(&r.game) {
        return Err(format!(
            "the abbey cannot be placed now ({})",
            r.game.describe_decision()
        ));
    }
    let action = r
        .game
        .actions()
        .iter()
        .copied()
        .find(|a| matches!(a, Action::Place { pos: p, .. } if *p == pos))
        .ok_or_else(|| {
            format!(
                "placing the abbey at [{}, {}] is not legal here (not a hole, or refused)",
                pos.x, pos.y
            )
        })?;
    r.apply(action)?;
    Ok(true)
}

/// `DEPLOY_MEEPLE` of a barn: the offered `barn` action at the corner JCZ's pointer names
/// (the north-west corner of the pointer's tile), on the farm the pointer names.
pub(super) fn deploy_barn(r: &mut Replayer, meeple: &str, ptr: &Value) -> Result<bool, String> {
    let game = &r.game;
    let rules = game.rules();
    let verb = rules
        .expansion_index("abbey-mayor")
        .and_then(|ix| rules.verb_named(ix, "barn"))
        .ok_or("Abbey & Mayor is not in this game")?;
    if ptr.get("feature").and_then(Value::as_str) != Some("Field") {
        return Err(format!(
            "a barn goes on a `Field`, not on {}",
            pointer::describe(ptr)
        ));
    }
    let at = pointer::position(ptr.get("position"))?;
    let segments = pointer::segments(game, ptr)?;
    let st = game.state();
    let placed = st
        .last_placed()
        .map(|i| st.board().tile(i).pos)
        .ok_or("no tile has been placed")?;
    // The corner of the placed tile that is the NW corner of the pointer's tile.
    let corner = match (at.x - placed.x, at.y - placed.y) {
        (0, 0) => 0,
        (1, 0) => 1,
        (1, 1) => 2,
        (0, 1) => 3,
        _ => {
            return Err(format!(
                "barn `{meeple}` at {}: no corner of the tile just placed",
                pointer::describe(ptr)
            ))
        }
    };
    let g = st.graph();
    let action = game
        .actions()
        .iter()
        .copied()
        .find(|a| {
            matches!(a, Action::Custom(c) if c.verb == verb && c.value == corner
                && c.segment.is_some_and(|s| segments.iter().any(|t| g.feature_of(*t) == g.feature_of(s))))
        })
        .ok_or_else(|| {
            format!(
                "deploying `{meeple}` to {} is not legal here ({})",
                pointer::describe(ptr),
                game.describe_decision()
            )
        })?;
    r.apply(action)?;
    Ok(true)
}

/// The replay output in JCZ's terms for Abbey & Mayor: the abbey question is JCZ's tile
/// step of `AM/A` (JCZ lists every rotation of it, ours only rotation 0: its edges are all
/// alike), and each offered barn is also listed as a `barn` deployment on JCZ's pointer (the
/// field at the north-west corner of the tile whose corner it is), so `Meeple Barn options`
/// assertions compare.
pub(super) fn jcz_pending(game: &Game, p: &mut carcassonne_play::replay::Pending) {
    if at_abbey_prompt(game) {
        p.tile = Some(ABBEY_TILE.to_string());
        for c in &mut p.placements {
            c.rotations = vec![0, 90, 180, 270];
        }
    }
    let mut barns = Vec::new();
    for c in &p.custom {
        let RecordAction::Custom {
            expansion,
            verb,
            target: Some(t),
            value,
            ..
        } = c
        else {
            continue;
        };
        if expansion != "abbey-mayor" || verb != "barn" {
            continue;
        }
        let (Some(x), Some(y)) = (t.x, t.y) else {
            continue;
        };
        let (dx, dy) = match value {
            0 => (0, 0),
            1 => (1, 0),
            2 => (1, 1),
            3 => (0, 1),
            _ => continue,
        };
        let pos = Pos::new(x + dx, y + dy);
        let st = game.state();
        let Some(tile) = st.board().at(pos) else {
            continue;
        };
        let tk = game.rules().tiles().get(tile.kind);
        // NL: the north-west corner's half-edge on the north side.
        let Some(local) = tk.segment_on_half(tile.rotation, HalfEdge::from_index(0)) else {
            continue;
        };
        let seg = tile.segment(usize::from(local));
        let at = target_of(game.rules(), st, seg);
        barns.push(DeploymentOut {
            figure: "barn".into(),
            feature: at.feature,
            x: at.x,
            y: at.y,
            location: at.location,
        });
    }
    p.deployments.extend(barns);
}
