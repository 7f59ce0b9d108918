//! The size options every ruleset declares (`ruleset.rs`): `figures.<kind>` (how many of a
//! per-player figure kind each player has) and `tiles.<set>` (copies of a tile set in the
//! supply), so a JCloisterZone set-up with one follower each or a set taken three times is
//! an ordinary ruleset, carried by records like any option.

use carcassonne_core::*;

fn base_with(options: &[(&str, &str)]) -> Result<Ruleset, SetupError> {
    let base: TileSetData = toml::from_str(BASE_TILES_TOML).expect("base tiles parse");
    let mut b = Ruleset::builder().tiles(base);
    for (k, v) in options {
        b = b.option_text(k, v);
    }
    b.build()
}

fn game(r: Ruleset) -> Game {
    Game::new(
        std::sync::Arc::new(r),
        &GameSetup::new(vec!["R".into(), "B".into()], 7),
    )
    .expect("game")
}

#[test]
fn defaults_are_the_declared_counts() {
    let r = base_with(&[]).unwrap();
    assert_eq!(r.options().int("figures.small-follower"), 7);
    assert_eq!(r.options().int("tiles.base"), 1);
    let g = game(r);
    assert_eq!(g.state().figures().len(), 14);
    // 72 tiles, less the start tile on the board and the first player's drawn tile.
    assert_eq!(g.state().supply().remaining(), 70);
}

#[test]
fn one_follower_each_and_two_copies_of_the_base_tiles() {
    let r = base_with(&[("figures.small-follower", "1"), ("tiles.base", "2")]).unwrap();
    assert_eq!(r.figure_kind(FigureKindId::SMALL_FOLLOWER).per_player, 1);
    let g = game(r);
    assert_eq!(g.state().figures().len(), 2);
    assert_eq!(g.state().supply().remaining(), 142);
}

/// No followers at all: the deployment step offers nothing, so it is no decision.
#[test]
fn a_game_without_followers_never_asks_for_a_deployment() {
    let mut g = game(base_with(&[("figures.small-follower", "0")]).unwrap());
    assert!(g.state().figures().is_empty());
    for _ in 0..6 {
        assert!(matches!(g.decision().kind, DecisionKind::PlaceTile { .. }));
        g.apply_offered(0).expect("a placement");
    }
}

#[test]
fn out_of_range_sizes_are_refused() {
    let e = base_with(&[("figures.small-follower", "99")]).unwrap_err();
    assert!(e.to_string().contains("figures.small-follower"), "{e}");
    let e = base_with(&[("tiles.base", "-1")]).unwrap_err();
    assert!(e.to_string().contains("tiles.base"), "{e}");
}
