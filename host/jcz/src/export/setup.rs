//! Our expansions and options → a save's `setup` (sets, elements, rules), by inverting the
//! importer's mapping ([`crate::setup`]) and the expansions' `[jcz]` declarations.
//!
//! Nothing here names an expansion. For each loaded expansion the candidates its declaration
//! allows (each set, each choice of its optional elements, the JCZ value of each rule) are
//! read back through the importer's own mapping, and the first whose options are the game's
//! is kept. At the end the whole setup is read back once more and every option and the
//! expansion order must come out as the game has them: a game JCZ cannot express is refused
//! by naming the option or the expansion.

use crate::save::JczSetup;
use crate::setup::{rules_spec_with, tile_sets_of, BASE_RULES};
use carcassonne_core::Ruleset;
use carcassonne_files::jcz::{JczDeclaration, JczElement};
use carcassonne_files::manifest::Manifest;
use carcassonne_rules::{build_ruleset, RulesSpec};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The base game's JCZ set (the importer requires it).
const BASE_SET: &str = "basic:1";

/// The game's option values as text.
fn options_of(rules: &Ruleset) -> BTreeMap<String, String> {
    rules
        .options()
        .0
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect()
}

/// The `setup` (without `start`) of a save for a game of `rules`.
pub(super) fn jcz_setup(
    rules: &Ruleset,
    manifests: &[Manifest],
    plugin_dirs: &[PathBuf],
) -> Result<JczSetup, String> {
    let ours = options_of(rules);
    let mut setup = JczSetup {
        sets: BTreeMap::from([(BASE_SET.to_string(), json!(1))]),
        elements: BTreeMap::new(),
        rules: BTreeMap::new(),
        start: Vec::new(),
    };
    base(rules, &ours, &mut setup)?;
    // The declaration of each loaded expansion; one without a JCZ set cannot be written.
    let mut declared: Vec<(&str, &JczDeclaration, i64)> = Vec::new();
    for e in rules.expansions() {
        let m = manifests
            .iter()
            .find(|m| m.id == e.id())
            .filter(|m| !m.jcz.sets.is_empty())
            .ok_or_else(|| {
                format!(
                    "expansion `{}` has no JCloisterZone set (its manifest declares no `[jcz] sets`): JCZ cannot open this game",
                    e.id()
                )
            })?;
        // How many times its tiles are in the pack (`tiles.<set>`, default 1): 0 is JCZ's
        // elements alone, N its set taken N times (the importer reads `set: N` as N for
        // each of the expansion's tile sets; unequal counts are caught by `check`).
        let copies = tile_sets_of(m)?
            .iter()
            .map(|t| {
                ours.get(&format!("{}{t}", carcassonne_core::TILE_COPIES_PREFIX))
                    .and_then(|v| v.parse::<i64>().ok())
                    .unwrap_or(1)
            })
            .max()
            .unwrap_or(1);
        declared.push((e.id(), &m.jcz, copies));
    }
    // Sets first (an element may depend on another expansion's set: `absent-with`).
    for (id, d, copies) in &declared {
        let no_tiles = *copies == 0;
        // The options an expansion plays with when JCZ has its elements but none of its sets
        // (`without-set`), or a game without its tiles (the castle alone on the base tiles):
        // write the elements alone, as the importer reads them back.
        let without_set = (!d.without_set.is_empty() || no_tiles)
            && d.without_set
                .iter()
                .all(|(k, v)| ours.get(&format!("{id}.{k}")) == Some(v));
        if without_set {
            for e in d.elements.iter().filter(|e| e.required) {
                setup
                    .elements
                    .insert(e.name.clone(), element_value(e.count));
            }
            continue;
        }
        let set = d
            .sets
            .iter()
            .find(|s| {
                d.set_options
                    .iter()
                    .filter(|(set, _)| set == *s)
                    .flat_map(|(_, o)| o)
                    .all(|(k, v)| ours.get(&format!("{id}.{k}")) == Some(v))
            })
            .ok_or_else(|| {
                format!(
                    "expansion `{id}`: no JCZ set of {} has this game's options",
                    d.sets.join(", ")
                )
            })?;
        setup.sets.insert(set.clone(), json!(copies));
        for e in d.elements.iter().filter(|e| e.required) {
            setup
                .elements
                .insert(e.name.clone(), element_value(e.count));
        }
    }
    only_one_base(&mut setup);
    for (id, d, _) in &declared {
        choose(id, d, &ours, manifests, &mut setup)?;
    }
    check(rules, &ours, &setup, manifests, plugin_dirs)?;
    Ok(setup)
}

/// An expansion's edition of the base game (`basic:2`) is the whole base tile set in JCZ: it
/// replaces `basic:1` (both would be the base game twice).
fn only_one_base(setup: &mut JczSetup) {
    if setup
        .sets
        .keys()
        .any(|s| s != BASE_SET && s.starts_with("basic:"))
    {
        setup.sets.remove(BASE_SET);
    }
}

