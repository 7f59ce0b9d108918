//! A Monte Carlo tree search bot for every decision of every expansion mix.
//!
//! **Hidden information.** The only thing a Carcassonne player cannot see is the order of
//! the tiles still face down; everything else (the board, every supply, the remaining tile
//! mix) is public. A copy of the game would know that order, because it carries the game's
//! random generator. So every iteration works on its own *determinization*: a copy whose
//! generator is reseeded ([`Game::reseed`]), which draws the same remaining tiles in a fresh
//! random order. This is single-observer information-set MCTS (Cowling, Powley and
//! Whitehouse, 2012): one tree whose nodes are sequences of decisions, shared by all
//! determinizations. Because a node's legal actions depend on the tile the determinization
//! drew, each child counts how often it was *available*, and its UCB term uses that count
//! instead of the parent's visits. Games whose draws the caller chooses
//! ([`DecisionKind::Draw`]) are handled the same way: draws are chance events sampled by
//! the number of copies left, not tree nodes.
//!
//! **Players.** A node remembers who decides there; each child keeps the reward of the
//! player who chose it, so the search maximises every player's own reward in turn (the
//! paranoid assumption is not needed). Out-of-turn decisions (Count rounds, Tactician
//! tokens, the dragon's steps, ransom, fan-script prompts) are ordinary nodes.
//!
//! **Playouts** go on at random through the engine's own legal actions for
//! [`MctsConfig::depth`] turns after the tree's leaf (default one: the rest of the leaf's
//! turn and the next player's), then the game is ended where it stands
//! ([`Game::end_now_passing`]): unfinished features, farms and expansions' end bonuses are
//! scored as the rules score them at the end, and the end's questions that an expansion lets
//! pass (the Count's final round) are passed unlisted ([`MctsConfig::end_passing`]). A
//! nine-expansion game has about 470 decisions, so a random playout to the end is mostly
//! noise and costs a hundred times more; the end-of-game value of the position a turn later
//! is both cheaper and far better informed. Each player's reward is the gain in its margin
//! over the best other player between the root and the playout's end (both ended where they
//! stand; the root's end answers its questions with their first offers), squashed into
//! [0, 1] by `tanh(gain / 20)`. A decision with one legal action is taken without search.
//! Half the deployment steps after a tile a playout places are passed without listing their
//! offer ([`MctsConfig::pass_share`]); the others choose among the tile's own deployments
//! and the pass, without listing what expansions add to the step
//! ([`MctsConfig::tile_deploys`]). A node reached from the root without chance keeps the
//! offer of its deployment step or prompt, the same in every determinization, and the engine
//! is given it back at later visits instead of listing it again ([`Game::apply_to_known`],
//! [`Game::apply_known`]).
//!
//! **Parallelism and determinism.** With `n` threads the iterations are split between `n`
//! independent trees (root parallelisation); their root statistics are summed. Every seed
//! comes from the bot's seed and its decision counter, so an iteration budget gives the
//! same move on every machine and any thread count that divides the same way; a time
//! budget depends on the machine's speed, and so is not reproducible.

use crate::bots::Bot;
use carcassonne_core::{Action, DecisionKind, Game, KnownOffer};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

/// How much search each decision gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// A fixed number of playouts (deterministic).
    Iterations(u32),
    /// A wall-clock time per decision (not reproducible).
    Time(Duration),
}

/// The search's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsConfig {
    /// Search per decision.
    pub budget: Budget,
    /// Search threads (independent trees whose root statistics are summed).
    pub threads: usize,
    /// UCB exploration constant (rewards lie in [0, 1]).
    pub exploration: f64,
    /// Turns a playout plays on from the tree's leaf (at random) before the position is
    /// valued by ending the game there ([`Game::end_now`]); `u32::MAX` plays to the end.
    pub depth: u32,
    /// Per cent of a playout's deployment steps passed outright, without listing their
    /// offer ([`Game::apply_passing_deploy`]); the others choose at random, passing among
    /// their choices ([`MctsConfig::tile_deploys`]). Only where every deployment step keeps
    /// the pass ([`carcassonne_core::Ruleset::deploy_pass_kept`]).
    pub pass_share: u8,
    /// Whether a playout's deployment steps that are not passed choose among the tile's
    /// own deployments and the pass ([`Game::apply_tile_deploy`]: what the filters leave of
    /// core's deployments on the tile just placed), rather than among the whole listed
    /// offer. Only where every deployment step keeps the pass, as `pass_share`.
    pub tile_deploys: bool,
    /// Whether a playout that stops before the game's end passes the prompts that ending
    /// it asks, where their expansion offers the pass ([`Game::end_now_passing`]; the
    /// Count's final round, CO-18), rather than answering them at random from their
    /// listed offers. The position is then valued without the moves the end would allow:
    /// cheaper, and within the noise of the games measured (`docs/bots.md`, "The end's
    /// questions"). The root's own value, which rewards are measured from, still answers
    /// them with their first offers: valuing it by passing too measured weaker. A playout
    /// that plays to the end (`depth` `u32::MAX`) plays the end as usual.
    pub end_passing: bool,
}

