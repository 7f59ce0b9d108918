//! From a save's `setup` to our expansions and options (`jcz-saves.md` §2).
//!
//! Everything a save can say is either mapped or refused with its name: an unknown set,
//! element or rule value never silently changes the game.

use super::save::JczSetup;
use carcassonne_rules::RulesSpec;
use serde_json::Value;

/// Sets we can play, with the expansion (and option) each one needs.
const SETS: &[(&str, Option<&str>)] = &[
    ("basic:1", None),
    ("count", Some("count")),
    ("king-and-robber:1", Some("king-robber")),
    ("river/2:1", Some("river2")),
    ("cult/5", Some("heretics-shrines")),
    ("cult/6", Some("heretics-shrines")),
    ("tower:1", Some("tower")),
];

/// Elements of later expansions: named in the error so the user knows why.
const LATER_ELEMENTS: &[&str] = &[
    "big-follower",
    "inn",
    "cathedral",
    "builder",
    "pig",
    "traders",
    "pig-herd",
    "dragon",
    "fairy",
    "princess",
    "portal",
    "abbey",
    "mayor",
    "wagon",
    "barn",
    "abbot",
    "garden",
    "phantom",
    "shepherd",
    "bridge",
    "castle",
    "bazaar",
    "hill",
    "vineyard",
    "corn-circle",
    "wind-rose",
    "flier",
    "watchtower",
    "labyrinth",
    "church",
    "ringmaster",
];

/// Rules of later expansions: they cannot apply to a save we accept (its sets would have
/// been refused), so any value is ignored.
const LATER_RULES: &[&str] = &[
    "inn-and-cathedral-final-scoring",
    "princess-action",
    "fairy-placement",
    "dragon-move",
    "wagon-move",
    "barn-placement",
];

