//! The project's base tile file (`core/tiles/base.toml`, own schema) checked against the
//! factual reference `../shared/data/tiles-reference.toml`, plus totals checked on their own.

use carcassonne_core::{Rotation, Side, TileData, TileSetData};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn reference_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/tiles-reference.toml")
}

/// The reference file, parsed: a cross-check that runs only when `shared/` sits beside the
/// repository (`None`, and a line saying so, when a clone stands alone).
fn reference() -> Option<toml::Value> {
    let path = reference_path();
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "skipped: the tile reference {} is not beside the repository",
            path.display()
        );
        return None;
    };
    Some(
        toml::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not valid TOML: {e}", path.display())),
    )
}

fn ours() -> TileSetData {
    carcassonne_files::tiles::base_tile_set()
}

/// A feature reduced to comparable facts: kind, sides (set), half-edges (set), inner,
/// pennants, bordering cities (set of side letters).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Feature {
    kind: String,
    sides: BTreeSet<String>,
    halves: BTreeSet<String>,
    inner: Option<String>,
    pennants: i64,
    cities: BTreeSet<String>,
}

/// A tile reduced to comparable facts; features form a multiset (sorted list).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tile {
    id: String,
    letter: String,
    count: i64,
    start: bool,
    edges: String,
    features: Vec<Feature>,
}

fn str_list(v: Option<&toml::Value>, what: &str, id: &str) -> BTreeSet<String> {
    match v {
        None => BTreeSet::new(),
        Some(toml::Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .unwrap_or_else(|| panic!("reference {id}: {what} holds a non-string"))
                    .to_string()
            })
            .collect(),
        Some(other) => panic!("reference {id}: {what} is not a list: {other}"),
    }
}