impl MctsConfig {
    /// Iterations per decision when the spec names none.
    pub const DEFAULT_ITERATIONS: u32 = 1000;
    /// Playout turns after the tree when the spec names none.
    pub const DEFAULT_DEPTH: u32 = 1;
    /// Per cent of playout deployment steps passed when the spec names none.
    pub const DEFAULT_PASS_SHARE: u8 = 50;
}

impl Default for MctsConfig {
    fn default() -> MctsConfig {
        MctsConfig {
            budget: Budget::Iterations(MctsConfig::DEFAULT_ITERATIONS),
            threads: 1,
            exploration: 0.7,
            depth: MctsConfig::DEFAULT_DEPTH,
            pass_share: MctsConfig::DEFAULT_PASS_SHARE,
            tile_deploys: true,
            end_passing: true,
        }
    }
}

/// The MCTS player.
pub struct MctsBot {
    cfg: MctsConfig,
    seed: u64,
    decisions: u64,
}

impl MctsBot {
    /// A bot with these settings and its own seed.
    pub fn new(cfg: MctsConfig, seed: u64) -> MctsBot {
        MctsBot {
            cfg,
            seed,
            decisions: 0,
        }
    }
}

impl Bot for MctsBot {
    fn name(&self) -> &'static str {
        "mcts"
    }

    fn choose(&mut self, game: &Game) -> usize {
        self.search_among(game, None)
    }

    fn choose_from(&mut self, game: &Game, allowed: &[usize]) -> usize {
        self.search_among(game, Some(allowed))
    }
}

impl MctsBot {
    /// Searches and returns the chosen index; with `allowed`, the root may only take those
    /// offered actions (the search below the root is not restricted).
    fn search_among(&mut self, game: &Game, allowed: Option<&[usize]>) -> usize {
        self.decisions += 1;
        // A draw by chance is sampled, not searched: the bot may not pick its outcome.
        let mut chance = ChaCha8Rng::seed_from_u64(mix(self.seed, self.decisions));
        if let Some(i) = crate::bots::chance_outcome(game, &mut chance) {
            return i;
        }
        let offered = game.actions();
        let root: Vec<Action> = match allowed {
            Some(ix) => ix.iter().filter_map(|&i| offered.get(i).copied()).collect(),
            None => offered.to_vec(),
        };
        if root.len() <= 1 {
            return match allowed {
                Some(ix) => ix.first().copied().unwrap_or(0),
                None => 0,
            };
        }
        let base = mix(self.seed, self.decisions);
        let threads = self.cfg.threads.max(1);
        let root = &root;
        let roots: Vec<Vec<RootStat>> = if threads == 1 {
            vec![search(
                game,
                root,
                self.cfg,
                share(self.cfg.budget, 0, 1),
                base,
            )]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        let budget = share(self.cfg.budget, t, threads);
                        let cfg = self.cfg;
                        s.spawn(move || search(game, root, cfg, budget, mix(base, t as u64 + 1)))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_default())
                    .collect()
            })
        };
        pick(game, root, &roots)
    }
}

/// Visits and reward of one root action, as one tree saw them.
#[derive(Clone, Copy, Debug)]
struct RootStat {
    action: Action,
    visits: u32,
    reward: f64,
}

/// The index of the root action with the most visits over all trees (then the best mean
/// reward, then the first offered).
fn pick(game: &Game, root: &[Action], roots: &[Vec<RootStat>]) -> usize {
    let first = game.actions().iter().position(|a| root.contains(a));
    let mut best = (first.unwrap_or(0), 0u32, f64::MIN);
    for (i, a) in game.actions().iter().enumerate() {
        if root.len() < game.action_count() && !root.contains(a) {
            continue;
        }
        let (mut visits, mut reward) = (0u32, 0.0);
        for s in roots.iter().flatten().filter(|s| s.action == *a) {
            visits += s.visits;
            reward += s.reward;
        }
        let mean = if visits > 0 {
            reward / f64::from(visits)
        } else {
            f64::MIN
        };
        if visits > best.1 || (visits == best.1 && mean > best.2) {
            best = (i, visits, mean);
        }
    }
    best.0
}

/// Thread `t`'s part of the budget.
fn share(budget: Budget, t: usize, threads: usize) -> Budget {
    match budget {
        Budget::Iterations(n) => {
            let (n, threads, t) = (n as usize, threads, t);
            Budget::Iterations((n / threads + usize::from(t < n % threads)) as u32)
        }
        Budget::Time(d) => Budget::Time(d),
    }
}

/// SplitMix64 of `a` and `b`: independent seeds per decision and per thread.
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How many children a node finds by comparing their actions, before it builds its table
/// ([`Node::table`]).
const SCAN_CHILDREN: usize = 2;

