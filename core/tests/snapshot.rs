//! `Game::clone_from` (what bots use to refill a scratch copy) gives the same game as a
//! fresh clone, whatever the scratch held before: more or fewer players with other names,
//! a longer or shorter game, a built or unbuilt placement-action cache (issue 33).

mod common;
use carcassonne_core::*;
use std::sync::Arc;

fn names(n: usize, prefix: &str) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i}")).collect()
}

/// Plays `steps` decisions, each the offer at `(k * 7 + 3) % count` (a fixed, varied line).
fn play(g: &mut Game, steps: usize) {
    for k in 0..steps {
        if g.is_over() {
            return;
        }
        let n = g.action_count();
        g.apply_offered((k * 7 + 3) % n).unwrap();
    }
}

/// Everything a player or a record can see of a game, for comparing two games.
fn seen(g: &Game) -> String {
    let st = g.state();
    format!(
        "{:?} {:?} {} {:?} {:?} {:?} {:?} {:?} {:?}",
        st.players(),
        g.decision(),
        st.turn(),
        g.actions(),
        st.figures(),
        st.supply().groups,
        st.events(),
        st.discards(),
        st.board().tiles().len(),
    )
}

#[test]
fn clone_from_equals_a_fresh_clone_from_any_scratch() {
    let r = common::rules();
    for (source_players, scratch_players) in [(2, 3), (3, 2), (2, 2)] {
        let mut source = Game::new(
            Arc::clone(&r),
            &GameSetup::new(names(source_players, "A"), 3),
        )
        .unwrap();
        play(&mut source, 40);
        // The scratch is further on, in another game with other names.
        let mut scratch = Game::new(
            Arc::clone(&r),
            &GameSetup::new(names(scratch_players, "a-much-longer-name"), 9),
        )
        .unwrap();
        play(&mut scratch, 70);
        // Build the source's placement-action cache (a copy must not depend on it).
        let _ = source.actions();
        scratch.clone_from(&source);
        let mut fresh = source.clone();
        assert_eq!(seen(&scratch), seen(&fresh));
        // Both play on identically to the end: same offers, scores and events.
        for k in 0..400 {
            if fresh.is_over() {
                break;
            }
            let n = fresh.action_count();
            assert_eq!(scratch.action_count(), n);
            fresh.apply_offered((k * 5 + 1) % n).unwrap();
            scratch.apply_offered((k * 5 + 1) % n).unwrap();
            assert_eq!(seen(&scratch), seen(&fresh));
        }
        assert!(fresh.is_over(), "the game ran to its end");
        assert!(fresh.state().players().iter().any(|p| p.score > 0));
    }
}

/// `GameTemplate::game_into` (a simulation's next game written into the last one's
/// buffers) gives the game `GameTemplate::game` gives, whatever the game held before: a
/// finished game of the template, one half played, one of another ruleset's template with
/// other players; the two are then played on to the end alike, compared at every step.
#[test]
fn game_into_equals_a_fresh_templated_game() {
    let r = common::rules();
    let template = GameTemplate::new(Arc::clone(&r), &GameSetup::new(names(2, "P"), 0)).unwrap();
    let other = GameTemplate::new(
        common::rules(),
        &GameSetup::new(names(3, "another-name"), 0),
    )
    .unwrap();
    for (k, seed) in [11u64, 12, 13].into_iter().enumerate() {
        let mut reused = match k {
            0 => template.game(5).unwrap(),
            1 => other.game(6).unwrap(),
            _ => template.game(7).unwrap(),
        };
        play(&mut reused, [500, 500, 30][k]);
        template.game_into(seed, &mut reused).unwrap();
        let mut fresh = template.game(seed).unwrap();
        assert_eq!(
            format!("{:?}", reused.state()),
            format!("{:?}", fresh.state())
        );
        let mut steps = 0;
        while !fresh.is_over() {
            assert_eq!(seen(&reused), seen(&fresh), "seed {seed}, step {steps}");
            play(&mut fresh, 1);
            play(&mut reused, 1);
            steps += 1;
        }
        assert!(steps > 50, "the game was played ({steps} steps)");
        assert_eq!(
            format!("{:?}", reused.state()),
            format!("{:?}", fresh.state())
        );
    }
}
