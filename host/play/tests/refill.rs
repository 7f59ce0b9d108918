//! `Game::refill_from` (the search bots' copy, issue 33): the copy it makes is the game
//! `clone_from` makes, it plays on the same, and the source is left as it was, also when the
//! copy owned its board before (the case refill_from exists for), and when it is refilled
//! again and again from one source (then it undoes its placements instead of copying the
//! board and the segments, and restores only the union-find entries its copy wrote; a debug
//! build also checks each such refill against the source).

use carcassonne_core::{Game, GameSetup};
use carcassonne_rules::{build_ruleset, RulesSpec};
use std::path::Path;

/// The brief's nine official sets: a 209-tile board, virtual features (the Count), neutral
/// figures (dragon, fairy, Count), prompts of several expansions.
const NINE: [&str; 9] = [
    "inns-cathedrals",
    "traders-builders",
    "princess-dragon",
    "tower",
    "abbey-mayor",
    "count",
    "river2",
    "king-robber",
    "heretics-shrines",
];

fn game(expansions: &[&str], seed: u64) -> Game {
    let rules = build_ruleset(&RulesSpec {
        expansions: expansions.iter().map(|e| e.to_string()).collect(),
        options: Vec::new(),
        plugin_dirs: vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../../expansions")],
    })
    .unwrap_or_else(|e| panic!("the expansions load: {e}"));
    Game::new(rules, &GameSetup::new(vec!["a".into(), "b".into()], seed)).expect("a game")
}

/// Plays `n` actions on `g` (offer `k * 7 + i` modulo the offers, so both copies take the
/// same ones) and returns the Debug form of its state.
fn play_on(g: &mut Game, n: usize) -> String {
    for i in 0..n {
        if g.is_over() || g.action_count() == 0 {
            break;
        }
        let k = (i * 7 + 3) % g.action_count();
        g.apply_offered(k).expect("an offered action applies");
    }
    format!("{:?}", g.state())
}

#[test]
fn refill_from_copies_the_game_that_clone_from_copies() {
    for (expansions, seed) in [(&[][..], 11u64), (&NINE[..], 5)] {
        let mut source = game(expansions, seed);
        // Two scratch games that have played elsewhere, as a bot's do between decisions:
        // the refilled one owns a board of its own by then.
        let mut shared = source.clone();
        let mut owned = source.clone();
        play_on(&mut owned, 40);
        play_on(&mut shared, 40);
        for step in 0..30 {
            let before = format!("{:?}", source.state());
            shared.clone_from(&source);
            owned.refill_from(&source);
            assert_eq!(
                format!("{:?}", owned.state()),
                before,
                "step {step}: the copy"
            );
            // The copies go on alike (several placements), and the source does not move.
            assert_eq!(
                play_on(&mut owned, 12),
                play_on(&mut shared, 12),
                "step {step}: the copies after 12 actions"
            );
            assert_eq!(
                format!("{:?}", source.state()),
                before,
                "step {step}: the source"
            );
            play_on(&mut source, 5);
        }
    }
}

/// What a search bot does: one scratch game refilled from one position before every try,
/// each try playing a few actions (placements, deployments, scoring), now and then a plain
/// `clone_from` of another game in between (which ends the undoing) and a source that
/// moves on (whose board the scratch game's refills held: it copies then).
#[test]
fn refills_from_one_source_undo_each_try_exactly() {
    for (expansions, seed) in [(&[][..], 3u64), (&NINE[..], 9)] {
        let mut source = game(expansions, seed);
        let mut other = source.clone();
        play_on(&mut source, 30);
        play_on(&mut other, 50);
        let mut scratch = source.clone();
        for step in 0..12 {
            let before = format!("{:?}", source.state());
            for t in 0..6 {
                scratch.refill_from(&source);
                assert_eq!(
                    format!("{:?}", scratch.state()),
                    before,
                    "step {step}, try {t}: the refill"
                );
                let mut plain = source.clone();
                // Different tries: skip `t` actions' worth of offers first.
                let n = 2 + (t + step) % 9;
                for _ in 0..t {
                    if !scratch.is_over() && scratch.action_count() > 0 {
                        let k = (t * 5 + step) % scratch.action_count();
                        scratch.apply_offered(k).expect("an offered action applies");
                        plain.apply_offered(k).expect("an offered action applies");
                    }
                }
                assert_eq!(
                    play_on(&mut scratch, n),
                    play_on(&mut plain, n),
                    "step {step}, try {t}: the refilled copy plays as a plain one"
                );
                assert_eq!(
                    format!("{:?}", source.state()),
                    before,
                    "step {step}: the source"
                );
            }
            if step % 4 == 3 {
                scratch.clone_from(&other);
                play_on(&mut scratch, 3);
            }
            play_on(&mut source, 3);
        }
    }
}

/// The union-find entries (issue 33, `refill_for_try`): a source moving on one action at a time (placements,
/// deployments, passes, prompts), each position refilled into one scratch game for tries
/// of 0, 1, 2, 4 and 60 actions (the longest past the journal's cap), a plain `clone_from`
/// of another game now and then: every refill equals its source and plays on as a plain
/// copy does.
#[test]
fn refills_restore_the_links_their_copy_wrote() {
    for (expansions, seed) in [(&[][..], 21u64), (&NINE[..], 13)] {
        let mut source = game(expansions, seed);
        let mut other = source.clone();
        play_on(&mut other, 25);
        let mut scratch = source.clone();
        for step in 0..45 {
            if source.is_over() {
                break;
            }
            let before = format!("{:?}", source.state());
            for (t, n) in [0usize, 1, 2, 4, 60].into_iter().enumerate() {
                scratch.refill_for_try(&source);
                assert_eq!(
                    format!("{:?}", scratch.state()),
                    before,
                    "step {step}, try of {n}: the refill"
                );
                let mut plain = source.clone();
                for i in 0..n {
                    if scratch.is_over() || scratch.action_count() == 0 {
                        break;
                    }
                    // Different tries take different offers.
                    let k = (i * 3 + t + step) % scratch.action_count();
                    scratch.apply_offered(k).expect("an offered action applies");
                    plain.apply_offered(k).expect("an offered action applies");
                }
                assert_eq!(
                    format!("{:?}", scratch.state()),
                    format!("{:?}", plain.state()),
                    "step {step}, try of {n}: the refilled copy plays as a plain one"
                );
            }
            assert_eq!(
                format!("{:?}", source.state()),
                before,
                "step {step}: the source"
            );
            if step % 7 == 6 {
                scratch.clone_from(&other);
                play_on(&mut scratch, 2);
            }
            // One action at a time: deployments and passes move the source without a tile.
            play_on(&mut source, 1);
        }
    }
}
