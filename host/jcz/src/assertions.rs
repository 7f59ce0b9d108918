//! The assertions of JCZ test saves (`jcz-saves.md` §9), checked against the replay output
//! contract (`replay --json`), so the same check works on the CLI's output.

use carcassonne_play::record::normalize_location;
use serde_json::Value;

/// An expansion's JCZ classes in `Meeple <Figure> options: {Feature,…}` assertions, each
/// with our name: `features` (`Tower` → `tower`), `figures` (`Ringmaster` → `ringmaster`).
#[derive(Clone, Debug, Default)]
pub struct Classes {
    /// JCZ feature class → our feature kind.
    pub features: Vec<(String, String)>,
    /// JCZ figure class → our figure kind.
    pub figures: Vec<(String, String)>,
}

/// What became of one assertion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It holds.
    Passed,
    /// It does not; why.
    Failed(String),
    /// Not something our engine models (JCZ internals, later expansions); why.
    Ignored(String),
}

/// Checks every assertion against a replay output (the JSON of the output contract).
pub fn check_all(assertions: &[String], output: &Value) -> Vec<(String, Outcome)> {
    check_all_with(assertions, output, &[])
}

/// [`check_all`], where `scorings` pairs a JCZ feature class with a score label of ours
/// that JCZ reports as a scoring of that class (`[jcz] scorings` in the manifests:
/// [`crate::Declarations::scorings`]).
pub fn check_all_with(
    assertions: &[String],
    output: &Value,
    scorings: &[(String, String)],
) -> Vec<(String, Outcome)> {
    check_all_declared(assertions, output, scorings, &[], &Classes::default())
}

/// [`check_all_with`], where `tokens` pairs a JCZ token with the verb of ours that places
/// it (`PLACE_TOKEN` entries of `[[jcz.actions]]`: [`crate::Declarations::tokens`]), so
/// that `Available action … for TOKEN` and `… TOKEN options: [x,y]; …` are checked
/// against the pending custom actions of that verb; `classes` pairs JCZ feature classes with
/// our feature kinds (`[jcz] features`: [`crate::Declarations::features`]) and JCZ figure
/// classes with our figure kinds ([`crate::Declarations::figure_classes`]), so that
/// `Meeple … options` naming them (`{Tower,I,[-1,0]}`, `Meeple Ringmaster`) are checked.
pub fn check_all_declared(
    assertions: &[String],
    output: &Value,
    scorings: &[(String, String)],
    tokens: &[(String, String)],
    classes: &Classes,
) -> Vec<(String, Outcome)> {
    let mut used_events = vec![false; output["events"].as_array().map_or(0, Vec::len)];
    assertions
        .iter()
        .map(|a| {
            let t = a.trim().trim_end_matches('.');
            let outcome = token_actions(t, output, tokens)
                .unwrap_or_else(|| check(a, output, scorings, classes, &mut used_events));
            (a.clone(), outcome)
        })
        .collect()
}

/// `Available action TowerPiece for TOKEN` (some action of the token's verb is pending) and
/// `Tower piece TOKEN options: [1,0]; [-1,0]` (the cells its pending actions target), for a
/// declared token; `None` for any other assertion.
fn token_actions(t: &str, out: &Value, tokens: &[(String, String)]) -> Option<Outcome> {
    let verb_of = |token: &str| {
        tokens
            .iter()
            .find(|(k, _)| k == token)
            .map(|(_, v)| v.as_str())
    };
    let cells = |verb: &str| -> Vec<(i64, i64)> {
        let mut got: Vec<(i64, i64)> = out["pending"]["custom"]
            .as_array()
            .map(|cs| {
                cs.iter()
                    .filter(|c| c["verb"] == verb)
                    .filter_map(|c| c["target"]["x"].as_i64().zip(c["target"]["y"].as_i64()))
                    .collect()
            })
            .unwrap_or_default();
        got.sort();
        got.dedup();
        got
    };
    if let Some(rest) = t.strip_prefix("Available action ") {
        let (_, token) = rest.split_once(" for ")?;
        let verb = verb_of(token.trim())?;
        return Some(if cells(verb).is_empty() {
            Outcome::Failed(format!("no `{verb}` action is pending"))
        } else {
            Outcome::Passed
        });
    }
    let (head, list) = t.split_once(" options:")?;
    let verb = verb_of(head.rsplit(' ').next()?)?;
    let mut want = Vec::new();
    for item in list.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        match numbers(item).as_deref() {
            Some([x, y]) => want.push((*x, *y)),
            _ => return Some(Outcome::Failed(format!("cannot read the cell `{item}`"))),
        }
    }
    want.sort();
    want.dedup();
    let got = cells(verb);
    Some(if got == want {
        Outcome::Passed
    } else {
        Outcome::Failed(format!("`{verb}` targets {got:?}, expected {want:?}"))
    })
}

