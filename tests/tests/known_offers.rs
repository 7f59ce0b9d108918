//! Offers a search already knows (issue 33): `Game::apply_to_known` applies an action and
//! takes the offer of the deployment step or list prompt it leads to, if no random number
//! was drawn on the way, and `Game::apply_known` gives it back to another copy of the same
//! position, reseeded, that plays the same action. That copy must wait on the same decision
//! with the same offer and go on as the first; given with another action, the offer must be
//! ignored and the decision listed as usual.

use carcassonne_core::{DecisionKind, Ruleset};
use carcassonne_tests::copies::{assert_same_position, each_decision, every_official, finish};
use carcassonne_tests::{official_and_fan_rules as rules, NINE_OFFICIAL};
use std::sync::Arc;

/// What the walk over a few games found.
#[derive(Default, Debug)]
struct Compared {
    /// Deployment steps given back and compared.
    deploys: u32,
    /// Prompts given back and compared.
    prompts: u32,
    /// Known offers given to another placement's step, ignored as they must be.
    ignored: u32,
}

/// At every decision of a few random games, each of the first offered actions is played
/// on a reseeded copy; where it leads to a decision with a known offer, a second copy
/// reseeded otherwise is given that offer back and must reach the same position, and the
/// same game to its end. The first action's offer, given with another action (a placement
/// at another cell or rotation), must leave that action's decision listed as usual.
fn given_back_plays_as_listed(rules: &Arc<Ruleset>, seeds: std::ops::Range<u64>) -> Compared {
    let mut seen = Compared::default();
    for seed in seeds {
        each_decision(rules, seed, |g| {
            // A game in progress has drawn numbers: reseeded, its copies play alike.
            let mut root = g.clone();
            root.reseed(seed ^ 0x5eed);
            // The first known offer, to give to the steps of the other actions.
            let mut first: Option<carcassonne_core::KnownOffer> = None;
            for k in 0..root.action_count().min(3) {
                let mut listed = root.clone();
                let known = listed.apply_to_known(k).expect("the action applies");
                // Another action's step given the first one's offer: its own listing.
                if let Some(other) = &first {
                    let mut wrong = root.clone();
                    wrong.apply_known(k, other).expect("the action applies");
                    assert_same_position(&wrong, &listed, seed);
                    let is_step = matches!(listed.decision().kind, DecisionKind::Deploy { .. });
                    if is_step && other.actions() != listed.actions() {
                        seen.ignored += 1;
                    }
                }
                let Some(known) = known else {
                    continue;
                };
                assert_eq!(known.actions(), listed.actions(), "seed {seed}");
                let mut given = root.clone();
                given.reseed(seed ^ 0xbead);
                given.apply_known(k, &known).expect("the action applies");
                assert_same_position(&given, &listed, seed);
                match listed.decision().kind {
                    DecisionKind::Deploy { .. } => seen.deploys += 1,
                    _ => seen.prompts += 1,
                }
                first.get_or_insert(known);
                // The rest of the game, the same draws and random choices on both copies.
                if k == 0 {
                    let rest = seed ^ u64::from(g.state().turn()) << 32;
                    listed.reseed(rest);
                    given.reseed(rest);
                    assert_eq!(finish(given, rest), finish(listed, rest), "seed {seed}");
                }
            }
            true
        });
    }
    seen
}

#[test]
fn a_known_deployment_step_plays_as_listed_in_the_base_game() {
    let seen = given_back_plays_as_listed(&rules(&[], &[]), 0..3);
    assert!(seen.deploys > 200, "{seen:?}");
    assert!(seen.ignored > 50, "{seen:?}");
}

/// The Tower's ransom asked at the start of a turn, the dragon's steps and the Count's
/// prompts are list prompts reached without chance.
#[test]
fn known_steps_and_prompts_play_as_listed_with_the_nine() {
    let seen = given_back_plays_as_listed(&rules(&NINE_OFFICIAL, &[]), 0..1);
    assert!(seen.deploys > 300, "{seen:?}");
    assert!(seen.prompts > 20, "{seen:?}");
    assert!(seen.ignored > 50, "{seen:?}");
}

#[test]
fn known_steps_and_prompts_play_as_listed_with_every_official_set() {
    let seen = given_back_plays_as_listed(&rules(&every_official(), &[]), 0..1);
    assert!(seen.deploys > 300, "{seen:?}");
    assert!(seen.prompts > 20, "{seen:?}");
}

/// A tile step's offer is not a list, and a game that has drawn numbers since it was
/// seeded may reach another position in another copy: neither is known.
#[test]
fn tile_steps_and_touched_games_have_no_known_offer() {
    let rules = rules(&NINE_OFFICIAL, &[]);
    let (mut steps, mut tiles) = (0, 0);
    each_decision(&rules, 3, |g| {
        if !matches!(g.decision().kind, DecisionKind::PlaceTile { .. }) {
            return true;
        }
        // The game as it stands has drawn its tiles: nothing after it is known.
        let mut touched = g.clone();
        assert!(!touched.generator_untouched());
        let known = touched.apply_to_known(0).expect("the placement applies");
        assert!(known.is_none());
        // Reseeded, the placement's step is known; passing it leads to the next draw and
        // the next tile step, which is not.
        let mut fresh = g.clone();
        fresh.reseed(1);
        let known = fresh.apply_to_known(0).expect("the placement applies");
        if matches!(fresh.decision().kind, DecisionKind::Deploy { .. }) {
            assert!(known.is_some());
            steps += 1;
            let pass = fresh
                .actions()
                .iter()
                .position(|a| *a == carcassonne_core::Action::Pass)
                .expect("a step offers the pass");
            let next = fresh.apply_to_known(pass).expect("the pass applies");
            if matches!(fresh.decision().kind, DecisionKind::PlaceTile { .. }) {
                assert!(next.is_none());
                tiles += 1;
            }
        }
        tiles < 20
    });
    assert!(
        steps >= 20 && tiles >= 20,
        "{steps} steps, {tiles} tile steps after them"
    );
}

/// A search keeps the offers of the deployment steps and prompts its tree reaches without
/// chance and gives them back at later visits: in a debug build each one given back is
/// checked against the listing (`offer_known`). Forty decisions of a nine-expansion game,
/// every kind the game has by then, at 100 playouts each.
#[test]
fn a_search_with_the_nine_gives_back_the_listed_offers() {
    let rules = rules(&NINE_OFFICIAL, &[]);
    let names = vec!["A".to_string(), "B".to_string()];
    let setup = carcassonne_core::GameSetup::new(names, 11);
    let mut g = carcassonne_core::Game::new(rules, &setup).expect("game");
    let mut bot = carcassonne_play::bots::make_bot("mcts:100", 11).expect("bot");
    let mut kinds = std::collections::BTreeSet::new();
    for _ in 0..40 {
        kinds.insert(match g.decision().kind {
            DecisionKind::PlaceTile { .. } => "tile",
            DecisionKind::Deploy { .. } => "deploy",
            DecisionKind::Prompt(_) => "prompt",
            _ => "other",
        });
        let i = bot.choose(&g);
        g.apply_offered(i).expect("the bot's choice applies");
    }
    assert!(
        kinds.len() >= 3,
        "tile steps, deployment steps and prompts: {kinds:?}"
    );
}