/// A tree node: a sequence of decisions from the root. Its playout statistics are kept
/// apart, in [`Stat`]s indexed like the nodes: the statistics of every child legal in a
/// playout are read and written at every visit of the parent, and a small record per
/// node keeps them in a few cache lines instead of one line per node.
struct Node {
    /// Who decides here (set when the node is first reached with a decision).
    mover: u8,
    /// Index + 1 of this node's [`KeptOffer`] (0: none, its offer is read at each visit).
    kept: u32,
    /// The action leading here.
    action: Option<Action>,
    /// Child node indices, each with the action leading to it, in the order added (one
    /// list: one allocation a node with children, not two).
    children: Vec<(u32, Action)>,
    /// The children by [`action_key`]: an open-addressing table of `(key, position in
    /// children + 1)` (0: empty), at most half full, so that looking up every offered
    /// action (a nine-expansion tile step offers 100+ placements) is a probe or two
    /// instead of a binary search with a comparison of whole actions. Empty while the
    /// node has at most [`SCAN_CHILDREN`] children (most nodes below the root have one):
    /// those are compared with the action instead, and the node allocates no table.
    table: Vec<(u64, u32)>,
}

/// The lists of a node whose offer is the same in every determinization (reached from a
/// fixed root with no chance on the way: [`Game::generator_untouched`]), kept from visit to
/// visit as the root's are, instead of found by reading the offer and looking up each
/// action's child at every visit (a nine-expansion deployment step offers 100+).
struct KeptOffer {
    /// (offer index, child) of the offers with a child, ascending.
    expanded: Vec<(u32, u32)>,
    /// Offer indices without a child yet, ascending.
    untried: Vec<u32>,
    /// The offer itself, kept when the node was reached first ([`Game::apply_to_known`]):
    /// given back at every later visit instead of listed again ([`Game::apply_known`]).
    known: Option<KnownOffer>,
}

impl KeptOffer {
    /// A node's lists at its first kept visit: every offer untried.
    fn new(g: &Game) -> KeptOffer {
        KeptOffer {
            expanded: Vec::new(),
            untried: (0..g.action_count() as u32).collect(),
            known: None,
        }
    }

    /// A new leaf's lists with its offer `known`: every offer untried.
    fn known(known: KnownOffer) -> KeptOffer {
        KeptOffer {
            expanded: Vec::new(),
            untried: (0..known.actions().len() as u32).collect(),
            known: Some(known),
        }
    }
}

/// Moves every offer index of `untried` whose action is `a` into `expanded` as leading to
/// `child` (each list stays ascending): an expanded action is reached from every index
/// that offers it, as a scan of the offer for the children would find.
fn expand(
    offer: impl Iterator<Item = Action>,
    a: Action,
    child: u32,
    untried: &mut Vec<u32>,
    expanded: &mut Vec<(u32, u32)>,
) {
    for (j, b) in offer.enumerate() {
        let j = j as u32;
        if b != a {
            continue;
        }
        if let Ok(at) = untried.binary_search(&j) {
            untried.remove(at);
            let at = expanded.partition_point(|&(x, _)| x < j);
            expanded.insert(at, (j, child));
        }
    }
}

/// A node's playout statistics ([`Node`]).
#[derive(Clone, Copy, Default)]
struct Stat {
    /// Playouts through this node.
    visits: u32,
    /// Times this node's action was legal when its parent was visited (ISMCTS).
    avail: u32,
    /// Sum of the rewards, for the player who chose the action leading here.
    reward: f64,
}

impl Node {
    fn new(action: Option<Action>) -> Node {
        Node {
            mover: 0,
            kept: 0,
            action,
            children: Vec::new(),
            table: Vec::new(),
        }
    }