fn check(
    text: &str,
    out: &Value,
    scorings: &[(String, String)],
    classes: &Classes,
    used: &mut [bool],
) -> Outcome {
    let t = text.trim().trim_end_matches('.');
    if let Some(rest) = t.strip_prefix("TilePlacement ") {
        return tile_placement(rest, out);
    }
    if let Some(rest) = t.strip_prefix("Meeple ") {
        return meeple_options(rest, out, classes);
    }
    let can_pass = match t {
        "Player can pass" => Some(true),
        "Player can't pass" | "Player cannot pass" => Some(false),
        _ => None,
    };
    if let Some(want) = can_pass {
        let got = out["pending"]["can_pass"].as_bool().unwrap_or(false);
        return if got == want {
            Outcome::Passed
        } else {
            Outcome::Failed(format!("can_pass is {got}"))
        };
    }
    if let Some((name, rest)) = t.split_once(" scored ") {
        return scored(name, rest, out, scorings, used);
    }
    if let Some((name, rest)) = t.split_once(" has ") {
        if let Some(n) = points(rest) {
            let player = out["players"]
                .as_array()
                .and_then(|ps| ps.iter().find(|p| p["name"] == name));
            return match player {
                None => Outcome::Failed(format!("no player `{name}`")),
                Some(p) if p["score"].as_i64() == Some(n) => Outcome::Passed,
                Some(p) => Outcome::Failed(format!("{name} has {} points", p["score"])),
            };
        }
    }
    Outcome::Ignored("a JCZ internal (phase, undo, available actions) or a later expansion".into())
}

/// `3 points` / `1 point` → 3 / 1.
fn points(text: &str) -> Option<i64> {
    let n = text
        .strip_suffix(" points")
        .or_else(|| text.strip_suffix(" point"))?;
    n.trim().parse().ok()
}

/// Our feature names for a JCZ score or feature name (`monastery` is cloister or shrine).
fn feature_names(jcz: &str) -> Vec<String> {
    match jcz.to_ascii_lowercase().as_str() {
        "monastery" => vec!["cloister".into(), "shrine".into()],
        other => vec![other.to_string()],
    }
}

