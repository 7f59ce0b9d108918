//! JCloisterZone saves of Hills & Sheep and of the castles and bridges of Bridges, Castles &
//! Bazaars (docs/jcz.md): how their sets, elements and rules map to options, our own saves
//! (`tests/jcz/hills-*.jcz`, `castle-*.jcz`, `bridge-*.jcz`, written by hand) going to a record, back to a
//! save and to a record again unchanged (simulated games of each set: `jcz_export.rs`). The
//! saves' own assertions are checked by `jcz.rs` with every save of `tests/jcz`.

mod common;

use carcassonne_jcz::save::JczSetup;
use common::{ok_with_plugins as ok, repo, Scratch};
use serde_json::{json, Value};
use std::path::Path;

const SAVES: [&str; 6] = [
    "hills-flock-grow-and-score.jcz",
    "hills-wolf-scatters-flock.jcz",
    "castle-scores-next-road.jcz",
    "castle-farm-final-scoring.jcz",
    "bridge-laid-by-choice.jcz",
    "bridge-laid-by-placement.jcz",
];

fn json_file(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
}

/// The options the importer reads from a `setup` (sets, elements, rules).
fn options(setup: Value) -> Vec<(String, String)> {
    let setup: JczSetup = serde_json::from_value(setup).expect("a setup");
    let manifests =
        carcassonne_jcz::declared::manifests(&[repo().join("expansions")]).expect("manifests");
    carcassonne_jcz::setup::rules_spec_with(&setup, &manifests)
        .expect("a supported setup")
        .options
}

fn option<'a>(opts: &'a [(String, String)], key: &str) -> Option<&'a str> {
    opts.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// HL-1 … HL-9: the set's editions, the three parts as elements (absent: plain tiles),
/// the shepherd's count, JCZ's rules, and the bag drawn from the save's numbers.
#[test]
fn hills_and_sheep_setups_map_to_options() {
    let o = options(json!({
        "sets": {"basic:1": 1, "hills-and-sheep:1": 1},
        "elements": {"small-follower": 7, "shepherd": 1, "hill": true, "vineyard": true},
        "rules": {"hill-tiebreaker": "number-of-followers"}
    }));
    assert_eq!(option(&o, "hills-sheep.edition"), Some("1"));
    assert_eq!(option(&o, "hills-sheep.hills"), Some("true"));
    assert_eq!(option(&o, "hills-sheep.vineyards"), Some("true"));
    assert_eq!(option(&o, "hills-sheep.hillTiebreaker"), Some("count"));
    assert_eq!(option(&o, "hills-sheep.tokenDraws"), Some("chosen"));
    assert_eq!(option(&o, "figures.shepherd"), Some("1"));
    // HL-2, HL-6: the set without its elements: hills and vineyards are plain, no shepherd.
    let o = options(json!({
        "sets": {"basic:1": 1, "hills-and-sheep:2": 1},
        "elements": {"small-follower": 7},
        "rules": {}
    }));
    assert_eq!(option(&o, "hills-sheep.edition"), Some("2"));
    assert_eq!(option(&o, "hills-sheep.hills"), Some("false"));
    assert_eq!(option(&o, "hills-sheep.vineyards"), Some("false"));
    assert_eq!(option(&o, "figures.shepherd"), Some("0"));
    assert_eq!(
        option(&o, "hills-sheep.hillTiebreaker"),
        Some("at-least-one")
    );
    // Two shepherds each, alone on the base tiles (FCZ's `flock-multiple-shepherds`).
    let o = options(json!({
        "sets": {"basic:1": 1},
        "elements": {"small-follower": 7, "shepherd": 2},
        "rules": {"vineyards-for-garden": true}
    }));
    assert_eq!(option(&o, "figures.shepherd"), Some("2"));
    assert_eq!(option(&o, "tiles.hills-sheep"), Some("0"));
    assert_eq!(option(&o, "hills-sheep.vineyardsForGarden"), Some("true"));
}

/// BCB-9, BCB-12, BCB-14: `castle` and `bazaar` switch their parts; JCZ's 0-point castle
/// event and its `bazaar-no-auction` rule.
#[test]
fn castle_and_bazaar_setups_map_to_options() {
    let o = options(json!({
        "sets": {"basic:1": 1, "bridges-castles-and-bazaars:1": 1},
        "elements": {"small-follower": 7, "castle": 1},
        "rules": {"bazaar-no-auction": true}
    }));
    assert_eq!(option(&o, "bridges-castles-bazaars.castles"), Some("true"));
    assert_eq!(option(&o, "bridges-castles-bazaars.bazaars"), Some("false"));
    assert_eq!(
        option(&o, "bridges-castles-bazaars.bazaarAuction"),
        Some("no-auction")
    );
    assert_eq!(
        option(&o, "bridges-castles-bazaars.castleEndEvent"),
        Some("true")
    );
    let o = options(json!({
        "sets": {"basic:1": 1},
        "elements": {"small-follower": 7, "castle": 1},
        "rules": {}
    }));
    assert_eq!(option(&o, "tiles.bridges-castles-bazaars"), Some("0"));
    assert_eq!(option(&o, "bridges-castles-bazaars.castles"), Some("true"));
}

