//! The expansion linked directly (no plugin loading): IC-10's `smallCity=1st/2nd` case,
//! which the real tiles cannot reach (a completed cathedral city has at least 5 tiles
//! without abbeys), on a made-up one-edge cathedral cap; IC-17 read from the options; and
//! IC-6 and IC-7 on made-up straight inn roads (a start board's inns, an inn placed in
//! play, a road of many inns), which the feature's marks answer.

use carcassonne_core::{
    Action, FigureKindId, Game, OptionDef, PlayerId, Pos, Position, PositionFigure, Rotation,
    Ruleset, StartTile, TileSetData,
};
use carcassonne_inns_cathedrals::InnsCathedrals;
use std::sync::Arc;

const TEST_TILES: &str = r#"
schema = 1
set = "test-cathedral-cap"

[[tile]]
id = "TEST/C.c"
count = 1
edges = "CFFF"
features = [
  { kind = "city", sides = "N", tags = ["cathedral"] },
  { kind = "field", halves = ["EL", "ER", "SL", "SR", "WL", "WR"], cities = ["N"] },
]
"#;

fn rules(small_city: &str) -> Arc<Ruleset> {
    ruleset(TEST_TILES, small_city, false)
}

/// The base tiles and `tiles` with the expansion linked directly; `normal` declares
/// `innCathedralIncomplete` and sets it to `normal` (undeclared, its default applies).
fn ruleset(tiles: &str, small_city: &str, normal: bool) -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(carcassonne_core::BASE_TILES_TOML).unwrap();
    let test: TileSetData = toml::from_str(tiles).unwrap();
    let mut b = Ruleset::builder()
        .tiles(base)
        .tiles(test)
        .expansion(Arc::new(InnsCathedrals::new()))
        .option_text("smallCity", small_city);
    if normal {
        b = b
            .declare_option(OptionDef::choice(
                "inns-cathedrals.innCathedralIncomplete",
                &["zero", "normal"],
                "",
            ))
            .option_text("inns-cathedrals.innCathedralIncomplete", "normal");
    }
    Arc::new(b.build().unwrap())
}

/// B's knight on the cathedral cap at (0,0); R closes the 2-tile city with BA/C at (0,-1).
fn close_two_tile_cathedral_city(r: Arc<Ruleset>) -> i32 {
    let find = |id: &str| r.tiles().find(id).unwrap();
    let pos = Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![StartTile {
            kind: find("TEST/C.c"),
            pos: Pos::new(0, 0),
            rotation: Rotation::R0,
        }],
        figures: vec![PositionFigure {
            player: PlayerId(1),
            kind: FigureKindId::SMALL_FOLLOWER,
            pos: Pos::new(0, 0),
            segment: 0,
        }],
        draws: vec![find("BA/C")],
        ..Position::default()
    };
    let mut g = Game::from_position(r, &pos).unwrap();
    g.apply(Action::Place {
        pos: Pos::new(0, -1),
        rotation: Rotation::R180,
    })
    .unwrap();
    if !g.is_over() {
        g.apply(Action::Pass).unwrap();
    }
    g.state().players()[1].score
}

/// IC-10: 3 per tile normally; under `smallCity=1st/2nd` the reduced base (1) plus the
/// cathedral's 1: 2 per tile [JCZ].
#[test]
fn ic10_two_tile_cathedral_city_under_small_city() {
    assert_eq!(close_two_tile_cathedral_city(rules("normal")), 6);
    assert_eq!(close_two_tile_cathedral_city(rules("1st/2nd")), 4);
}

/// IC-17: without the manifest's options declared (the crate linked directly), the
/// defaults apply: an unfinished cathedral city scores 0; declared as `normal`, 1 per tile.
#[test]
fn ic17_option_read_from_the_ruleset() {
    let end_score = |normal: bool| {
        let r = ruleset(TEST_TILES, "normal", normal);
        let find = |id: &str| r.tiles().find(id).unwrap();
        let pos = Position {
            players: vec!["R".into(), "B".into()],
            tiles: vec![StartTile {
                kind: find("TEST/C.c"),
                pos: Pos::new(0, 0),
                rotation: Rotation::R0,
            }],
            figures: vec![PositionFigure {
                player: PlayerId(1),
                kind: FigureKindId::SMALL_FOLLOWER,
                pos: Pos::new(0, 0),
                segment: 0,
            }],
            ..Position::default()
        };
        let g = Game::from_position(r, &pos).unwrap();
        assert!(g.is_over());
        g.state().players()[1].score
    };
    assert_eq!(end_score(false), 0);
    assert_eq!(end_score(true), 1);
}

