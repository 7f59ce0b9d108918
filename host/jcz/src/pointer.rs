//! JCZ pointers and identifiers (`jcz-saves.md` §6, §7) in our terms: positions, meeple ids,
//! feature pointers → segments, and off-board features (the City of Carcassonne's quarters),
//! whose JCZ names their expansion gives (`Visible::ForeignName`, scheme `jcz`); figure and
//! feature names beyond the base game's come from the expansions' `[jcz]` declarations:
//! nothing here knows a particular expansion.

use crate::declared::Declarations;
use carcassonne_core::{FigureKindId, Game, PlayerId, Pos, Ruleset, SegmentId, Visible};
use carcassonne_play::record::{segment_of, Target};
use serde_json::Value;

/// JCZ's names of off-board features, as the expansions describe them: (segment, tile id,
/// feature class, location).
fn foreign_names(game: &Game) -> Vec<(SegmentId, String, String, String)> {
    let mut shown = Vec::new();
    // An expansion that cannot describe itself names nothing.
    let _ = game.view().describe(&mut shown);
    shown
        .into_iter()
        .filter_map(|v| match v {
            Visible::ForeignName {
                scheme,
                segment,
                tile,
                feature,
                location,
            } if scheme == "jcz" => Some((segment, tile, feature, location)),
            _ => None,
        })
        .collect()
}

/// Where the tile `id` lies on the board.
fn tile_position(game: &Game, id: &str) -> Option<Pos> {
    let rules = game.rules();
    game.state()
        .board()
        .tiles()
        .iter()
        .find(|t| rules.tiles().get(t.kind).id == id)
        .map(|t| t.pos)
}

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

/// `"1.small.3"` → player 1, the small follower; other JCZ meeple kinds are those the
/// expansions declare (`[jcz] figures`).
pub fn meeple(
    decl: &Declarations,
    rules: &Ruleset,
    id: &str,
) -> Result<(PlayerId, FigureKindId), String> {
    let mut parts = id.split('.');
    let (Some(p), Some(kind), Some(_k), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("meeple id `{id}` is not `<player>.<kind>.<n>`"));
    };
    let player: u8 = p
        .parse()
        .map_err(|_| format!("meeple id `{id}`: `{p}` is not a player index"))?;
    let figure = decl.figure(rules, kind).ok_or_else(|| {
        format!(
            "meeple id `{id}`: figure kind `{kind}` is not supported (known: {})",
            decl.figure_names().join(", ")
        )
    })?;
    Ok((PlayerId(player), figure))
}

/// The segments a feature pointer `{position, feature, location}` can mean: one, except
/// for a class several kinds declare (a `Monastery` is tried as cloister and as each kind
/// an expansion maps it to, `[jcz] features`).
pub fn segments(decl: &Declarations, game: &Game, ptr: &Value) -> Result<Vec<SegmentId>, String> {
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
    let named: Vec<_> = foreign_names(game)
        .into_iter()
        .filter(|(_, _, f, _)| f == class)
        .collect();
    if !named.is_empty() {
        let (seg, tile, _, _) =
            named
                .iter()
                .find(|(_, _, _, l)| l == location)
                .ok_or_else(|| {
                    let known: Vec<&str> = named.iter().map(|(_, _, _, l)| l.as_str()).collect();
                    format!(
                        "`{location}` is not a `{class}` (known: {})",
                        known.join(", ")
                    )
                })?;
        if let Some(p) = ptr.get("position").filter(|p| !p.is_null()) {
            let p = position(Some(p))?;
            if tile_position(game, tile) != Some(p) {
                return Err(format!(
                    "`{class}` `{location}` is on the tile `{tile}`, not at [{}, {}]",
                    p.x, p.y
                ));
            }
        }
        return Ok(vec![*seg]);
    }
    let pos = position(ptr.get("position"))?;
    let mut found = Vec::new();
    let mut last_err = String::new();
    for kind in decl.feature_kinds(class)? {
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

/// Rewrites a target on an off-board feature (`quarter #0`) the way JCZ points at it
/// (`QUARTER_CASTLE` at the position of `CO/7`), when its expansion gives a JCZ name.
pub fn foreign_to_jcz(
    game: &Game,
    x: &mut Option<i32>,
    y: &mut Option<i32>,
    feature: &str,
    location: &mut String,
) {
    if x.is_some() {
        return;
    }
    let t = Target {
        x: None,
        y: None,
        feature: feature.to_string(),
        location: location.clone(),
    };
    let Ok(seg) = segment_of(game.rules(), game.state(), &t) else {
        return;
    };
    let Some((_, tile, _, name)) = foreign_names(game).into_iter().find(|(s, ..)| *s == seg) else {
        return;
    };
    if let Some(p) = tile_position(game, &tile) {
        *x = Some(p.x);
        *y = Some(p.y);
    }
    *location = name;
}
