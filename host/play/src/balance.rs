//! Does an expansion change the game, and how? Paired games with and without it.
//!
//! Every game index `i` is played three times with the same seed and the same bots:
//!
//! - **without** the expansion (the base set);
//! - **with** it, every seat free to use it;
//! - **with** it, one seat (rotated: `i mod players`) an *abstainer* that never takes the
//!   expansion's actions while it has any other choice.
//!
//! The paired arms give the expansion's effect on first-player advantage, score spread
//! (winner's lead over the runner-up), game length and the share of points by scoring
//! label; the "with" arm counts how often each of the expansion's actions is offered and
//! taken and the points its taker scores in the rest of that turn; the abstainer arm gives
//! the win-rate difference between players who use the expansion and one who does not.
//!
//! The expansion's actions are recognised from the rulesets, so any native or script
//! expansion works: its custom verbs, deployments of figure kinds that only the "with"
//! ruleset has, and any answer other than a pass to a prompt it asks.
//!
//! Every figure comes with a 95% interval, and a difference whose interval contains 0 is
//! reported as "no effect detectable with N games", never as an effect. The report does
//! not depend on the thread count: games are gathered by index and summed in order.

use crate::bots::{parse_bot, Bot, BotSpec};
use crate::simulate::{game_seed, SimConfig};
use crate::stats::{round, Moments};
pub use crate::stats::{Mean, Rate};
use crate::PlayError;
use carcassonne_core::{
    Action, DecisionKind, ExpansionIndex, FigureKindId, Game, GameSetup, Ruleset, ScoreSource,
};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What to play.
#[derive(Clone, Debug)]
pub struct BalanceConfig {
    /// The expansion under test (its id in the "with" ruleset).
    pub expansion: String,
    /// The paired games (each played three times) and their bots, cycled over the seats
    /// and the same in every arm.
    pub table: SimConfig,
}

/// A paired comparison: without, with, and the mean per-game difference (with − without).
#[derive(Clone, Debug, Serialize)]
pub struct Change {
    /// Without the expansion.
    pub without: Mean,
    /// With it.
    pub with: Mean,
    /// Mean of the per-game differences, with its interval.
    pub difference: Mean,
    /// One line a designer can read, saying whether the data show an effect.
    pub verdict: String,
}

/// One scoring label's share of all points.
#[derive(Clone, Debug, Serialize)]
pub struct LabelShare {
    /// Feature kind or score label (`city`, `king`, …).
    pub label: String,
    /// Share of all points without the expansion.
    pub without: f64,
    /// Share with it.
    pub with: f64,
    /// Points per game without.
    pub per_game_without: f64,
    /// Points per game with.
    pub per_game_with: f64,
}

/// One of the expansion's actions.
#[derive(Clone, Debug, Serialize)]
pub struct ActionUse {
    /// What it is (`deploy tactician-token`, a verb, `answer <prompt>`…).
    pub action: String,
    /// Decisions in which it was offered.
    pub offered: u64,
    /// Times it was taken.
    pub taken: u64,
    /// `taken / offered`.
    pub take_rate: f64,
    /// Points its taker scored from the action to the end of that turn (final scoring
    /// excluded), per use.
    pub points_after: Mean,
}

/// Users against an abstainer.
#[derive(Clone, Debug, Serialize)]
pub struct Abstention {
    /// The abstaining seat's win rate (outright first places).
    pub abstainer_win_rate: Rate,
    /// The other seats' win rate, per seat.
    pub user_win_rate: Rate,
    /// The win rate a seat has in the "with" arm when it uses the expansion (per seat).
    pub fair_share: f64,
    /// Mean per-game (user − abstainer) win indicator difference, with its interval.
    pub difference: Mean,
    /// One line a designer can read.
    pub verdict: String,
}

/// The balance report.
#[derive(Clone, Debug, Serialize)]
pub struct BalanceReport {
    /// The expansion under test.
    pub expansion: String,
    /// The base set, `id version`.
    pub base: Vec<String>,
    /// Paired games.
    pub games: u64,
    /// Players per game.
    pub players: usize,
    /// Base seed.
    pub seed: u64,
    /// Bot per seat.
    pub bots: Vec<String>,
    /// The first seat's outright win rate (1 = win, 0 = not).
    pub first_player_advantage: Change,
    /// The winner's lead over the runner-up.
    pub score_spread: Change,
    /// Mean final score per seat.
    pub score_mean: Change,
    /// Turns per game.
    pub game_length: Change,
    /// Points by scoring label.
    pub points_by_label: Vec<LabelShare>,
    /// The expansion's actions.
    pub actions: Vec<ActionUse>,
    /// A seat that never uses the expansion against seats that do.
    pub abstainer: Abstention,
    /// The verdict lines, in the order above.
    pub summary: Vec<String>,
}