/// A straight east–west road with an inn, for rows of inn tiles.
const INN_ROAD: &str = r#"
schema = 1
set = "test-inn-road"

[[tile]]
id = "TEST/RI"
count = 1
edges = "FRFR"
features = [
  { kind = "road", sides = "EW", tags = ["inn"] },
  { kind = "field", halves = ["NL", "NR", "EL", "WR"] },
  { kind = "field", halves = ["ER", "SL", "SR", "WL"] },
]
"#;

/// IC-7, IC-17 at the end of a position: a row of `n` inn tiles, R's follower on it, no
/// draws, so the game ends at once and final scoring reads the start board's inns.
fn unfinished_inn_row(n: i32, normal: bool) -> i32 {
    let r = ruleset(INN_ROAD, "normal", normal);
    let inn = r.tiles().find("TEST/RI").unwrap();
    let pos = Position {
        players: vec!["R".into(), "B".into()],
        tiles: (0..n)
            .map(|x| StartTile {
                kind: inn,
                pos: Pos::new(x, 0),
                rotation: Rotation::R0,
            })
            .collect(),
        figures: vec![PositionFigure {
            player: PlayerId(0),
            kind: FigureKindId::SMALL_FOLLOWER,
            pos: Pos::new(n / 2, 0),
            segment: 0,
        }],
        ..Position::default()
    };
    let g = Game::from_position(r, &pos).unwrap();
    assert!(g.is_over());
    g.state().players()[0].score
}

/// IC-7: an unfinished inn road scores 0 at the end, however many inns it has (one per
/// tile here); IC-17 `normal`: 1 per tile.
#[test]
fn ic7_unfinished_inn_road_with_few_and_many_inn_tiles() {
    for n in [1, 5, 16, 17, 24] {
        assert_eq!(unfinished_inn_row(n, false), 0, "{n} inn tiles");
        assert_eq!(unfinished_inn_row(n, true), n, "{n} inn tiles, normal");
    }
}

/// IC-6: an inn tile placed during the game counts when its road is completed (2 per tile):
/// the road starts on a cloister's road end with B's follower, the inn tile extends it, and
/// a second road end closes it (3 tiles, 6 points; an ordinary road would give 3).
#[test]
fn ic6_inn_placed_in_play_doubles_the_completed_road() {
    let r = ruleset(INN_ROAD, "normal", false);
    let find = |id: &str| r.tiles().find(id).unwrap();
    let pos = Position {
        players: vec!["R".into(), "B".into()],
        tiles: vec![StartTile {
            kind: find("BA/LR"),
            pos: Pos::new(0, 0),
            // The road end faces west.
            rotation: Rotation::R90,
        }],
        figures: vec![PositionFigure {
            player: PlayerId(1),
            kind: FigureKindId::SMALL_FOLLOWER,
            pos: Pos::new(0, 0),
            segment: 1,
        }],
        draws: vec![find("TEST/RI"), find("BA/LR")],
        ..Position::default()
    };
    let mut g = Game::from_position(r, &pos).unwrap();
    g.apply(Action::Place {
        pos: Pos::new(-1, 0),
        rotation: Rotation::R0,
    })
    .unwrap();
    g.apply(Action::Pass).unwrap();
    assert_eq!(g.state().players()[1].score, 0, "the road is still open");
    g.apply(Action::Place {
        pos: Pos::new(-2, 0),
        rotation: Rotation::R270,
    })
    .unwrap();
    if !g.is_over() {
        g.apply(Action::Pass).unwrap();
    }
    assert_eq!(g.state().players()[1].score, 6);
}
