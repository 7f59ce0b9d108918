//! `expansions/inns-cathedrals/tiles.toml` against the factual reference
//! `../shared/data/tiles-classic.toml` (set `inns_cathedrals`): the same kinds with their
//! edition-1 counts, edges, and every feature (kind, sides, half-edges, inner, pennants,
//! bordering cities, inn, cathedral); edition 2's garden kinds are aliases of their twins.

use carcassonne_core::TileSetData;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Feature {
    kind: String,
    sides: BTreeSet<String>,
    halves: BTreeSet<String>,
    inner: Option<String>,
    pennants: i64,
    cities: BTreeSet<String>,
    inn: bool,
    cathedral: bool,
}

fn strings(v: Option<&toml::Value>) -> BTreeSet<String> {
    v.and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Tile id → (count, edges, sorted features).
type Reference = BTreeMap<String, (i64, String, Vec<Feature>)>;

/// id → (count, edges, sorted features) from the reference.
/// (`None`, and a line saying so, when `shared/` is not beside the repository: this
/// cross-check runs only where the reference is.)
fn reference() -> Option<Reference> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/tiles-classic.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "skipped: the tile reference {} is not beside the repository",
            path.display()
        );
        return None;
    };
    let r: toml::Value = toml::from_str(&text).expect("reference parses");
    let mut out = BTreeMap::new();
    for t in r["tile"].as_array().expect("[[tile]]") {
        if t.get("set").and_then(|s| s.as_str()) != Some("inns_cathedrals") {
            continue;
        }
        let count = t["count"].as_integer().expect("count");
        if count == 0 {
            continue; // edition-2 garden kinds
        }
        let mut features: Vec<Feature> = t["features"]
            .as_array()
            .expect("features")
            .iter()
            .map(|f| Feature {
                kind: f["kind"].as_str().expect("kind").into(),
                sides: strings(f.get("sides")),
                halves: strings(f.get("half")),
                inner: f.get("inner").and_then(|i| i.as_str()).map(String::from),
                pennants: f.get("pennants").and_then(|p| p.as_integer()).unwrap_or(0),
                cities: strings(f.get("cities")),
                inn: f.get("inn").and_then(|b| b.as_bool()).unwrap_or(false),
                cathedral: f
                    .get("cathedral")
                    .and_then(|b| b.as_bool())
                    .unwrap_or(false),
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
    Some(out)
}

fn ours() -> TileSetData {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../expansions/inns-cathedrals/tiles.toml");
    carcassonne_files::tiles::load_tile_set(&path).expect("our tile file loads")
}

#[test]
fn inns_cathedrals_tiles_match_the_reference() {
    let Some(reference) = reference() else {
        return;
    };
    let data = ours();
    let mut mine = BTreeMap::new();
    for t in &data.tiles {
        let mut features: Vec<Feature> = t
            .features
            .iter()
            .map(|f| Feature {
                kind: f.kind.clone(),
                sides: f
                    .sides
                    .as_deref()
                    .unwrap_or("")
                    .chars()
                    .map(String::from)
                    .collect(),
                halves: f.halves.iter().flatten().cloned().collect(),
                inner: f.inner.clone(),
                pennants: i64::from(f.pennants),
                cities: f.cities.iter().cloned().collect(),
                inn: f.tags.iter().any(|x| x == "inn"),
                cathedral: f.tags.iter().any(|x| x == "cathedral"),
            })
            .collect();
        features.sort();
        assert!(
            mine.insert(
                t.id.clone(),
                (i64::from(t.count), t.edges.clone(), features)
            )
            .is_none(),
            "{} twice",
            t.id
        );
    }
    assert_eq!(
        mine.keys().collect::<Vec<_>>(),
        reference.keys().collect::<Vec<_>>()
    );
    for (id, want) in &reference {
        assert_eq!(&mine[id], want, "tile {id}");
    }
    // IC-3: the garden twins are aliases of the plain kinds.
    let alias = |id: &str| {
        data.tiles
            .iter()
            .find(|t| t.id == id)
            .map(|t| t.aliases.clone())
            .unwrap_or_default()
    };
    assert_eq!(alias("IC/CCCC"), ["IC/CCCCG"]);
    assert_eq!(alias("IC/RFr.i"), ["IC/RFr.iG"]);
}
