//! From a save's `setup` to our expansions and options (`jcz-saves.md` §2).
//!
//! Everything a save can say is either mapped or refused with its name: an unknown set,
//! element or rule value never silently changes the game.
//!
//! An expansion whose manifest declares JCZ sets (`[jcz] sets`, `carcassonne_files::jcz`)
//! is mapped by that declaration alone: its elements, rule keys and the options its sets
//! write out ([`declared_expansions`]). Only the base game is mapped by the code below.

use super::save::JczSetup;
use carcassonne_files::jcz::JczDeclaration;
use carcassonne_files::manifest::Manifest;
use carcassonne_rules::RulesSpec;
use serde_json::Value;

/// Sets we can play that no expansion declares, with the expansion each one needs.
const SETS: &[(&str, Option<&str>)] = &[("basic:1", None)];

/// Elements of later expansions: named in the error so the user knows why.
const LATER_ELEMENTS: &[&str] = &[
    "abbot",
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

/// One JCZ rule read as one of our option values: the rule's key, our value when the save
/// does not give it, and each JCZ value with ours.
pub(crate) struct RuleMap {
    pub(crate) key: &'static str,
    pub(crate) default: &'static str,
    pub(crate) values: &'static [(&'static str, &'static str)],
}

/// Our values for `maps`, in order, from the save's rules (the default where a rule is
/// absent); a value a map does not list is an error naming the rule and the value. Rules
/// not in `maps` are left to the caller.
fn read_rules(setup: &JczSetup, maps: &[RuleMap]) -> Result<Vec<&'static str>, String> {
    maps.iter()
        .map(|m| rule_value(setup, m.key, m.default, m.values.iter().copied()))
        .collect()
}

/// Our value for the rule `key`: the save's JCZ value through `values`, or `default` when
/// the save does not give it; a value `values` does not list is an error naming it.
fn rule_value<'a>(
    setup: &JczSetup,
    key: &str,
    default: &'a str,
    mut values: impl Iterator<Item = (&'a str, &'a str)>,
) -> Result<&'a str, String> {
    let Some(value) = setup.rules.get(key) else {
        return Ok(default);
    };
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    values
        .find(|(jcz, _)| *jcz == text)
        .map(|(_, ours)| ours)
        .ok_or_else(|| format!("setup.rules: `{key}` = `{text}` is not supported"))
}

/// The base game's rules.
pub(crate) const BASE_RULES: &[RuleMap] = &[RuleMap {
    key: "tiny-city-scoring",
    default: "normal",
    values: &[("4", "normal"), ("2", "1st/2nd")],
}];

/// The ruleset a save needs, with the expansions' JCZ declarations found where the ruleset
/// builder looks without `--plugin-dir` ([`rules_spec_with`]).
pub fn rules_spec(setup: &JczSetup) -> Result<RulesSpec, String> {
    rules_spec_with(setup, &super::declared::manifests(&[])?)
}

