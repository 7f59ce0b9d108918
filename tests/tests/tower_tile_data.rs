//! The Tower's tile file (`expansions/tower/tiles.toml`) against the facts of
//! `../shared/data/tiles-classic.toml` (set `tower`, first edition: `count` > 0): the same
//! ids, copies, edges and features (kind, sides, half-edges, inner name, pennants, cities),
//! features compared as multisets; 18 tiles, each with exactly one tower foundation (TW-1).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

type Feature = (
    String,
    BTreeSet<String>,
    BTreeSet<String>,
    Option<String>,
    i64,
    BTreeSet<String>,
);

fn load(path: PathBuf) -> toml::Value {
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn list(v: Option<&toml::Value>) -> BTreeSet<String> {
    match v {
        None => BTreeSet::new(),
        Some(toml::Value::String(s)) => s.chars().map(|c| c.to_string()).collect(),
        Some(toml::Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().expect("strings").to_string())
            .collect(),
        Some(other) => panic!("not a list: {other}"),
    }
}

/// id → (count, edges, features), with the half-edge key `half` (reference) or `halves`
/// (ours).
fn tiles(v: &toml::Value, set: Option<&str>) -> BTreeMap<String, (i64, String, Vec<Feature>)> {
    let mut out = BTreeMap::new();
    for t in v["tile"].as_array().expect("[[tile]]") {
        if let Some(set) = set {
            if t.get("set").and_then(|s| s.as_str()) != Some(set) {
                continue;
            }
        }
        let count = t["count"].as_integer().expect("count");
        if count == 0 {
            continue; // C2 garden variants
        }
        let mut features: Vec<Feature> = t["features"]
            .as_array()
            .expect("features")
            .iter()
            .map(|f| {
                (
                    f["kind"].as_str().expect("kind").to_string(),
                    list(f.get("sides")),
                    list(f.get("half").or_else(|| f.get("halves"))),
                    f.get("inner").and_then(|i| i.as_str()).map(str::to_string),
                    f.get("pennants").and_then(|p| p.as_integer()).unwrap_or(0),
                    list(f.get("cities")),
                )
            })
            .collect();
        features.sort();
        out.insert(
            t["id"].as_str().expect("id").to_string(),
            (
                count,
                t["edges"].as_str().expect("edges").to_string(),
                features,
            ),
        );
    }
    out
}

#[test]
fn tower_tiles_match_the_reference() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    // A cross-check against the reference beside the repository: skipped, saying so, when a
    // clone stands alone.
    let path = root.join("../shared/data/tiles-classic.toml");
    if !path.is_file() {
        eprintln!(
            "skipped: the tile reference {} is not beside the repository",
            path.display()
        );
        return;
    }
    let reference = tiles(&load(path), Some("tower"));
    let ours = tiles(&load(root.join("expansions/tower/tiles.toml")), None);
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        reference.keys().collect::<Vec<_>>(),
        "tile ids"
    );
    for (id, t) in &ours {
        assert_eq!(t, &reference[id], "{id}");
    }
    let copies: i64 = ours.values().map(|t| t.0).sum();
    assert_eq!((ours.len(), copies), (17, 18), "TW-1: 17 kinds, 18 tiles");
    for (id, (_, _, features)) in &ours {
        assert_eq!(
            features.iter().filter(|f| f.0 == "tower").count(),
            1,
            "{id}: one tower foundation"
        );
    }
}
