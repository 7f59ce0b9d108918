//! Traders & Builders' `on_tile_placed` returns before looking at the figures when every
//! builder of the active player is in the supply (the supply's count equals the kind's
//! `per_player`): no builder of the player is then on the board, so the tile extends none
//! (TB-11). Checked at every decision of seeded random games, alone and in the mixes (The
//! Tower captures builders too); the debug build also checks it at every call.

use carcassonne_core::{FigureLoc, Game, GameSetup, PlayerId};
use carcassonne_tests::{official_rules, NINE_OFFICIAL};

/// Plays `games` seeded random 2-player games of `expansions`: at every decision, a player
/// whose supply holds every builder has none on the board. Both cases must occur.
fn check(expansions: &[&str], games: u64) {
    let rules = official_rules(expansions, &[]);
    let (builder, def) = rules
        .figure_kinds()
        .iter()
        .enumerate()
        .find(|(_, k)| k.name == "builder")
        .expect("a builder kind");
    let mut all_home = 0usize;
    let mut some_out = 0usize;
    for seed in 0..games {
        let setup = GameSetup::new(vec!["A".into(), "B".into()], seed);
        let mut game = Game::new(rules.clone(), &setup).unwrap();
        let mut pick = seed.wrapping_add(29);
        loop {
            let st = game.state();
            for p in 0..st.players().len() {
                let player = PlayerId(p as u8);
                let kind = carcassonne_core::FigureKindId(builder as u8);
                let on_board = st
                    .figures_of(player)
                    .1
                    .iter()
                    .filter(|f| f.kind == kind && matches!(f.loc, FigureLoc::On(_)))
                    .count();
                if st.in_supply(player, kind) == def.per_player {
                    assert_eq!(
                        on_board, 0,
                        "{expansions:?}, seed {seed}: every builder in the supply, one on the board"
                    );
                    all_home += 1;
                } else {
                    some_out += 1;
                }
            }
            if game.is_over() {
                break;
            }
            pick = pick
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let i = (pick >> 33) as usize % game.actions().len();
            game.play_offered(i).unwrap();
        }
    }
    assert!(
        all_home > 100 && some_out > 10,
        "{expansions:?}: supply full {all_home} times, not {some_out} times"
    );
}

#[test]
fn traders_builders_alone_builder_supply_matches_the_board() {
    check(&["traders-builders"], 12);
}

#[test]
fn six_and_tower_builder_supply_matches_the_board() {
    check(
        &[
            "count",
            "king-robber",
            "river2",
            "heretics-shrines",
            "inns-cathedrals",
            "traders-builders",
            "tower",
        ],
        8,
    );
}

#[test]
fn nine_builder_supply_matches_the_board() {
    check(&NINE_OFFICIAL, 8);
}
