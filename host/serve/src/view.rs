//! What the page sees of a game: scores, events, supplies, the pending decision with every
//! legal action labelled, the board as SVG.

use carcassonne_core::{
    Action, DecisionKind, FigureKindDef, FigureLoc, Game, Rotation, SegmentId, TileKindId, VerbId,
    VerbValue, Visible,
};
use carcassonne_play::record::{encode_action, RecordAction, Target};
use carcassonne_play::replay::replay_output;
use carcassonne_render::geometry::TileGeom;
use carcassonne_render::style::{figure_outline, icon_colour, icon_path, path_data, player_colour};
use carcassonne_render::{render_board, render_tile, tile_geometry, BoardSvg, RenderOptions};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Tile side of the board drawings sent to the page.
pub const TILE_SIZE: f64 = 64.0;

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

/// The names expansions give to off-board features (`Visible::Place`: the City of
/// Carcassonne's quarters), as (`kind #local` as a label writes it, `name (group)`).
pub fn place_names(game: &Game) -> Vec<(String, String)> {
    let mut shown = Vec::new();
    if game.view().describe(&mut shown).is_err() {
        return Vec::new();
    }
    let st = game.state();
    let rules = game.rules();
    let mut out = Vec::new();
    for v in &shown {
        if let Visible::Place {
            group,
            name,
            segment,
        } = v
        {
            let node = st.graph().segment(*segment);
            if node.is_virtual() {
                out.push((
                    format!("{} #{}", rules.kind(node.kind).name, node.local),
                    format!("{name} ({group})"),
                ));
            }
        }
    }
    out
}

/// `label` made readable: off-board features called by their names (see [`place_names`]),
/// figures (`<seat>.<kind>.<n>` in records) as `<player>'s <kind> <n>`, neutral figures
/// (`<kind>.<n>`) as `the <kind> <n>`.
pub fn named(label: String, names: &[(String, String)], players: &[String]) -> String {
    let mut label = label;
    for (raw, name) in names {
        if label.contains(raw.as_str()) {
            label = label.replace(raw.as_str(), name);
        }
    }
    if !label.contains('.') {
        return label;
    }
    let words: Vec<String> = label
        .split(' ')
        .map(|w| {
            let parts: Vec<&str> = w.split('.').collect();
            match parts.as_slice() {
                [seat, kind, n]
                    if !kind.is_empty()
                        && n.bytes().all(|b| b.is_ascii_digit())
                        && !n.is_empty() =>
                {
                    match seat.parse::<usize>().ok().and_then(|i| players.get(i)) {
                        Some(p) => format!("{p}'s {kind} {n}"),
                        None => w.to_string(),
                    }
                }
                // A neutral figure (`<kind>.<n>`): nobody's.
                [kind, n]
                    if kind.starts_with(|c: char| c.is_ascii_lowercase())
                        && !n.is_empty()
                        && n.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    format!("the {kind} {n}")
                }
                _ => w.to_string(),
            }
        })
        .collect();
    words.join(" ")
}

/// The players' names, by seat.
pub fn player_names(game: &Game) -> Vec<String> {
    game.state()
        .players()
        .iter()
        .map(|p| p.name.clone())
        .collect()
}

/// The segment an action targets, if any.
fn segment_of(a: &Action) -> Option<SegmentId> {
    match a {
        Action::Deploy { segment, .. } | Action::Move { segment, .. } => Some(*segment),
        Action::Custom(c) => c.segment,
        _ => None,
    }
}

/// Where on its tile a figure put on `seg` would stand, as fractions of the tile side: the
/// first figure spot of the segment in the renderer's tile geometry (so a marker sits where
/// the figure will be drawn). `None` for a virtual feature (off the board).
fn spot_of(
    game: &Game,
    seg: SegmentId,
    geoms: &mut BTreeMap<(u16, u8), TileGeom>,
) -> Option<(f64, f64)> {
    let st = game.state();
    let node = st.graph().segment(seg);
    if node.is_virtual() {
        return None;
    }
    let placed = st.board().tile(node.tile);
    let rules = game.rules();
    let geom = geoms
        .entry((placed.kind.0, placed.rotation.quarters()))
        .or_insert_with(|| tile_geometry(rules, rules.tiles().get(placed.kind), placed.rotation));
    geom.figure_spot(node.local as usize, 0)
}

