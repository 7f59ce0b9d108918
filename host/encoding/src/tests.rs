use super::*;
use carcassonne_core::{GameSetup, Rotation};
use carcassonne_rules::{build_ruleset, RulesSpec};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn game(expansions: &[&str], seed: u64) -> Game {
    let spec = RulesSpec {
        expansions: expansions.iter().map(|s| s.to_string()).collect(),
        ..RulesSpec::default()
    };
    let rules = build_ruleset(&spec).expect("ruleset");
    Game::new(rules, &GameSetup::new(vec!["a".into(), "b".into()], seed)).expect("game")
}

/// Plays random games and checks, at every decision, that the ids are distinct, in range,
/// and that the layout decodes placements and last-tile deployments back to the action.
fn check_games(expansions: &[&str], games: u64) {
    let mut ids = Vec::new();
    let mut mask = vec![false; ACTION_SIZE];
    for seed in 0..games {
        let mut g = game(expansions, seed);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        while !g.is_over() {
            encode_actions(&g, &mut ids).expect("encodable");
            assert_eq!(ids.len(), g.action_count());
            fill_mask(&ids, &mut mask);
            assert_eq!(
                mask.iter().filter(|m| **m).count(),
                ids.len(),
                "ids distinct"
            );
            for (a, &id) in g.actions().iter().zip(&ids) {
                match (slot_of(id as usize).expect("in range"), a) {
                    (Slot::Place { pos, quarters }, Action::Place { pos: p, rotation }) => {
                        assert_eq!((pos, quarters), (*p, rotation.quarters()));
                    }
                    (Slot::Pass, Action::Pass) => {}
                    (Slot::Deploy { figure, local }, Action::Deploy { figure: f, segment }) => {
                        assert_eq!(figure, f.0);
                        assert_eq!(local, g.state().graph().segment(*segment).local);
                        assert_eq!(
                            g.state().graph().segment(*segment).tile,
                            g.state().last_placed().unwrap()
                        );
                    }
                    (
                        Slot::Other(_),
                        Action::Deploy { .. } | Action::Move { .. } | Action::Custom(_),
                    ) => {}
                    (s, a) => panic!("{a} encoded as {s:?}"),
                }
            }
            let i = rng.random_range(0..ids.len());
            g.apply_offered(i).expect("legal");
        }
        encode_actions(&g, &mut ids).expect("over");
        assert!(ids.is_empty());
    }
}

#[test]
fn layout_is_contiguous() {
    assert_eq!(PASS_ID, WINDOW * WINDOW * 4);
    assert_eq!(ACTION_SIZE, OTHER_BASE + OTHER_SLOTS);
    assert_eq!(cell_index(Pos::new(0, 0)), Some((WINDOW * WINDOW) / 2));
    assert_eq!(cell_index(Pos::new(HALF + 1, 0)), None);
    assert_eq!(cell_index(Pos::new(-HALF, -HALF)), Some(0));
    for i in [0, 17, WINDOW * WINDOW - 1] {
        assert_eq!(cell_index(cell_pos(i)), Some(i));
    }
    assert_eq!(slot_of(ACTION_SIZE), None);
    assert_eq!(slot_of(PASS_ID), Some(Slot::Pass));
    assert_eq!(slot_of(OTHER_BASE), Some(Slot::Other(0)));
    let _ = Rotation::R0;
}

#[test]
fn base_game_ids_are_exact() {
    check_games(&[], 30);
}

#[test]
fn every_official_expansion_ids_are_exact() {
    check_games(
        &[
            "count",
            "king-robber",
            "river2",
            "heretics-shrines",
            "inns-cathedrals",
            "traders-builders",
            "princess-dragon",
            "tower",
            "abbey-mayor",
        ],
        6,
    );
}

#[test]
fn planes_show_the_board_from_each_seat() {
    let mut g = game(&[], 3);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..30 {
        let i = rng.random_range(0..g.action_count());
        g.apply_offered(i).unwrap();
    }
    let area = WINDOW * WINDOW;
    let mut p0 = vec![0u8; PLANES.len() * area];
    let mut p1 = p0.clone();
    planes(&g, 0, &mut p0);
    planes(&g, 1, &mut p1);
    let tiles = p0[..area].iter().filter(|v| **v == 1).count();
    assert_eq!(tiles, g.state().board().tiles().len());
    // The occupancy planes swap between the two seats.
    let occ = |p: &[u8], k: usize| p[(P_OCC + k) * area..(P_OCC + k + 1) * area].to_vec();
    assert_eq!(occ(&p0, 0), occ(&p1, 1));
    assert_eq!(occ(&p0, 1), occ(&p1, 0));
    let on_board = g
        .state()
        .figures()
        .iter()
        .filter(|f| matches!(f.loc, FigureLoc::On(_)))
        .count();
    let shown: u32 = (0..7)
        .map(|k| occ(&p0, k).iter().map(|v| *v as u32).sum::<u32>())
        .sum();
    assert_eq!(shown as usize, on_board);
    // Every frontier cell is empty.
    for c in 0..area {
        if p0[P_FRONTIER * area + c] == 1 {
            assert_eq!(p0[c], 0);
        }
    }
}