/// The ruleset a save needs: our expansions in a fixed order, and every option the save's
/// rules and elements decide (JCZ defaults written out where they differ from ours).
pub fn rules_spec(setup: &JczSetup) -> Result<RulesSpec, String> {
    let mut expansions: Vec<String> = Vec::new();
    let mut options: Vec<(String, String)> = Vec::new();
    if !setup.sets.contains_key("basic:1") {
        return Err(match setup.sets.keys().find(|k| k.starts_with("basic")) {
            Some(k) => format!("setup.sets: `{k}` is not supported (only `basic:1`)"),
            None => {
                "setup.sets: no `basic:1`: games without the base tiles are not supported".into()
            }
        });
    }
    for (set, copies) in &setup.sets {
        let Some((_, exp)) = SETS.iter().find(|(id, _)| id == set) else {
            return Err(format!(
                "setup.sets: set `{set}` is not supported (supported: {})",
                SETS.iter().map(|(s, _)| *s).collect::<Vec<_>>().join(", ")
            ));
        };
        if copies.as_i64() != Some(1) {
            return Err(format!(
                "setup.sets: `{set}` × {copies}: only one copy of a set is supported"
            ));
        }
        if let Some(exp) = exp {
            if !expansions.iter().any(|e| e == exp) {
                expansions.push(exp.to_string());
            }
        }
    }
    let has = |e: &str| setup.elements.contains_key(e);
    let has_set = |s: &str| setup.sets.contains_key(s);
    if setup.sets.contains_key("cult/6") {
        options.push(("heretics-shrines.cultPlaces".into(), "true".into()));
    }
    for (key, value) in &setup.elements {
        match key.as_str() {
            "small-follower" => {
                if value.as_i64() != Some(7) {
                    return Err(format!(
                        "setup.elements: `small-follower: {value}`: only 7 followers per player are supported"
                    ));
                }
            }
            "farmers" | "river" => {}
            "count" if !has_set("count") => {
                return Err("setup.elements: `count` without the set `count`".into())
            }
            "king" | "robber" if !has_set("king-and-robber:1") => {
                return Err(format!(
                    "setup.elements: `{key}` without the set `king-and-robber:1`"
                ))
            }
            "shrine" if !has_set("cult/5") && !has_set("cult/6") => {
                return Err("setup.elements: `shrine` without a `cult` set".into())
            }
            "tower" if !has_set("tower:1") => {
                return Err("setup.elements: `tower` without the set `tower:1`".into())
            }
            "count" | "king" | "robber" | "shrine" | "tower" => {}
            other if LATER_ELEMENTS.contains(&other) => {
                return Err(format!(
                    "setup.elements: `{other}` belongs to an expansion that is not supported yet"
                ))
            }
            other => return Err(format!("setup.elements: unknown element `{other}`")),
        }
    }
    if !has("small-follower") {
        return Err(
            "setup.elements: no `small-follower`: games without followers are not supported".into(),
        );
    }
    if has_set("count") && !has("count") {
        return Err("setup.sets: `count` without the element `count` is not supported".into());
    }
    if has_set("king-and-robber:1") && !(has("king") && has("robber")) {
        return Err("setup.sets: `king-and-robber:1` needs both elements `king` and `robber` (one alone is not supported)".into());
    }
    // Without the element `shrine`, JCZ plays the cult tiles as plain cloisters (§2).
    if (has_set("cult/5") || has_set("cult/6")) && !has("shrine") {
        options.push(("heretics-shrines.shrines".into(), "plain-cloisters".into()));
    }
    // River II as FanCloisterZone plays it (§4, §13): one lake per open branch and its
    // stricter placement rule.
    if has_set("river/2:1") {
        options.push(("river2.riverLakes".into(), "per-branch".into()));
        options.push(("river2.riverPlacement".into(), "fcz".into()));
    }
    tower_options(setup, &mut options)?;
    // JCZ has no farm-scoring rule: always the 3rd edition.
    options.push(("farmScoring".into(), "3rd".into()));
    options.push(("farmers".into(), has("farmers").to_string()));
    let mut small_city = "normal";
    let mut award = "per-feature";
    // JCZ's default for the Count's final scoring is not ours: write it out.
    let mut coc_final = "market-only";
    let mut count_move = "free";
    for (key, value) in &setup.rules {
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let bad = || format!("setup.rules: `{key}` = `{text}` is not supported");
        match key.as_str() {
            "tiny-city-scoring" => {
                small_city = match text.as_str() {
                    "4" => "normal",
                    "2" => "1st/2nd",
                    _ => return Err(bad()),
                }
            }
            "king-and-robber-scoring" => {
                award = match text.as_str() {
                    "default" => "per-feature",
                    "10/20" => "10/20",
                    "15/40" => "15/40",
                    "continuously" => "continuously",
                    _ => return Err(bad()),
                }
            }
            "coc-final-scoring" => {
                coc_final = match text.as_str() {
                    "market-only" => "market-only",
                    "any-district" => "all-quarters",
                    _ => return Err(bad()),
                }
            }
            "count-move" => {
                count_move = match text.as_str() {
                    "by-player" => "free",
                    "clockwise" => "clockwise",
                    "follow-meeple" => "follow",
                    _ => return Err(bad()),
                }
            }
            k if LATER_RULES.contains(&k) => {}
            other => return Err(format!("setup.rules: unknown rule `{other}`")),
        }
    }
    options.push(("smallCity".into(), small_city.into()));
    if expansions.iter().any(|e| e == "king-robber") {
        options.push(("king-robber.kingRobberAward".into(), award.into()));
    }
    if expansions.iter().any(|e| e == "count") {
        options.push(("count.cocFinal".into(), coc_final.into()));
        options.push(("count.countMove".into(), count_move.into()));
        // JCZ's final round: a player who passes is not asked again.
        options.push(("count.finalRound".into(), "pass-is-final".into()));
    }
    Ok(RulesSpec {
        expansions,
        options,
        plugin_dirs: Vec::new(),
    })
}