/// The legal actions, each with its index, kind, label and record form; those on a tile
/// feature also with `spot`, the figure spot on the tile (fractions of its side).
pub fn actions(game: &Game) -> Vec<Value> {
    let rules = game.rules();
    let mut geoms = BTreeMap::new();
    let names = place_names(game);
    let players = player_names(game);
    let shown = legend(game);
    game.actions()
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let ra = encode_action(rules, game, *a);
            let mut v = json!({
                "index": i,
                "kind": kind_of(a),
                "label": named(ra.to_string(), &names, &players),
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
            if let Some(p) = segment_of(a).and_then(|seg| spot_of(game, seg, &mut geoms)) {
                v["spot"] = json!([p.0, p.1]);
            }
            let said = match a {
                Action::Custom(c) => verb_said(game, c.verb, c.value),
                _ => VerbSaid::default(),
            };
            v["text"] = json!(named(words(&ra, &said), &names, &players));
            if let Some(icon) = action_icon(game, a) {
                v["icon"] = icon;
            } else if let RecordAction::Custom { verb, .. } = &ra {
                // A verb that names a neutral figure the expansion shows (`move-dragon`).
                if let Some(n) = shown
                    .iter()
                    .find(|n| verb.split('-').any(|w| n["name"] == w))
                {
                    v["icon"] = json!({ "d": n["d"], "fill": n["fill"], "name": n["name"] });
                }
            }
            v["record"] = serde_json::to_value(&ra).unwrap_or(Value::Null);
            v
        })
        .collect()
}

/// A declared name for people: `small-follower` → `small follower`.
fn spoken(name: &str) -> String {
    name.replace(['-', '_'], " ")
}

/// `a` or `an` before a spoken name (`an abbot`, `a small follower`).
fn article(name: &str) -> &'static str {
    match name.chars().next() {
        Some(c) if "aeiouAEIOU".contains(c) => "an",
        _ => "a",
    }
}

/// How a custom action is said: its verb's declared words (`Ruleset::verb_text`), which
/// replace the verb's name, and its value in words, if it means something to a player.
#[derive(Debug, Default)]
pub struct VerbSaid<'a> {
    /// The verb's words (`"move the dragon"`).
    pub text: Option<&'a str>,
    /// The value, as its verb declared it (`"a big follower"`, `"3"`); `None`: not said.
    pub value: Option<String>,
}

/// How `verb`'s action with `value` is said in `game`.
pub fn verb_said(game: &Game, verb: VerbId, value: i32) -> VerbSaid<'_> {
    let rules = game.rules();
    let kind = |k: i32| {
        let name = spoken(&rules.figure_kinds().get(usize::try_from(k).ok()?)?.name);
        Some(format!("{} {name}", article(&name)))
    };
    let value = match rules.verb_value(verb) {
        VerbValue::Number => (value != 0).then(|| value.to_string()),
        VerbValue::Hidden => None,
        VerbValue::FigureKind => kind(value),
        VerbValue::Points => Some(format!("{value} points")),
        VerbValue::Index => Some(format!("no. {}", i64::from(value) + 1)),
        VerbValue::TileKind => u16::try_from(value)
            .ok()
            .filter(|&k| usize::from(k) < rules.tiles().len())
            .map(|k| rules.tiles().get(TileKindId(k)).id.clone()),
        VerbValue::Corner => ["north-west", "north-east", "south-east", "south-west"]
            .get(value as usize)
            .map(|c| format!("at the {c} corner")),
        VerbValue::FigureKindOfSeat => {
            let seat = (value & 0xff) as usize;
            let held = game.state().players().get(seat).map(|p| p.name.clone());
            kind(value >> 8).map(|k| match held {
                Some(name) => format!("{k} held by {name}"),
                None => k,
            })
        }
    };
    VerbSaid {
        text: rules.verb_text(verb),
        value,
    }
}

