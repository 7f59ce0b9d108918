//! Traders & Builders' tile file (`expansions/traders-builders/tiles.toml`, own schema) checked
//! against the factual reference `../shared/data/tiles-classic.toml` (set `traders_builders`):
//! every kind with its first-edition count (the second edition's garden twins with count 0),
//! edges, and every feature (kind, sides, half-edges, inner name, pennants, bordering cities,
//! goods symbol as a segment tag); gardens are not modelled. Plus TB-1's totals: 24 tiles,
//! 9 wine, 6 grain, 5 cloth.

use carcassonne_core::TileSetData;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The reference, when `shared/` sits beside the repository (a cross-check: `None`, and a
/// line saying so, when a clone stands alone).
fn reference() -> Option<toml::Value> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/tiles-classic.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "skipped: the tile reference {} is not beside the repository",
            path.display()
        );
        return None;
    };
    Some(toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn ours() -> TileSetData {
    let path = carcassonne_tests::expansions_dir()
        .join("traders-builders")
        .join("tiles.toml");
    carcassonne_files::tiles::load_tile_set(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// kind, sides, halves, inner, pennants, cities, goods.
type Feature = (
    String,
    BTreeSet<String>,
    BTreeSet<String>,
    Option<String>,
    i64,
    BTreeSet<String>,
    Option<String>,
);

fn strings(v: Option<&toml::Value>) -> BTreeSet<String> {
    v.and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .map(|x| x.as_str().expect("a string").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn traders_builders_tiles_match_the_reference() {
    let Some(r) = reference() else {
        return;
    };
    let ours = ours();
    assert_eq!(ours.set, "traders-builders");
    let reference: Vec<&toml::Value> = r["tile"]
        .as_array()
        .expect("[[tile]]")
        .iter()
        .filter(|t| t.get("set").and_then(|s| s.as_str()) == Some("traders_builders"))
        .collect();
    assert_eq!(reference.len(), ours.tiles.len(), "same kinds");
    for (rt, ot) in reference.iter().zip(&ours.tiles) {
        let id = rt["id"].as_str().expect("id");
        assert_eq!(ot.id, id, "same order");
        assert_eq!(
            i64::from(ot.count),
            rt["count"].as_integer().expect("count"),
            "{id}: count (edition 1)"
        );
        assert_eq!(
            ot.edges,
            rt["edges"].as_str().expect("edges"),
            "{id}: edges"
        );
        let mut want: Vec<Feature> = rt["features"]
            .as_array()
            .expect("features")
            .iter()
            .filter(|f| f["kind"].as_str() != Some("garden"))
            .map(|f| {
                (
                    f["kind"].as_str().expect("kind").to_string(),
                    strings(f.get("sides")),
                    strings(f.get("half")),
                    f.get("inner").and_then(|i| i.as_str()).map(String::from),
                    f.get("pennants").and_then(|p| p.as_integer()).unwrap_or(0),
                    strings(f.get("cities")),
                    f.get("trade_good")
                        .and_then(|g| g.as_str())
                        .map(String::from),
                )
            })
            .collect();
        let mut got: Vec<Feature> = ot
            .features
            .iter()
            .map(|f| {
                // Goods symbols; the wagon links (`link-*`, Abbey & Mayor) are compared below.
                let goods: Vec<&String> =
                    f.tags.iter().filter(|t| !t.starts_with("link-")).collect();
                assert!(goods.len() <= 1, "{id}: one symbol per segment");
                (
                    f.kind.clone(),
                    f.sides
                        .as_deref()
                        .unwrap_or("")
                        .chars()
                        .map(|c| c.to_string())
                        .collect(),
                    f.halves.iter().flatten().cloned().collect(),
                    f.inner.clone(),
                    i64::from(f.pennants),
                    f.cities.iter().cloned().collect(),
                    goods.first().map(|g| g.to_string()),
                )
            })
            .collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{id}: features");
        // Wagon links: the reference's `link` letters, as tags `link-<letter>`.
        let mut want_links: Vec<(String, String, Vec<String>)> = rt["features"]
            .as_array()
            .expect("features")
            .iter()
            .filter(|f| f.get("link").is_some())
            .map(|f| {
                // A `BTreeSet` iterates in sorted order.
                let sides: String = strings(f.get("sides")).into_iter().collect();
                (
                    f["kind"].as_str().expect("kind").to_string(),
                    sides,
                    strings(f.get("link"))
                        .iter()
                        .map(|l| format!("link-{l}"))
                        .collect(),
                )
            })
            .collect();
        let mut got_links: Vec<(String, String, Vec<String>)> = ot
            .features
            .iter()
            .filter(|f| f.tags.iter().any(|t| t.starts_with("link-")))
            .map(|f| {
                let mut sides: Vec<String> = f
                    .sides
                    .as_deref()
                    .unwrap_or("")
                    .chars()
                    .map(|c| c.to_string())
                    .collect();
                sides.sort();
                (
                    f.kind.clone(),
                    sides.concat(),
                    f.tags
                        .iter()
                        .filter(|t| t.starts_with("link-"))
                        .cloned()
                        .collect(),
                )
            })
            .collect();
        want_links.sort();
        got_links.sort();
        assert_eq!(got_links, want_links, "{id}: wagon links");
    }
}

#[test]
fn traders_builders_totals() {
    let ours = ours();
    let tiles: u32 = ours.tiles.iter().map(|t| u32::from(t.count)).sum();
    assert_eq!(tiles, 24, "TB-1: 24 land tiles");
    for (good, n) in [("wine", 9), ("grain", 6), ("cloth", 5)] {
        let symbols: u32 = ours
            .tiles
            .iter()
            .map(|t| {
                u32::from(t.count)
                    * t.features
                        .iter()
                        .filter(|f| f.tags.iter().any(|g| g == good))
                        .count() as u32
            })
            .sum();
        assert_eq!(symbols, n, "TB-1: {good}");
    }
}