    /// The child reached by `a` (children's actions are distinct: a child is only added
    /// for an action no child has).
    #[inline]
    fn child(&self, a: &Action) -> Option<u32> {
        if self.table.is_empty() {
            return self.children.iter().find(|(_, b)| b == a).map(|&(c, _)| c);
        }
        let (key, exact) = action_key(a);
        let mask = self.table.len() - 1;
        let mut i = table_slot(key, mask);
        loop {
            let (k, p) = self.table[i];
            if p == 0 {
                return None;
            }
            let at = p as usize - 1;
            if k == key && (exact || self.children[at].1 == *a) {
                return Some(self.children[at].0);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds child node `c`, reached by `a`.
    fn add_child(&mut self, c: u32, a: Action) {
        self.children.push((c, a));
        let n = self.children.len();
        if n <= SCAN_CHILDREN {
            return;
        }
        if self.table.len() < 2 * n {
            // Grown to four slots a child, every child placed again.
            let size = (4 * n).next_power_of_two().max(8);
            self.table.clear();
            self.table.resize(size, (0, 0));
            for at in 0..n {
                let key = action_key(&self.children[at].1).0;
                self.place(key, at);
            }
        } else {
            self.place(action_key(&a).0, n - 1);
        }
    }

    /// Puts the child at `at` in `children` into the first free slot of its key's probe.
    fn place(&mut self, key: u64, at: usize) {
        let mask = self.table.len() - 1;
        let mut i = table_slot(key, mask);
        while self.table[i].1 != 0 {
            i = (i + 1) & mask;
        }
        self.table[i] = (key, at as u32 + 1);
    }
}

/// The first slot of `key`'s probe in a table of `mask + 1` slots (a power of two).
#[inline]
fn table_slot(key: u64, mask: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
}

/// A cheap key of an action for the children's table, and whether it is exact (only
/// that action has it: a placement on a board within 32,767 cells of the start, a
/// deployment or a move, a pass, a draw). Equal actions have equal keys; different
/// actions of an inexact key (an expansion's custom action) rarely share one, and a
/// lookup compares those actions. Keys of different kinds of action differ in their low
/// four bits.
#[inline]
fn action_key(a: &Action) -> (u64, bool) {
    let mix = |x: u64| x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    let small = |v: i32| i16::try_from(v).is_ok();
    match *a {
        Action::Place { pos, rotation } => (
            1 | u64::from(rotation.quarters() & 0xF) << 4
                | u64::from(pos.x as u32 & 0xFFFF) << 8
                | u64::from(pos.y as u32 & 0xFFFF) << 24,
            small(pos.x) && small(pos.y) && rotation.quarters() < 16,
        ),
        Action::Deploy { figure, segment } => (
            2 | u64::from(figure.0) << 4 | (segment.index() as u64) << 20,
            segment.index() < 1 << 40,
        ),
        Action::Move { figure, segment } => (
            3 | u64::from(figure.0) << 4 | (segment.index() as u64) << 20,
            segment.index() < 1 << 40,
        ),
        Action::Pass => (4, true),
        Action::Draw { tile } => (5 | u64::from(tile.0) << 4, true),
        Action::Custom(c) => {
            let mut h = u64::from(c.expansion.0) << 4 | u64::from(c.verb.0) << 12;
            h ^= mix(u64::from(c.value as u32));
            h ^= mix(c.figure.map_or(0, |f| u64::from(f.0) + 1) << 32);
            h ^= mix(c.segment.map_or(0, |s| s.index() as u64 + 1)).rotate_left(17);
            ((h & !0xF) | 6, false)
        }
    }
}

/// One tree's search from `root`, whose first move is one of `root_actions`.
fn search(
    root: &Game,
    root_actions: &[Action],
    cfg: MctsConfig,
    budget: Budget,
    seed: u64,
) -> Vec<RootStat> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Checking membership costs a scan per action: only when the root is restricted.
    let restricted = root_actions.len() < root.action_count();
    // Playouts pass a share of their deployment steps unlisted, where every step keeps the
    // pass (a ruleset that can make a deployment compulsory lists them all).
    let pass_kept = root.rules().deploy_pass_kept();
    let deploys = PlayoutDeploys {
        passing: if pass_kept {
            u32::from(cfg.pass_share.min(100))
        } else {
            0
        },
        tile_only: pass_kept && cfg.tile_deploys,
    };
    // Without expansions a deployment step's listing is core's own short loop (about 350
    // instructions): too little to pay for keeping the offer of every new leaf.
    let keep_known = !root.rules().expansions().is_empty();
    let players = root.state().players().len();
    let mut tree = vec![Node::new(None)];
    let mut stats = vec![Stat::default()];
    let mut path: Vec<u32> = Vec::with_capacity(64);
    let mut rewards = vec![0.0; players];
    // The root's offer is the same list in every determinization (unless the root is a
    // chance draw), so its children are found by offer index, not by a scan of the
    // children per offered action (quadratic in a nine-expansion turn's 100+ placements).
    let root_fixed = !matches!(root.decision().kind, DecisionKind::Draw);
    // Below the root: the children legal in this playout's determinization, each as
    // (offer index, child), and the offer indices of the actions without a child yet: the
    // action taken is then applied by its index (`apply_offered`), not looked up again in
    // the offer.
    let mut legal: Vec<(u32, u32)> = Vec::new();
    let mut untried: Vec<u32> = Vec::new();
    // The lists of the nodes whose offer is fixed ([`KeptOffer`]), the root's first: its
    // allowed offers, none expanded yet.
    let mut kept: Vec<KeptOffer> = Vec::new();
    if root_fixed {
        let root_offer = root.actions();
        kept.push(KeptOffer {
            expanded: Vec::new(),
            untried: (0..root_offer.len() as u32)
                .filter(|&k| !restricted || root_actions.contains(&root_offer[k as usize]))
                .collect(),
            known: None,
        });
        tree[0].kept = 1;
    }
    let start = Instant::now();
    let mut done = 0u32;
    // `ln[k] = ln(k)` for UCB1 (`select`); index 0 is never read (counts start at 1).
    let mut ln: Vec<f64> = vec![0.0];
    // One scratch game, refilled from the root with its own buffers (`refill_for_try`,
    // which restores only the union-find entries the last playout wrote): every
    // playout places a tile, and a board shared with the root would be copied into new
    // buffers at its first placement and freed at the next refill.
    let mut g = root.clone();
    // The baseline is measured on this copy (ended), which the first playout refills: one
    // copy of the root a decision, not two.
    let baseline = baseline_margins(&mut g);
    // Every playout ends in the final scoring: its farms' borders are read from those of
    // the root, noted once, unless the playout joined the farm to a new tile.
    g.keep_farm_borders(true);
    loop {
        match budget {
            Budget::Iterations(n) if done >= n => break,
            // Check the clock every 16 playouts: a playout costs microseconds.
            Budget::Time(d) if done % 16 == 0 && start.elapsed() >= d => break,
            _ => {}
        }
        done += 1;
        // A child's availability grows by at most one a playout: `ln` covers every count.
        if ln.len() <= done as usize {
            ln.push(f64::from(done).ln());
        }
        g.refill_for_try(root);
        g.set_checkpoints(false);
        g.reseed(rng.next_u64());
        path.clear();
        path.push(0);
        let mut node = 0u32;
        let mut expanded = false;
        // No chance yet on the way down from a fixed root: each node's offer is fixed.
        let mut fixed = root_fixed;
        // Selection and expansion.
        while !g.is_over() && !expanded {
            if matches!(g.decision().kind, DecisionKind::Draw) {
                fixed = false;
                if chance_draw(&mut g, &mut rng).is_err() {
                    break;
                }
                continue;
            }
            // A draw by chance asked as a prompt: sampled like a tile draw, no node.
            if let Some(k) = crate::bots::chance_outcome(&g, &mut rng) {
                fixed = false;
                if g.apply_offered(k).is_err() {
                    break;
                }
                continue;
            }
            tree[node as usize].mover = g.decision().player.index() as u8;
            // An expansion's chance (a roll, a tile drawn by a rule) changes what follows.
            fixed &= g.generator_untouched();
            let n = &mut tree[node as usize];
            if n.kept != 0 && !fixed {
                // Never (the path decides where chance comes); the lists are only a cache.
                n.kept = 0;
            }
            if node != 0 && fixed && n.kept == 0 && n.children.is_empty() {
                kept.push(KeptOffer::new(&g));
                n.kept = kept.len() as u32;
            }
            let kept_at = tree[node as usize].kept as usize;
            if kept_at != 0 {
                #[cfg(debug_assertions)]
                {
                    // The kept lists are what reading the offer would give.
                    let (mut e, mut u) = (Vec::new(), Vec::new());
                    for (k, a) in g.state().offered_iter().enumerate() {
                        if node == 0 && restricted && !root_actions.contains(&a) {
                            continue;
                        }
                        match tree[node as usize].child(&a) {
                            Some(c) => e.push((k as u32, c)),
                            None => u.push(k as u32),
                        }
                    }
                    let k = &kept[kept_at - 1];
                    assert_eq!((&e, &u), (&k.expanded, &k.untried), "a kept node's offer");
                }
            } else if tree[node as usize].children.is_empty() && !(node == 0 && restricted) {
                // A node without children yet (every node at its first visit): every offer
                // is untried, and none is read (a portal's deployment step offers 100+).
                legal.clear();
                untried.clear();
                untried.extend(0..g.action_count() as u32);
            } else {
                legal.clear();
                untried.clear();
                // Read in place: a placement step's offer is not built as a list.
                for (k, a) in g.state().offered_iter().enumerate() {
                    if node == 0 && restricted && !root_actions.contains(&a) {
                        continue;
                    }
                    match tree[node as usize].child(&a) {
                        Some(c) => legal.push((k as u32, c)),
                        None => untried.push(k as u32),
                    }
                }
            }
            let (legal_now, untried_now) = if kept_at != 0 {
                let k = &kept[kept_at - 1];
                (&k.expanded, &k.untried)
            } else {
                (&legal, &untried)
            };
            for &(_, c) in legal_now {
                stats[c as usize].avail += 1;
            }
            let (child, offer) = if !untried_now.is_empty() {
                let k = untried_now[rng.random_range(0..untried_now.len() as u32) as usize];
                let Some(a) = g.state().offered_at(k as usize) else {
                    // Never: `k` came from the offer just read.
                    break;
                };
                let c = tree.len() as u32;
                tree.push(Node::new(Some(a)));
                stats.push(Stat {
                    avail: 1,
                    ..Stat::default()
                });
                tree[node as usize].add_child(c, a);
                if kept_at != 0 {
                    let k = &mut kept[kept_at - 1];
                    expand(
                        g.state().offered_iter(),
                        a,
                        c,
                        &mut k.untried,
                        &mut k.expanded,
                    );
                }
                expanded = true;
                (c, k)
            } else {
                let (k, c) = legal_now[select(&stats, legal_now, cfg.exploration, &ln)];
                (c, k)
            };
            // A new leaf reached without chance keeps its offer (a deployment step's, a
            // prompt's), the same in every determinization; at its later visits the engine
            // is given it back instead of listing it again.
            let applied = if expanded && fixed && keep_known {
                g.apply_to_known(offer as usize).map(|known| {
                    if let Some(known) = known {
                        kept.push(KeptOffer::known(known));
                        tree[child as usize].kept = kept.len() as u32;
                    }
                })
            } else {
                let at = (tree[child as usize].kept as usize).checked_sub(1);
                match at.and_then(|k| kept[k].known.as_ref()) {
                    Some(known) => g.apply_known(offer as usize, known),
                    None => g.apply_offered(offer as usize),
                }
            };
            if applied.is_err() {
                // A failing expansion hook: score this line as it stands.
                path.push(child);
                break;
            }
            path.push(child);
            node = child;
        }
        // Playout: at random for `cfg.depth` more turns, then the game ends where it is.
        let stop_turn = g.state().turn().saturating_add(cfg.depth.saturating_add(1));
        if cfg.depth != u32::MAX {
            // The playout's last turn stops before the next draw instead of drawing and
            // listing the placements of a tile nobody will place.
            g.set_stop_before_draw(Some(stop_turn));
        }
        while !g.is_over() {
            if g.failure().is_some() {
                break;
            }
            let kind = g.decision().kind;
            let boundary = matches!(kind, DecisionKind::Draw | DecisionKind::PlaceTile { .. })
                || g.stopped_before_draw();
            if boundary && cfg.depth != u32::MAX && g.state().turn() >= stop_turn {
                let ended = if cfg.end_passing {
                    g.end_now_passing()
                } else {
                    g.end_now()
                };
                if ended.is_err() {
                    break;
                }
                continue;
            }
            let step = if matches!(kind, DecisionKind::Draw) {
                chance_draw(&mut g, &mut rng)
            } else if let Some(k) = crate::bots::chance_outcome(&g, &mut rng) {
                g.apply_offered(k).map_err(|_| ())
            } else {
                let n = g.action_count();
                if n == 0 {
                    break;
                }
                let k = rng.random_range(0..n as u32) as usize;
                apply_at_random(&mut g, k, deploys, &mut rng)
            };
            if step.is_err() {
                break;
            }
        }
        reward(&g, &baseline, &mut rewards);
        // Backpropagation: each node keeps the reward of the player who chose it.
        for w in path.windows(2) {
            let mover = tree[w[0] as usize].mover as usize;
            let n = &mut stats[w[1] as usize];
            n.visits += 1;
            n.reward += rewards.get(mover).copied().unwrap_or(0.0);
        }
    }
    tree[0]
        .children
        .iter()
        .map(|&(c, _)| {
            let n = &stats[c as usize];
            RootStat {
                action: tree[c as usize].action.expect("children have actions"),
                visits: n.visits,
                reward: n.reward,
            }
        })
        .collect()
}

/// UCB1 over the children legal in this determinization (`legal`: offer index and child,
/// in offer order), with availability counts: the position in `legal` of the first best.
/// `ln[k]` is `ln(k)` for every availability count reached so far (a table lookup instead
/// of a logarithm per child at every step of every descent; the same values).
fn select(stats: &[Stat], legal: &[(u32, u32)], c: f64, ln: &[f64]) -> usize {
    // Four children at a time ([`ucb_scores`]): a root of 100+ children is scored at
    // every playout, and its divisions and square roots wait on one divider. The lanes
    // past a short last chunk score a child of no visits and are not read.
    let mut best = (0, f64::MIN);
    for (first, chunk) in legal.chunks(LANES).enumerate() {
        let mut reward = [0.0; LANES];
        let mut visits = [1.0; LANES];
        let mut ln_avail = [0.0; LANES];
        for (j, &(_, i)) in chunk.iter().enumerate() {
            (reward[j], visits[j], ln_avail[j]) = ucb_terms(&stats[i as usize], ln);
        }
        let score = ucb_scores(reward, visits, ln_avail, c);
        for (j, &s) in score.iter().enumerate().take(chunk.len()) {
            if s > best.1 {
                best = (first * LANES + j, s);
            }
        }
    }
    best.0
}

/// Children [`select`] scores together.
const LANES: usize = 4;

/// UCB1 scores of four children: `reward / visits + c * sqrt(ln_avail / visits)` each.
/// On x86-64 as packed operations (two children an instruction); IEEE division and square
/// root round each lane as the scalar ones do, so the values are the same.
#[inline(always)]
fn ucb_scores(
    reward: [f64; LANES],
    visits: [f64; LANES],
    ln_avail: [f64; LANES],
    c: f64,
) -> [f64; LANES] {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128d, _mm_add_pd, _mm_div_pd, _mm_loadu_pd, _mm_mul_pd, _mm_set1_pd, _mm_sqrt_pd,
            _mm_storeu_pd,
        };
        const { assert!(LANES == 4, "two packed pairs") };
        let mut out = [0.0; LANES];
        for h in [0, 2] {
            // SAFETY: SSE2 is part of every x86-64 target; each pointer addresses two f64
            // of a four-element array (h is 0 or 2).
            unsafe {
                let c2: __m128d = _mm_set1_pd(c);
                let r = _mm_loadu_pd(reward.as_ptr().add(h));
                let v = _mm_loadu_pd(visits.as_ptr().add(h));
                let l = _mm_loadu_pd(ln_avail.as_ptr().add(h));
                let s = _mm_add_pd(
                    _mm_div_pd(r, v),
                    _mm_mul_pd(c2, _mm_sqrt_pd(_mm_div_pd(l, v))),
                );
                _mm_storeu_pd(out.as_mut_ptr().add(h), s);
            }
        }
        out
    }
    #[cfg(not(target_arch = "x86_64"))]
    std::array::from_fn(|j| reward[j] / visits[j] + c * (ln_avail[j] / visits[j]).sqrt())
}

