//! The expansion linked directly (no plugin loading): on a board of 120 tiles or more the
//! placement filter (HS-3, HS-4) reads the building tiles from the `building-tiles*` slots
//! instead of the board. At every decision of seeded random games the list holds exactly
//! the board's building tiles in placement order, and once more buildings are placed than
//! the slots hold it says so (the filter then scans the board).

use carcassonne_core::{Game, GameSetup, OptionDef, Ruleset, Scoring, SlotId, TileSetData};
use carcassonne_heretics_shrines::HereticsShrines;
use std::sync::Arc;

/// A set of `count` copies of one tile: a plain field, or a cloister in a field.
fn filler(count: u16, cloister: bool) -> TileSetData {
    let site = if cloister {
        "{ kind = \"cloister\" },"
    } else {
        ""
    };
    let text = format!(
        "schema = 1\nset = \"test-filler\"\n\n[[tile]]\nid = \"TEST/F\"\ncount = {count}\n\
         edges = \"FFFF\"\nfeatures = [\n  {site}\n  {{ kind = \"field\", halves = [\"NL\", \
         \"NR\", \"EL\", \"ER\", \"SL\", \"SR\", \"WL\", \"WR\"] }},\n]\n"
    );
    toml::from_str(&text).unwrap()
}

fn rules(filler_set: TileSetData) -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(carcassonne_core::BASE_TILES_TOML).unwrap();
    let shrines: TileSetData = toml::from_str(include_str!("../tiles.toml")).unwrap();
    // The manifest's options (the crate is linked directly), at their defaults.
    let mut b = Ruleset::builder()
        .tiles(base)
        .tiles(shrines)
        .tiles(filler_set)
        .expansion(Arc::new(HereticsShrines::new()))
        .declare_option(OptionDef::choice(
            "heretics-shrines.shrines",
            &["shrines", "plain-cloisters"],
            "",
        ));
    for flag in ["cultPlaces", "challengeStakes", "shrineCrowding"] {
        b = b.declare_option(OptionDef::flag(
            &format!("heretics-shrines.{flag}"),
            false,
            "",
        ));
    }
    Arc::new(b.build().unwrap())
}

/// The slot named `name` of this expansion.
fn slot(rules: &Ruleset, name: &str) -> SlotId {
    let i = rules.slots().iter().position(|d| d.name == name).unwrap();
    SlotId(i as u16)
}

/// The board's building tiles (a shrine: bit 0, a cloister: bit 1), in placement order.
fn on_board(g: &Game) -> Vec<(i32, i32, u8)> {
    let rules = g.rules();
    let shrine = rules.kind_named("shrine").unwrap();
    let mut out = Vec::new();
    for t in g.state().board().tiles() {
        let mut m = 0;
        for seg in &rules.tiles().get(t.kind).segments {
            if seg.kind == shrine {
                m |= 1;
            } else if rules.kind(seg.kind).scoring == Scoring::Cloister {
                m |= 2;
            }
        }
        if t.sites != 0 && m != 0 {
            out.push((t.pos.x, t.pos.y, m));
        }
    }
    out
}

/// The list the slots hold (`None` once it overflowed).
fn listed(g: &Game) -> Option<Vec<(i32, i32, u8)>> {
    let rules = g.rules();
    let n = g.state().slot(slot(rules, "building-tiles"), 0);
    assert!(n >= 1, "the list is started by start_game");
    if n > 33 {
        return None;
    }
    let entries = (0..(n - 1) as usize).map(|k| {
        let word = g
            .state()
            .slot(slot(rules, &format!("building-tiles.{}", k / 2)), 0);
        let e = (word >> (32 * (k % 2))) as u32;
        let coord = |v: u32| (v & 0x7ff) as i32 - 512;
        (coord(e), coord(e >> 11), (e >> 22) as u8)
    });
    Some(entries.collect())
}

/// Plays seeded random 2-player games, checking the list at every decision; returns
/// whether some game's list overflowed.
fn play(rules: &Arc<Ruleset>, seeds: std::ops::Range<u64>) -> bool {
    let mut overflowed = false;
    for seed in seeds {
        let setup = GameSetup::new(vec!["R".into(), "B".into()], seed);
        let mut g = Game::new(rules.clone(), &setup).unwrap();
        let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        while !g.is_over() {
            match listed(&g) {
                Some(list) => assert_eq!(list, on_board(&g), "seed {seed}"),
                None => {
                    assert!(on_board(&g).len() > 32, "seed {seed}: overflow too early");
                    overflowed = true;
                }
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let n = g.actions().len();
            g.play_offered((rng % n as u64) as usize).unwrap();
        }
    }
    overflowed
}

#[test]
fn the_list_holds_the_boards_building_tiles() {
    // 72 + 6 + 60 tiles: the list is kept; about 17 buildings, well within its 32.
    assert!(!play(&rules(filler(60, false)), 1..9));
}

#[test]
fn too_many_buildings_overflow_the_list() {
    // 50 more cloisters: the list overflows, and games go on with the board scanned.
    assert!(play(&rules(filler(50, true)), 1..5));
}
