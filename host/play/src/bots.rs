//! Bots that pick among the offered actions.

use carcassonne_core::{Action, Game};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A player program: picks the index of an offered action.
pub trait Bot: Send {
    /// Name shown in summaries.
    fn name(&self) -> &'static str;
    /// Index into `game.actions()` (never called with an empty list).
    fn choose(&mut self, game: &Game) -> usize;
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
        self.rng.random_range(0..game.action_count() as u32) as usize
    }
}

/// One-ply greedy: tries every offered action on a copy, plays on with passes until the
/// next decision of another kind, and keeps the action with the best score margin
/// (own score minus the best opponent's), ties broken at random.
pub struct GreedyBot {
    rng: ChaCha8Rng,
}

impl GreedyBot {
    /// A greedy bot with its own seed.
    pub fn new(seed: u64) -> GreedyBot {
        GreedyBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
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
        let me = game.decision().player.index();
        let mut best = i32::MIN;
        let mut picks: Vec<usize> = Vec::new();
        for i in 0..game.actions().len() {
            let mut g = game.clone();
            if g.apply_offered(i).is_err() {
                continue;
            }
            // After a placement, look one step further: the best follow-up deployment.
            let mut value = margin(&g, me);
            if matches!(game.actions()[i], Action::Place { .. })
                && !g.is_over()
                && g.decision().player.index() == me
            {
                let follow = (0..g.actions().len())
                    .filter_map(|j| {
                        let mut h = g.clone();
                        h.apply_offered(j).ok().map(|_| margin(&h, me))
                    })
                    .max();
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

/// Makes a bot by name.
pub fn make_bot(name: &str, seed: u64) -> Option<Box<dyn Bot>> {
    match name {
        "random" => Some(Box::new(RandomBot::new(seed))),
        "greedy" => Some(Box::new(GreedyBot::new(seed))),
        _ => None,
    }
}