/// An action in a sentence, from its record form: the figure kinds', verbs' and features'
/// own names (each expansion's words; the host adds only the verbs of the core actions).
/// A custom action is said as `said` says ([`verb_said`]).
pub fn words(ra: &RecordAction, said: &VerbSaid<'_>) -> String {
    match ra {
        RecordAction::Place {
            tile,
            x,
            y,
            rotation,
            ..
        } => format!("Place {tile} at ({x},{y}), turned {rotation}°"),
        RecordAction::Deploy { figure, target, .. } => {
            format!("Put a {} on the {}", spoken(figure), spot_words(target))
        }
        RecordAction::Move { figure, target, .. } => {
            format!("Move {figure} to the {}", spot_words(target))
        }
        RecordAction::Pass { .. } => "Pass".into(),
        RecordAction::Draw { tile, .. } => format!("Draw {tile}"),
        RecordAction::Custom {
            verb,
            figure,
            target,
            ..
        } => {
            let mut s = said.text.map_or_else(|| spoken(verb), str::to_string);
            if let Some(c) = s.get(0..1) {
                s.replace_range(0..1, &c.to_uppercase());
            }
            // Declared words are a whole phrase: what it is about follows a colon.
            let worded = said.text.is_some();
            let sep = if worded { ":" } else { "" };
            match (figure, target) {
                (Some(f), Some(t)) => s.push_str(&format!("{sep} {f} on the {}", spot_words(t))),
                (Some(f), None) => s.push_str(&format!("{sep} {f}")),
                (None, Some(t)) if worded => s.push_str(&format!(": the {}", spot_words(t))),
                (None, Some(t)) => s.push_str(&format!(" on the {}", spot_words(t))),
                (None, None) => {}
            }
            // The value, as the verb declared it (how many, which kind, whose).
            if let Some(v) = &said.value {
                let sep = if figure.is_some() || target.is_some() {
                    ","
                } else {
                    ":"
                };
                s.push_str(&format!("{sep} {v}"));
            }
            s
        }
    }
}

/// A recorded action in words ([`words`]), its custom verb's declared words looked up by
/// expansion and verb name, and figures and places named ([`named`]).
pub fn said(game: &Game, ra: &RecordAction) -> String {
    let rules = game.rules();
    let said = match ra {
        RecordAction::Custom {
            expansion,
            verb,
            value,
            ..
        } => rules
            .expansion_index(expansion)
            .and_then(|e| rules.verb_named(e, verb))
            .map(|v| verb_said(game, v, *value))
            .unwrap_or_default(),
        _ => VerbSaid::default(),
    };
    named(words(ra, &said), &place_names(game), &player_names(game))
}

/// A target in words: `city NW of (0,1)` → `city at the north and west sides of (0,1)`,
/// `cloister I of (0,1)` → `cloister in the middle of (0,1)`. Half-edges (`NL.NR`, a
/// field's) are named by their sides. A virtual feature (`quarter #0`) stays as it is:
/// [`named`] gives it its name.
fn spot_words(t: &Target) -> String {
    let loc = t.location.as_str();
    let at = if loc == "I" {
        "in the middle".to_string()
    } else if !loc.is_empty() && loc.chars().all(|c| "NESWLR.".contains(c)) {
        let sides: Vec<&str> = [('N', "north"), ('E', "east"), ('S', "south"), ('W', "west")]
            .iter()
            .filter(|(c, _)| loc.contains(*c))
            .map(|(_, w)| *w)
            .collect();
        match sides.as_slice() {
            [one] => format!("at the {one} side"),
            [a, b] => format!("at the {a} and {b} sides"),
            [a, b, c] => format!("at the {a}, {b} and {c} sides"),
            _ => "on all four sides".to_string(),
        }
    } else {
        return t.to_string();
    };
    match (t.x, t.y) {
        (Some(x), Some(y)) => format!("{} {at} of ({x},{y})", t.feature),
        _ => format!("{} {at}", t.feature),
    }
}

/// The icon of a figure kind in a 20×20 box: its outline (a neutral kind's named icon) and
/// colour (the seat's, or the neutral colour no seat uses).
fn figure_icon(kinds: &[FigureKindDef], kind: usize, seat: Option<usize>) -> Value {
    let def = &kinds[kind];
    let (cmds, fill) = if def.is_neutral() {
        // As the renderer draws it: its declared look and colour, else its named icon.
        let cmds = if def.look.is_empty() {
            icon_path(&def.name)
        } else {
            figure_outline(kind, def).0
        };
        let fill = if def.colour.is_empty() {
            icon_colour(&def.name).to_string()
        } else {
            def.colour.clone()
        };
        (cmds, fill)
    } else {
        let fill = match (def.colour.is_empty(), seat) {
            (true, Some(p)) => player_colour(p).to_string(),
            _ => def.colour.clone(),
        };
        (figure_outline(kind, def).0, fill)
    };
    json!({ "d": path_data(&cmds, 10.0, 10.0, 8.5, 0), "fill": fill, "name": spoken(&def.name) })
}

