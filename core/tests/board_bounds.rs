//! The board grows safely in any direction up to its bound (`MAX_COORD`), and refuses
//! cleanly beyond it (issue 13): random start layouts anywhere in `i32`, and random games
//! played from start tiles at the bound, never panic, and never offer a cell past it.

mod common;
use carcassonne_core::*;
use common::rules;
use proptest::prelude::*;
use std::sync::Arc;

fn in_bounds(p: Pos) -> bool {
    (-MAX_COORD..=MAX_COORD).contains(&p.x) && (-MAX_COORD..=MAX_COORD).contains(&p.y)
}

/// Plays `steps` random offered actions (or to the end), checking every placement offer.
fn play(game: &mut Game, steps: usize, seed: u64) {
    let mut x = seed | 1;
    for _ in 0..steps {
        if game.is_over() {
            return;
        }
        for c in game.state().placement_cells() {
            assert!(in_bounds(c.pos), "offered {:?} beyond the bound", c.pos);
        }
        let n = game.action_count();
        assert!(n > 0, "a pending decision offers something");
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        game.apply_offered((x % n as u64) as usize)
            .expect("an offered action applies");
    }
}

fn start_game(r: &Arc<Ruleset>, start: Vec<StartTile>, seed: u64) -> Result<Game, GameError> {
    let setup = GameSetup {
        start: Some(start),
        ..GameSetup::new(vec!["A".into(), "B".into()], seed)
    };
    Game::new(Arc::clone(r), &setup)
}

fn coord() -> impl Strategy<Value = i32> {
    prop_oneof![
        4 => -(MAX_COORD + 3)..=(MAX_COORD + 3),
        1 => any::<i32>(),
        1 => prop_oneof![Just(i32::MIN), Just(i32::MAX), Just(MAX_COORD), Just(-MAX_COORD)],
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Any start layout either starts a game whose every offer lies within the bound, or
    /// is refused with a position error; a tile beyond the bound is always refused.
    #[test]
    fn random_start_layouts(
        cells in prop::collection::vec((coord(), coord(), 0u8..4), 1..6),
        seed in any::<u64>(),
    ) {
        let r = rules();
        let kind = r.tiles().find("BA/RCr").expect("start tile");
        let start: Vec<StartTile> = cells
            .iter()
            .map(|&(x, y, q)| StartTile {
                kind,
                pos: Pos::new(x, y),
                rotation: Rotation::quarter_turns(q),
            })
            .collect();
        let any_beyond = start.iter().any(|t| !in_bounds(t.pos));
        match start_game(&r, start, seed) {
            Ok(mut g) => {
                prop_assert!(!any_beyond, "a tile beyond the bound was accepted");
                play(&mut g, 40, seed);
            }
            Err(GameError::Position(m)) => {
                if any_beyond {
                    prop_assert!(m.contains("bound") || m.contains("two tiles") || m.contains("edges"), "{m}");
                }
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }

    /// Whole random games from a start tile at a corner or edge of the bound: the board
    /// grows towards the bound and stops there.
    #[test]
    fn games_at_the_bound(
        corner in prop::sample::select(vec![
            (MAX_COORD, MAX_COORD), (-MAX_COORD, MAX_COORD), (MAX_COORD, -MAX_COORD),
            (-MAX_COORD, -MAX_COORD), (0, MAX_COORD), (-MAX_COORD, 0),
        ]),
        seed in any::<u64>(),
    ) {
        let r = rules();
        let kind = r.tiles().find("BA/RCr").expect("start tile");
        let start = vec![StartTile { kind, pos: Pos::new(corner.0, corner.1), rotation: Rotation::R0 }];
        let mut g = start_game(&r, start, seed).expect("a start tile at the bound is fine");
        play(&mut g, 10_000, seed);
        prop_assert!(g.is_over());
        for t in g.state().board().tiles() {
            prop_assert!(in_bounds(t.pos));
        }
    }
}

/// Two start tiles on opposite corners of the bound: the grid holds both (it used to lose
/// the first when growing towards the second).
#[test]
fn opposite_corners() {
    let r = rules();
    let kind = r.tiles().find("BA/RCr").expect("start tile");
    let start = vec![
        StartTile {
            kind,
            pos: Pos::new(-MAX_COORD, -MAX_COORD),
            rotation: Rotation::R0,
        },
        StartTile {
            kind,
            pos: Pos::new(MAX_COORD, MAX_COORD),
            rotation: Rotation::R0,
        },
        StartTile {
            kind,
            pos: Pos::new(0, -35),
            rotation: Rotation::R0,
        },
    ];
    let g = start_game(&r, start, 1).expect("starts");
    let b = g.state().board();
    for p in [
        Pos::new(-MAX_COORD, -MAX_COORD),
        Pos::new(MAX_COORD, MAX_COORD),
        Pos::new(0, -35),
    ] {
        assert!(b.is_occupied(p), "{p} lost");
    }
    assert!(!b.is_occupied(Pos::new(i32::MAX, i32::MIN)));
}
