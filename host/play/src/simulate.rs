//! Many games with bots, in parallel, with a deterministic summary.

use crate::bots::{make_bot, Bot};
use crate::PlayError;
use carcassonne_core::{Game, GameSetup, GameTemplate, Ruleset};
use serde::Serialize;
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
    /// Worker threads; 0 is one per core ([`crate::jobs::thread_count`]).
    pub threads: usize,
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
    /// Tiles on the board at the end, start tiles included.
    pub tiles: usize,
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
    /// Outright wins per seat: games in which the seat alone had the highest score.
    pub wins_per_seat: Vec<u64>,
    /// Shared first places per seat: games in which the seat tied for the highest score
    /// with at least one other seat.
    pub ties_per_seat: Vec<u64>,
    /// Games with a shared first place. Every game is either won outright by one seat or
    /// tied: `wins_per_seat` summed plus `ties` is `games`.
    pub ties: u64,
    /// Mean turns per game.
    pub turns_mean: f64,
    /// Mean tiles on the board at the end of a game (start tiles included): the length of
    /// a game as the rules set it, so time per tile compares rulesets whose games differ
    /// in length (µs per tile = 10⁶ / (`games_per_second` × `tiles_mean`)).
    pub tiles_mean: f64,
    /// Mean decisions per game: actions taken by the bots (tile placements, deployment
    /// steps, expansion prompts), what the time per game is spent on; decisions per
    /// second are `games_per_second` × `decisions_mean`.
    pub decisions_mean: f64,
    /// Games per second (wall clock).
    pub games_per_second: f64,
    /// Worker threads used.
    pub threads: usize,
    /// Games that failed (an expansion hook or script error, a refused action), in index
    /// order; they count in none of the figures above. Absent when every game finished,
    /// so the summary of a clean run is unchanged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<FailedGame>,
}

/// A game that could not be played to its end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FailedGame {
    /// Game index.
    pub index: u64,
    /// Its seed ([`game_seed`] of the run's seed and the index): the seed of its
    /// `GameSetup`, and with it the bots' seeds, so the game can be played again alone.
    pub seed: u64,
    /// Why, one line.
    pub error: String,
}

