//! Bots against bots: seats rotated, results with confidence intervals and Elo.
//!
//! Game `g` seats the bots by rotating the base lineup (bot `s mod k` in seat `s`) by `g`
//! places, so over any `players` consecutive games every bot sits in every seat equally
//! often. Each seat's result counts for the bot in it: an outright first place is a win, a
//! shared first place a tie. Pairs of seats held by different bots in the same game are
//! the head-to-head results (higher score wins, equal scores draw) from which the pair
//! statistics and the Elo ratings come.
//!
//! Every statistic is computed after all games, in game order, so the report does not
//! depend on the thread count.

use crate::bots::{parse_bot, BotSpec};
use crate::simulate::{bot_template, game_seed, play_templated, SimConfig};
use crate::stats::{round, wilson, Moments};
use crate::PlayError;
use carcassonne_core::Ruleset;
use serde::Serialize;
use std::sync::Arc;

/// One bot's results over all its seats.
#[derive(Clone, Debug, Serialize)]
pub struct BotReport {
    /// Its spec.
    pub bot: String,
    /// Seats it played (games × its seats per game).
    pub seats: u64,
    /// Outright first places.
    pub wins: u64,
    /// Shared first places.
    pub ties: u64,
    /// `wins / seats`.
    pub win_rate: f64,
    /// Wilson 95% interval of the win rate.
    pub win_rate_ci95: [f64; 2],
    /// Mean final score.
    pub score_mean: f64,
    /// Mean margin: its score minus the mean of the other seats' scores in the game.
    pub margin_mean: f64,
    /// Normal 95% interval of the mean margin.
    pub margin_ci95: [f64; 2],
    /// Bradley–Terry Elo from all head-to-head results, the first bot anchored at 0.
    pub elo: f64,
}

/// Two bots' head-to-head results (pairs of seats in the same game).
#[derive(Clone, Debug, Serialize)]
pub struct PairReport {
    /// First bot's spec.
    pub a: String,
    /// Second bot's spec.
    pub b: String,
    /// Seat pairs compared.
    pub pairs: u64,
    /// Pairs in which `a` scored more.
    pub a_wins: u64,
    /// Pairs in which `b` scored more.
    pub b_wins: u64,
    /// Equal scores.
    pub draws: u64,
    /// `a`'s score rate: (wins + draws / 2) / pairs.
    pub a_score_rate: f64,
    /// Wilson 95% interval of that rate.
    pub a_score_rate_ci95: [f64; 2],
    /// Elo difference `a − b` implied by the score rate.
    pub elo_diff: f64,
    /// The Elo difference at the ends of the score rate's interval.
    pub elo_diff_ci95: [f64; 2],
    /// Mean of `a`'s score minus `b`'s over the pairs.
    pub score_diff_mean: f64,
    /// Normal 95% interval of that mean.
    pub score_diff_ci95: [f64; 2],
}

/// The arena's report.
#[derive(Clone, Debug, Serialize)]
pub struct ArenaReport {
    /// Games played.
    pub games: u64,
    /// Players per game.
    pub players: usize,
    /// Base seed.
    pub seed: u64,
    /// Loaded expansions in load order, `id version`.
    pub expansions: Vec<String>,
    /// Whether every bot sat in every seat equally often (`games` a multiple of `players`).
    pub seats_balanced: bool,
    /// Per bot, in the order given.
    pub bots: Vec<BotReport>,
    /// Per pair of bots, in the order given.
    pub pairs: Vec<PairReport>,
    /// Mean turns per game.
    pub turns_mean: f64,
}

/// Which bot sits in `seat` in game `game`.
pub fn lineup(bots: usize, players: usize, game: u64, seat: usize) -> usize {
    ((seat as u64 + game) % players as u64) as usize % bots
}

/// One finished arena game: what the report is computed from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Game index (its seed is `game_seed(base seed, index)`, its lineup `lineup(.., index, ..)`).
    pub index: u64,
    /// The game's seed.
    pub seed: u64,
    /// Final scores by seat.
    pub scores: Vec<i32>,
    /// Turns played.
    pub turns: u32,
}

/// Checks an arena configuration (bots, players) and parses the bot specs.
pub fn check_arena(cfg: &SimConfig) -> Result<Vec<BotSpec>, PlayError> {
    if cfg.bots.len() < 2 {
        return Err(PlayError::Invalid(
            "an arena needs at least two bots (--bots a,b)".into(),
        ));
    }
    if !(2..=carcassonne_core::MAX_PLAYERS).contains(&cfg.players) {
        return Err(PlayError::Invalid(format!(
            "players must be 2 to {}, not {}",
            carcassonne_core::MAX_PLAYERS,
            cfg.players
        )));
    }
    if cfg.bots.len() > cfg.players {
        return Err(PlayError::Invalid(format!(
            "{} bots do not fit in {}-player games: use at most as many bots as players",
            cfg.bots.len(),
            cfg.players
        )));
    }
    cfg.bots
        .iter()
        .map(|b| parse_bot(b).map_err(PlayError::Invalid))
        .collect()
}