/// A child's reward sum, visits and `ln(availability)` for UCB1 (counts read as at least 1).
#[inline(always)]
fn ucb_terms(n: &Stat, ln: &[f64]) -> (f64, f64, f64) {
    let avail = n.avail.max(1);
    let ln_avail = match ln.get(avail as usize) {
        Some(&l) => l,
        None => f64::from(avail).ln(),
    };
    (n.reward, f64::from(n.visits.max(1)), ln_avail)
}

/// How a playout answers the deployment steps after the tiles it places at random.
#[derive(Clone, Copy)]
struct PlayoutDeploys {
    /// Passed outright this many times in a hundred ([`MctsConfig::pass_share`]).
    passing: u32,
    /// The others choose among the tile's own deployments ([`MctsConfig::tile_deploys`]).
    tile_only: bool,
}

/// A playout's move: offered action `k`; after a tile placement, the deployment step that
/// follows is passed outright `passing` times in a hundred, and otherwise (`tile_only`)
/// answered at random from the tile's own deployments and the pass. A uniform step nearly
/// always deploys, and each step of a nine-expansion game lists every open tower, the
/// portal's targets and the barns before a filter reads them all: neither lists them,
/// which makes a playout cheaper, and measured no weaker (docs/bots.md).
fn apply_at_random(
    g: &mut Game,
    k: usize,
    deploys: PlayoutDeploys,
    rng: &mut ChaCha8Rng,
) -> Result<(), ()> {
    if matches!(g.decision().kind, DecisionKind::PlaceTile { .. }) {
        if deploys.passing != 0 && rng.random_range(0..100u32) < deploys.passing {
            return g.apply_passing_deploy(k).map_err(|_| ());
        }
        if deploys.tile_only {
            return g.apply_tile_deploy(k, rng.random::<u64>()).map_err(|_| ());
        }
    }
    g.apply_offered(k).map_err(|_| ())
}