/// Seed of game `index` in a run with base seed `seed` (SplitMix64 step).
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed.wrapping_add(index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Seat names of a bot game: `P1`, `P2`, …
pub fn seat_names(players: usize) -> Vec<String> {
    (0..players).map(|i| format!("P{}", i + 1)).collect()
}

/// Plays one game with bots; returns the finished game and the action indices taken.
pub fn play_game(
    rules: &Arc<Ruleset>,
    players: usize,
    seed: u64,
    bots: &mut [Box<dyn Bot>],
) -> Result<(Game, Vec<carcassonne_core::Action>), PlayError> {
    let game = Game::new(
        Arc::clone(rules),
        &GameSetup::new(seat_names(players), seed),
    )?;
    play_out(game, bots)
}

/// [`play_game`] started from a set-up made once ([`GameTemplate`]; its players are
/// [`seat_names`]): the same game, without laying out the start again. Simulations use it.
pub fn play_templated(
    template: &GameTemplate,
    seed: u64,
    bots: &mut [Box<dyn Bot>],
) -> Result<(Game, Vec<carcassonne_core::Action>), PlayError> {
    play_out(template.game(seed)?, bots)
}

/// [`play_templated`] into a game and an action list kept from the thread's previous
/// game (`None` at first), reusing their buffers: the same game and actions, without
/// allocating a new state per game. Simulations use it.
pub fn play_templated_into(
    template: &GameTemplate,
    seed: u64,
    bots: &mut [Box<dyn Bot>],
    game: &mut Option<Game>,
    taken: &mut Vec<carcassonne_core::Action>,
) -> Result<(), PlayError> {
    let g = match game {
        Some(g) => {
            template.game_into(seed, g)?;
            g
        }
        None => game.insert(template.game(seed)?),
    };
    taken.clear();
    play_on(g, bots, taken)
}

/// The template [`play_templated`] takes for games of `players` bots.
pub fn bot_template(rules: &Arc<Ruleset>, players: usize) -> Result<GameTemplate, PlayError> {
    Ok(GameTemplate::new(
        Arc::clone(rules),
        &GameSetup::new(seat_names(players), 0),
    )?)
}

fn play_out(
    mut game: Game,
    bots: &mut [Box<dyn Bot>],
) -> Result<(Game, Vec<carcassonne_core::Action>), PlayError> {
    let mut taken = Vec::with_capacity(192);
    play_on(&mut game, bots, &mut taken)?;
    Ok((game, taken))
}

/// Plays `game` to its end without checkpoints, appending the actions taken to `taken`.
fn play_on(
    game: &mut Game,
    bots: &mut [Box<dyn Bot>],
    taken: &mut Vec<carcassonne_core::Action>,
) -> Result<(), PlayError> {
    // No per-action snapshot: a failing expansion hook ends this game with its error
    // (the simulation records it as failed and plays on) instead of rolling back, which
    // bots do not need.
    game.set_checkpoints(false);
    while !game.is_over() {
        let who = game.decision().player.index();
        let i = bots[who % bots.len()].choose(game);
        taken.push(game.play_offered(i)?);
    }
    Ok(())
}

/// Running totals over finished games, in integers so that the summary is the same
/// whatever order the games finish in (any thread count).
#[derive(Clone, Debug, Default)]
struct Totals {
    games: u64,
    score_sum: i128,
    score_sq_sum: i128,
    per_seat: Vec<i64>,
    wins: Vec<u64>,
    ties_per_seat: Vec<u64>,
    ties: u64,
    turns: u64,
    tiles: u64,
    decisions: u64,
}

impl Totals {
    fn new(players: usize) -> Totals {
        Totals {
            per_seat: vec![0; players],
            wins: vec![0; players],
            ties_per_seat: vec![0; players],
            ..Totals::default()
        }
    }

    fn add(&mut self, r: &GameResult, decisions: usize) {
        self.decisions += decisions as u64;
        let max = r.scores.iter().copied().max().unwrap_or(0);
        let first = r.scores.iter().filter(|s| **s == max).count();
        if first > 1 {
            self.ties += 1;
        }
        for (i, &s) in r.scores.iter().enumerate() {
            self.per_seat[i] += i64::from(s);
            self.score_sum += i128::from(s);
            self.score_sq_sum += i128::from(s) * i128::from(s);
            if s == max {
                if first == 1 {
                    self.wins[i] += 1;
                } else {
                    self.ties_per_seat[i] += 1;
                }
            }
        }
        self.turns += u64::from(r.turns);
        self.tiles += r.tiles as u64;
        self.games += 1;
    }

    fn merge(&mut self, o: &Totals) {
        self.games += o.games;
        self.score_sum += o.score_sum;
        self.score_sq_sum += o.score_sq_sum;
        for (a, b) in self.per_seat.iter_mut().zip(&o.per_seat) {
            *a += b;
        }
        for (a, b) in self.wins.iter_mut().zip(&o.wins) {
            *a += b;
        }
        for (a, b) in self.ties_per_seat.iter_mut().zip(&o.ties_per_seat) {
            *a += b;
        }
        self.ties += o.ties;
        self.turns += o.turns;
        self.tiles += o.tiles;
        self.decisions += o.decisions;
    }
}

/// What a caller sees of each finished game, on the worker thread that played it (in no
/// particular order across threads): write its record, keep it, or ignore it.
pub struct FinishedGame<'a> {
    /// The result.
    pub result: &'a GameResult,
    /// The finished game.
    pub game: &'a Game,
    /// Its seed.
    pub seed: u64,
    /// The actions taken, in order.
    pub actions: &'a [carcassonne_core::Action],
}