/// Recognises the expansion's actions in the "with" ruleset.
struct Classifier {
    owner: ExpansionIndex,
    figures: Vec<FigureKindId>,
}

impl Classifier {
    fn new(with: &Ruleset, without: &Ruleset, id: &str) -> Result<Classifier, PlayError> {
        let owner = with.expansion_index(id).ok_or_else(|| {
            PlayError::Invalid(format!("expansion `{id}` is not in the ruleset under test"))
        })?;
        let figures = (0..with.figure_kinds().len())
            .map(|k| FigureKindId(k as u8))
            .filter(|k| without.figure_named(&with.figure_kind(*k).name).is_none())
            .collect();
        Ok(Classifier { owner, figures })
    }

    /// The expansion's name for `action` offered at `decision`, or `None` when it is not
    /// one of the expansion's actions.
    fn key(&self, rules: &Ruleset, kind: &DecisionKind, action: &Action) -> Option<String> {
        let figure = |k: FigureKindId| rules.figure_kind(k).name.clone();
        let in_prompt = matches!(kind, DecisionKind::Prompt(p) if p.owner == self.owner);
        match action {
            Action::Custom(c) if c.expansion == self.owner => Some(
                rules
                    .verbs()
                    .get(c.verb.0 as usize)
                    .map_or_else(|| format!("verb {}", c.verb.0), |(_, v)| v.clone()),
            ),
            Action::Deploy { figure: k, .. } if self.figures.contains(k) => {
                Some(format!("deploy {}", figure(*k)))
            }
            Action::Deploy { figure: k, .. } if in_prompt => {
                Some(format!("deploy {} when asked", figure(*k)))
            }
            Action::Move { .. } if in_prompt => Some("move a figure when asked".into()),
            Action::Place { .. } if in_prompt => Some("place a tile when asked".into()),
            Action::Custom(_) if in_prompt => Some("other answer when asked".into()),
            _ => None,
        }
    }
}

/// Per-action counters of one game.
#[derive(Clone, Debug, Default)]
struct Uses {
    offered: u64,
    taken: u64,
    points: Vec<i32>,
}

/// What one game of one arm leaves for the report.
#[derive(Clone, Debug, Default)]
struct Played {
    scores: Vec<i32>,
    turns: u32,
    labels: BTreeMap<String, i64>,
    uses: BTreeMap<String, Uses>,
}

struct Paired {
    without: Played,
    with: Played,
    abstain: Played,
    abstainer: usize,
}

