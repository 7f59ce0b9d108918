//! What the benchmarks share: the thread's CPU clock as criterion's measurement, a tiny
//! random pick for the bots, and whole random 2-player games (each bench target includes
//! this with `mod common;`).

use carcassonne_core::{Game, GameSetup, Ruleset};
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{black_box, BenchmarkGroup};
use std::sync::Arc;
use std::time::Duration;

/// CPU time of the calling thread.
pub struct CpuTime;

fn thread_cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Durations are shown as criterion shows wall time.
static DURATIONS: WallTime = WallTime;

impl Measurement for CpuTime {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu_time()
    }
    fn end(&self, start: Duration) -> Duration {
        thread_cpu_time().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        DURATIONS.formatter()
    }
}

/// A tiny xorshift for the bots: the benchmark measures the engine, not a bot's RNG.
pub struct Pick(pub u64);

impl Pick {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A 2-player game of `rules` with `seed`.
pub fn new_game(rules: &Arc<Ruleset>, seed: u64) -> Game {
    let mut g = Game::new(
        Arc::clone(rules),
        &GameSetup::new(vec!["A".into(), "B".into()], seed),
    )
    .expect("new game");
    // As `simulate` plays: no per-action rollback snapshot.
    g.set_checkpoints(false);
    g
}

/// Plays random actions until `stop` says so or the game ends.
pub fn play(game: &mut Game, pick: &mut Pick, stop: impl Fn(&Game) -> bool) {
    while !game.is_over() && !stop(game) {
        let i = pick.below(game.action_count());
        game.apply_offered(i).expect("offered");
    }
}

/// Times whole random games of `rules` as `name` in `group`, each with the next seed.
pub fn bench_games(group: &mut BenchmarkGroup<'_, CpuTime>, name: &str, rules: &Arc<Ruleset>) {
    let mut seed = 0u64;
    group.bench_function(name, |b| {
        b.iter(|| {
            seed += 1;
            let mut g = new_game(rules, seed);
            play(&mut g, &mut Pick(seed | 1), |_| false);
            black_box(g.state().players()[0].score)
        })
    });
}
