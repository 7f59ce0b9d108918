//! Bots that pick among the offered actions.

use crate::mcts::{Budget, MctsBot, MctsConfig};
use carcassonne_core::{Action, Game};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// A player program: picks the index of an offered action.
pub trait Bot: Send {
    /// Name shown in summaries.
    fn name(&self) -> &'static str;
    /// Index into `game.actions()` (never called with an empty list).
    fn choose(&mut self, game: &Game) -> usize;
    /// Like [`Bot::choose`], but only among the offered actions at these indices (never
    /// empty): what `balance` uses for a player who never takes an expansion's actions.
    fn choose_from(&mut self, game: &Game, allowed: &[usize]) -> usize;
}

/// A draw by chance asked as a prompt ([`Game::is_chance`]: a token revealed from a bag
/// when a replay must name it): the outcome drawn with `rng`, whatever the bot, which
/// must not pick the outcome it likes best; `None` for every other decision.
#[inline(always)]
pub(crate) fn chance_outcome(game: &Game, rng: &mut ChaCha8Rng) -> Option<usize> {
    // Rolls only for such a draw: other decisions consume nothing of `rng`.
    if !game.may_be_chance() {
        return None;
    }
    game.chance_pick(|total| rng.random_range(0..total))
}

/// Uniformly random among the offered actions.
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    /// A random bot with its own seed (independent of the game's RNG).
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Bot for RandomBot {
    fn name(&self) -> &'static str {
        "random"
    }

    fn choose(&mut self, game: &Game) -> usize {
        if let Some(i) = chance_outcome(game, &mut self.rng) {
            return i;
        }
        self.rng.random_range(0..game.action_count() as u32) as usize
    }

    fn choose_from(&mut self, game: &Game, allowed: &[usize]) -> usize {
        if let Some(i) = chance_outcome(game, &mut self.rng) {
            return i;
        }
        allowed[self.rng.random_range(0..allowed.len() as u32) as usize]
    }
}

/// One-ply greedy: tries every offered action on a copy, plays it on to the next decision
/// or the next draw, and keeps the action with the best score margin (own score minus the
/// best opponent's), ties broken at random.
///
/// After a placement it looks one step further, at the follow-ups that decide what the
/// placement scores this turn: passing, and deploying or moving a figure onto a feature the
/// placement completed (onto any feature with the last tile, when final scoring follows).
/// A figure on an unfinished feature scores nothing this turn, and an expansion's own verbs
/// (a tower piece, a fairy move, …) score nothing until a later step (Abbey & Mayor's barn
/// is the exception), so the look-ahead leaves them out: in the base game this changes no choice, and with all nine official
/// sets it makes the bot four times faster (docs/speed-log.md). When a deployment step is
/// the decision at hand, every offer is tried.
pub struct GreedyBot {
    rng: ChaCha8Rng,
    /// The follow-ups the look-ahead tries (kept to reuse its buffer).
    follow_ups: Vec<usize>,
}

impl GreedyBot {
    /// A greedy bot with its own seed.
    pub fn new(seed: u64) -> GreedyBot {
        GreedyBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
            follow_ups: Vec::new(),
        }
    }
}

fn margin(game: &Game, me: usize) -> i32 {
    let players = game.state().players();
    let best_other = players
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != me)
        .map(|(_, p)| p.score)
        .max()
        .unwrap_or(0);
    players[me].score - best_other
}

impl Bot for GreedyBot {
    fn name(&self) -> &'static str {
        "greedy"
    }

    fn choose(&mut self, game: &Game) -> usize {
        if let Some(i) = chance_outcome(game, &mut self.rng) {
            return i;
        }
        self.best_of(game, 0..game.actions().len())
    }

    fn choose_from(&mut self, game: &Game, allowed: &[usize]) -> usize {
        if let Some(i) = chance_outcome(game, &mut self.rng) {
            return i;
        }
        self.best_of(game, allowed.iter().copied())
    }
}