/// BCB-1, BCB-4: the element `bridge` switches bridges on; JCZ lays one by choice on the
/// tile just placed only (`bridgeReach=placed`).
#[test]
fn bridge_setups_map_to_options() {
    let o = options(json!({
        "sets": {"basic:1": 1, "bridges-castles-and-bazaars:1": 1},
        "elements": {"small-follower": 7, "bridge": 1},
        "rules": {}
    }));
    assert_eq!(option(&o, "bridges-castles-bazaars.bridges"), Some("true"));
    assert_eq!(
        option(&o, "bridges-castles-bazaars.bridgeReach"),
        Some("placed")
    );
    let o = options(json!({
        "sets": {"basic:1": 1, "bridges-castles-and-bazaars:1": 1},
        "elements": {"small-follower": 7},
        "rules": {}
    }));
    assert_eq!(option(&o, "bridges-castles-bazaars.bridges"), Some("false"));
}

/// Each of our saves: save → record → save → record gives the same record (actions with
/// the bag's draws, options, result), and the written save carries FCZ's messages.
#[test]
fn our_saves_round_trip_through_the_writer() {
    let dir = Scratch::new("jcz-sets", "round-trip");
    for (i, name) in SAVES.iter().enumerate() {
        let save = repo().join("tests/jcz").join(name).display().to_string();
        let (rec, again, back) = (
            dir.arg(&format!("{i}.json")),
            dir.arg(&format!("{i}.jcz")),
            dir.arg(&format!("{i}-back.json")),
        );
        ok(&["convert", &save, "-o", &rec]);
        ok(&["convert", &rec, "-o", &again]);
        ok(&["convert", &again, "-o", &back]);
        let (a, b) = (json_file(Path::new(&rec)), json_file(Path::new(&back)));
        assert_eq!(a["actions"], b["actions"], "{name}: actions");
        assert_eq!(
            a["setup"]["options"], b["setup"]["options"],
            "{name}: options"
        );
        assert_eq!(a["result"], b["result"], "{name}: result");
        let written = json_file(Path::new(&again));
        let types: Vec<&str> = written["replay"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["type"].as_str().unwrap())
            .collect();
        if name.starts_with("hills") {
            // HL-9 in JCZ 5's form: the first token with the shepherd's deployment (its
            // `DEPLOY_MEEPLE` carries the number), later ones in the flock message (EXPAND)
            // that draws them; no FCZ `SHEPHERD_CONFIRM`.
            assert!(!types.contains(&"SHEPHERD_CONFIRM"), "{name}: {types:?}");
            assert!(
                types.contains(&"FLOCK_EXPAND_OR_SCORE"),
                "{name}: {types:?}"
            );
            let shepherd_draws = written["replay"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["type"] == "DEPLOY_MEEPLE")
                .filter(|m| {
                    m["payload"]["meepleId"]
                        .as_str()
                        .unwrap()
                        .contains("shepherd")
                })
                .filter(|m| m["payload"]["random"].is_number())
                .count();
            assert!(shepherd_draws > 0, "{name}: {types:?}");
        } else if name.starts_with("bridge") {
            // BCB-4: a bridge by choice is JCZ's `PLACE_TOKEN BRIDGE` on the placed tile's
            // `Road` `NS`; BCB-7: one the placement needs is in the `PLACE_TILE` alone.
            let tokens: Vec<&Value> = written["replay"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["type"] == "PLACE_TOKEN")
                .collect();
            if *name == "bridge-laid-by-choice.jcz" {
                assert_eq!(tokens.len(), 1, "{name}");
                assert_eq!(
                    tokens[0]["payload"],
                    json!({"token": "BRIDGE", "pointer": {"position": [1, 0], "feature": "Road", "location": "NS"}})
                );
            } else {
                assert!(tokens.is_empty(), "{name}: {types:?}");
            }
            assert_eq!(written["setup"]["elements"]["bridge"], json!(true));
        } else {
            assert!(types.contains(&"PLACE_TOKEN"), "{name}: {types:?}");
            // The castle element alone: no set of the expansion.
            assert_eq!(
                written["setup"]["sets"],
                json!({"basic:1": 1}),
                "{name}: sets"
            );
        }
    }
}
