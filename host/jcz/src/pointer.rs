//! JCZ pointers and identifiers (`jcz-saves.md` §6, §7) in our terms: positions, meeple ids,
//! feature pointers → segments, and the City of Carcassonne's quarters.

use carcassonne_core::{FigureKindId, Game, PlayerId, Pos, Ruleset, SegmentId};
use carcassonne_play::record::{segment_of, Target};
use serde_json::Value;

/// The quarters in our slot order (the `count` expansion's virtual features `#0` … `#3`).
pub const QUARTERS: [&str; 4] = [
    "QUARTER_CASTLE",
    "QUARTER_MARKET",
    "QUARTER_BLACKSMITH",
    "QUARTER_CATHEDRAL",
];

/// The tile the quarters sit on in JCZ's pointers.
const QUARTER_TILE: &str = "CO/7";

/// `[x, y]`.
pub fn position(v: Option<&Value>) -> Result<Pos, String> {
    let xy = v
        .and_then(Value::as_array)
        .filter(|a| a.len() == 2)
        .and_then(|a| Some((a[0].as_i64()?, a[1].as_i64()?)))
        .ok_or_else(|| format!("position must be [x, y], not {}", v.unwrap_or(&Value::Null)))?;
    let fit = |n: i64| i32::try_from(n).map_err(|_| format!("coordinate {n} is out of range"));
    Ok(Pos::new(fit(xy.0)?, fit(xy.1)?))
}

/// JCZ figure kinds (`<player>.<kind>.<k>`) we can map, with our figure kind names.
const MEEPLE_KINDS: &[(&str, &str)] = &[("small", "small-follower")];

/// `"1.small.3"` → player 1, the small follower.
pub fn meeple(rules: &Ruleset, id: &str) -> Result<(PlayerId, FigureKindId), String> {
    let mut parts = id.split('.');
    let (Some(p), Some(kind), Some(_k), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("meeple id `{id}` is not `<player>.<kind>.<n>`"));
    };
    let player: u8 = p
        .parse()
        .map_err(|_| format!("meeple id `{id}`: `{p}` is not a player index"))?;
    let ours = MEEPLE_KINDS
        .iter()
        .find(|(j, _)| *j == kind)
        .map(|(_, o)| *o)
        .ok_or_else(|| format!("meeple id `{id}`: figure kind `{kind}` is not supported"))?;
    let figure = rules
        .figure_named(ours)
        .ok_or_else(|| format!("meeple id `{id}`: no figure `{ours}` in this game"))?;
    Ok((PlayerId(player), figure))
}

/// Our feature kind names for a JCZ feature class.
fn kinds_of(class: &str) -> Result<&'static [&'static str], String> {
    Ok(match class {
        "City" => &["city"],
        "Road" => &["road"],
        "Field" => &["field"],
        // JCZ has one class for cloisters, shrines and abbeys.
        "Monastery" => &["cloister", "shrine"],
        "Quarter" => &["quarter"],
        other => return Err(format!("feature class `{other}` is not supported")),
    })
}

/// The segments a feature pointer `{position, feature, location}` can mean (one, except
/// for a `Monastery`, which is tried as cloister and as shrine).
pub fn segments(game: &Game, ptr: &Value) -> Result<Vec<SegmentId>, String> {
    let rules = game.rules();
    let st = game.state();
    let class = ptr
        .get("feature")
        .and_then(Value::as_str)
        .ok_or("pointer has no `feature`")?;
    let location = ptr
        .get("location")
        .and_then(Value::as_str)
        .ok_or("pointer has no `location`")?;
    if class == "Quarter" {
        let q = QUARTERS
            .iter()
            .position(|n| *n == location)
            .ok_or_else(|| format!("`{location}` is not a quarter of the City of Carcassonne"))?;
        let t = Target {
            x: None,
            y: None,
            feature: "quarter".into(),
            location: format!("#{q}"),
        };
        return segment_of(rules, st, &t).map(|s| vec![s]);
    }
    let pos = position(ptr.get("position"))?;
    let mut found = Vec::new();
    let mut last_err = String::new();
    for kind in kinds_of(class)? {
        if rules.kind_named(kind).is_none() {
            continue;
        }
        let t = Target {
            x: Some(pos.x),
            y: Some(pos.y),
            feature: kind.to_string(),
            location: location.to_string(),
        };
        match segment_of(rules, st, &t) {
            Ok(s) => found.push(s),
            Err(e) => last_err = e,
        }
    }
    if found.is_empty() {
        return Err(format!("pointer {}: {last_err}", describe(ptr)));
    }
    Ok(found)
}

/// `City SE at [-1, 1]`, for messages.
pub fn describe(ptr: &Value) -> String {
    if ptr.is_array() {
        return format!("cell {ptr}");
    }
    let s = |k: &str| {
        ptr.get(k)
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string()
    };
    match ptr.get("position") {
        Some(p) => format!("{} {} at {p}", s("feature"), s("location")),
        None => format!("{} {}", s("feature"), s("location")),
    }
}

/// Rewrites our `quarter #q` target as JCZ's `QUARTER_*` on the tile `CO/7`.
pub fn quarter_to_jcz(
    game: &Game,
    x: &mut Option<i32>,
    y: &mut Option<i32>,
    feature: &str,
    location: &mut String,
) {
    if feature != "quarter" || x.is_some() {
        return;
    }
    let Some(q) = location
        .strip_prefix('#')
        .and_then(|s| s.parse::<usize>().ok())
        .and_then(|q| QUARTERS.get(q))
    else {
        return;
    };
    let rules = game.rules();
    let tile = game
        .state()
        .board()
        .tiles()
        .iter()
        .find(|t| rules.tiles().get(t.kind).id == QUARTER_TILE);
    if let Some(t) = tile {
        *x = Some(t.pos.x);
        *y = Some(t.pos.y);
    }
    *location = q.to_string();
}