fn reference_base_tiles(r: &toml::Value) -> Vec<Tile> {
    let tiles = r
        .get("tile")
        .and_then(|t| t.as_array())
        .expect("reference has [[tile]] entries");
    let mut out = Vec::new();
    for t in tiles {
        let t = t.as_table().expect("tile entries are tables");
        if t.get("set").and_then(|s| s.as_str()) != Some("base") {
            continue;
        }
        let id = t["id"].as_str().expect("tile id").to_string();
        let count = t["count"].as_integer().expect("tile count");
        if count == 0 {
            continue; // garden variants (C2 only)
        }
        let features = t
            .get("features")
            .and_then(|f| f.as_array())
            .map(|fs| {
                fs.iter()
                    .map(|f| Feature {
                        kind: f["kind"].as_str().expect("feature kind").to_string(),
                        sides: str_list(f.get("sides"), "sides", &id),
                        halves: str_list(f.get("half"), "half", &id),
                        inner: f.get("inner").and_then(|i| i.as_str()).map(str::to_string),
                        pennants: f.get("pennants").and_then(|p| p.as_integer()).unwrap_or(0),
                        cities: str_list(f.get("cities"), "cities", &id),
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let mut features = features;
        features.sort();
        out.push(Tile {
            letter: t
                .get("letter")
                .and_then(|l| l.as_str())
                .unwrap_or_else(|| panic!("reference base tile {id} has no letter"))
                .to_string(),
            count,
            start: t.get("start").and_then(|s| s.as_bool()).unwrap_or(false),
            edges: t["edges"].as_str().expect("edges").to_string(),
            features,
            id,
        });
    }
    out
}

fn our_tile(t: &TileData) -> Tile {
    let letters: Vec<&String> = t.aliases.iter().filter(|a| a.len() == 1).collect();
    assert_eq!(
        letters.len(),
        1,
        "tile {}: expected exactly one letter alias, got {:?}",
        t.id,
        t.aliases
    );
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
                .map(|c| c.to_string())
                .collect(),
            halves: f.halves.iter().flatten().cloned().collect(),
            inner: f.inner.clone(),
            pennants: f.pennants as i64,
            cities: f.cities.iter().cloned().collect(),
        })
        .collect();
    features.sort();
    Tile {
        id: t.id.clone(),
        letter: letters[0].clone(),
        count: t.count as i64,
        start: t.start,
        edges: t.edges.clone(),
        features,
    }
}

#[test]
fn base_tiles_match_the_reference() {
    let Some(r) = reference() else {
        return;
    };
    let reference: BTreeMap<String, Tile> = reference_base_tiles(&r)
        .into_iter()
        .map(|t| (t.id.clone(), t))
        .collect();
    let data = ours();
    assert_eq!(data.set, "base");
    let mine: BTreeMap<String, Tile> = data
        .tiles
        .iter()
        .map(|t| (t.id.clone(), our_tile(t)))
        .collect();
    assert_eq!(
        mine.len(),
        data.tiles.len(),
        "core/tiles/base.toml repeats a tile id"
    );
    let ref_ids: BTreeSet<&String> = reference.keys().collect();
    let my_ids: BTreeSet<&String> = mine.keys().collect();
    assert_eq!(
        my_ids, ref_ids,
        "tile ids differ from the reference (set = base, count > 0)"
    );
    let mut problems = Vec::new();
    for (id, want) in &reference {
        let got = &mine[id];
        if got != want {
            problems.push(format!(
                "tile {id}:\n  ours:      {got:?}\n  reference: {want:?}"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} base tiles differ from the reference:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// `road_ends` in the reference = sides of road features covering a single side.
#[test]
fn road_ends_match_the_reference() {
    let Some(r) = reference() else {
        return;
    };
    let data = ours();
    for t in r["tile"].as_array().unwrap() {
        if t.get("set").and_then(|s| s.as_str()) != Some("base")
            || t["count"].as_integer() == Some(0)
        {
            continue;
        }
        let id = t["id"].as_str().unwrap();
        let want = str_list(t.get("road_ends"), "road_ends", id);
        let mine = data.tiles.iter().find(|x| x.id == id).expect("id checked");
        let got: BTreeSet<String> = mine
            .features
            .iter()
            .filter(|f| f.kind == "road")
            .filter_map(|f| f.sides.clone())
            .filter(|s| s.len() == 1)
            .collect();
        assert_eq!(got, want, "tile {id}: road ends");
    }
}

#[test]
fn reference_totals_block_agrees() {
    let Some(r) = reference() else {
        return;
    };
    assert_eq!(
        r["totals"]["base_c1"].as_integer(),
        Some(72),
        "reference [totals] base_c1"
    );
    let total: i64 = reference_base_tiles(&r).iter().map(|t| t.count).sum();
    assert_eq!(total, 72, "reference base tiles with count > 0");
}

/// Checked on our file alone (the numbers from the reference's verification block).
#[test]
fn base_totals_on_their_own() {
    let data = ours();
    assert_eq!(data.tiles.len(), 24, "24 base tile kinds");
    let total: u32 = data.tiles.iter().map(|t| t.count as u32).sum();
    assert_eq!(total, 72, "72 base tiles (start tile included)");
    let pennants: u32 = data
        .tiles
        .iter()
        .map(|t| t.count as u32 * t.features.iter().map(|f| f.pennants as u32).sum::<u32>())
        .sum();
    assert_eq!(pennants, 10, "10 pennants in total");
    let starts: Vec<&TileData> = data.tiles.iter().filter(|t| t.start).collect();
    assert_eq!(starts.len(), 1, "exactly one start kind");
    assert_eq!(starts[0].id, "BA/RCr");
    assert!(starts[0].aliases.iter().any(|a| a == "D"));
    assert_eq!(starts[0].edges, "CRFR", "A-1: start tile CRFR");

    // A2 B4 C1 D4 E5 F2 G1 H3 I2 J3 K3 L3 M2 N3 O2 P3 Q1 R3 S2 T1 U8 V9 W4 X1
    let want = "A2 B4 C1 D4 E5 F2 G1 H3 I2 J3 K3 L3 M2 N3 O2 P3 Q1 R3 S2 T1 U8 V9 W4 X1";
    let mut got: Vec<(String, u16)> = data
        .tiles
        .iter()
        .map(|t| {
            let letter = t
                .aliases
                .iter()
                .find(|a| a.len() == 1)
                .unwrap_or_else(|| panic!("tile {} has no letter alias", t.id));
            (letter.clone(), t.count)
        })
        .collect();
    got.sort();
    let got = got
        .iter()
        .map(|(l, c)| format!("{l}{c}"))
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(got, want, "letter distribution");
    // Pennants by letter: C1 F2 M2 O2 Q1 S2.
    let mut with_pennants: Vec<String> = data
        .tiles
        .iter()
        .filter(|t| t.features.iter().any(|f| f.pennants > 0))
        .map(|t| {
            let l = t.aliases.iter().find(|a| a.len() == 1).unwrap();
            format!("{l}{}", t.count)
        })
        .collect();
    with_pennants.sort();
    assert_eq!(with_pennants.join(" "), "C1 F2 M2 O2 Q1 S2");
}

/// The built ruleset (what the engine uses) agrees with the file: kinds, counts, edges.
#[test]
fn built_catalog_agrees_with_the_file() {
    let rules = carcassonne_rules::base_ruleset();
    let data = ours();
    assert_eq!(rules.tiles().len(), 24);
    let total: u32 = rules.tiles().iter().map(|(_, k)| k.count as u32).sum();
    assert_eq!(total, 72);
    let starts: Vec<_> = rules.tiles().iter().filter(|(_, k)| k.start).collect();
    assert_eq!(starts.len(), 1);
    assert_eq!(starts[0].1.id, "BA/RCr");
    for t in &data.tiles {
        let id = rules.tiles().find(&t.id).expect("every file tile is built");
        let k = rules.tiles().get(id);
        assert_eq!(k.count, t.count, "{}", t.id);
        assert_eq!(k.segments.len(), t.features.len(), "{}", t.id);
        // Edges at rotation 0 as letters, and rotation moves N onto E.
        let letter = |code: u8| -> char {
            match code {
                0 => 'F',
                c => match rules.kinds()[c as usize - 1].shape {
                    carcassonne_core::Shape::Edge { letter, .. } => letter,
                    _ => '?',
                },
            }
        };
        let e0: String = Side::ALL
            .iter()
            .map(|s| letter(k.edge_at(Rotation::R0, *s)))
            .collect();
        assert_eq!(e0, t.edges, "{}: edges at rotation 0", t.id);
        for r in Rotation::ALL {
            for s in Side::ALL {
                assert_eq!(
                    k.edge_at(r, s.rotate(r)),
                    k.edge_at(Rotation::R0, s),
                    "{}: side {s:?} turned by {r}",
                    t.id
                );
            }
        }
        for a in &t.aliases {
            assert_eq!(rules.tiles().find(a), Some(id), "alias {a}");
        }
    }
}