/// Runs the simulation in constant memory: each worker keeps running totals and hands
/// every finished game to `on_game` (which may fail the run with the caller's own error
/// type `E`); `progress` is called with the number of games done.
pub fn simulate<E: From<PlayError> + Send>(
    rules: &Arc<Ruleset>,
    cfg: &SimConfig,
    progress: &(dyn Fn(u64) + Sync),
    on_game: &(dyn Fn(FinishedGame<'_>) -> Result<(), E> + Sync),
) -> Result<SimSummary, E> {
    if !(1..=carcassonne_core::MAX_PLAYERS).contains(&cfg.players) {
        return Err(PlayError::Invalid(format!(
            "players must be 1 to {}, not {}",
            carcassonne_core::MAX_PLAYERS,
            cfg.players
        ))
        .into());
    }
    for b in &cfg.bots {
        crate::bots::parse_bot(b).map_err(PlayError::Invalid)?;
    }
    let threads = crate::jobs::threads_for(cfg.threads, cfg.games);
    let start = Instant::now();
    // Each thread takes the next game nobody has taken (bot games vary in length several
    // times; `jobs.rs`) and keeps its own totals and failures: the totals are sums and the
    // failures are sorted by index, so the summary does not depend on who played what.
    // The caller's error (a record not written) ends the run; a game's own failure does not.
    let parts = crate::jobs::run_workers(
        cfg.games,
        cfg.threads,
        || {
            Ok::<_, E>(Worker {
                template: bot_template(rules, cfg.players)?,
                reused: None,
                actions: Vec::with_capacity(192),
                totals: Totals::new(cfg.players),
                failed: Vec::new(),
            })
        },
        |w, i| {
            let seed = game_seed(cfg.seed, i);
            let mut bots: Vec<Box<dyn Bot>> = (0..cfg.players)
                .map(|p| {
                    let name = &cfg.bots[p % cfg.bots.len()];
                    make_bot(name, game_seed(seed, 1000 + p as u64)).expect("checked")
                })
                .collect();
            // One game's failure (a script that throws, a hook that panics) is that
            // game's alone: it is noted and the run goes on. The previous game's state
            // and action list are refilled.
            let played = crate::jobs::caught(|| {
                play_templated_into(&w.template, seed, &mut bots, &mut w.reused, &mut w.actions)
            });
            let game = match played {
                Ok(()) => w.reused.as_ref().expect("a played game is kept"),
                Err(e) => {
                    // Nothing of a failed game is reused.
                    w.reused = None;
                    w.failed.push(FailedGame {
                        index: i,
                        seed,
                        error: e.to_string(),
                    });
                    return Ok(());
                }
            };
            let st = game.state();
            let result = GameResult {
                index: i,
                scores: st.players().iter().map(|p| p.score).collect(),
                turns: st.turn(),
                discarded: st.discarded().len(),
                tiles: st.board().tiles().len(),
            };
            w.totals.add(&result, w.actions.len());
            on_game(FinishedGame {
                result: &result,
                game,
                seed,
                actions: &w.actions,
            })
        },
        |w| (w.totals, w.failed),
        progress,
    )?;
    let elapsed = start.elapsed().as_secs_f64();
    let mut totals = Totals::new(cfg.players);
    let mut failed = Vec::new();
    for (t, f) in parts {
        totals.merge(&t);
        failed.extend(f);
    }
    failed.sort_by_key(|f: &FailedGame| f.index);
    let mut summary = summarize(rules, cfg, &totals, elapsed, threads);
    summary.failed = failed;
    Ok(summary)
}

/// What one `simulate` thread keeps between its games.
struct Worker {
    template: GameTemplate,
    /// The last game played, refilled for the next.
    reused: Option<Game>,
    actions: Vec<carcassonne_core::Action>,
    totals: Totals,
    failed: Vec<FailedGame>,
}

fn summarize(
    rules: &Ruleset,
    cfg: &SimConfig,
    t: &Totals,
    elapsed: f64,
    threads: usize,
) -> SimSummary {
    let n = cfg.players;
    let games = t.games.max(1) as f64;
    let scores = (t.games as f64 * n as f64).max(1.0);
    let mean = t.score_sum as f64 / scores;
    let var = (t.score_sq_sum as f64 / scores - mean * mean).max(0.0);
    SimSummary {
        games: t.games,
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
        score_mean_per_seat: t
            .per_seat
            .iter()
            .map(|s| round2(*s as f64 / games))
            .collect(),
        wins_per_seat: t.wins.clone(),
        ties_per_seat: t.ties_per_seat.clone(),
        ties: t.ties,
        turns_mean: round2(t.turns as f64 / games),
        tiles_mean: round2(t.tiles as f64 / games),
        decisions_mean: round2(t.decisions as f64 / games),
        games_per_second: round2(t.games as f64 / elapsed.max(1e-9)),
        threads,
        failed: Vec::new(),
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