/// The ruleset a save needs: our expansions in a fixed order, and every option the save's
/// rules and elements decide (JCZ defaults written out where they differ from ours);
/// `manifests` are the available expansions, whose `[jcz]` sections map their sets.
pub fn rules_spec_with(setup: &JczSetup, manifests: &[Manifest]) -> Result<RulesSpec, String> {
    let mut expansions: Vec<String> = Vec::new();
    let mut options: Vec<(String, String)> = Vec::new();
    let declaring = |set: &str| {
        manifests
            .iter()
            .find(|m| m.jcz.sets.iter().any(|s| s == set))
            .map(|m| m.id.as_str())
    };
    // The base tiles: `basic:1`, or another edition an expansion declares (`basic:2`).
    let base = |k: &String| k == "basic:1" || (k.starts_with("basic:") && declaring(k).is_some());
    // JCZ's editions of the base game are whole tile sets: two of them together are the base
    // game twice (144 tiles), which we do not play.
    if let [first, second, ..] = setup.sets.keys().filter(|k| base(k)).collect::<Vec<_>>()[..] {
        return Err(format!(
            "setup.sets: `{first}` and `{second}` together: only one copy of the base game is supported"
        ));
    }
    if !setup.sets.keys().any(base) {
        return Err(match setup.sets.keys().find(|k| k.starts_with("basic")) {
            Some(k) => format!("setup.sets: `{k}` is not supported (only `basic:1`)"),
            None => {
                "setup.sets: no `basic:1`: games without the base tiles are not supported".into()
            }
        });
    }
    for (set, copies) in &setup.sets {
        let Some(exp) = SETS
            .iter()
            .find(|(id, _)| id == set)
            .map(|(_, e)| *e)
            .or_else(|| declaring(set).map(Some))
        else {
            let mut known: Vec<&str> = SETS.iter().map(|(s, _)| *s).collect();
            known.extend(
                manifests
                    .iter()
                    .flat_map(|m| m.jcz.sets.iter().map(String::as_str)),
            );
            return Err(format!(
                "setup.sets: set `{set}` is not supported (supported: {})",
                known.join(", ")
            ));
        };
        // Several copies of an expansion's set: its tiles that many times (`tiles.<set>`,
        // below); the base game once.
        let n = set_copies(set, copies)?;
        if n != 1 && exp.is_none() {
            return Err(format!(
                "setup.sets: `{set}` × {copies}: only one copy of the base game is supported"
            ));
        }
        if let Some(exp) = exp {
            if !expansions.iter().any(|e| e == exp) {
                expansions.push(exp.to_string());
            }
        }
    }
    let has = |e: &str| setup.elements.contains_key(e);
    for (key, value) in &setup.elements {
        match key.as_str() {
            // The base game's follower: any number, none included (`figures.<kind>`).
            "small-follower" => {
                let n = element_count(key, value)?;
                options.push((figures_option(SMALL_FOLLOWER), n.to_string()));
            }
            "farmers" | "river" => {}
            // Gardens take only the abbot, which is refused above: without it they are
            // decoration, and a garden tile plays as its plain twin (IC-3, T-86).
            "garden" => {}
            e if owner_of_element(manifests, e).is_some() => {}
            other if LATER_ELEMENTS.contains(&other) => {
                return Err(format!(
                    "setup.elements: `{other}` belongs to an expansion that is not supported yet"
                ))
            }
            other => return Err(format!("setup.elements: unknown element `{other}`")),
        }
    }
    if !has("small-follower") {
        // JCZ plays a game without followers when the element is missing.
        options.push((figures_option(SMALL_FOLLOWER), "0".into()));
    }
    // JCZ has no farm-scoring rule: always the 3rd edition.
    options.push(("farmScoring".into(), "3rd".into()));
    options.push(("farmers".into(), has("farmers").to_string()));
    let [small_city] = <[&str; 1]>::try_from(read_rules(setup, BASE_RULES)?).expect("one rule map");
    for key in setup.rules.keys() {
        let k = key.as_str();
        // A declared rule key without its expansion's set changes nothing (JCZ writes
        // every rule key).
        let declared = manifests
            .iter()
            .any(|m| m.jcz.rules.iter().any(|r| r.key == k));
        if !BASE_RULES.iter().any(|m| m.key == k) && !declared {
            return Err(format!("setup.rules: unknown rule `{k}`"));
        }
    }
    options.push(("smallCity".into(), small_city.into()));
    declared_expansions(setup, manifests, &mut expansions, &mut options)?;
    Ok(RulesSpec {
        expansions,
        options,
        plugin_dirs: Vec::new(),
    })
}

/// The expansion of the manifests whose `[jcz] elements` list `element`.
fn owner_of_element<'a>(manifests: &'a [Manifest], element: &str) -> Option<&'a Manifest> {
    manifests
        .iter()
        .find(|m| m.jcz.elements.iter().any(|e| e.name == element))
}

/// The base game's follower kind.
const SMALL_FOLLOWER: &str = "small-follower";

/// The ruleset option holding how many figures of `kind` each player has.
fn figures_option(kind: &str) -> String {
    format!("{}{kind}", carcassonne_core::FIGURE_COUNT_PREFIX)
}

/// How many copies of `set` a save takes: a positive integer.
fn set_copies(set: &str, copies: &Value) -> Result<i64, String> {
    match copies.as_i64() {
        Some(n) if (1..=8).contains(&n) => Ok(n),
        _ => Err(format!(
            "setup.sets: `{set}` × {copies}: the number of copies must be 1 to 8"
        )),
    }
}