/// The Tower (`tower:1` + element `tower`): JCZ has no rule keys for it; its fixed
/// behaviour is our defaults except for followers in the City of Carcassonne's quarters,
/// which JCZ keeps on the quarter tile (0,0) within a tower's reach (C.5
/// `cocQuarterFigures=jcz`). Options are written out so a save replays the same under
/// other defaults.
fn tower_options(setup: &JczSetup, options: &mut Vec<(String, String)>) -> Result<(), String> {
    if !setup.sets.contains_key("tower:1") {
        return Ok(());
    }
    if !setup.elements.contains_key("tower") {
        return Err("setup.sets: `tower:1` without the element `tower` is not supported".into());
    }
    options.push(("tower.towerTopCapture".into(), "allowed".into()));
    options.push(("tower.ransomFunds".into(), "need-3".into()));
    options.push(("tower.cocQuarterFigures".into(), "jcz".into()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn setup(v: Value) -> JczSetup {
        serde_json::from_value(v).expect("setup parses")
    }

    fn option<'a>(spec: &'a RulesSpec, key: &str) -> Option<&'a str> {
        spec.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn defaults_are_jczs_not_ours() {
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "count": 1, "king-and-robber:1": 1},
            "elements": {"small-follower": 7, "count": true, "king": true, "robber": true},
            "rules": {}
        })))
        .unwrap();
        assert_eq!(spec.expansions, ["count", "king-robber"]);
        // No `farmers` key: no farmers. JCZ's CoC final scoring defaults to the market.
        assert_eq!(option(&spec, "farmers"), Some("false"));
        assert_eq!(option(&spec, "count.cocFinal"), Some("market-only"));
        assert_eq!(option(&spec, "count.countMove"), Some("free"));
        assert_eq!(
            option(&spec, "king-robber.kingRobberAward"),
            Some("per-feature")
        );
        assert_eq!(option(&spec, "farmScoring"), Some("3rd"));
    }

    #[test]
    fn rules_map_to_options() {
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "count": 1, "king-and-robber:1": 1, "cult/6": 1},
            "elements": {"small-follower": 7, "farmers": false, "count": true, "king": true,
                         "robber": true, "shrine": true},
            "rules": {"tiny-city-scoring": "2", "king-and-robber-scoring": "15/40",
                      "coc-final-scoring": "any-district", "count-move": "follow-meeple",
                      "dragon-move": "after-scoring"}
        })))
        .unwrap();
        // A present key turns the element on, whatever its value.
        assert_eq!(option(&spec, "farmers"), Some("true"));
        assert_eq!(option(&spec, "smallCity"), Some("1st/2nd"));
        assert_eq!(option(&spec, "king-robber.kingRobberAward"), Some("15/40"));
        assert_eq!(option(&spec, "count.cocFinal"), Some("all-quarters"));
        assert_eq!(option(&spec, "count.countMove"), Some("follow"));
        assert_eq!(option(&spec, "heretics-shrines.cultPlaces"), Some("true"));
    }

    #[test]
    fn what_we_cannot_play_is_refused_by_name() {
        let err = |v: Value| rules_spec(&setup(v)).unwrap_err();
        assert!(
            err(json!({"sets": {"basic:2": 1}, "elements": {"small-follower": 7}}))
                .contains("basic:2")
        );
        assert!(
            err(json!({"sets": {"basic:1": 2}, "elements": {"small-follower": 7}}))
                .contains("one copy")
        );
        assert!(err(
            json!({"sets": {"basic:1": 1}, "elements": {"small-follower": 7, "king": true}})
        )
        .contains("king-and-robber:1"));
        assert!(err(
            json!({"sets": {"basic:1": 1}, "elements": {"small-follower": 7},
                           "rules": {"mystery": "x"}})
        )
        .contains("mystery"));
    }

    #[test]
    fn the_tower_maps_to_its_expansion_with_jczs_quarters() {
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "tower:1": 1},
            "elements": {"small-follower": 7, "tower": true},
            "rules": {}
        })))
        .unwrap();
        assert_eq!(spec.expansions, ["tower"]);
        assert_eq!(option(&spec, "tower.cocQuarterFigures"), Some("jcz"));
        assert_eq!(option(&spec, "tower.ransomFunds"), Some("need-3"));
        let err = |v: Value| rules_spec(&setup(v)).unwrap_err();
        assert!(err(json!({"sets": {"basic:1": 1, "tower:1": 1},
                           "elements": {"small-follower": 7}}))
        .contains("element `tower`"));
        assert!(err(json!({"sets": {"basic:1": 1},
                           "elements": {"small-follower": 7, "tower": true}}))
        .contains("tower:1"));
        assert!(err(json!({"sets": {"basic:1": 1, "tower:2": 1},
                           "elements": {"small-follower": 7, "tower": true}}))
        .contains("tower:2"));
    }
}
