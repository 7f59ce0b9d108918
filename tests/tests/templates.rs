//! `GameTemplate`: a set-up made once and copied for every seed (what `simulate` and `arena`
//! use) starts exactly the game `Game::new` starts, with every expansion mix, and sets up
//! afresh when the set-up draws from the game's random generator.

use carcassonne_core::{Action, Game, GameSetup, GameTemplate, Ruleset, SlotId};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::{expansions_dir, fan_expansions_dir};
use std::path::PathBuf;
use std::sync::Arc;

const SIX: &str = "count,king-robber,river2,heretics-shrines,inns-cathedrals,traders-builders";
const NINE_FAN: &str = "count,king-robber,river2,heretics-shrines,inns-cathedrals,\
traders-builders,princess-dragon,tower,abbey-mayor,tactician,promotions";

fn rules(expansions: &str, extra_dir: Option<PathBuf>) -> Arc<Ruleset> {
    let mut plugin_dirs = vec![expansions_dir(), fan_expansions_dir()];
    plugin_dirs.extend(extra_dir);
    build_ruleset(&RulesSpec {
        plugin_dirs,
        expansions: expansions
            .split(',')
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .collect(),
        options: vec![],
    })
    .unwrap_or_else(|e| panic!("{expansions}: {e}"))
}

fn names(players: usize) -> Vec<String> {
    (0..players).map(|i| format!("P{}", i + 1)).collect()
}

/// Plays a game to its end with a random bot; the final state (as text) and the actions.
fn play_out(mut game: Game, seed: u64) -> (String, Vec<Action>) {
    game.set_checkpoints(false);
    let mut bot = RandomBot::new(seed);
    let mut taken = Vec::new();
    while !game.is_over() {
        let i = bot.choose(&game);
        taken.push(game.play_offered(i).expect("an offered action applies"));
    }
    (format!("{:?}", game.state()), taken)
}

/// The same game both ways: identical at the first decision and after every action.
fn assert_same_games(rules: &Arc<Ruleset>, label: &str, seeds: std::ops::Range<u64>) {
    for players in 2..=6 {
        let template = GameTemplate::new(Arc::clone(rules), &GameSetup::new(names(players), 0))
            .expect("the set-up works");
        for seed in seeds.clone() {
            let new = Game::new(Arc::clone(rules), &GameSetup::new(names(players), seed))
                .expect("a game starts");
            let copied = template.game(seed).expect("a game starts");
            assert_eq!(
                format!("{:?}", new.state()),
                format!("{:?}", copied.state()),
                "{label}, {players} players, seed {seed}: different first decision"
            );
            assert!(
                play_out(new, seed) == play_out(copied, seed),
                "{label}, {players} players, seed {seed}: the games differ"
            );
        }
    }
}

#[test]
fn templated_games_are_the_games_new_starts() {
    assert_same_games(&rules("", None), "base game", 0..6);
    // The Count (13 start tiles) and River II (the spring) lay out their own starts.
    assert_same_games(&rules(SIX, None), "six official", 0..3);
    assert_same_games(&rules(NINE_FAN, None), "nine + fan scripts", 0..2);
}

#[test]
fn a_set_up_that_draws_random_numbers_is_made_per_game() {
    // A script whose `start_game` draws a number and keeps it: the set-up depends on the
    // seed, so the template must not copy one game's set-up into another's.
    let dir = std::env::temp_dir().join(format!("carcassonne-template-{}", std::process::id()));
    let exp = dir.join("dice");
    std::fs::create_dir_all(&exp).expect("temp dir");
    std::fs::write(
        exp.join("expansion.toml"),
        r#"[expansion]
id = "dice"
name = "Dice at set-up"
version = "1.0.0"
api = "1.0"
kind = "script"
entry = "dice.rhai"
description = "A number drawn when the game starts."

[dependencies]
requires = [{ id = "base", version = ">=0.1" }]
"#,
    )
    .expect("manifest");
    std::fs::write(
        exp.join("dice.rhai"),
        "fn setup() { declare_state(\"roll\", \"game\", 0); }\n\
         fn start_game() { set_state(\"roll\", random(1000000)); }\n",
    )
    .expect("script");
    let rules = rules("dice", Some(dir.clone()));
    let template =
        GameTemplate::new(Arc::clone(&rules), &GameSetup::new(names(2), 0)).expect("set-up");
    let mut rolls = std::collections::BTreeSet::new();
    for seed in 0..8 {
        let new = Game::new(Arc::clone(&rules), &GameSetup::new(names(2), seed)).expect("game");
        let copied = template.game(seed).expect("game");
        assert_eq!(
            format!("{:?}", new.state()),
            format!("{:?}", copied.state()),
            "seed {seed}"
        );
        let roll = rules
            .slots()
            .iter()
            .position(|d| d.name == "roll")
            .expect("the script declared its slot");
        rolls.insert(copied.state().slot(SlotId(roll as u16), 0));
    }
    assert!(
        rolls.len() > 1,
        "every game rolled the same number: {rolls:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
