//! Helpers shared by core's integration tests (each test binary includes this module).
#![allow(dead_code)] // each test binary uses a different part of it

use carcassonne_core::*;
use std::sync::Arc;

/// The base game with its embedded tiles.
pub fn rules() -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).expect("base tiles parse");
    Arc::new(
        Ruleset::builder()
            .tiles(base)
            .build()
            .expect("base ruleset"),
    )
}

/// The base game with the tiles of `set` (a tile file's text) added.
pub fn rules_with(set: &str) -> Arc<Ruleset> {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).expect("base tiles parse");
    let extra: TileSetData = toml::from_str(set).expect("the set parses");
    Arc::new(
        Ruleset::builder()
            .tiles(base)
            .tiles(extra)
            .build()
            .expect("the ruleset"),
    )
}

/// A tile kind by id.
pub fn tile(r: &Ruleset, name: &str) -> TileKindId {
    r.tiles()
        .find(name)
        .unwrap_or_else(|| panic!("no tile {name}"))
}

/// A tile of kind `name` at (x, y), rotated `deg` degrees clockwise.
pub fn at(r: &Ruleset, name: &str, x: i32, y: i32, deg: i64) -> StartTile {
    StartTile {
        kind: tile(r, name),
        pos: Pos::new(x, y),
        rotation: Rotation::from_degrees(deg).unwrap(),
    }
}

/// Plays `games` seeded random games of `rules` among `players` (seed `0..games`, each
/// game's choices from `ChaCha8Rng` seeded with its seed), calling `check` with the game and
/// "seed S, step N" after every action; asserts that an action is always offered.
pub fn play_random(
    rules: &Arc<Ruleset>,
    players: &[&str],
    games: u64,
    mut check: impl FnMut(&Game, &str),
) {
    use rand::{Rng, SeedableRng};
    for seed in 0..games {
        let setup = GameSetup::new(players.iter().map(|p| p.to_string()).collect(), seed);
        let mut g = Game::new(Arc::clone(rules), &setup).expect("a game");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut step = 0;
        while !g.is_over() {
            let n = g.actions().len();
            assert!(n > 0, "seed {seed}: no action offered");
            g.apply_offered(rng.random_range(0..n))
                .expect("an offered action");
            step += 1;
            check(&g, &format!("seed {seed}, step {step}"));
        }
    }
}