impl GreedyBot {
    fn best_of(&mut self, game: &Game, candidates: impl Iterator<Item = usize>) -> usize {
        let me = game.decision().player.index();
        let mut best = i32::MIN;
        let mut picks: Vec<usize> = Vec::new();
        // Scratch copies, refilled without allocating per candidate: `g` with
        // `refill_for_try` (a placement's copy owns its board's buffers, which it writes at
        // once; every candidate's copy restores only the union-find entries the last one
        // wrote).
        let mut g = game.clone();
        let mut scratch: Option<Game> = None;
        for (k, i) in candidates.enumerate() {
            if k > 0 {
                g.refill_for_try(game);
            }
            // A copy needs no snapshot per step: a failing hook only drops this candidate.
            g.set_checkpoints(false);
            // Nothing a draw does changes a score: the copy stops before the next draw
            // instead of drawing and listing the next tile's placements.
            g.set_stop_before_draw(Some(game.state().turn()));
            if g.apply_offered(i).is_err() {
                continue;
            }
            // After a placement, look one step further: the best follow-up deployment.
            let mut value = margin(&g, me);
            if matches!(game.actions()[i], Action::Place { .. })
                && !g.is_over()
                && g.decision().player.index() == me
            {
                self.follow_ups.clear();
                let last_tile = g.state().supply().is_exhausted();
                let graph = g.state().graph();
                self.follow_ups.extend(
                    g.actions()
                        .iter()
                        .enumerate()
                        .filter(|(_, a)| match a {
                            Action::Pass => true,
                            Action::Deploy { segment, .. } | Action::Move { segment, .. } => {
                                last_tile || graph.totals(graph.feature_of(*segment)).complete()
                            }
                            _ => false,
                        })
                        .map(|(j, _)| j),
                );
                let mut follow: Option<i32> = None;
                for (k, &j) in self.follow_ups.iter().enumerate() {
                    // The last follow-up is tried on `g` itself: one copy fewer.
                    let m = if k + 1 == self.follow_ups.len() {
                        g.apply_offered(j).ok().map(|_| margin(&g, me))
                    } else {
                        let h = match &mut scratch {
                            Some(h) => {
                                h.clone_from(&g);
                                h
                            }
                            None => scratch.insert(g.clone()),
                        };
                        h.apply_offered(j).ok().map(|_| margin(h, me))
                    };
                    follow = follow.max(m);
                }
                // The scratch copy shares `g`'s board and segments: let go of them, so that
                // the next refill of `g` undoes this placement in `g`'s own buffers instead
                // of `g` copying the board and segments anew at its next placement.
                if self.follow_ups.len() > 1 {
                    if let Some(h) = &mut scratch {
                        h.clone_from(game);
                    }
                }
                value = value.max(follow.unwrap_or(value));
            }
            // Keep a follower in hand unless it pays: deployments score by their margin too.
            if value > best {
                best = value;
                picks.clear();
            }
            if value == best {
                picks.push(i);
            }
        }
        if picks.is_empty() {
            return 0;
        }
        picks[self.rng.random_range(0..picks.len() as u32) as usize]
    }
}

/// Makes a bot from its spec (see [`parse_bot`]); `None` for an unknown or malformed spec.
pub fn make_bot(spec: &str, seed: u64) -> Option<Box<dyn Bot>> {
    parse_bot(spec).ok().map(|s| s.build(seed))
}

/// A parsed bot spec: `random`, `greedy`, or
/// `mcts[:BUDGET][:THREADSt][:dDEPTH][:pPASS][:oOFFER][:eEND]` where BUDGET is a number of
/// playouts per decision (`mcts:2000`) or a time (`mcts:500ms`, `mcts:2s`), THREADS the
/// search threads (`mcts:2000:2t`), DEPTH the turns a playout plays past the tree before it
/// is valued (`d1`, the default; `dend` plays to the end), PASS the per cent of a playout's
/// deployment steps passed unlisted (`p50`, the default; `p0` passes none so), OFFER
/// what the others choose among: the tile's own deployments and the pass (`otile`, the
/// default) or the whole listed offer (`oall`), and END how a playout's valuation answers
/// the questions ending the game asks: passed unlisted where allowed (`epass`, the
/// default) or at random from their offers (`eplay`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BotSpec {
    /// [`RandomBot`].
    Random,
    /// [`GreedyBot`].
    Greedy,
    /// [`MctsBot`].
    Mcts(MctsConfig),
}