/// The icon of an action on a tile: the figure it puts or moves.
fn action_icon(game: &Game, a: &Action) -> Option<Value> {
    let rules = game.rules();
    let st = game.state();
    let kinds = rules.figure_kinds();
    let seat = Some(game.decision().player.index());
    match a {
        Action::Deploy { figure, .. } => Some(figure_icon(kinds, figure.0 as usize, seat)),
        Action::Move { figure, .. } => {
            let f = st.figure(*figure);
            Some(figure_icon(
                kinds,
                f.kind.0 as usize,
                f.seat().map(|p| p.index()),
            ))
        }
        Action::Custom(c) => c.figure.map(|fid| {
            let f = st.figure(fid);
            figure_icon(kinds, f.kind.0 as usize, f.seat().map(|p| p.index()))
        }),
        _ => None,
    }
}

/// What the pending decision asks, in words: `who`, the asking expansion's id (the page
/// shows its manifest name) and the choices, from the offered actions (verbs and figure
/// kinds as the expansion declared them). Replaces "X must answer a prompt of expansion y".
pub fn ask(game: &Game) -> Value {
    if game.is_over() {
        return Value::Null;
    }
    let rules = game.rules();
    let st = game.state();
    let d = game.decision();
    let who = st.players()[d.player.index()].name.clone();
    let mut choices: Vec<String> = Vec::new();
    let mut add = |c: String| {
        if !choices.contains(&c) {
            choices.push(c);
        }
    };
    for a in game.actions() {
        match a {
            Action::Place { .. } => add("place the drawn tile".into()),
            Action::Deploy { figure, .. } => {
                let name = spoken(&rules.figure_kind(*figure).name);
                add(format!("put {} {name}", article(&name)))
            }
            Action::Move { figure, .. } => {
                let k = rules.figure_kind(st.figure(*figure).kind);
                let whose = if k.is_neutral() { "the" } else { "a" };
                add(format!("move {whose} {}", spoken(&k.name)))
            }
            Action::Custom(c) => add(rules.verb_text(c.verb).map_or_else(
                || spoken(&rules.verbs()[c.verb.0 as usize].1),
                str::to_string,
            )),
            Action::Draw { .. } => add("draw a tile".into()),
            Action::Pass => {}
        }
    }
    let can_pass = game.actions().contains(&Action::Pass);
    let (expansion, step) = match d.kind {
        DecisionKind::PlaceTile { .. } => (None, "place"),
        DecisionKind::Deploy { .. } => (None, "deploy"),
        DecisionKind::Prompt(p) => (Some(rules.expansions()[p.owner.0 as usize].id()), "prompt"),
        DecisionKind::Draw => (None, "draw"),
        DecisionKind::GameOver => (None, "over"),
    };
    let mut text = choices.join(", ");
    if let Some(i) = text.rfind(", ") {
        text.replace_range(i..i + 2, " or ");
    }
    // A question the expansion put in words is said as it is (its answers are the buttons).
    let said = match d.kind {
        DecisionKind::Prompt(p) => rules.prompt_text(p),
        _ => None,
    };
    if let Some(said) = said {
        text = said.to_string();
    } else if can_pass {
        text = if text.is_empty() {
            "pass".into()
        } else {
            format!("{text}, or pass")
        };
    }
    if let Some(c) = text.get(0..1) {
        text.replace_range(0..1, &c.to_uppercase());
    }
    json!({ "who": who, "seat": d.player.index(), "step": step, "expansion": expansion, "text": text })
}

/// The drawn tile alone, unturned, as SVG (the page turns it with the chosen rotation).
pub fn drawn_tile(game: &Game) -> Value {
    match game.decision().kind {
        DecisionKind::PlaceTile { tile } if !game.is_over() => {
            let rules = game.rules();
            json!(render_tile(
                rules,
                rules.tiles().get(tile),
                Rotation::R0,
                TILE_SIZE
            ))
        }
        _ => Value::Null,
    }
}

