//! `Board::holes` (the empty cells with a tile on all four sides, where only a barrier
//! tile such as the abbey goes) is kept as tiles are placed: it always equals the count
//! of such cells in the frontier.

mod common;
use carcassonne_core::*;
use common::{at, rules};
use std::sync::Arc;

fn counted(b: &Board) -> u32 {
    b.frontier().iter().filter(|f| f.mask == u32::MAX).count() as u32
}

#[test]
fn a_cell_closed_on_four_sides_is_a_hole() {
    let r = rules();
    let ring = [(0, -1), (1, 0), (0, 1)];
    let mut start: Vec<StartTile> = ring.iter().map(|&(x, y)| at(&r, "BA/L", x, y, 0)).collect();
    let setup = |start: Vec<StartTile>| GameSetup {
        start: Some(start),
        ..GameSetup::new(vec!["A".into(), "B".into()], 1)
    };
    let g = Game::new(Arc::clone(&r), &setup(start.clone())).expect("three cloisters");
    assert_eq!(g.state().board().holes(), 0, "(0,0) is open to the west");
    start.push(at(&r, "BA/L", -1, 0, 0));
    let g = Game::new(Arc::clone(&r), &setup(start)).expect("four cloisters");
    assert_eq!(
        g.state().board().holes(),
        1,
        "(0,0) has a tile on every side"
    );
    assert_eq!(counted(g.state().board()), 1);
}

#[test]
fn holes_match_the_frontier_through_random_games() {
    let r = rules();
    let mut seen = 0;
    for seed in 0..60u64 {
        let mut g = Game::new(
            Arc::clone(&r),
            &GameSetup::new(vec!["A".into(), "B".into(), "C".into()], seed),
        )
        .expect("a base game");
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        while !g.is_over() {
            let b = g.state().board();
            assert_eq!(
                b.holes(),
                counted(b),
                "seed {seed}, turn {}",
                g.state().turn()
            );
            seen += b.holes();
            let n = g.action_count();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            g.apply_offered((x % n as u64) as usize)
                .expect("an offered action applies");
        }
        assert_eq!(g.state().board().holes(), counted(g.state().board()));
    }
    assert!(seen > 0, "some game had a hole");
}
