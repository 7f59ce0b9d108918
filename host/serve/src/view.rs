//! What the page sees of a game: scores, events, supplies, the pending decision with every
//! legal action labelled, the board as SVG.

use carcassonne_core::{Action, FigureLoc, Game};
use carcassonne_play::record::{encode_action, RecordAction, Target};
use carcassonne_play::replay::replay_output;
use carcassonne_render::{render_svg, RenderOptions};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Tile side of the board drawings sent to the page.
pub const TILE_SIZE: f64 = 64.0;

fn where_text(t: &Target) -> String {
    match (t.x, t.y) {
        (Some(x), Some(y)) => format!("{} {} of ({x},{y})", t.feature, t.location),
        _ => format!("{} {}", t.feature, t.location),
    }
}

/// A readable label of a record action.
pub fn label(a: &RecordAction) -> String {
    match a {
        RecordAction::Place {
            tile,
            x,
            y,
            rotation,
            ..
        } => format!("place {tile} at ({x},{y}) turned {rotation}°"),
        RecordAction::Deploy { figure, target, .. } => {
            format!("put a {figure} on the {}", where_text(target))
        }
        RecordAction::Move { figure, target, .. } => {
            format!("move {figure} to the {}", where_text(target))
        }
        RecordAction::Pass { .. } => "pass".into(),
        RecordAction::Draw { tile, .. } => format!("draw {tile}"),
        RecordAction::Custom {
            expansion,
            verb,
            figure,
            target,
            value,
            ..
        } => {
            let mut s = format!("{expansion}: {verb}");
            if let Some(f) = figure {
                s.push_str(&format!(" {f}"));
            }
            if let Some(t) = target {
                s.push_str(&format!(" → {}", where_text(t)));
            }
            if *value != 0 {
                s.push_str(&format!(" ({value})"));
            }
            s
        }
    }
}

fn kind_of(a: &Action) -> &'static str {
    match a {
        Action::Place { .. } => "place",
        Action::Deploy { .. } => "deploy",
        Action::Move { .. } => "move",
        Action::Pass => "pass",
        Action::Draw { .. } => "draw",
        Action::Custom(_) => "custom",
    }
}

/// The cell an action concerns, if any (to highlight it).
pub fn cell_of(a: &RecordAction) -> Option<(i32, i32)> {
    match a {
        RecordAction::Place { x, y, .. } => Some((*x, *y)),
        RecordAction::Deploy { target, .. } | RecordAction::Move { target, .. } => {
            target.x.zip(target.y)
        }
        RecordAction::Custom {
            target: Some(t), ..
        } => t.x.zip(t.y),
        _ => None,
    }
}

/// The legal actions, each with its index, kind, label and record form.
pub fn actions(game: &Game) -> Vec<Value> {
    let rules = game.rules();
    game.actions()
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let ra = encode_action(rules, game, *a);
            let mut v = json!({
                "index": i,
                "kind": kind_of(a),
                "label": label(&ra),
            });
            if let Some((x, y)) = cell_of(&ra) {
                v["x"] = json!(x);
                v["y"] = json!(y);
            }
            match &ra {
                RecordAction::Place { rotation, .. } => v["rotation"] = json!(rotation),
                RecordAction::Deploy { target, .. }
                | RecordAction::Move { target, .. }
                | RecordAction::Custom {
                    target: Some(target),
                    ..
                } => v["location"] = json!(target.location),
                _ => {}
            }
            v["record"] = serde_json::to_value(&ra).unwrap_or(Value::Null);
            v
        })
        .collect()
}

/// Each player's figures in supply, by kind name.
pub fn supplies(game: &Game) -> Vec<BTreeMap<String, u32>> {
    let rules = game.rules();
    let st = game.state();
    let mut out = vec![BTreeMap::new(); st.players().len()];
    for f in st.figures() {
        let e = out[f.owner.index()]
            .entry(rules.figure_kind(f.kind).name.clone())
            .or_insert(0u32);
        if f.loc == FigureLoc::Supply {
            *e += 1;
        }
    }
    out
}

/// The whole view of a game position (without the seat-specific parts).
pub fn position(game: &Game, with_actions: bool) -> Value {
    let out = replay_output(game);
    let st = game.state();
    let supplies = supplies(game);
    let current = (!game.is_over()).then(|| game.decision().player.index());
    let players: Vec<Value> = st
        .players()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!({
                "seat": i,
                "name": p.name,
                "score": p.score,
                "supply": supplies[i],
            })
        })
        .collect();
    let opts = RenderOptions {
        tile_size: TILE_SIZE,
        caption: None,
        order_numbers: false,
    };
    json!({
        "finished": game.is_over(),
        "current": current,
        "prompt": if game.is_over() { Value::Null } else { json!(game.describe_decision()) },
        "players": players,
        "events": out.events,
        "pending": out.pending,
        "slots": out.state,
        "discards": out.discards,
        "tiles_left": st.supply().remaining(),
        "actions": if with_actions && !game.is_over() { actions(game) } else { Vec::new() },
        "board": render_svg(game, &opts),
        "tile_size": TILE_SIZE,
    })
}