impl BotSpec {
    /// A bot of this kind with its own seed.
    pub fn build(&self, seed: u64) -> Box<dyn Bot> {
        match self {
            BotSpec::Random => Box::new(RandomBot::new(seed)),
            BotSpec::Greedy => Box::new(GreedyBot::new(seed)),
            BotSpec::Mcts(cfg) => Box::new(MctsBot::new(*cfg, seed)),
        }
    }
}

/// Parses a bot spec, with a message naming what is wrong.
pub fn parse_bot(spec: &str) -> Result<BotSpec, String> {
    let mut parts = spec.split(':');
    let kind = parts.next().unwrap_or("");
    let rest: Vec<&str> = parts.collect();
    match kind {
        "random" | "greedy" if !rest.is_empty() => {
            Err(format!("bot `{kind}` takes no settings (got `{spec}`)"))
        }
        "random" => Ok(BotSpec::Random),
        "greedy" => Ok(BotSpec::Greedy),
        "mcts" => {
            let mut cfg = MctsConfig::default();
            if rest.len() > 6 {
                return Err(format!(
                    "bot `{spec}`: expected mcts[:BUDGET][:THREADSt][:dDEPTH][:pPASS][:oOFFER][:eEND], e.g. mcts:2000 or mcts:500ms:2t:d1:p50"
                ));
            }
            for part in rest {
                if let Some(e) = part.strip_prefix('e') {
                    cfg.end_passing = match e {
                        "pass" => true,
                        "play" => false,
                        _ => return Err(format!("bot `{spec}`: `{part}` is not epass or eplay")),
                    };
                } else if let Some(o) = part.strip_prefix('o') {
                    cfg.tile_deploys = match o {
                        "tile" => true,
                        "all" => false,
                        _ => return Err(format!("bot `{spec}`: `{part}` is not otile or oall")),
                    };
                } else if let Some(p) = part.strip_prefix('p') {
                    cfg.pass_share = p
                        .parse::<u8>()
                        .ok()
                        .filter(|n| *n <= 100)
                        .ok_or_else(|| format!("bot `{spec}`: `{part}` is not p0…p100"))?;
                } else if let Some(d) = part.strip_prefix('d') {
                    cfg.depth = match d {
                        "end" => u32::MAX,
                        _ => d
                            .parse::<u32>()
                            .ok()
                            .filter(|n| *n <= 10_000)
                            .ok_or_else(|| {
                                format!("bot `{spec}`: `{part}` is not d0…d10000 or dend")
                            })?,
                    };
                } else if let Some(t) = part.strip_suffix('t') {
                    cfg.threads = t
                        .parse::<usize>()
                        .ok()
                        .filter(|n| (1..=256).contains(n))
                        .ok_or_else(|| format!("bot `{spec}`: `{part}` is not 1t…256t"))?;
                } else {
                    cfg.budget = parse_budget(part).ok_or_else(|| {
                        format!(
                            "bot `{spec}`: `{part}` is neither a playout count (2000) nor a time (500ms, 2s)"
                        )
                    })?;
                }
            }
            Ok(BotSpec::Mcts(cfg))
        }
        _ => Err(format!(
            "unknown bot `{spec}` (available: random, greedy, mcts[:BUDGET][:THREADSt][:dDEPTH][:pPASS][:oOFFER][:eEND])"
        )),
    }
}

fn parse_budget(s: &str) -> Option<Budget> {
    let time = |n: &str, unit: u64| -> Option<Budget> {
        let n: u64 = n.parse().ok().filter(|n| (1..=3_600_000).contains(n))?;
        Some(Budget::Time(Duration::from_millis(n * unit)))
    };
    if let Some(ms) = s.strip_suffix("ms") {
        time(ms, 1)
    } else if let Some(secs) = s.strip_suffix('s') {
        time(secs, 1000)
    } else {
        let n: u32 = s.parse().ok().filter(|n| *n >= 1)?;
        Some(Budget::Iterations(n))
    }
}