/// An element's value: its count, or `true`.
fn element_value(count: Option<i64>) -> serde_json::Value {
    count.map_or(json!(true), |n| json!(n))
}

/// The base game: followers, farmers and its rules.
fn base(
    rules: &Ruleset,
    ours: &BTreeMap<String, String>,
    setup: &mut JczSetup,
) -> Result<(), String> {
    let small = rules
        .figure_named("small-follower")
        .map_or(0, |k| rules.figure_kind(k).per_player);
    setup.elements.insert("small-follower".into(), json!(small));
    if ours.get("farmers").map(String::as_str) == Some("true") {
        setup.elements.insert("farmers".into(), json!(true));
    }
    fn option_of(key: &str) -> &str {
        match key {
            // The only base rule: its option is `smallCity` (see `crate::setup`).
            "tiny-city-scoring" => "smallCity",
            other => other,
        }
    }
    for m in BASE_RULES {
        let value = ours
            .get(option_of(m.key))
            .map(String::as_str)
            .unwrap_or(m.default);
        let jcz = m
            .values
            .iter()
            .find(|(_, o)| *o == value)
            .map(|(j, _)| *j)
            .ok_or_else(|| {
                format!(
                    "option `{}` = `{value}` has no JCZ rule `{}`",
                    option_of(m.key),
                    m.key
                )
            })?;
        if value != m.default {
            setup.rules.insert(m.key.to_string(), rule_json(jcz));
        }
    }
    Ok(())
}

/// A rule's JCZ value as JCZ writes it: its boolean rules (`bazaar-no-auction`,
/// `vineyards-for-garden`: `true` / `false`) as JSON booleans, which its engine casts to
/// `Boolean` (a string there fails the game's set-up), the others as text.
fn rule_json(jcz: &str) -> serde_json::Value {
    match jcz {
        "true" => json!(true),
        "false" => json!(false),
        text => json!(text),
    }
}

/// The elements and rules of one expansion: every rule's JCZ value whose reading is our
/// option, then the first choice of its optional elements that reads back as our options.
fn choose(
    id: &str,
    d: &JczDeclaration,
    ours: &BTreeMap<String, String>,
    manifests: &[Manifest],
    setup: &mut JczSetup,
) -> Result<(), String> {
    for r in &d.rules {
        let key = format!("{id}.{}", r.option);
        let value = ours.get(&key).cloned().unwrap_or_else(|| r.default.clone());
        let jcz = r
            .values
            .iter()
            .find(|(_, o)| *o == value)
            .map(|(j, _)| j.clone())
            .ok_or_else(|| {
                format!(
                    "option `{key}` = `{value}` has no value of JCZ's rule `{}`",
                    r.key
                )
            })?;
        // Every rule key is written, as JCZ's own saves do (its engine reads some without a
        // default: `king-and-robber-scoring`, `coc-final-scoring`), but for a key only FCZ
        // knows (`inn-and-cathedral-final-scoring`) at its default: upstream JCZ refuses it.
        if value != r.default || !r.fcz_only {
            setup.rules.insert(r.key.clone(), rule_json(&jcz));
        }
    }
    // A figure element's value is the game's count of that figure (none: left out).
    for e in &d.elements {
        let Some(kind) = &e.figure else { continue };
        let n = ours
            .get(&format!("figures.{kind}"))
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(0);
        if n > 0 {
            setup.elements.insert(e.name.clone(), json!(n));
        }
    }
    // An element an earlier expansion chose stays (River I's `fishermen`, which gives its
    // `riverSetup=mixed`, is also the Fishermen's own element): only the others are tried.
    let optional: Vec<_> = d
        .elements
        .iter()
        .filter(|e| !e.required && e.figure.is_none())
        .filter(|e| !setup.elements.contains_key(&e.name))
        .collect();
    // The reason of the candidate that comes closest (fewest options off), so the error names
    // what no choice of elements can give.
    let mut last = (usize::MAX, String::new());
    for mask in 0u32..(1 << optional.len()) {
        let mut candidate = setup.clone();
        for (i, e) in optional.iter().enumerate() {
            if mask & (1 << i) != 0 {
                candidate
                    .elements
                    .insert(e.name.clone(), element_value(e.count));
            } else {
                candidate.elements.remove(&e.name);
            }
        }
        let spec = match rules_spec_with(&candidate, manifests) {
            Ok(spec) => spec,
            Err(e) => {
                if last.1.is_empty() {
                    last = (usize::MAX, e);
                }
                continue;
            }
        };
        if !spec.expansions.iter().any(|e| e == id) {
            if last.1.is_empty() {
                last = (
                    usize::MAX,
                    "without its set, JCZ loads it only with one of its elements".into(),
                );
            }
            continue;
        }
        let prefix = format!("{id}.");
        // Its options, and the figure counts its elements give (`shepherd`: `figures.shepherd`).
        let figures: Vec<String> = d
            .elements
            .iter()
            .filter_map(|e| e.figure.as_ref())
            .map(|f| format!("{}{f}", carcassonne_core::FIGURE_COUNT_PREFIX))
            .collect();
        let differs: Vec<&(String, String)> = spec
            .options
            .iter()
            .filter(|(k, _)| k.starts_with(&prefix) || figures.contains(k))
            .filter(|(k, v)| ours.get(k) != Some(v))
            .collect();
        match differs.first() {
            None => {
                *setup = candidate;
                return Ok(());
            }
            Some((k, v)) if differs.len() < last.0 => {
                last = (
                    differs.len(),
                    format!(
                        "option `{k}` is `{}` in this game, but a JCZ save can only give `{v}`",
                        ours.get(k).map_or("absent", String::as_str)
                    ),
                )
            }
            Some(_) => {}
        }
    }
    Err(format!("expansion `{id}`: {}", last.1))
}

