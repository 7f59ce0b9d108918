//! A free action taken between two of our steps that JCloisterZone sends as one message (the
//! Tower's ransom, TW-13, paid between the choice of a bazaar tile and the opening bid,
//! BCB-14: JCZ's one `BAZAAR_BID {supplyIndex, price}`) has no moment in JCZ's order. Our
//! rules allow it ("at any moment at which the game waits for a decision of his"), so the
//! game is kept, and the JCZ writer refuses it by name. Found by the round-trip soak (an
//! official mix, seed 719), where the writer wrote the bid as a second `BAZAAR_BID` and the
//! check failed with "it is P1's decision". The same game with the ransom paid before the
//! choice of tile is written and read back unchanged.

use carcassonne_core::{Action, Game, GameSetup, Ruleset};
use carcassonne_play::record::Record;
use carcassonne_tests::{expansions_dir, official_rules};
use std::sync::Arc;

const SETS: [&str; 2] = ["tower", "bridges-castles-bazaars"];

fn rules() -> Arc<Ruleset> {
    let sets: Vec<String> = SETS.iter().map(|s| s.to_string()).collect();
    let options = carcassonne_jcz::export::jcz_options(&sets, &[expansions_dir()]).unwrap();
    let options: Vec<(&str, &str)> = options
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    official_rules(&SETS, &options)
}

/// The verb of a custom action, by name.
fn verb(g: &Game, a: &Action) -> Option<String> {
    let Action::Custom(c) = a else { return None };
    let (_, name) = g.rules().verbs().get(c.verb.0 as usize)?;
    Some(name.to_string())
}

fn offered_verb(g: &Game, name: &str) -> Option<Action> {
    g.actions()
        .iter()
        .copied()
        .find(|a| verb(g, a).as_deref() == Some(name))
}

/// Plays a game that captures whenever it can and pays no ransom, until an auctioneer who
/// may pay a ransom is asked to choose a bazaar tile; then, with `ransom_first`, pays it and
/// chooses, else chooses, pays it and bids. Returns the record, or `None` if the game never
/// got there.
fn game(rules: &Arc<Ruleset>, seed: u64, ransom_first: bool) -> Option<Record> {
    let setup = GameSetup::new(vec!["A".into(), "B".into(), "C".into()], seed);
    let mut g = Game::new(Arc::clone(rules), &setup).expect("game");
    let mut actions = Vec::new();
    let mut pick = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let apply = |g: &mut Game, a: Action, actions: &mut Vec<Action>| {
        g.apply(a).expect("an offered action is legal");
        actions.push(a);
    };
    while !g.is_over() {
        let choose = offered_verb(&g, "choose-tile");
        if let (Some(choose), Some(ransom)) = (choose, offered_verb(&g, "pay-ransom")) {
            if ransom_first {
                apply(&mut g, ransom, &mut actions);
                let choose = offered_verb(&g, "choose-tile").expect("still choosing");
                apply(&mut g, choose, &mut actions);
            } else {
                apply(&mut g, choose, &mut actions);
                let ransom = offered_verb(&g, "pay-ransom").expect("offered beside the bid");
                apply(&mut g, ransom, &mut actions);
            }
            let bid = offered_verb(&g, "bid").expect("the opening bid");
            apply(&mut g, bid, &mut actions);
            return Some(Record::with_setup(&g, &setup, &actions).expect("records"));
        }
        let a = if let Some(capture) = offered_verb(&g, "capture") {
            capture
        } else {
            let offer: Vec<Action> = g
                .actions()
                .iter()
                .copied()
                .filter(|a| verb(&g, a).as_deref() != Some("pay-ransom"))
                .collect();
            pick = pick
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            offer[(pick >> 33) as usize % offer.len()]
        };
        apply(&mut g, a, &mut actions);
    }
    None
}

#[test]
fn a_ransom_between_the_choice_of_a_bazaar_tile_and_the_bid_is_refused_by_name() {
    let rules = rules();
    let dirs = [expansions_dir()];
    let (seed, inside) = (0..60)
        .find_map(|s| game(&rules, s, false).map(|r| (s, r)))
        .expect("some game reaches a bazaar whose auctioneer may pay a ransom");
    let Err(err) = carcassonne_jcz::export::export(&inside, "inside", &dirs) else {
        panic!("seed {seed}: the save was written");
    };
    let err = err.to_string();
    assert!(
        err.contains("`PAY_RANSOM` taken between two parts of JCZ's one `BAZAAR_BID` message")
            && err.contains("supplyIndex"),
        "seed {seed}: {err}"
    );
    // The same moment with the ransom paid before the choice: one `BAZAAR_BID`, read back
    // as this game (the writer's own check).
    let before = game(&rules, seed, true).expect("the same game reaches the same bazaar");
    let saved = carcassonne_jcz::export::export(&before, "before", &dirs).expect("written");
    let messages = saved.save["replay"].as_array().unwrap();
    let types: Vec<&str> = messages.iter().filter_map(|m| m["type"].as_str()).collect();
    let n = types.len();
    assert_eq!(types[n - 2..], ["PAY_RANSOM", "BAZAAR_BID"], "seed {seed}");
    let bid = &messages[n - 1]["payload"];
    assert!(
        bid["supplyIndex"].is_number() && bid["price"].is_number(),
        "{bid}"
    );
}
