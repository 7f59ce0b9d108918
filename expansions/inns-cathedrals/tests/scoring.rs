//! The expansion linked directly (no plugin loading): IC-10's `smallCity=1st/2nd` case,
//! which the real tiles cannot reach (a completed cathedral city has at least 5 tiles
//! without abbeys), on a made-up one-edge cathedral cap; and IC-17 read from the options.

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
    let base: TileSetData = toml::from_str(carcassonne_core::BASE_TILES_TOML).unwrap();
    let test: TileSetData = toml::from_str(TEST_TILES).unwrap();
    Arc::new(
        Ruleset::builder()
            .tiles(base)
            .tiles(test)
            .expansion(Arc::new(InnsCathedrals::new()))
            .option_text("smallCity", small_city)
            .build()
            .unwrap(),
    )
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
    let base: TileSetData = toml::from_str(carcassonne_core::BASE_TILES_TOML).unwrap();
    let test: TileSetData = toml::from_str(TEST_TILES).unwrap();
    let end_score = |normal: bool| {
        let mut b = Ruleset::builder()
            .tiles(base.clone())
            .tiles(test.clone())
            .expansion(Arc::new(InnsCathedrals::new()));
        if normal {
            b = b
                .declare_option(OptionDef::choice(
                    "inns-cathedrals.innCathedralIncomplete",
                    &["zero", "normal"],
                    "",
                ))
                .option_text("inns-cathedrals.innCathedralIncomplete", "normal");
        }
        let r = Arc::new(b.build().unwrap());
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