/// Plays one game. With a classifier, counts the expansion's actions; with an abstainer
/// seat, that seat skips them whenever it has another choice.
fn play(
    rules: &Arc<Ruleset>,
    players: usize,
    seed: u64,
    bots: &mut [Box<dyn Bot>],
    classify: Option<&Classifier>,
    abstainer: Option<usize>,
) -> Result<Played, PlayError> {
    let names = (0..players).map(|i| format!("P{}", i + 1)).collect();
    let mut g = Game::new(Arc::clone(rules), &GameSetup::new(names, seed))?;
    g.set_checkpoints(false);
    let mut uses: BTreeMap<String, Uses> = BTreeMap::new();
    // Taken actions whose "points after" are still open: (key, player, turn, first event).
    let mut open: Vec<(String, usize, u32, usize)> = Vec::new();
    let mut offered_keys: Vec<Option<String>> = Vec::new();
    let mut allowed: Vec<usize> = Vec::new();
    while !g.is_over() {
        let d = g.decision();
        let who = d.player.index();
        offered_keys.clear();
        let tile_step = matches!(d.kind, DecisionKind::PlaceTile { .. });
        if let (Some(c), false) = (classify, tile_step) {
            offered_keys.extend(g.actions().iter().map(|a| c.key(rules, &d.kind, a)));
            let mut distinct: Vec<&String> = offered_keys.iter().flatten().collect();
            distinct.sort();
            distinct.dedup();
            for k in distinct {
                uses.entry(k.clone()).or_default().offered += 1;
            }
        }
        let i = match abstainer {
            Some(a) if a == who && !offered_keys.is_empty() => {
                allowed.clear();
                allowed.extend((0..offered_keys.len()).filter(|&j| offered_keys[j].is_none()));
                if allowed.is_empty() || allowed.len() == offered_keys.len() {
                    bots[who].choose(&g)
                } else {
                    bots[who].choose_from(&g, &allowed)
                }
            }
            _ => bots[who].choose(&g),
        };
        if let Some(Some(k)) = offered_keys.get(i) {
            uses.entry(k.clone()).or_default().taken += 1;
            open.push((k.clone(), who, g.state().turn(), g.state().events().len()));
        }
        g.apply_offered(i)?;
        if !open.is_empty() && (g.is_over() || g.state().turn() != open[0].2) {
            close_open(&g, &mut open, &mut uses);
        }
    }
    close_open(&g, &mut open, &mut uses);
    let st = g.state();
    let mut labels = BTreeMap::new();
    for e in st.events() {
        let name = match e.source {
            ScoreSource::Feature(k) => rules.kind(k).name.clone(),
            ScoreSource::Label(l) => rules
                .labels()
                .get(l.0 as usize)
                .cloned()
                .unwrap_or_else(|| format!("label {}", l.0)),
        };
        *labels.entry(name).or_insert(0i64) += i64::from(e.points);
    }
    Ok(Played {
        scores: st.players().iter().map(|p| p.score).collect(),
        turns: st.turn(),
        labels,
        uses,
    })
}

/// Settles the open "points after" counts: the taker's non-final points from the action
/// to the end of its turn.
fn close_open(
    g: &Game,
    open: &mut Vec<(String, usize, u32, usize)>,
    uses: &mut BTreeMap<String, Uses>,
) {
    let events = g.state().events();
    for (key, player, turn, from) in open.drain(..) {
        let points = events
            .get(from..)
            .unwrap_or(&[])
            .iter()
            .filter(|e| e.player.index() == player && e.turn == turn && !e.final_scoring)
            .map(|e| e.points)
            .sum();
        uses.entry(key).or_default().points.push(points);
    }
}