/// Samples a chosen-draw decision by the number of copies of each offered tile left.
fn chance_draw(g: &mut Game, rng: &mut ChaCha8Rng) -> Result<(), ()> {
    let supply = g.state().supply();
    let weight = |a: &Action| -> u32 {
        match a {
            Action::Draw { tile } => supply.copies_left(*tile).max(1),
            _ => 1,
        }
    };
    let total: u32 = g.actions().iter().map(weight).sum();
    if total == 0 {
        return Err(());
    }
    let mut k = rng.random_range(0..total);
    let mut index = 0;
    for (i, a) in g.actions().iter().enumerate() {
        let w = weight(a);
        if k < w {
            index = i;
            break;
        }
        k -= w;
    }
    g.apply_offered(index).map_err(|_| ())
}

/// Score margin of each player over the best other player.
fn margins(g: &Game, out: &mut [f64]) {
    let players = g.state().players();
    for (i, m) in out.iter_mut().enumerate() {
        let mine = players[i].score;
        let best_other = players
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, p)| p.score)
            .max()
            .unwrap_or(mine);
        *m = f64::from(mine - best_other);
    }
}

/// The scores every player would end with if the game ended at this decision
/// ([`Game::end_now`] on a copy: unfinished features, farms and expansions' final bonuses
/// are scored; a question the end of the game asks is answered with its first offer).
/// This is how the search values the position where a playout stops.
pub fn scores_if_ended_now(game: &Game) -> Vec<i32> {
    end_copy_now(&mut game.clone())
}

