//! Draws by chance asked as prompts (`Declare::verb_by_chance`): under `tokenDraws=chosen`
//! (the option JCZ saves need, which `simulate --jcz` sets) the Big Top's reveals and Hills &
//! Sheep's bag are decisions a replay answers, and the bazaar's shown tiles under
//! `bazaarDraws=chosen`. A bot must not pick the outcome it likes best: every bot samples
//! them, one outcome per token, a shown tile as likely as its kind's copies left.

use carcassonne_core::{Action, DecisionKind, Game, GameSetup, Ruleset};
use carcassonne_play::bots::{make_bot, Bot};
use carcassonne_tests::official_rules;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Plays `seed`'s game with random bots until a draw by chance is pending (or the end).
fn until_chance(rules: &Arc<Ruleset>, seed: u64) -> Option<Game> {
    let setup = GameSetup::new(vec!["A".into(), "B".into()], seed);
    let mut g = Game::new(Arc::clone(rules), &setup).expect("game");
    let mut bots: Vec<Box<dyn Bot>> = (0..2)
        .map(|i| make_bot("random", seed ^ (i + 7)).expect("bot"))
        .collect();
    while !g.is_over() {
        if g.is_chance() {
            return Some(g);
        }
        let who = g.decision().player.index();
        let i = bots[who].choose(&g);
        g.apply_offered(i).expect("a bot's action is legal");
    }
    None
}

/// The first game among `seeds` that reaches a draw by chance.
fn a_chance_prompt(rules: &Arc<Ruleset>) -> Game {
    (0..40)
        .find_map(|s| until_chance(rules, s))
        .expect("some game reaches a draw by chance")
}

/// The Big Top's reveal under `tokenDraws=chosen` (BT-2, BT-17): one outcome per token in
/// the bag, weight 1 each; every bot, the greedy and the tree search too, samples them, so
/// that across seeds they reveal different tokens (a bot choosing would always take the
/// same best one).
#[test]
fn every_bot_samples_the_big_top_reveal() {
    let rules = official_rules(&["big-top"], &[("big-top.tokenDraws", "chosen")]);
    let g = a_chance_prompt(&rules);
    assert!(matches!(g.decision().kind, DecisionKind::Prompt(_)));
    let mut outcomes = Vec::new();
    g.chance_outcomes(&mut outcomes);
    assert!(outcomes.len() > 1, "{outcomes:?}");
    assert!(outcomes.iter().all(|(_, w)| *w == 1));
    let draws: BTreeSet<usize> = outcomes.iter().map(|(i, _)| *i).collect();
    for bot in ["random", "greedy", "mcts:30"] {
        let picks: BTreeSet<usize> = (0..24)
            .map(|seed| make_bot(bot, seed).expect("bot").choose(&g))
            .collect();
        assert!(picks.is_subset(&draws), "{bot} took a non-outcome");
        assert!(picks.len() > 1, "{bot} always revealed the same token");
    }
}

/// Hills & Sheep's bag under `tokenDraws=chosen` (HL-9): the same, one outcome per token.
#[test]
fn the_bag_of_sheep_is_sampled() {
    let rules = official_rules(&["hills-sheep"], &[("hills-sheep.tokenDraws", "chosen")]);
    let g = a_chance_prompt(&rules);
    let mut outcomes = Vec::new();
    g.chance_outcomes(&mut outcomes);
    assert!(outcomes.len() > 1 && outcomes.iter().all(|(_, w)| *w == 1));
    let picks: BTreeSet<usize> = (0..24)
        .map(|seed| make_bot("greedy", seed).expect("bot").choose(&g))
        .collect();
    assert!(picks.len() > 1);
}

/// The bazaar's shown tiles under `bazaarDraws=chosen` (BCB-13): one outcome per tile kind
/// the stack still holds, weighted by its copies left.
#[test]
fn a_shown_tile_is_as_likely_as_its_copies() {
    let rules = official_rules(
        &["bridges-castles-bazaars"],
        &[
            ("bridges-castles-bazaars.bazaarDraws", "chosen"),
            ("bridges-castles-bazaars.bazaars", "true"),
        ],
    );
    let g = a_chance_prompt(&rules);
    let mut outcomes = Vec::new();
    g.chance_outcomes(&mut outcomes);
    let supply = g.state().supply();
    let mut total = 0;
    for (i, w) in &outcomes {
        let Action::Custom(c) = g.actions()[*i] else {
            panic!("an outcome is a custom action");
        };
        let copies = supply
            .groups
            .iter()
            .filter(|gr| gr.active)
            .flat_map(|gr| gr.tiles.iter())
            .filter(|t| i32::from(t.0) == c.value)
            .count() as u32;
        assert_eq!(*w, copies.max(1), "tile kind {}", c.value);
        total += w;
    }
    assert!(outcomes.len() > 1 && total as usize >= outcomes.len());
    // The draw follows the weights: a roll past the first outcome's weight is not it.
    let first = outcomes[0];
    assert_eq!(g.chance_pick(|_| 0), Some(first.0));
    assert_ne!(g.chance_pick(|_| first.1), Some(first.0));
}

/// Without such a verb nothing is a draw by chance: the check costs bots nothing.
#[test]
fn the_base_game_has_no_draw_by_chance() {
    let rules = official_rules(&[], &[]);
    assert!(!rules.has_chance_verbs());
    assert!(until_chance(&rules, 1).is_none());
}