/// Plays the paired games and computes the report; `progress` gets the number of paired
/// games done.
pub fn balance(
    without: &Arc<Ruleset>,
    with: &Arc<Ruleset>,
    cfg: &BalanceConfig,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<BalanceReport, PlayError> {
    if !(2..=carcassonne_core::MAX_PLAYERS).contains(&cfg.table.players) {
        return Err(PlayError::Invalid(format!(
            "players must be 2 to {}, not {}",
            carcassonne_core::MAX_PLAYERS,
            cfg.table.players
        )));
    }
    if cfg.table.bots.is_empty() {
        return Err(PlayError::Invalid("no bot given".into()));
    }
    let specs = cfg
        .table
        .bots
        .iter()
        .map(|b| parse_bot(b).map_err(PlayError::Invalid))
        .collect::<Result<Vec<BotSpec>, _>>()?;
    let classify = Classifier::new(with, without, &cfg.expansion)?;
    // Each arm of each pair is its own job (index 3 × pair + arm), so the two threads
    // share the work game by game; the arms are gathered back into pairs by index.
    let players = cfg.table.players;
    let arms = crate::jobs::run_indexed(
        cfg.table.games.saturating_mul(3),
        cfg.table.threads,
        || Ok(()),
        |_, j| {
            let (i, arm) = (j / 3, j % 3);
            let seed = game_seed(cfg.table.seed, i);
            let mut bots: Vec<Box<dyn Bot>> = (0..players)
                .map(|p| specs[p % specs.len()].build(game_seed(seed, 1000 + p as u64)))
                .collect();
            let (played, what) = match arm {
                0 => (
                    play(without, players, seed, &mut bots, None, None),
                    "without the expansion",
                ),
                1 => (
                    play(with, players, seed, &mut bots, Some(&classify), None),
                    "with it",
                ),
                _ => (
                    play(
                        with,
                        players,
                        seed,
                        &mut bots,
                        Some(&classify),
                        Some(abstainer(i, players)),
                    ),
                    "with it and an abstainer",
                ),
            };
            // Which game, so that a designer can play it again.
            played.map_err(|e| {
                PlayError::Invalid(format!("game {i} (seed {seed}, {what}) failed: {e}"))
            })
        },
        // The bar counts paired games: three games make one.
        &|n| progress(n / 3),
    )?;
    let mut arms = arms.into_iter();
    let mut games = Vec::with_capacity(cfg.table.games as usize);
    for i in 0..cfg.table.games {
        let (Some(without), Some(with), Some(abstain)) = (arms.next(), arms.next(), arms.next())
        else {
            break;
        };
        games.push(Paired {
            without,
            with,
            abstain,
            abstainer: abstainer(i, players),
        });
    }
    Ok(report(without, cfg, &games))
}

/// The seat that abstains in pair `i`: rotated over the seats.
fn abstainer(i: u64, players: usize) -> usize {
    (i % players as u64) as usize
}

/// Fewer paired games than this and no verdict is drawn at all.
pub const MIN_GAMES: u64 = 30;

/// The verdict line for a difference.
fn verdict(what: &str, unit: &str, d: &Mean, scale: f64) -> String {
    let [lo, hi] = d.ci95.map(|x| x * scale);
    let m = d.mean * scale;
    if d.n < MIN_GAMES {
        format!(
            "{what}: sample too small to tell ({} games; at least {MIN_GAMES} needed)",
            d.n
        )
    } else if lo <= 0.0 && hi >= 0.0 {
        format!(
            "{what}: no effect detectable with {} games ({m:+.2}{unit}, 95% CI [{lo:+.2}, {hi:+.2}] contains 0)",
            d.n
        )
    } else {
        format!(
            "{what}: {} by {:.2}{unit} (95% CI [{lo:+.2}, {hi:+.2}], {} games)",
            if m > 0.0 { "up" } else { "down" },
            m.abs(),
            d.n
        )
    }
}

fn change(what: &str, unit: &str, scale: f64, pairs: impl Iterator<Item = (f64, f64)>) -> Change {
    let (mut a, mut b, mut d) = (Moments::default(), Moments::default(), Moments::default());
    for (x, y) in pairs {
        a.add(x);
        b.add(y);
        d.add(y - x);
    }
    let difference = d.mean();
    Change {
        without: a.mean(),
        with: b.mean(),
        verdict: verdict(what, unit, &difference, scale),
        difference,
    }
}

fn sole_winner(scores: &[i32]) -> Option<usize> {
    let max = *scores.iter().max()?;
    let mut firsts = scores.iter().enumerate().filter(|(_, s)| **s == max);
    let (i, _) = firsts.next()?;
    firsts.next().is_none().then_some(i)
}

fn lead(scores: &[i32]) -> f64 {
    let mut s = scores.to_vec();
    s.sort_unstable_by(|a, b| b.cmp(a));
    f64::from(s[0] - s.get(1).copied().unwrap_or(s[0]))
}

fn report(without: &Ruleset, cfg: &BalanceConfig, games: &[Paired]) -> BalanceReport {
    let p = cfg.table.players;
    let first = change(
        "First-player win rate",
        " points",
        100.0,
        games.iter().map(|g| {
            let w = |s: &[i32]| f64::from(u8::from(sole_winner(s) == Some(0)));
            (w(&g.without.scores), w(&g.with.scores))
        }),
    );
    let spread = change(
        "Winner's lead over the runner-up",
        "",
        1.0,
        games
            .iter()
            .map(|g| (lead(&g.without.scores), lead(&g.with.scores))),
    );
    let mean_score = |s: &[i32]| s.iter().map(|x| f64::from(*x)).sum::<f64>() / p as f64;
    let score = change(
        "Mean final score",
        "",
        1.0,
        games
            .iter()
            .map(|g| (mean_score(&g.without.scores), mean_score(&g.with.scores))),
    );
    let length = change(
        "Game length (turns)",
        "",
        1.0,
        games
            .iter()
            .map(|g| (f64::from(g.without.turns), f64::from(g.with.turns))),
    );
    // Points by label.
    let mut labels: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    for g in games {
        for (l, v) in &g.without.labels {
            labels.entry(l.clone()).or_default().0 += v;
        }
        for (l, v) in &g.with.labels {
            labels.entry(l.clone()).or_default().1 += v;
        }
    }
    let (ta, tb) = labels
        .values()
        .fold((0i64, 0i64), |(a, b), (x, y)| (a + x, b + y));
    let n = games.len().max(1) as f64;
    let points_by_label = labels
        .iter()
        .map(|(l, (a, b))| LabelShare {
            label: l.clone(),
            without: round(*a as f64 / ta.max(1) as f64, 4),
            with: round(*b as f64 / tb.max(1) as f64, 4),
            per_game_without: round(*a as f64 / n, 2),
            per_game_with: round(*b as f64 / n, 2),
        })
        .collect();
    // The expansion's actions.
    let mut uses: BTreeMap<String, (u64, u64, Moments)> = BTreeMap::new();
    for g in games {
        for (k, u) in &g.with.uses {
            let e = uses.entry(k.clone()).or_default();
            e.0 += u.offered;
            e.1 += u.taken;
            for x in &u.points {
                e.2.add(f64::from(*x));
            }
        }
    }
    let actions = uses
        .into_iter()
        .map(|(k, (offered, taken, pts))| ActionUse {
            action: k,
            offered,
            taken,
            take_rate: round(taken as f64 / offered.max(1) as f64, 4),
            points_after: pts.mean(),
        })
        .collect();
    // Users against the abstainer.
    let (mut abst_wins, mut user_wins, mut fair) = (0u64, 0u64, 0u64);
    let mut diff = Moments::default();
    for g in games {
        let w = sole_winner(&g.abstain.scores);
        let a = u64::from(w == Some(g.abstainer));
        let u = u64::from(w.is_some() && w != Some(g.abstainer));
        abst_wins += a;
        user_wins += u;
        fair += u64::from(sole_winner(&g.with.scores) == Some(g.abstainer));
        // Per game: a user seat's expected win (wins shared over the users) minus the
        // abstainer's.
        diff.add(u as f64 / (p - 1) as f64 - a as f64);
    }
    let games_n = games.len() as u64;
    let user_seats = games_n * (p as u64 - 1);
    let difference = diff.mean();
    let abstainer = Abstention {
        abstainer_win_rate: Rate::of(abst_wins, games_n),
        user_win_rate: Rate::of(user_wins, user_seats),
        fair_share: round(fair as f64 / games_n.max(1) as f64, 4),
        verdict: verdict(
            "Win rate of a user over a seat that never uses the expansion",
            " points",
            &difference,
            100.0,
        ),
        difference,
    };
    let summary = vec![
        first.verdict.clone(),
        spread.verdict.clone(),
        score.verdict.clone(),
        length.verdict.clone(),
        abstainer.verdict.clone(),
    ];
    BalanceReport {
        expansion: cfg.expansion.clone(),
        base: without
            .expansions()
            .iter()
            .map(|e| format!("{} {}", e.id(), e.version()))
            .collect(),
        games: games_n,
        players: p,
        seed: cfg.table.seed,
        bots: (0..p)
            .map(|i| cfg.table.bots[i % cfg.table.bots.len()].clone())
            .collect(),
        first_player_advantage: first,
        score_spread: spread,
        score_mean: score,
        game_length: length,
        points_by_label,
        actions,
        abstainer,
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_say_when_nothing_can_be_told() {
        let mut m = Moments::default();
        for x in [1.0, -1.0, 2.0, -2.0] {
            m.add(x);
        }
        assert!(verdict("x", "", &m.mean(), 1.0).contains("sample too small"));
        let mut m = Moments::default();
        for i in 0..100 {
            m.add(if i % 2 == 0 { 1.0 } else { -1.0 });
        }
        assert!(verdict("x", "", &m.mean(), 1.0).contains("no effect detectable with 100 games"));
        let mut m = Moments::default();
        for i in 0..100 {
            m.add(10.0 + f64::from(i % 3));
        }
        let v = verdict("x", "", &m.mean(), 1.0);
        assert!(v.starts_with("x: up by 10.99"), "{v}");
    }

    #[test]
    fn lead_and_winner() {
        assert_eq!(lead(&[10, 30, 25]), 5.0);
        assert_eq!(sole_winner(&[10, 30, 25]), Some(1));
        assert_eq!(sole_winner(&[30, 30, 25]), None);
    }
}
