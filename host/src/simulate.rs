//! Many games with bots, in parallel, with a deterministic summary.

use crate::bots::{make_bot, Bot};
use crate::record::Record;
use crate::HostError;
use carcassonne_core::{Game, GameSetup, Ruleset};
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What to simulate.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Number of games.
    pub games: u64,
    /// Players per game.
    pub players: usize,
    /// Base seed; game `i` uses a seed derived from it and `i`.
    pub seed: u64,
    /// Bot name per seat (cycled if shorter than the player count).
    pub bots: Vec<String>,
    /// Worker threads.
    pub threads: usize,
    /// Keep every game's record.
    pub keep_records: bool,
}

/// One finished game.
#[derive(Clone, Debug, Serialize)]
pub struct GameResult {
    /// Game index.
    pub index: u64,
    /// Final scores by seat.
    pub scores: Vec<i32>,
    /// Turns played.
    pub turns: u32,
    /// Tiles discarded as unplaceable.
    pub discarded: usize,
}

/// Summary over all games.
#[derive(Clone, Debug, Serialize)]
pub struct SimSummary {
    /// Games played.
    pub games: u64,
    /// Players per game.
    pub players: usize,
    /// Bot per seat.
    pub bots: Vec<String>,
    /// Loaded expansions in load order, `id version`.
    pub expansions: Vec<String>,
    /// Base seed.
    pub seed: u64,
    /// Mean final score over all seats and games.
    pub score_mean: f64,
    /// Standard deviation of final scores.
    pub score_spread: f64,
    /// Mean final score per seat.
    pub score_mean_per_seat: Vec<f64>,
    /// Wins per seat (a shared first place counts for every tied seat).
    pub wins_per_seat: Vec<u64>,
    /// Mean turns per game.
    pub turns_mean: f64,
    /// Games per second (wall clock).
    pub games_per_second: f64,
    /// Worker threads used.
    pub threads: usize,
}

/// Seed of game `index` in a run with base seed `seed` (SplitMix64 step).
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed.wrapping_add(index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Plays one game with bots; returns the finished game and the action indices taken.
pub fn play_game(
    rules: &Arc<Ruleset>,
    players: usize,
    seed: u64,
    bots: &mut [Box<dyn Bot>],
) -> Result<(Game, Vec<carcassonne_core::Action>), HostError> {
    let names = (0..players).map(|i| format!("P{}", i + 1)).collect();
    let mut game = Game::new(Arc::clone(rules), &GameSetup::new(names, seed))?;
    // No per-action snapshot: a failing expansion hook stops this game with its error
    // (and the simulation with it) instead of rolling back, which bots do not need.
    game.set_checkpoints(false);
    let mut taken = Vec::with_capacity(192);
    while !game.is_over() {
        let who = game.decision().player.index();
        let i = bots[who % bots.len()].choose(&game);
        taken.push(
            game.state()
                .offered_at(i)
                .expect("bots pick an offered index"),
        );
        game.apply_offered(i)?;
    }
    Ok((game, taken))
}

/// Runs the simulation; `progress` is called with the number of games done.
pub fn simulate(
    rules: &Arc<Ruleset>,
    cfg: &SimConfig,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(SimSummary, Vec<GameResult>, Vec<Record>), HostError> {
    if !(1..=carcassonne_core::MAX_PLAYERS).contains(&cfg.players) {
        return Err(HostError::Usage(format!(
            "players must be 1 to {}, not {}",
            carcassonne_core::MAX_PLAYERS,
            cfg.players
        )));
    }
    for b in &cfg.bots {
        if make_bot(b, 0).is_none() {
            return Err(HostError::Usage(format!(
                "unknown bot `{b}` (available: random, greedy)"
            )));
        }
    }
    let threads = cfg.threads.max(1).min(cfg.games.max(1) as usize);
    let done = AtomicU64::new(0);
    let start = Instant::now();
    type Chunk = Result<Vec<(GameResult, Option<Record>)>, HostError>;
    let mut chunks: Vec<Chunk> = Vec::new();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let done = &done;
                s.spawn(move || {
                    let mut out = Vec::new();
                    // Game i goes to thread i % threads; results are merged by index.
                    let mut i = t as u64;
                    while i < cfg.games {
                        let seed = game_seed(cfg.seed, i);
                        let mut bots: Vec<Box<dyn Bot>> = (0..cfg.players)
                            .map(|p| {
                                let name = &cfg.bots[p % cfg.bots.len()];
                                make_bot(name, game_seed(seed, 1000 + p as u64)).expect("checked")
                            })
                            .collect();
                        let (game, actions) = play_game(rules, cfg.players, seed, &mut bots)?;
                        let st = game.state();
                        let result = GameResult {
                            index: i,
                            scores: st.players().iter().map(|p| p.score).collect(),
                            turns: st.turn(),
                            discarded: st.discarded().len(),
                        };
                        let record = cfg.keep_records.then(|| Record::new(&game, seed, &actions));
                        out.push((result, record));
                        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                        progress(n);
                        i += threads as u64;
                    }
                    Ok(out)
                })
            })
            .collect();
        for h in handles {
            chunks.push(
                h.join().unwrap_or_else(|_| {
                    Err(HostError::Usage("a simulation thread panicked".into()))
                }),
            );
        }
    });
    let elapsed = start.elapsed().as_secs_f64();
    let mut all = Vec::new();
    for c in chunks {
        all.extend(c?);
    }
    all.sort_by_key(|(r, _)| r.index);
    let (results, records): (Vec<GameResult>, Vec<Option<Record>>) = all.into_iter().unzip();
    let summary = summarize(rules, cfg, &results, elapsed, threads);
    Ok((summary, results, records.into_iter().flatten().collect()))
}

fn summarize(
    rules: &Ruleset,
    cfg: &SimConfig,
    results: &[GameResult],
    elapsed: f64,
    threads: usize,
) -> SimSummary {
    let n = cfg.players;
    let mut per_seat = vec![0f64; n];
    let mut wins = vec![0u64; n];
    let mut all = Vec::with_capacity(results.len() * n);
    let mut turns = 0f64;
    for r in results {
        let max = r.scores.iter().copied().max().unwrap_or(0);
        for (i, s) in r.scores.iter().enumerate() {
            per_seat[i] += *s as f64;
            all.push(*s as f64);
            if *s == max {
                wins[i] += 1;
            }
        }
        turns += r.turns as f64;
    }
    let games = results.len().max(1) as f64;
    let mean = all.iter().sum::<f64>() / all.len().max(1) as f64;
    let var = all.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / all.len().max(1) as f64;
    SimSummary {
        games: results.len() as u64,
        players: n,
        bots: (0..n)
            .map(|p| cfg.bots[p % cfg.bots.len()].clone())
            .collect(),
        expansions: rules
            .expansions()
            .iter()
            .map(|e| format!("{} {}", e.id(), e.version()))
            .collect(),
        seed: cfg.seed,
        score_mean: round2(mean),
        score_spread: round2(var.sqrt()),
        score_mean_per_seat: per_seat.iter().map(|s| round2(s / games)).collect(),
        wins_per_seat: wins,
        turns_mean: round2(turns / games),
        games_per_second: round2(results.len() as f64 / elapsed.max(1e-9)),
        threads,
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