/// Plays the games and computes the report; `progress` gets the number of games done.
pub fn arena(
    rules: &Arc<Ruleset>,
    cfg: &SimConfig,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ArenaReport, PlayError> {
    let outcomes = arena_games(rules, cfg, 0, cfg.games, progress)?;
    Ok(arena_report(rules, cfg, &outcomes))
}

/// Plays arena games `start .. start + count` of the run `cfg` describes (`cfg.games` is
/// not used), each seeded and seated exactly as [`arena`] does it, on `cfg.threads`
/// threads; the outcomes in index order. Splitting a run into ranges and concatenating
/// the outcomes gives the same report as one run.
pub fn arena_games(
    rules: &Arc<Ruleset>,
    cfg: &SimConfig,
    start: u64,
    count: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Outcome>, PlayError> {
    let specs = check_arena(cfg)?;
    crate::jobs::run_indexed(
        count,
        cfg.threads,
        || bot_template(rules, cfg.players),
        |template, k| {
            let i = start + k;
            let seed = game_seed(cfg.seed, i);
            let mut bots: Vec<_> = (0..cfg.players)
                .map(|p| {
                    specs[lineup(specs.len(), cfg.players, i, p)]
                        .build(game_seed(seed, 1000 + p as u64))
                })
                .collect();
            let (game, _) = play_templated(template, seed, &mut bots)
                .map_err(|e| PlayError::Invalid(format!("game {i} (seed {seed}) failed: {e}")))?;
            let st = game.state();
            Ok(Outcome {
                index: i,
                seed,
                scores: st.players().iter().map(|p| p.score).collect(),
                turns: st.turn(),
            })
        },
        progress,
    )
}

/// The report of a run from its games' outcomes (in any order: they are sorted by index;
/// each outcome's lineup comes from its index). `cfg.games` is not used: the report counts
/// the outcomes.
pub fn arena_report(rules: &Ruleset, cfg: &SimConfig, outcomes: &[Outcome]) -> ArenaReport {
    let mut sorted: Vec<&Outcome> = outcomes.iter().collect();
    sorted.sort_by_key(|o| o.index);
    report(rules, cfg, &sorted)
}

fn report(rules: &Ruleset, cfg: &SimConfig, outcomes: &[&Outcome]) -> ArenaReport {
    let k = cfg.bots.len();
    let p = cfg.players;
    let mut seats = vec![0u64; k];
    let mut wins = vec![0u64; k];
    let mut ties = vec![0u64; k];
    let mut score = vec![Moments::default(); k];
    let mut margin = vec![Moments::default(); k];
    // Head to head, a < b: (a wins, b wins, draws, a − b score).
    let mut h2h = vec![vec![(0u64, 0u64, 0u64, Moments::default()); k]; k];
    let mut turns = 0u64;
    for o in outcomes {
        let g = o.index;
        turns += u64::from(o.turns);
        let max = o.scores.iter().copied().max().unwrap_or(0);
        let firsts = o.scores.iter().filter(|s| **s == max).count();
        let total: i64 = o.scores.iter().map(|s| i64::from(*s)).sum();
        for (seat, &s) in o.scores.iter().enumerate() {
            let b = lineup(k, p, g, seat);
            seats[b] += 1;
            if s == max {
                if firsts == 1 {
                    wins[b] += 1;
                } else {
                    ties[b] += 1;
                }
            }
            score[b].add(f64::from(s));
            let others = (total - i64::from(s)) as f64 / (p - 1) as f64;
            margin[b].add(f64::from(s) - others);
            for (seat2, &s2) in o.scores.iter().enumerate().skip(seat + 1) {
                let b2 = lineup(k, p, g, seat2);
                if b2 == b {
                    continue;
                }
                let (a, bb, sa, sb) = if b < b2 {
                    (b, b2, s, s2)
                } else {
                    (b2, b, s2, s)
                };
                let e = &mut h2h[a][bb];
                match sa.cmp(&sb) {
                    std::cmp::Ordering::Greater => e.0 += 1,
                    std::cmp::Ordering::Less => e.1 += 1,
                    std::cmp::Ordering::Equal => e.2 += 1,
                }
                e.3.add(f64::from(sa - sb));
            }
        }
    }
    let elo = bradley_terry(&h2h);
    let bots = (0..k)
        .map(|b| {
            let n = seats[b].max(1);
            BotReport {
                bot: cfg.bots[b].clone(),
                seats: seats[b],
                wins: wins[b],
                ties: ties[b],
                win_rate: round4(wins[b] as f64 / n as f64),
                win_rate_ci95: wilson(wins[b] as f64, seats[b] as f64),
                score_mean: round2(score[b].mean().mean),
                margin_mean: round2(margin[b].mean().mean),
                margin_ci95: margin[b].mean().ci95,
                elo: round2(elo[b]),
            }
        })
        .collect();
    let mut pairs = Vec::new();
    for (a, row) in h2h.iter().enumerate() {
        for (b, &(aw, bw, d, diff)) in row.iter().enumerate().skip(a + 1) {
            let n = aw + bw + d;
            let rate = if n == 0 {
                0.5
            } else {
                (aw as f64 + d as f64 / 2.0) / n as f64
            };
            let ci = wilson(aw as f64 + d as f64 / 2.0, n as f64);
            pairs.push(PairReport {
                a: cfg.bots[a].clone(),
                b: cfg.bots[b].clone(),
                pairs: n,
                a_wins: aw,
                b_wins: bw,
                draws: d,
                a_score_rate: round4(rate),
                a_score_rate_ci95: ci,
                elo_diff: round2(elo_of(rate)),
                elo_diff_ci95: [round2(elo_of(ci[0])), round2(elo_of(ci[1]))],
                score_diff_mean: diff.mean().mean,
                score_diff_ci95: diff.mean().ci95,
            });
        }
    }
    ArenaReport {
        games: outcomes.len() as u64,
        players: p,
        seed: cfg.seed,
        expansions: rules
            .expansions()
            .iter()
            .map(|e| format!("{} {}", e.id(), e.version()))
            .collect(),
        seats_balanced: outcomes.len() as u64 % p as u64 == 0,
        bots,
        pairs,
        turns_mean: round2(turns as f64 / outcomes.len().max(1) as f64),
    }
}

/// The Elo difference whose expected score is `rate` (clamped away from 0 and 1, where it
/// is infinite).
fn elo_of(rate: f64) -> f64 {
    let r = rate.clamp(0.001, 0.999);
    400.0 * (r / (1.0 - r)).log10()
}

/// Bradley–Terry strengths by minorization–maximization from the head-to-head table
/// (draws count half to each side; one virtual draw per pair keeps a bot that never won
/// finite), as Elo with the first bot at 0.
fn bradley_terry(h2h: &[Vec<(u64, u64, u64, Moments)>]) -> Vec<f64> {
    let k = h2h.len();
    let games = |i: usize, j: usize| -> (f64, f64) {
        // (games between i and j, i's score against j)
        let (a, b) = if i < j { (i, j) } else { (j, i) };
        let (aw, bw, d, _) = h2h[a][b];
        let n = (aw + bw + d) as f64 + 1.0;
        let a_score = aw as f64 + d as f64 / 2.0 + 0.5;
        if i < j {
            (n, a_score)
        } else {
            (n, n - a_score)
        }
    };
    let mut r = vec![1.0f64; k];
    for _ in 0..200 {
        let mut next = r.clone();
        for i in 0..k {
            let (mut w, mut denom) = (0.0, 0.0);
            for j in (0..k).filter(|&j| j != i) {
                let (n, s) = games(i, j);
                w += s;
                denom += n / (r[i] + r[j]);
            }
            if denom > 0.0 {
                next[i] = w / denom;
            }
        }
        let anchor = next[0];
        r = next.iter().map(|x| x / anchor).collect();
    }
    r.iter().map(|x| 400.0 * x.log10()).collect()
}

fn round2(x: f64) -> f64 {
    round(x, 2)
}

fn round4(x: f64) -> f64 {
    round(x, 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bot_sits_in_every_seat_equally() {
        for (k, p) in [(2, 2), (2, 4), (3, 3), (2, 3)] {
            let mut count = vec![vec![0; p]; k];
            for g in 0..(p as u64 * 5) {
                for s in 0..p {
                    count[lineup(k, p, g, s)][s] += 1;
                }
            }
            for row in &count {
                assert!(
                    row.iter().all(|c| *c == row[0]),
                    "{k} bots, {p} seats: {count:?}"
                );
            }
        }
    }

    #[test]
    fn elo_of_three_quarters_is_about_191() {
        assert!((elo_of(0.75) - 190.85).abs() < 0.1);
        assert_eq!(elo_of(0.5), 0.0);
    }

    #[test]
    fn bradley_terry_orders_by_strength() {
        let m = Moments::default();
        // 0 beats 1 30–10, 1 beats 2 30–10, 0 beats 2 35–5.
        let mut h = vec![vec![(0, 0, 0, m); 3]; 3];
        h[0][1] = (30, 10, 0, m);
        h[1][2] = (30, 10, 0, m);
        h[0][2] = (35, 5, 0, m);
        let elo = bradley_terry(&h);
        assert_eq!(elo[0], 0.0);
        assert!(elo[1] < -100.0 && elo[2] < elo[1] - 100.0, "{elo:?}");
    }
}