/// An element's value as a count: a number, or `true` for one.
fn element_count(name: &str, value: &Value) -> Result<i64, String> {
    match value {
        Value::Bool(true) => Ok(1),
        Value::Bool(false) => Ok(0),
        v => v.as_i64().filter(|n| (0..=32).contains(n)).ok_or_else(|| {
            format!("setup.elements: `{name}: {v}`: expected a number of figures from 0 to 32")
        }),
    }
}

/// The tile sets (their `set` names) of an expansion's tile files.
pub(crate) fn tile_sets_of(m: &Manifest) -> Result<Vec<String>, String> {
    m.tiles
        .iter()
        .map(|p| {
            carcassonne_files::tiles::load_tile_set(p)
                .map(|t| t.set)
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// Every declared expansion (`[jcz] sets`) with one of its sets or one of its elements in
/// the save. With a set (only one at a time: two editions are two copies, refused), every
/// `required` element must be there, with its `count`, its tile sets are taken as many
/// times as the save says, and `[jcz.set-options]` of the set is written out. With only
/// elements (JCZ switches each on alone, FCZ's tests do), it is loaded without its tiles
/// (`tiles.<set>` = 0: its tile kinds stay known, so an abbey can still be handed out).
/// Either way `[jcz] options`, each element's option or figure count (absent: none) and
/// each declared rule read from the save (its default where the save has no key) are
/// written out.
fn declared_expansions(
    setup: &JczSetup,
    manifests: &[Manifest],
    expansions: &mut Vec<String>,
    options: &mut Vec<(String, String)>,
) -> Result<(), String> {
    for m in manifests {
        let d: &JczDeclaration = &m.jcz;
        let sets: Vec<&String> = d
            .sets
            .iter()
            .filter(|s| setup.sets.contains_key(*s))
            .collect();
        let set = match sets[..] {
            [set] => Some(set),
            [] => None,
            _ => {
                return Err(format!(
                    "setup.sets: `{}` and `{}` together: only one edition of a set is supported",
                    sets[0], sets[1]
                ))
            }
        };
        let owned = d
            .elements
            .iter()
            .any(|e| !e.with_set && setup.elements.contains_key(&e.name));
        let copies = match set {
            Some(s) => set_copies(s, &setup.sets[s])?,
            None if owned => 0,
            None => continue,
        };
        if !expansions.contains(&m.id) {
            expansions.push(m.id.clone());
        }
        if copies != 1 {
            for t in tile_sets_of(m)? {
                options.push((
                    format!("{}{t}", carcassonne_core::TILE_COPIES_PREFIX),
                    copies.to_string(),
                ));
            }
        }
        if let Some(set) = set {
            let missing: Vec<&str> = d
                .elements
                .iter()
                .filter(|e| e.required && !setup.elements.contains_key(&e.name))
                .map(|e| e.name.as_str())
                .collect();
            if !missing.is_empty() {
                return Err(format!(
                    "setup.sets: `{set}` without the element{} `{}` is not supported",
                    if missing.len() > 1 { "s" } else { "" },
                    missing.join("`, `")
                ));
            }
        }
        let mut figure_counts: Vec<(String, String)> = Vec::new();
        let mut push = |k: &str, v: &str| options.push((format!("{}.{k}", m.id), v.to_string()));
        for e in &d.elements {
            let value = setup.elements.get(&e.name);
            if let Some(kind) = &e.figure {
                let n = value.map_or(Ok(0), |v| element_count(&e.name, v))?;
                figure_counts.push((figures_option(kind), n.to_string()));
                continue;
            }
            let Some(v) = value else {
                let with = e
                    .absent_with
                    .iter()
                    .find(|(s, _)| setup.sets.contains_key(s));
                if let (Some(option), Some(v)) =
                    (&e.option, with.map(|(_, v)| v).or(e.absent.as_ref()))
                {
                    push(option, v);
                }
                continue;
            };
            if let (Some(option), Some(v)) = (&e.option, &e.present) {
                push(option, v);
            }
            if let Some(n) = e.count {
                if !(v.as_i64() == Some(n) || (n == 1 && v.as_bool() == Some(true))) {
                    let name = e.name.replace('-', " ");
                    let each = if n == 1 {
                        format!(": one {name} each")
                    } else {
                        String::new()
                    };
                    return Err(format!(
                        "setup.elements: `{}: {v}`: only {n} {name} per player is supported{each}",
                        e.name
                    ));
                }
            }
        }
        for (_, opts) in d.set_options.iter().filter(|(s, _)| Some(s) == set) {
            for (k, v) in opts {
                push(k, v);
            }
        }
        for (k, v) in &d.options {
            push(k, v);
        }
        if set.is_none() {
            for (k, v) in &d.without_set {
                push(k, v);
            }
        }
        for r in &d.rules {
            let v = rule_value(
                setup,
                &r.key,
                &r.default,
                r.values.iter().map(|(a, b)| (a.as_str(), b.as_str())),
            )?;
            push(&r.option, v);
        }
        options.extend(figure_counts);
    }
    Ok(())
}

/// FanCloisterZone's saves: each loaded expansion's `fcz-options` replace the values the
/// rest of the setup gave, or are added (the Tower's `ransomAsked=fcz`: its fork reopens the
/// action step; the rivers' lakes and placement rule).
pub fn apply_fcz_options(spec: &mut RulesSpec, manifests: &[Manifest]) {
    for m in manifests.iter().filter(|m| spec.expansions.contains(&m.id)) {
        for (k, v) in &m.jcz.fcz_options {
            let key = format!("{}.{k}", m.id);
            match spec.options.iter_mut().find(|(x, _)| *x == key) {
                Some(o) => o.1 = v.clone(),
                None => spec.options.push((key, v.clone())),
            }
        }
    }
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

    /// IC-3, IC-8, IC-17: both editions load `inns-cathedrals`; the elements `inn` and
    /// `cathedral` switch the symbols; the final-scoring rule maps to our option.
    #[test]
    fn inns_and_cathedrals_sets_elements_and_rule() {
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "inns-and-cathedrals:1": 1},
            "elements": {"small-follower": 7, "big-follower": 1, "inn": true, "cathedral": false},
            "rules": {}
        })))
        .unwrap();
        assert_eq!(spec.expansions, ["inns-cathedrals"]);
        assert_eq!(option(&spec, "inns-cathedrals.inns"), Some("true"));
        // Present = on, whatever the value (§2).
        assert_eq!(option(&spec, "inns-cathedrals.cathedrals"), Some("true"));
        assert_eq!(
            option(&spec, "inns-cathedrals.innCathedralIncomplete"),
            Some("zero")
        );
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "inns-and-cathedrals:2": 1},
            "elements": {"small-follower": 7, "big-follower": 1, "garden": true},
            "rules": {"inn-and-cathedral-final-scoring": "ignore"}
        })))
        .unwrap();
        assert_eq!(spec.expansions, ["inns-cathedrals"]);
        assert_eq!(option(&spec, "inns-cathedrals.inns"), Some("false"));
        assert_eq!(option(&spec, "inns-cathedrals.cathedrals"), Some("false"));
        assert_eq!(
            option(&spec, "inns-cathedrals.innCathedralIncomplete"),
            Some("normal")
        );
        let err = |v: Value| rules_spec(&setup(v)).unwrap_err();
        assert!(
            err(json!({"sets": {"basic:1": 1, "inns-and-cathedrals:1": 1,
                                    "inns-and-cathedrals:2": 1},
                           "elements": {"small-follower": 7, "big-follower": 1}}))
            .contains("only one edition")
        );
        // River II's inn with the element alone: I&C's rules without its tiles or big
        // followers.
        let spec = rules_spec(&setup(json!({"sets": {"basic:1": 1, "river/2:1": 1},
                           "elements": {"small-follower": 7, "inn": true}})))
        .unwrap();
        assert_eq!(spec.expansions, ["river2", "inns-cathedrals"]);
        assert_eq!(option(&spec, "tiles.inns-cathedrals"), Some("0"));
        assert_eq!(option(&spec, "figures.big-follower"), Some("0"));
        assert_eq!(option(&spec, "inns-cathedrals.inns"), Some("true"));
        assert!(
            err(json!({"sets": {"basic:1": 1, "inns-and-cathedrals:1": 1},
                           "elements": {"small-follower": 7, "big-follower": 1},
                           "rules": {"inn-and-cathedral-final-scoring": "half"}}))
            .contains("half")
        );
    }

    /// JCZ 5 plays River II with its one lake and the look-ahead; FCZ's saves (appVersion 6
    /// or later) get its lakes per branch and its placement rule, options JCZ's reading
    /// does not set at all (`apply_fcz_options` adds them).
    #[test]
    fn rivers_read_as_jcz_or_fcz_plays_them() {
        let save = setup(json!({"sets": {"basic:1": 1, "river/2:1": 1},
                                "elements": {"small-follower": 7, "farmers": true}}));
        let manifests = crate::declared::manifests(&[]).unwrap();
        let mut spec = rules_spec_with(&save, &manifests).unwrap();
        assert_eq!(option(&spec, "river2.riverLookahead"), Some("true"));
        assert_eq!(option(&spec, "river2.riverLakes"), None);
        apply_fcz_options(&mut spec, &manifests);
        assert_eq!(option(&spec, "river2.riverLakes"), Some("per-branch"));
        assert_eq!(option(&spec, "river2.riverPlacement"), Some("fcz"));
        // An expansion that is not loaded gets none of its FCZ options.
        assert_eq!(option(&spec, "tower.ransomAsked"), None);
    }

    #[test]
    fn traders_and_builders_sets_and_elements() {
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "traders-and-builders:2": 1, "river/2:1": 1},
            "elements": {"small-follower": 7, "farmers": true, "builder": 1, "pig": 1,
                         "traders": true},
            "rules": {}
        })))
        .unwrap();
        assert_eq!(spec.expansions, ["river2", "traders-builders"]);
        assert_eq!(option(&spec, "traders-builders.edition"), Some("2"));
        // TB-23: the herd tile alone does not switch the herd on in JCZ's engine; the
        // element does.
        assert_eq!(option(&spec, "traders-builders.pigHerd"), Some("false"));
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "traders-and-builders:2": 1, "river/2:1": 1},
            "elements": {"small-follower": 7, "farmers": true, "builder": 1, "pig": 1,
                         "traders": true, "pig-herd": true},
            "rules": {}
        })))
        .unwrap();
        assert_eq!(option(&spec, "traders-builders.pigHerd"), Some("true"));
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "traders-and-builders:1": 1},
            "elements": {"small-follower": 7, "builder": 1, "pig": 1, "traders": true},
            "rules": {}
        })))
        .unwrap();
        assert_eq!(option(&spec, "traders-builders.edition"), Some("1"));
        assert_eq!(option(&spec, "traders-builders.pigHerd"), Some("false"));
        assert_eq!(option(&spec, "figures.builder"), Some("1"));
        assert_eq!(option(&spec, "tiles.traders-builders"), None);
        // Two pigs each, without the set's tiles or builders (FCZ's `pigs-no-stack`).
        let spec = rules_spec(&setup(json!({"sets": {"basic:1": 1},
                           "elements": {"small-follower": 7, "pig": 2}})))
        .unwrap();
        assert_eq!(spec.expansions, ["traders-builders"]);
        assert_eq!(option(&spec, "figures.pig"), Some("2"));
        assert_eq!(option(&spec, "figures.builder"), Some("0"));
        assert_eq!(option(&spec, "tiles.traders-builders"), Some("0"));
        let err = |v: Value| rules_spec(&setup(v)).unwrap_err();
        assert!(
            err(json!({"sets": {"basic:1": 1, "traders-and-builders:1": 1},
                           "elements": {"small-follower": 7, "builder": 1, "pig": 1}}))
            .contains("traders")
        );
    }

    #[test]
    fn princess_and_dragon_rules_map_to_options() {
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "princess-and-dragon:1": 1},
            "elements": {"small-follower": 7, "dragon": true, "fairy": true,
                         "princess": true, "portal": true},
            "rules": {"dragon-move": "after-scoring", "princess-action": "must",
                      "fairy-placement": "on-tile"}
        })))
        .unwrap();
        assert_eq!(spec.expansions, ["princess-dragon"]);
        assert_eq!(
            option(&spec, "princess-dragon.dragonTiming"),
            Some("after-scoring")
        );
        assert_eq!(
            option(&spec, "princess-dragon.princessAction"),
            Some("must")
        );
        assert_eq!(
            option(&spec, "princess-dragon.fairyPlacement"),
            Some("on-tile")
        );
        assert_eq!(
            option(&spec, "princess-dragon.fairyOnTilePoints"),
            Some("per-figure")
        );
        // Only some of the four parts: the others are off (their tiles plain).
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "princess-and-dragon:2": 1},
            "elements": {"small-follower": 1, "dragon": true, "fairy": true},
        })))
        .unwrap();
        assert_eq!(option(&spec, "princess-dragon.dragon"), Some("true"));
        assert_eq!(option(&spec, "princess-dragon.fairy"), Some("true"));
        assert_eq!(option(&spec, "princess-dragon.princess"), Some("false"));
        assert_eq!(option(&spec, "princess-dragon.portal"), Some("false"));
        assert_eq!(option(&spec, "figures.small-follower"), Some("1"));
        // The fairy alone on the base tiles.
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1},
            "elements": {"fairy": 1},
        })))
        .unwrap();
        assert_eq!(option(&spec, "tiles.princess-dragon"), Some("0"));
        assert_eq!(option(&spec, "princess-dragon.dragon"), Some("false"));
        // No `small-follower`: a game without followers.
        assert_eq!(option(&spec, "figures.small-follower"), Some("0"));
    }

    /// AG-1: `basic:2` is the base set of the abbot-and-garden expansion, whose abbot it needs.
    #[test]
    fn the_second_edition_base_is_the_abbot_expansion() {
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:2": 1},
            "elements": {"small-follower": 7, "farmers": true, "abbot": 1, "garden": 1}
        })))
        .unwrap();
        assert_eq!(spec.expansions, vec!["abbot-garden".to_string()]);
        let err = rules_spec(&setup(json!({
            "sets": {"basic:2": 1}, "elements": {"small-follower": 7}
        })))
        .unwrap_err();
        assert!(err.contains("abbot"), "{err}");
        assert_eq!(option(&spec, "abbot-garden.gardenTiles"), None);
        assert_eq!(option(&spec, "abbot-garden.gardens"), Some("true"));
    }

    /// AG-3 `gardens=false`: JCZ loads garden features only with the `garden` element, so a
    /// `basic:2` save without it has garden tiles the abbot may not take; the element alone
    /// (a `:2` set's garden twins) does not load the abbot.
    #[test]
    fn second_edition_without_the_garden_element_has_no_gardens() {
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:2": 1},
            "elements": {"small-follower": 7, "abbot": 1}
        })))
        .unwrap();
        assert_eq!(option(&spec, "abbot-garden.gardens"), Some("false"));
        assert_eq!(option(&spec, "abbot-garden.gardenTiles"), None);
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "inns-and-cathedrals:2": 1},
            "elements": {"small-follower": 7, "big-follower": 1, "garden": true}
        })))
        .unwrap();
        assert_eq!(spec.expansions, vec!["inns-cathedrals".to_string()]);
    }

    /// JCZ's `basic:1` and `basic:2` are each the whole base game: together, 144 tiles.
    #[test]
    fn two_editions_of_the_base_game_are_refused() {
        let err = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "basic:2": 1},
            "elements": {"small-follower": 7, "abbot": 1, "garden": true}
        })))
        .unwrap_err();
        assert!(err.contains("only one copy of the base game"), "{err}");
    }

    /// AG-1 `gardenTiles=false`: the abbot element without `basic:2` (JCZ switches it on
    /// alone) plays on the first edition's tiles, no garden twin replacing any of them.
    #[test]
    fn the_abbot_alone_has_no_garden_tiles() {
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1},
            "elements": {"small-follower": 7, "farmers": true, "abbot": 1}
        })))
        .unwrap();
        assert_eq!(spec.expansions, vec!["abbot-garden".to_string()]);
        assert_eq!(option(&spec, "abbot-garden.gardenTiles"), Some("false"));
    }

    #[test]
    fn what_we_cannot_play_is_refused_by_name() {
        let err = |v: Value| rules_spec(&setup(v)).unwrap_err();
        assert!(
            err(json!({"sets": {"basic:3": 1}, "elements": {"small-follower": 7}}))
                .contains("basic:3")
        );
        assert!(
            err(json!({"sets": {"basic:1": 2}, "elements": {"small-follower": 7}}))
                .contains("one copy of the base game")
        );
        assert!(
            err(json!({"sets": {"basic:1": 1}, "elements": {"small-follower": -1}}))
                .contains("small-follower")
        );
        assert!(err(
            json!({"sets": {"basic:1": 1, "tower:1": 0}, "elements": {"small-follower": 7}})
        )
        .contains("copies"));
        assert!(err(
            json!({"sets": {"basic:1": 1}, "elements": {"small-follower": 7},
                           "rules": {"mystery": "x"}})
        )
        .contains("mystery"));
    }

    /// AM-1, AM-16 (AMQ-2), AM-21: sets, elements and rules of Abbey & Mayor.
    #[test]
    fn abbey_and_mayor_sets_elements_and_rules() {
        let am = json!({"small-follower": 7, "abbey": 1, "mayor": 1, "wagon": 1, "barn": 1});
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "abbey-and-mayor:1": 1},
            "elements": am.clone(),
            "rules": {}
        })))
        .unwrap();
        assert_eq!(spec.expansions, ["abbey-mayor"]);
        assert_eq!(option(&spec, "abbey-mayor.edition"), Some("1"));
        // No key: JCZ's engine plays C2 (AMQ-2); barns: not-occupied.
        assert_eq!(option(&spec, "abbey-mayor.wagonMove"), Some("C2"));
        assert_eq!(
            option(&spec, "abbey-mayor.barnPlacement"),
            Some("not-occupied")
        );
        assert_eq!(option(&spec, "abbey-mayor.abbeyFinalRound"), Some("on"));
        assert_eq!(
            option(&spec, "abbey-mayor.challengeLoserWagon"),
            Some("may-move")
        );
        let spec = rules_spec(&setup(json!({
            "sets": {"basic:1": 1, "abbey-and-mayor:2": 1},
            "elements": am.clone(),
            "rules": {"wagon-move": "C1", "barn-placement": "occupied"}
        })))
        .unwrap();
        assert_eq!(option(&spec, "abbey-mayor.edition"), Some("2"));
        assert_eq!(option(&spec, "abbey-mayor.wagonMove"), Some("C1"));
        assert_eq!(option(&spec, "abbey-mayor.barnPlacement"), Some("occupied"));
        assert_eq!(option(&spec, "figures.mayor"), Some("1"));
        assert_eq!(option(&spec, "abbey-mayor.abbey"), Some("true"));
        // Each part alone, without the tiles: the mayor; the others absent.
        let spec = rules_spec(&setup(json!({"sets": {"basic:1": 1},
                           "elements": {"small-follower": 7, "mayor": 1}})))
        .unwrap();
        assert_eq!(spec.expansions, ["abbey-mayor"]);
        assert_eq!(option(&spec, "tiles.abbey-mayor"), Some("0"));
        assert_eq!(option(&spec, "abbey-mayor.abbey"), Some("false"));
        assert_eq!(option(&spec, "figures.wagon"), Some("0"));
        // Three copies of the set (FCZ's wells tests): its tiles three times.
        let spec = rules_spec(&setup(
            json!({"sets": {"basic:1": 1, "abbey-and-mayor:1": 3},
                           "elements": am.clone()}),
        ))
        .unwrap();
        assert_eq!(option(&spec, "tiles.abbey-mayor"), Some("3"));
        let err = |v: Value| rules_spec(&setup(v)).unwrap_err();
        assert!(err(json!({"sets": {"basic:1": 1, "abbey-and-mayor:1": 1},
                           "elements": am, "rules": {"wagon-move": "C3"}}))
        .contains("C3"));
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
        assert!(err(json!({"sets": {"basic:1": 1, "tower:2": 1},
                           "elements": {"small-follower": 7, "tower": true}}))
        .contains("tower:2"));
    }
}