/// The neutral figures and titles the expansions show (`describe`), for the legend: name,
/// icon and colour, the cell a figure stands on, a title's holder.
pub fn legend(game: &Game) -> Vec<Value> {
    let mut shown = Vec::new();
    if game.view().describe(&mut shown).is_err() {
        return Vec::new();
    }
    let st = game.state();
    let mut out = Vec::new();
    for v in &shown {
        match v {
            Visible::NeutralFigure {
                name,
                icon,
                segment,
                ..
            } => {
                let node = st.graph().segment(*segment);
                // Drawn as its figure kind when one has its name (its declared colour).
                let kinds = game.rules().figure_kinds();
                let mut e = match kinds.iter().position(|k| &k.name == name) {
                    Some(i) => figure_icon(kinds, i, None),
                    None => json!({
                        "name": spoken(name),
                        "d": path_data(&icon_path(icon), 10.0, 10.0, 8.5, 0),
                        "fill": icon_colour(icon),
                    }),
                };
                if node.is_virtual() {
                    // Off the board the renderer draws it in its off-board colour.
                    e["fill"] = json!(carcassonne_render::style::COUNT);
                } else {
                    let pos = st.board().tile(node.tile).pos;
                    e["x"] = json!(pos.x);
                    e["y"] = json!(pos.y);
                }
                out.push(e);
            }
            Visible::Title {
                group,
                name,
                icon,
                holder,
                detail,
            } => out.push(json!({
                "name": format!("{name} ({group})"),
                "d": path_data(&icon_path(icon), 10.0, 10.0, 8.5, 0),
                "fill": icon_colour(icon),
                "holder": holder.map(|p| st.players()[p.index()].name.clone()),
                "detail": detail,
            })),
            _ => {}
        }
    }
    // Neutral figure kinds not shown on the board yet (a script's Herald before it walks).
    let kinds = game.rules().figure_kinds();
    for (i, k) in kinds.iter().enumerate() {
        let name = spoken(&k.name);
        if k.is_neutral() && !out.iter().any(|e| e["name"] == name.as_str()) {
            out.push(figure_icon(kinds, i, None));
        }
    }
    out
}

/// Each player's figures in supply, by kind name.
pub fn supplies(game: &Game) -> Vec<BTreeMap<String, u32>> {
    let rules = game.rules();
    let st = game.state();
    let mut out = vec![BTreeMap::new(); st.players().len()];
    // Neutral figures are in nobody's supply.
    for f in st.figures() {
        let Some(seat) = f.seat() else {
            continue;
        };
        let e = out[seat.index()]
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
    let (mut v, board) = position_parts(game, with_actions);
    v["board"] = json!(board.to_svg());
    v
}

/// The view of a position without its `board`, and the board in parts (a server sends the
/// board whole or as what changed: `delta.rs`).
pub fn position_parts(game: &Game, with_actions: bool) -> (Value, BoardSvg) {
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
                "colour": player_colour(i),
            })
        })
        .collect();
    let opts = RenderOptions {
        tile_size: TILE_SIZE,
        caption: None,
        order_numbers: false,
    };
    let v = json!({
        "finished": game.is_over(),
        "current": current,
        "prompt": if game.is_over() { Value::Null } else { json!(game.describe_decision()) },
        "ask": ask(game),
        "drawn_tile": drawn_tile(game),
        "legend": legend(game),
        "players": players,
        "events": out.events,
        "pending": out.pending,
        "slots": out.state,
        "discards": out.discards,
        "tiles_left": st.supply().remaining(),
        "actions": if with_actions && !game.is_over() { actions(game) } else { Vec::new() },
        "tile_size": TILE_SIZE,
    });
    (v, render_board(game, &opts))
}

#[cfg(test)]
mod tests {
    use super::{named, spot_words, words, VerbSaid};
    use carcassonne_play::record::{RecordAction, Target};