fn scored(
    name: &str,
    rest: &str,
    out: &Value,
    scorings: &[(String, String)],
    used: &mut [bool],
) -> Outcome {
    let Some((feature, pts)) = rest.split_once(" for ") else {
        return Outcome::Ignored("unrecognised `scored` form".into());
    };
    let Some(n) = points(pts) else {
        return Outcome::Ignored("unrecognised `scored` form".into());
    };
    // JCZ compares the part before the first dot (`city.tiny` is a city).
    let base = feature.split('.').next().unwrap_or(feature);
    let mut names = feature_names(base);
    names.extend(
        scorings
            .iter()
            .filter(|(class, _)| class.eq_ignore_ascii_case(base))
            .map(|(_, label)| label.clone()),
    );
    let events = out["events"].as_array().cloned().unwrap_or_default();
    // Each assertion takes its own event, so a repeated assertion needs repeated events.
    for (i, e) in events.iter().enumerate() {
        let matches = e["player"] == name
            && e["points"].as_i64() == Some(n)
            && names.iter().any(|f| e["feature"] == f.as_str());
        if matches && !used[i] {
            used[i] = true;
            return Outcome::Passed;
        }
    }
    Outcome::Failed(format!(
        "no (unused) event of {name} scoring {base} for {n}; {name}'s events: {}",
        events
            .iter()
            .filter(|e| e["player"] == name)
            .map(|e| format!("{} {}", e["feature"].as_str().unwrap_or("?"), e["points"]))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// `BA/C options: [1,-3] - [0,90]; [2,0] - [180]`.
fn tile_placement(rest: &str, out: &Value) -> Outcome {
    let Some((tile, list)) = rest.split_once(" options:") else {
        return Outcome::Ignored("unrecognised TilePlacement form".into());
    };
    let pending = &out["pending"];
    if pending["tile"] != tile.trim() {
        return Outcome::Failed(format!(
            "the pending tile is {}, not {tile}",
            pending["tile"]
        ));
    }
    let mut want: Vec<(i64, i64, Vec<i64>)> = Vec::new();
    for item in list.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((cell, rots)) = item.split_once(" - ") else {
            return Outcome::Failed(format!("cannot read placement `{item}`"));
        };
        let (Some(c), Some(mut r)) = (numbers(cell), numbers(rots)) else {
            return Outcome::Failed(format!("cannot read placement `{item}`"));
        };
        if c.len() != 2 {
            return Outcome::Failed(format!("cannot read cell `{cell}`"));
        }
        r.sort_unstable();
        want.push((c[0], c[1], r));
    }
    want.sort();
    let mut got: Vec<(i64, i64, Vec<i64>)> = pending["placements"]
        .as_array()
        .map(|ps| {
            ps.iter()
                .map(|p| {
                    let mut r: Vec<i64> = p["rotations"]
                        .as_array()
                        .map(|r| r.iter().filter_map(Value::as_i64).collect())
                        .unwrap_or_default();
                    r.sort_unstable();
                    (
                        p["x"].as_i64().unwrap_or(0),
                        p["y"].as_i64().unwrap_or(0),
                        r,
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    got.sort();
    if got == want {
        Outcome::Passed
    } else {
        Outcome::Failed(format!("legal placements are {got:?}, expected {want:?}"))
    }
}

/// `SmallFollower options: {City,S,[0,-1]}; {Road,WE,[0,-1]}`; a class of `classes` is an
/// expansion's.
fn meeple_options(rest: &str, out: &Value, classes: &Classes) -> Outcome {
    let Some((class, list)) = rest.split_once(" options:") else {
        return Outcome::Ignored("unrecognised Meeple form".into());
    };
    let figure = match class.trim() {
        "SmallFollower" => "small-follower",
        "BigFollower" => "big-follower",
        "Wagon" => "wagon",
        "Mayor" => "mayor",
        "Barn" => "barn",
        "Builder" => "builder",
        "Pig" => "pig",
        "Phantom" => "phantom",
        "Abbot" => "abbot",
        other => match classes.figures.iter().find(|(jcz, _)| jcz == other) {
            Some((_, ours)) => ours.as_str(),
            None => return Outcome::Ignored(format!("figure class `{other}` is not modelled")),
        },
    };
    type Option3 = (String, Vec<String>, Option<(i64, i64)>);
    let mut want: Vec<Option3> = Vec::new();
    for item in list.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let inner = item.trim_start_matches('{').trim_end_matches('}');
        let mut parts = inner.splitn(3, ',');
        let (Some(f), Some(loc)) = (parts.next(), parts.next()) else {
            return Outcome::Failed(format!("cannot read meeple option `{item}`"));
        };
        let cell = parts.next().and_then(numbers).filter(|c| c.len() == 2);
        let class = match f.trim() {
            "City" => "city",
            "Road" => "road",
            "Field" => "field",
            "Monastery" => "monastery",
            "Quarter" => "quarter",
            other => match classes.features.iter().find(|(jcz, _)| jcz == other) {
                Some((_, ours)) => ours.as_str(),
                None => {
                    return Outcome::Ignored(format!("feature class `{other}` is not modelled"))
                }
            },
        };
        want.push((
            class.to_string(),
            normalize_location(loc.trim()),
            cell.map(|c| (c[0], c[1])),
        ));
    }
    let mut got: Vec<Option3> = out["pending"]["deployments"]
        .as_array()
        .map(|ds| {
            ds.iter()
                .filter(|d| d["figure"] == figure)
                .map(|d| {
                    let f = d["feature"].as_str().unwrap_or("");
                    let f = if f == "cloister" || f == "shrine" {
                        "monastery"
                    } else {
                        f
                    };
                    (
                        f.to_string(),
                        normalize_location(d["location"].as_str().unwrap_or("")),
                        d["x"].as_i64().zip(d["y"].as_i64()),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    want.sort();
    got.sort();
    if got == want {
        Outcome::Passed
    } else {
        Outcome::Failed(format!("{figure} options are {got:?}, expected {want:?}"))
    }
}

/// Every integer in `text` (`[1,-3]` → 1, -3).
fn numbers(text: &str) -> Option<Vec<i64>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn out() -> Value {
        json!({
            "players": [{"name": "Alice", "score": 3}],
            "events": [
                {"player": "Alice", "feature": "cloister", "points": 9},
                {"player": "Alice", "feature": "road", "points": 3}
            ],
            "finished": false,
            "pending": {
                "player": "Alice", "tile": "BA/C",
                "placements": [{"x": 1, "y": -3, "rotations": [90, 0]}],
                "deployments": [{"figure": "small-follower", "feature": "road", "x": 0, "y": -1, "location": "EW"}],
                "can_pass": true
            }
        })
    }

    #[test]
    fn each_form_is_checked() {
        let asserts: Vec<String> = [
            "Alice has 3 points.",
            "Alice has 1 point",
            "Alice scored monastery for 9 points",
            "Alice scored road.incomplete for 3 points",
            "Alice scored road for 3 points",
            "TilePlacement BA/C options: [1,-3] - [0,90]",
            "Meeple SmallFollower options: {Road,WE,[0,-1]}",
            "Phase is ActionPhase",
            "Player can pass",
        ]
        .map(String::from)
        .to_vec();
        let got: Vec<Outcome> = check_all(&asserts, &out())
            .into_iter()
            .map(|(_, o)| o)
            .collect();
        assert_eq!(got[0], Outcome::Passed);
        assert!(matches!(got[1], Outcome::Failed(_)));
        assert_eq!(got[2], Outcome::Passed);
        assert_eq!(got[3], Outcome::Passed);
        // The only road event is taken by the previous assertion.
        assert!(matches!(got[4], Outcome::Failed(_)));
        assert_eq!(got[5], Outcome::Passed);
        assert_eq!(got[6], Outcome::Passed, "locations compare as sets");
        assert!(matches!(got[7], Outcome::Ignored(_)));
        assert_eq!(got[8], Outcome::Passed);
    }

    /// A label an expansion declares JCZ scores as a class (`[jcz] scorings`, a barn's
    /// farm scoring as `Field`) answers that class's assertions; without the pair it does not.
    #[test]
    fn a_declared_scoring_label_answers_its_class() {
        let out = json!({
            "players": [{"name": "Betty", "score": 0}],
            "events": [{"player": "Betty", "feature": "barn", "points": 0}],
        });
        let asserts = vec!["Betty scored field for 0 points.".to_string()];
        let with = check_all_with(&asserts, &out, &[("Field".into(), "barn".into())]);
        assert_eq!(with[0].1, Outcome::Passed);
        let without = check_all(&asserts, &out);
        assert!(matches!(without[0].1, Outcome::Failed(_)));
    }

    /// Token actions (`Available action … for TOKEN`, `… TOKEN options: [x,y]; …`) are
    /// checked against the pending custom actions of the token's declared verb; an
    /// undeclared token stays ignored.
    #[test]
    fn token_actions_are_checked_by_declared_verb() {
        let out = serde_json::json!({
            "pending": {"custom": [
                {"verb": "tower-piece", "target": {"x": 1, "y": 0}},
                {"verb": "tower-piece", "target": {"x": -1, "y": 0}},
                {"verb": "white-tower-piece", "target": {"x": -1, "y": 0}},
            ]},
            "events": [],
        });
        let tokens = [
            ("TOWER_PIECE".to_string(), "tower-piece".to_string()),
            (
                "BLACK_TOWER_PIECE".to_string(),
                "black-tower-piece".to_string(),
            ),
            (
                "WHITE_TOWER_PIECE".to_string(),
                "white-tower-piece".to_string(),
            ),
        ];
        let asserted = [
            "Available action TowerPiece for TOWER_PIECE",
            "Tower piece TOWER_PIECE options: [1,0]; [-1,0]",
            "Tower piece WHITE_TOWER_PIECE options: [-1,0]",
            "Available action TowerPiece for BLACK_TOWER_PIECE",
            "Tower piece WHITE_TOWER_PIECE options: [1,0]",
            "Available action TowerPiece for BRIDGE",
        ]
        .map(String::from);
        let got: Vec<Outcome> =
            check_all_declared(&asserted, &out, &[], &tokens, &Classes::default())
                .into_iter()
                .map(|(_, o)| o)
                .collect();
        assert_eq!(
            got[..3],
            [Outcome::Passed, Outcome::Passed, Outcome::Passed]
        );
        assert!(matches!(got[3], Outcome::Failed(_)), "{:?}", got[3]);
        assert!(matches!(got[4], Outcome::Failed(_)), "{:?}", got[4]);
        assert!(matches!(got[5], Outcome::Ignored(_)), "{:?}", got[5]);
    }

    /// A class an expansion declares (feature `Tower` is our `tower`, figure `Ringmaster`)
    /// compares in `Meeple … options`; undeclared, the assertion is ignored.
    #[test]
    fn a_declared_class_is_checked() {
        let mut out = out();
        out["pending"]["deployments"]
            .as_array_mut()
            .unwrap()
            .push(json!({"figure": "small-follower", "feature": "tower", "x": -1, "y": 0, "location": "I"}));
        let asserted = [
            "Meeple SmallFollower options: {Road,WE,[0,-1]}; {Tower,I,[-1,0]}",
            "Meeple SmallFollower options: {Road,WE,[0,-1]}; {Tower,I,[1,0]}",
        ]
        .map(String::from);
        let classes = Classes {
            features: vec![("Tower".to_string(), "tower".to_string())],
            figures: Vec::new(),
        };
        let got: Vec<Outcome> = check_all_declared(&asserted, &out, &[], &[], &classes)
            .into_iter()
            .map(|(_, o)| o)
            .collect();
        assert_eq!(got[0], Outcome::Passed);
        assert!(matches!(got[1], Outcome::Failed(_)), "{:?}", got[1]);
        let undeclared = check_all(&asserted[..1], &out);
        assert!(matches!(undeclared[0].1, Outcome::Ignored(_)));
        // A declared figure class (`Ringmaster`: Under the Big Top's ringmaster).
        let ringmaster = ["Meeple Ringmaster options: {Road,WE,[0,-1]}".to_string()];
        assert!(matches!(
            check_all(&ringmaster, &out)[0].1,
            Outcome::Ignored(_)
        ));
        out["pending"]["deployments"].as_array_mut().unwrap().push(
            json!({"figure": "ringmaster", "feature": "road", "x": 0, "y": -1, "location": "EW"}),
        );
        let classes = Classes {
            features: Vec::new(),
            figures: vec![("Ringmaster".to_string(), "ringmaster".to_string())],
        };
        let got = check_all_declared(&ringmaster, &out, &[], &[], &classes);
        assert_eq!(got[0].1, Outcome::Passed);
    }
}
