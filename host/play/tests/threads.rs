//! How `simulate` shares its games between threads: each thread takes the next game nobody
//! has taken, so the summary is the same on any number of threads, and an error of the
//! caller's (a record that cannot be written) ends the run: no thread starts another game.

use carcassonne_play::simulate::{simulate, SimConfig};
use carcassonne_play::PlayError;
use carcassonne_rules::{build_ruleset, RulesSpec};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

fn config(games: u64, threads: usize) -> SimConfig {
    SimConfig {
        games,
        players: 2,
        seed: 11,
        bots: vec!["random".into()],
        threads,
    }
}

fn base_rules() -> std::sync::Arc<carcassonne_core::Ruleset> {
    build_ruleset(&RulesSpec {
        expansions: Vec::new(),
        options: Vec::new(),
        plugin_dirs: Vec::new(),
    })
    .expect("the base game builds")
}

#[test]
fn every_game_is_played_once_whatever_the_threads() {
    let rules = base_rules();
    let mut summaries = Vec::new();
    for threads in [1, 2, 3] {
        let seen = Mutex::new(Vec::new());
        let summary = simulate::<PlayError>(&rules, &config(40, threads), &|_| {}, &|g| {
            seen.lock()
                .unwrap()
                .push((g.result.index, g.result.scores.clone()));
            Ok(())
        })
        .expect("the run plays");
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(
            seen.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            (0..40).collect::<Vec<_>>(),
            "each game once, on {threads} threads"
        );
        let mut json = serde_json::to_value(&summary).unwrap();
        // Wall time and the thread count differ by design.
        for k in ["games_per_second", "threads"] {
            json.as_object_mut().unwrap().remove(k);
        }
        summaries.push((json, seen));
    }
    assert!(
        summaries.windows(2).all(|w| w[0] == w[1]),
        "the same games and summary on 1, 2 and 3 threads"
    );
}

#[test]
fn an_error_of_the_caller_stops_every_thread() {
    let rules = base_rules();
    let called = AtomicU64::new(0);
    let r = simulate::<PlayError>(&rules, &config(2000, 2), &|_| {}, &|g| {
        called.fetch_add(1, Ordering::Relaxed);
        if g.result.index == 3 {
            return Err(PlayError::Invalid("the disk is full".into()));
        }
        Ok(())
    });
    let e = r.expect_err("the caller's error is the run's");
    assert!(e.to_string().contains("the disk is full"), "{e}");
    // The other thread stops at its next game, not after the 2,000.
    assert!(
        called.load(Ordering::Relaxed) < 100,
        "{}",
        called.load(Ordering::Relaxed)
    );
}
