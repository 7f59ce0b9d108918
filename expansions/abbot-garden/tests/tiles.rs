//! The expansion linked directly (no plugin loading): its garden tiles against their
//! first-edition twins (AG-1, AG-2), and the supply swap.

use carcassonne_abbot_garden::{AbbotGarden, COUNT_QUARTERS, GARDENS, GARDEN_TILES, GARDEN_TWINS};
use carcassonne_core::{DrawMode, Game, GameSetup, OptionDef, Rotation, Ruleset, TileSetData};
use std::sync::Arc;

fn rules(garden_tiles: bool) -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(carcassonne_core::BASE_TILES_TOML).unwrap();
    let ours: TileSetData = toml::from_str(include_str!("../tiles.toml")).unwrap();
    Arc::new(
        Ruleset::builder()
            .tiles(base)
            .tiles(ours)
            .expansion(Arc::new(AbbotGarden::new()))
            // The manifest declares the option; linked directly, the test does.
            .declare_option(OptionDef::flag(GARDEN_TILES, true, ""))
            .declare_option(OptionDef::flag(GARDENS, true, ""))
            .declare_option(OptionDef::choice(
                COUNT_QUARTERS,
                &["cathedral", "none"],
                "",
            ))
            .option_text(GARDEN_TILES, &garden_tiles.to_string())
            .build()
            .unwrap(),
    )
}

/// AG-2: each garden tile is its twin (same edges, same segments in order) plus one garden
/// site, and is not in the catalog's supply by itself (count 0).
#[test]
fn garden_tiles_are_their_twins_with_a_garden() {
    let r = rules(true);
    let garden = r.kind_named("garden").expect("garden kind");
    for (twin, g) in GARDEN_TWINS {
        let (t, k) = (
            r.tiles().get(r.tiles().find(twin).unwrap()),
            r.tiles().get(r.tiles().find(g).unwrap()),
        );
        assert_eq!(
            t.edge_code(Rotation::R0),
            k.edge_code(Rotation::R0),
            "{g}: edges of {twin}"
        );
        assert_eq!(k.count, 0, "{g}");
        let shape = |x: &carcassonne_core::TileKind| {
            x.segments
                .iter()
                .filter(|s| s.kind != garden)
                .map(|s| (s.kind, s.sides, s.halves, s.pennants, s.cities.len()))
                .collect::<Vec<_>>()
        };
        assert_eq!(shape(k), shape(t), "{g}: the twin's features");
        let kinds =
            |x: &carcassonne_core::TileKind| x.segments.iter().map(|s| s.kind).collect::<Vec<_>>();
        assert_eq!(
            kinds(k).iter().filter(|x| **x == garden).count(),
            1,
            "{g}: one garden"
        );
    }
}

/// AG-1: the supply holds each garden tile once, in its twin's first place.
#[test]
fn the_supply_swaps_one_copy_of_each_twin() {
    let supply = |on: bool| {
        let r = rules(on);
        let setup = GameSetup {
            draws: DrawMode::Chosen,
            ..GameSetup::new(vec!["R".into(), "B".into()], 7)
        };
        let g = Game::new(r.clone(), &setup).unwrap();
        let ids: Vec<String> = g
            .state()
            .supply()
            .groups
            .iter()
            .flat_map(|gr| gr.tiles.iter().map(|t| r.tiles().get(*t).id.clone()))
            .collect();
        ids
    };
    let (with, without) = (supply(true), supply(false));
    assert_eq!(with.len(), without.len());
    let differ: Vec<(usize, &String, &String)> = with
        .iter()
        .zip(&without)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| (i, a, b))
        .collect();
    assert_eq!(differ.len(), 8, "{differ:?}");
    for (i, g, twin) in differ {
        assert!(
            GARDEN_TWINS.contains(&(twin.as_str(), g.as_str())),
            "{i}: {twin} → {g}"
        );
        assert_eq!(
            without.iter().position(|x| x == twin),
            Some(i),
            "the first copy of {twin}"
        );
    }
}
