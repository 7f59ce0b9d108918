//! A segment that shares a side another segment covers (`shares`, docs/tile-format.md;
//! JCloisterZone's `multi-edge`, Hills & Sheep's `HS/CC!.v`): the file's checks, and how
//! placed tiles join and close it.

mod common;

use carcassonne_core::*;
use common::at;
use std::sync::Arc;

/// A city on N and W, and one on E that also meets N (HS/CC!.v's layout); a barrier tile.
const SET: &str = r#"
schema = 1
set = "shared"

[[tile]]
id = "T/CC!"
count = 1
edges = "CCFC"
features = [
  { kind = "city", sides = "NW" },
  { kind = "city", sides = "E", shares = "N" },
  { kind = "field", halves = ["SL", "SR"], cities = ["N", "E"] },
]

[[tile]]
id = "T/X"
count = 0
edges = "XXXX"
features = [{ kind = "cloister" }]
"#;

fn rules_with(set: &str) -> Result<Arc<Ruleset>, String> {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).expect("base tiles parse");
    let extra: TileSetData = toml::from_str(set).map_err(|e| e.to_string())?;
    Ruleset::builder()
        .tiles(base)
        .tiles(extra)
        .build()
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

/// The game with `tiles` laid (name, x, y, degrees).
fn board(tiles: &[(&str, i32, i32, i64)]) -> Game {
    let r = rules_with(SET).expect("the set");
    let position = Position {
        players: vec!["R".into(), "B".into()],
        tiles: tiles
            .iter()
            .map(|&(n, x, y, d)| at(&r, n, x, y, d))
            .collect(),
        draws: vec![common::tile(&r, "BA/C")],
        ..Position::default()
    };
    Game::from_position(r, &position).expect("a legal position")
}

/// (feature, open edges) of segment `i` of the tile at (x, y).
fn feature(g: &Game, x: i32, y: i32, i: usize) -> (FeatureId, u16) {
    let st = g.state();
    let seg = st.board().at(Pos::new(x, y)).expect("a tile").segment(i);
    let f = st.graph().feature_of(seg);
    (f, st.graph().totals(f).open)
}

#[test]
fn a_shared_side_is_one_more_open_edge_until_a_tile_lies_beyond() {
    // The start tile's city faces south of the shared tile: the E city is open on E and N.
    let g = board(&[("BA/RCr", 0, 0, 0), ("T/CC!", 0, -1, 180)]);
    // Turned 180°: the NW city is on S and E, the shared city on W and shares S, which
    // meets the start's city: all three are one feature, open on E and W only.
    let (a, open_a) = feature(&g, 0, -1, 0);
    let (b, _) = feature(&g, 0, -1, 1);
    let (start, _) = feature(&g, 0, 0, 1); // BA/RCr's city
    assert_eq!(a, b, "what meets the shared side joins both cities");
    assert_eq!(a, start);
    assert_eq!(open_a, 2);
    // Alone on the board the two cities stay apart; the shared one is open twice.
    let g = board(&[("T/CC!", 5, 5, 0)]);
    let ((a, open_a), (b, open_b)) = (feature(&g, 5, 5, 0), feature(&g, 5, 5, 1));
    assert_ne!(a, b);
    assert_eq!((open_a, open_b), (2, 2));
}

#[test]
fn a_tile_placed_later_beyond_the_shared_side_joins_both() {
    // BA/C turned 180° has its city on S, facing the shared tile's N.
    let g = board(&[("T/CC!", 0, 0, 0), ("BA/C", 0, -1, 180)]);
    let ((a, open), (b, _), (c, _)) = (
        feature(&g, 0, 0, 0),
        feature(&g, 0, 0, 1),
        feature(&g, 0, -1, 0),
    );
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(open, 2, "W and E are still open");
    assert_eq!(g.state().graph().tile_count(a), 2);
}

#[test]
fn a_barrier_closes_the_shared_side_of_both_cities_without_joining_them() {
    let g = board(&[("T/CC!", 0, 0, 0), ("T/X", 0, -1, 0)]);
    let ((a, open_a), (b, open_b)) = (feature(&g, 0, 0, 0), feature(&g, 0, 0, 1));
    assert_ne!(a, b);
    assert_eq!((open_a, open_b), (1, 1));
}

#[test]
fn a_wrong_shares_is_refused_naming_the_segment() {
    let cases = [
        (
            r#"{ kind = "field", halves = ["SL", "SR"], shares = "N" }"#,
            "only an edge feature",
        ),
        (
            r#"{ kind = "city", sides = "E", shares = "E" }"#,
            "none of its own sides",
        ),
        (
            r#"{ kind = "city", sides = "E", shares = "S" }"#,
            "not covered by another segment",
        ),
        (
            r#"{ kind = "road", sides = "E", shares = "N" }"#,
            "not covered by another segment",
        ),
    ];
    for (segment, why) in cases {
        let set = format!(
            "schema = 1\nset = \"bad\"\n[[tile]]\nid = \"T/bad\"\ncount = 1\nedges = \"C{}FC\"\nfeatures = [\n  {{ kind = \"city\", sides = \"NW\" }},\n  {segment},\n]\n",
            if segment.contains("sides = \"E\"") {
                if segment.contains("road") { "R" } else { "C" }
            } else {
                "F"
            }
        );
        let err = rules_with(&set).expect_err(segment);
        assert!(
            err.contains("T/bad") && err.contains("features[1]") && err.contains(why),
            "{segment}: {err}"
        );
    }
}