    /// Issue 32: actions read in the expansions' own words (verbs, figure kinds), never
    /// as `expansion: verb` keys.
    #[test]
    fn actions_in_words() {
        let road = Target {
            x: Some(0),
            y: Some(1),
            feature: "road".into(),
            location: "WE".into(),
        };
        let deploy = RecordAction::Deploy {
            player: 0,
            figure: "small-follower".into(),
            target: road.clone(),
        };
        assert_eq!(
            words(&deploy, &VerbSaid::default()),
            "Put a small follower on the road at the east and west sides of (0,1)"
        );
        let take = RecordAction::Custom {
            player: 1,
            expansion: "tactician".into(),
            verb: "take-token".into(),
            figure: None,
            target: None,
            value: 0,
        };
        assert_eq!(words(&take, &VerbSaid::default()), "Take token");
        // Declared words replace the verb's name; what the action is about follows a colon.
        assert_eq!(
            words(
                &take,
                &VerbSaid {
                    text: Some("take your tactician token"),
                    value: None
                }
            ),
            "Take your tactician token"
        );
        let dragon = RecordAction::Custom {
            player: 1,
            expansion: "princess-dragon".into(),
            verb: "move-dragon".into(),
            figure: None,
            target: Some(road.clone()),
            value: 0,
        };
        assert_eq!(
            words(
                &dragon,
                &VerbSaid {
                    text: Some("move the dragon"),
                    value: None
                }
            ),
            "Move the dragon: the road at the east and west sides of (0,1)"
        );
        // A value said as its verb declared it (TW-6: which follower caps the tower).
        let cap = RecordAction::Custom {
            player: 0,
            expansion: "tower".into(),
            verb: "cap-tower".into(),
            figure: None,
            target: Some(road.clone()),
            value: 1,
        };
        assert_eq!(
            words(
                &cap,
                &VerbSaid {
                    text: Some("finish a tower with a follower"),
                    value: Some("a big follower".into())
                }
            ),
            "Finish a tower with a follower: the road at the east and west sides of (0,1), a big follower"
        );
        assert_eq!(
            words(&dragon, &VerbSaid::default()),
            "Move dragon on the road at the east and west sides of (0,1)"
        );
        let moved = RecordAction::Move {
            player: 0,
            figure: "dragon.0".into(),
            target: road.clone(),
        };
        let players = vec!["Ann".to_string()];
        assert_eq!(
            named(words(&moved, &VerbSaid::default()), &[], &players),
            "Move the dragon 0 to the road at the east and west sides of (0,1)"
        );
        assert_eq!(
            words(&RecordAction::Pass { player: 0 }, &VerbSaid::default()),
            "Pass"
        );
        // Never raw location letters (JCZ notation): sides and the middle in words.
        let spot = |location: &str| {
            spot_words(&Target {
                x: Some(2),
                y: Some(-1),
                feature: "field".into(),
                location: location.into(),
            })
        };
        assert_eq!(
            spot("NL.NR.EL"),
            "field at the north and east sides of (2,-1)"
        );
        assert_eq!(spot("I"), "field in the middle of (2,-1)");
        assert_eq!(spot("NESW"), "field on all four sides of (2,-1)");
        assert_eq!(spot("N"), "field at the north side of (2,-1)");
        assert_eq!(spot("#3"), "field #3 of (2,-1)");
    }

    #[test]
    fn labels_name_places_and_figures() {
        let places = vec![(
            "quarter #0".to_string(),
            "castle (City of Carcassonne)".to_string(),
        )];
        let players = vec!["Ann".to_string(), "Bob".to_string()];
        assert_eq!(
            named(
                "put a small-follower on the quarter #0".into(),
                &places,
                &players
            ),
            "put a small-follower on the castle (City of Carcassonne)"
        );
        assert_eq!(
            named(
                "princess-dragon: move-fairy 1.small-follower.2 → field NL.NR of (0,-1)".into(),
                &places,
                &players
            ),
            "princess-dragon: move-fairy Bob's small-follower 2 → field NL.NR of (0,-1)"
        );
        // A neutral figure is nobody's.
        assert_eq!(
            named("move herald.1 → road WE of (0,1)".into(), &places, &players),
            "move the herald 1 → road WE of (0,1)"
        );
        // A seat that does not exist stays as it was.
        assert_eq!(
            named("move 7.wagon.1 to".into(), &places, &players),
            "move 7.wagon.1 to"
        );
    }
}