/// Reads the setup back as the importer does: the same expansions in the same order and
/// every option as the game has it.
fn check(
    rules: &Ruleset,
    ours: &BTreeMap<String, String>,
    setup: &JczSetup,
    manifests: &[Manifest],
    plugin_dirs: &[PathBuf],
) -> Result<(), String> {
    let mut spec: RulesSpec = rules_spec_with(setup, manifests)?;
    spec.plugin_dirs = plugin_dirs.to_vec();
    let back = build_ruleset(&spec).map_err(|e| e.to_string())?;
    let ids = |r: &Ruleset| {
        r.expansions()
            .iter()
            .map(|e| e.id().to_string())
            .collect::<Vec<_>>()
    };
    if ids(&back) != ids(rules) {
        return Err(format!(
            "JCZ would load the expansions {:?}, this game has {:?}",
            ids(&back),
            ids(rules)
        ));
    }
    let theirs = options_of(&back);
    for (k, v) in ours {
        let t = theirs.get(k).map_or("absent", String::as_str);
        if t != v {
            return Err(format!(
                "option `{k}` is `{v}` in this game, but JCZ plays `{t}`: a JCZ save cannot express it"
            ));
        }
    }
    Ok(())
}

/// The options a JCZ game with these expansions plays, as the importer reads a save with
/// each expansion's first set, the elements a new game of ours has ([`in_a_new_game`]),
/// farmers and no rule keys (so JCZ's defaults): what a game of ours needs to be written as
/// a save (`simulate --jcz`).
pub fn jcz_options(
    expansions: &[String],
    plugin_dirs: &[PathBuf],
) -> Result<Vec<(String, String)>, String> {
    let manifests = crate::declared::manifests(plugin_dirs)?;
    let mut setup = JczSetup {
        sets: BTreeMap::from([(BASE_SET.to_string(), json!(1))]),
        elements: BTreeMap::from([
            ("small-follower".to_string(), json!(7)),
            ("farmers".to_string(), json!(true)),
        ]),
        rules: BTreeMap::new(),
        start: Vec::new(),
    };
    for id in expansions {
        let m = manifests
            .iter()
            .find(|m| &m.id == id && !m.jcz.sets.is_empty())
            .ok_or_else(|| format!("expansion `{id}` has no JCloisterZone set"))?;
        setup.sets.insert(m.jcz.sets[0].clone(), json!(1));
        for e in m.jcz.elements.iter().filter(|e| in_a_new_game(e, m)) {
            let value = if e.figure.is_some() {
                json!(1)
            } else {
                element_value(e.count)
            };
            setup.elements.insert(e.name.clone(), value);
        }
    }
    only_one_base(&mut setup);
    Ok(rules_spec_with(&setup, &manifests)?.options)
}

/// Whether an element is in a save of a new game of ours with the expansion: required ones;
/// figures (one each, the printed count of every such figure); elements whose presence
/// gives the option its default (Inns & Cathedrals' inns, the pig herd, shrines), not those
/// that switch a variant on (the Black Tower, FCZ's fishermen instead of the river).
fn in_a_new_game(e: &JczElement, m: &Manifest) -> bool {
    let default = |name: &str| {
        m.options
            .iter()
            .find(|o| o.key == name || o.key.strip_prefix(&format!("{}.", m.id)) == Some(name))
            .map(|o| o.default.to_string())
    };
    match (&e.option, &e.present) {
        _ if e.required || e.figure.is_some() => true,
        (Some(o), Some(present)) => default(o).as_deref() == Some(present.as_str()),
        _ => true,
    }
}
