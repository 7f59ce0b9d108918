//! River I linked directly (no plugin loading): its tile file (R1-1), the set-up it makes
//! (R1-2, R1-3), and the spring it shares with River II's tile file (R1-9: one kind).

use carcassonne_core::{
    DecisionKind, Game, GameSetup, OptionDef, Pos, Rotation, Ruleset, RulesetBuilder, Side,
    TileSetData,
};
use carcassonne_river::River1;
use std::sync::Arc;

fn set(text: &str) -> TileSetData {
    toml::from_str(text).expect("the tile file parses")
}

/// Base tiles, River I's tiles (and `extra`), River I's code, its two options as the
/// manifest declares them.
fn builder(extra: Option<TileSetData>) -> RulesetBuilder {
    let mut b = Ruleset::builder()
        .tiles(set(carcassonne_core::BASE_TILES_TOML))
        .tiles(set(include_str!("../tiles.toml")));
    if let Some(t) = extra {
        b = b.tiles(t);
    }
    b.expansion(Arc::new(River1::new()))
        .declare_option(OptionDef::flag("river.riverLookahead", false, ""))
        .declare_option(OptionDef::choice(
            "river.riverPlacement",
            &["printed", "fcz"],
            "",
        ))
        .declare_option(OptionDef::choice(
            "river.riverSetup",
            &["river-first", "mixed"],
            "",
        ))
}

fn rules(extra: Option<TileSetData>) -> Arc<Ruleset> {
    Arc::new(builder(extra).build().expect("the ruleset builds"))
}

/// R1-1: 12 tiles in 10 kinds; one spring, one lake (one water side each), six straights,
/// four curves, every other side of a river tile no water.
#[test]
fn the_twelve_tiles() {
    let r = rules(None);
    let code = r.kind_named("river").expect("the river kind").0 + 1;
    let river: Vec<_> = r.tiles().iter().filter(|(_, k)| k.set == "river").collect();
    assert_eq!(river.len(), 10);
    assert_eq!(river.iter().map(|(_, k)| k.count).sum::<u16>(), 12);
    let (mut ends, mut straights, mut curves) = (0, 0, 0);
    for (_, k) in &river {
        let water: Vec<Side> = Side::ALL
            .into_iter()
            .filter(|s| k.edge_at(Rotation::R0, *s) == code)
            .collect();
        let n = k.count;
        match water.len() {
            1 => ends += n,
            2 if water[0].opposite() == water[1] => straights += n,
            2 => curves += n,
            w => panic!("{}: {w} water sides", k.id),
        }
    }
    assert_eq!((ends, straights, curves), (2, 6, 4));
    let tagged = |t: &str| river.iter().filter(|(_, k)| k.has_tag(t)).count();
    assert_eq!((tagged("river-spring"), tagged("river-lake")), (1, 1));
}

/// R1-2, R1-3: the spring at (0,0) water east, the river group first (its first tile drawn),
/// then the lake, then the main stack with every copy of the base start tile.
#[test]
fn spring_first_then_river_then_lake() {
    let r = rules(None);
    let g = Game::new(
        Arc::clone(&r),
        &GameSetup::new(vec!["R".into(), "B".into()], 3),
    )
    .expect("the game starts");
    let start = g.state().board().at(Pos::new(0, 0)).expect("start tile");
    assert_eq!(r.tiles().get(start.kind).id, "RI/s");
    assert_eq!(start.rotation, Rotation::R0);
    let groups: Vec<(&str, usize)> = g
        .state()
        .supply()
        .groups
        .iter()
        .map(|grp| (grp.name.as_str(), grp.tiles.len()))
        .collect();
    // The first river tile is drawn already.
    assert_eq!(groups, [("river", 9), ("river-lake", 1), ("default", 72)]);
    let DecisionKind::PlaceTile { tile } = g.decision().kind else {
        panic!("a tile to place");
    };
    assert!(r.tiles().get(tile).id.starts_with("RI.1/"));
}

/// R1-9: River II's tile file defines the spring exactly as River I's does, so the two
/// sets have one spring kind (core adds a tile two sets define alike once).
#[test]
fn the_spring_is_shared_with_river_ii() {
    let r = rules(Some(set(include_str!("../../river2/tiles.toml"))));
    let springs: Vec<_> = r
        .tiles()
        .iter()
        .filter(|(_, k)| k.has_tag("river-spring"))
        .collect();
    assert_eq!(springs.len(), 1);
    assert_eq!(springs[0].1.id, "RI/s");
    assert_eq!(springs[0].1.count, 1);
}

/// A tile id two sets define differently is still an error, naming the tile.
#[test]
fn a_different_tile_with_the_same_id_is_refused() {
    let other = set(r#"
schema = 1
set = "other"

[[tile]]
id = "RI/s"
count = 2
start = true
tags = ["river-spring"]
edges = "FWFF"
features = [
  { kind = "field", halves = ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"] },
  { kind = "river", sides = "E" },
]
"#);
    let err = builder(Some(other)).build().expect_err("refused");
    assert!(
        err.to_string()
            .contains("`RI/s`: id: a tile with this id and other data already exists"),
        "{err}"
    );
}
