//! Chosen draws, draw caps and given start layouts (`GameSetup::draws`, `draw_limit`,
//! `start`): the table names each tile, A-4 still discards what cannot be placed, A-12 still
//! ends the game when no draw is left.

mod common;
use carcassonne_core::*;
use common::{at, rules, tile};
use std::sync::Arc;

fn chosen(r: &Arc<Ruleset>, limit: Option<u32>, start: Option<Vec<StartTile>>) -> Game {
    let setup = GameSetup {
        draws: DrawMode::Chosen,
        draw_limit: limit,
        start,
        ..GameSetup::new(vec!["A".into(), "B".into()], 1)
    };
    Game::new(Arc::clone(r), &setup).expect("the game starts")
}

fn draw(g: &mut Game, r: &Ruleset, name: &str) {
    g.apply(Action::Draw {
        tile: tile(r, name),
    })
    .unwrap_or_else(|e| panic!("drawing {name}: {e}"));
}

#[test]
fn the_table_is_asked_for_every_tile_and_offered_each_kind_once() {
    let r = rules();
    let mut g = chosen(&r, None, None);
    assert_eq!(g.decision().kind, DecisionKind::Draw);
    assert_eq!(g.decision().player, PlayerId(0));
    // 24 kinds, each offered once, in kind order; the start tile's kind still has copies.
    let kinds: Vec<TileKindId> = g
        .actions()
        .iter()
        .map(|a| match a {
            Action::Draw { tile } => *tile,
            other => panic!("unexpected offer {other}"),
        })
        .collect();
    assert_eq!(kinds.len(), 24);
    assert!(kinds.windows(2).all(|w| w[0] < w[1]));
    draw(&mut g, &r, "BA/C");
    assert_eq!(
        g.decision().kind,
        DecisionKind::PlaceTile {
            tile: tile(&r, "BA/C")
        }
    );
    assert_eq!(g.state().supply().remaining(), 70);
    // Anything but a draw is refused while the table draws.
    let mut g2 = chosen(&r, None, None);
    assert!(g2.apply(Action::Pass).is_err());
    // The single crossroads can be drawn once; then it is no longer offered.
    draw(&mut g2, &r, "BA/RRRR");
    let place = g2.actions()[0];
    g2.apply(place).unwrap();
    if g2.actions().contains(&Action::Pass) {
        g2.apply(Action::Pass).unwrap();
    }
    assert_eq!(g2.decision().kind, DecisionKind::Draw);
    assert!(!g2.actions().contains(&Action::Draw {
        tile: tile(&r, "BA/RRRR")
    }));
    let before = format!("{:?}", g2.state());
    assert!(g2
        .apply(Action::Draw {
            tile: tile(&r, "BA/RRRR")
        })
        .is_err());
    assert_eq!(
        before,
        format!("{:?}", g2.state()),
        "a refused draw changes nothing"
    );
}

/// a chosen tile that fits nowhere is discarded and the table draws again.
#[test]
fn a4_an_unplaceable_chosen_tile_is_discarded() {
    let r = rules();
    // Start on the all-city tile: a tile without a city edge cannot go anywhere.
    let start = vec![at(&r, "BA/Cccc+", 0, 0, 0)];
    let mut g = chosen(&r, None, Some(start));
    assert_eq!(g.state().board().tiles().len(), 1);
    // The given layout replaced the usual one: all four BA/RCr are still in the pack.
    assert_eq!(g.state().supply().remaining(), 71);
    draw(&mut g, &r, "BA/L");
    assert_eq!(g.decision().kind, DecisionKind::Draw);
    assert_eq!(g.state().discarded(), &[tile(&r, "BA/L")]);
    assert_eq!(g.state().supply().remaining(), 70);
    draw(&mut g, &r, "BA/C");
    assert!(matches!(g.decision().kind, DecisionKind::PlaceTile { .. }));
}

/// A-12 with a cap: after the last allowed draw is placed and scored, the game ends.
#[test]
fn a12_the_game_ends_when_the_draw_limit_is_reached() {
    let r = rules();
    let mut g = chosen(&r, Some(2), None);
    for name in ["BA/C", "BA/C"] {
        draw(&mut g, &r, name);
        let place = g.actions()[0];
        g.apply(place).unwrap();
        while !g.is_over() && g.decision().kind != DecisionKind::Draw {
            g.apply(Action::Pass).unwrap();
        }
    }
    assert!(
        g.is_over(),
        "two draws allowed, two placed: {:?}",
        g.decision()
    );
    assert_eq!(g.state().board().tiles().len(), 3);
    // The same cap with random draws.
    let setup = GameSetup {
        draw_limit: Some(5),
        ..GameSetup::new(vec!["A".into()], 9)
    };
    let mut g = Game::new(Arc::clone(&r), &setup).unwrap();
    while !g.is_over() {
        g.apply_offered(0).unwrap();
    }
    assert!(g.state().board().tiles().len() + g.state().discarded().len() <= 6);
}

/// Bots can play a chosen-draw game to the end (any offered draw is legal), and the same
/// choices give the same game.
#[test]
fn chosen_games_are_playable_and_deterministic() {
    let r = rules();
    let play = || {
        let mut g = chosen(&r, None, None);
        let mut i = 0usize;
        while !g.is_over() {
            let n = g.action_count();
            g.apply_offered((i * 7919) % n).unwrap();
            i += 1;
        }
        g
    };
    let (a, b) = (play(), play());
    assert_eq!(format!("{:?}", a.state()), format!("{:?}", b.state()));
    assert_eq!(a.state().supply().remaining(), 0);
    assert_eq!(
        a.state().board().tiles().len() + a.state().discarded().len(),
        72
    );
}