/// [`scores_if_ended_now`] of the game `g` is a copy of, ending `g` itself (a search's
/// scratch copy, refilled before its first playout anyway).
fn end_copy_now(g: &mut Game) -> Vec<i32> {
    g.set_checkpoints(false);
    let _ = g.end_now();
    let mut guard = 0;
    while !g.is_over() && g.failure().is_none() && g.action_count() > 0 && guard < 64 {
        guard += 1;
        if g.apply_offered(0).is_err() {
            break;
        }
    }
    g.state().players().iter().map(|p| p.score).collect()
}

/// Each player's margin if the game ended at the position `g` is a copy of (what rewards
/// are measured from), ending `g` ([`end_copy_now`]).
fn baseline_margins(g: &mut Game) -> Vec<f64> {
    let scores = end_copy_now(g);
    (0..scores.len())
        .map(|i| {
            let best_other = (0..scores.len())
                .filter(|&j| j != i)
                .map(|j| scores[j])
                .max()
                .unwrap_or(scores[i]);
            f64::from(scores[i] - best_other)
        })
        .collect()
}

/// Score margin (over the best other player) that moves a reward from 0.5 to about 0.88.
const MARGIN_SCALE: f64 = 20.0;

/// Each player's reward for a finished (or stopped) playout: the gain in its margin over
/// the best other player since the root (the margins valued as if the game ended at either
/// point), squashed into [0, 1].
fn reward(g: &Game, baseline: &[f64], out: &mut [f64]) {
    margins(g, out);
    for (r, b) in out.iter_mut().zip(baseline) {
        *r = 0.5 + 0.5 * ((*r - b) / MARGIN_SCALE).tanh();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use carcassonne_core::{
        CustomAction, ExpansionIndex, FigureId, FigureKindId, Pos, Rotation, SegmentId, VerbId,
    };

    /// Placements (far cells too, whose keys are not exact), deployments, moves, a pass,
    /// draws and custom actions.
    fn actions() -> Vec<Action> {
        let mut out = Vec::new();
        for x in [-40_000, -3, 0, 5, 32_767, 32_768, 98_304] {
            for y in [-1, 0, 7, 65_536] {
                for q in 0..4 {
                    out.push(Action::Place {
                        pos: Pos { x, y },
                        rotation: Rotation::quarter_turns(q),
                    });
                }
            }
        }
        for f in [0u16, 1, 255, 256, 4_000] {
            for s in [0usize, 1, 17, 4_096] {
                let segment = SegmentId::new(s);
                if let Ok(k) = u8::try_from(f) {
                    out.push(Action::Deploy {
                        figure: FigureKindId(k),
                        segment,
                    });
                }
                out.push(Action::Move {
                    figure: FigureId(f),
                    segment,
                });
            }
        }
        out.push(Action::Pass);
        for value in -20i32..20 {
            for verb in 0..3 {
                out.push(Action::Custom(CustomAction {
                    expansion: ExpansionIndex(verb as u8),
                    verb: VerbId(verb),
                    figure: (value % 3 == 0).then_some(FigureId(value.unsigned_abs() as u16)),
                    segment: (value % 2 == 0)
                        .then(|| SegmentId::new(value.unsigned_abs() as usize)),
                    value,
                }));
            }
        }
        out
    }

    /// A node's table finds every child by its action and nothing else, as the children
    /// are added one by one (the table grows and is rebuilt on the way).
    #[test]
    fn children_are_found_by_their_actions() {
        let all = actions();
        let mut node = Node::new(None);
        for (i, a) in all.iter().enumerate() {
            if i % 2 == 0 {
                node.add_child(1000 + i as u32, *a);
            }
            for (j, b) in all.iter().enumerate() {
                let want = (j % 2 == 0 && j <= i).then_some(1000 + j as u32);
                assert_eq!(node.child(b), want, "after {i} additions: {b:?}");
            }
        }
        assert!(node.table.len() >= 2 * node.children.len());
        // A node with a child or two has no table: its children are compared.
        let mut small = Node::new(None);
        for (i, a) in all.iter().take(SCAN_CHILDREN).enumerate() {
            small.add_child(i as u32, *a);
            assert!(small.table.is_empty());
        }
    }

    /// The four-lane UCB1 picks the child one child at a time would: the first of the best
    /// scores, every score computed the same way (ties and lists of every length
    /// included).
    #[test]
    fn select_picks_the_first_best_child() {
        fn one_at_a_time(stats: &[Stat], legal: &[(u32, u32)], c: f64, ln: &[f64]) -> usize {
            let mut best = (0, f64::MIN);
            for (at, &(_, i)) in legal.iter().enumerate() {
                let n = &stats[i as usize];
                let v = f64::from(n.visits.max(1));
                let l = ln.get(n.avail.max(1) as usize).copied().unwrap_or(0.0);
                let score = n.reward / v + c * (l / v).sqrt();
                if score > best.1 {
                    best = (at, score);
                }
            }
            best.0
        }
        let ln: Vec<f64> = (0..64).map(|k| f64::from(k).ln()).collect();
        let mut x = 12345u64;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        for len in 0..40 {
            for _ in 0..50 {
                // Few distinct values, so that ties are common.
                let stats: Vec<Stat> = (0..len)
                    .map(|_| {
                        let visits = next(4) as u32;
                        Stat {
                            visits,
                            avail: visits + next(3) as u32,
                            reward: f64::from(visits) * next(3) as f64 / 2.0,
                        }
                    })
                    .collect();
                let legal: Vec<(u32, u32)> = (0..len as u32).map(|i| (i, i)).collect();
                assert_eq!(
                    select(&stats, &legal, 0.7, &ln),
                    one_at_a_time(&stats, &legal, 0.7, &ln),
                    "{len} children"
                );
            }
        }
    }

    /// An expanded action leaves the untried list at every index that offers it (an offer
    /// may list one action twice) and joins the expanded ones in offer order; indices
    /// already expanded stay where they are.
    #[test]
    fn an_expansion_moves_every_index_of_its_action() {
        let all = actions();
        let (a, b, c) = (all[0], all[1], all[2]);
        let offer = [a, b, a, c, b];
        let mut untried: Vec<u32> = (0..offer.len() as u32).collect();
        let mut expanded = Vec::new();
        expand(offer.iter().copied(), b, 7, &mut untried, &mut expanded);
        assert_eq!(
            (&untried, &expanded),
            (&vec![0, 2, 3], &vec![(1, 7), (4, 7)])
        );
        expand(offer.iter().copied(), a, 8, &mut untried, &mut expanded);
        assert_eq!(untried, vec![3]);
        assert_eq!(expanded, vec![(0, 8), (1, 7), (2, 8), (4, 7)]);
    }
}
