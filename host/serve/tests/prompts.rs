//! Every shipped expansion's decisions in words (issue 32, clarity): seeded games of each
//! native plugin and each fan script, alone, with what the page shows at every decision
//! (`view::ask`) checked: a sentence of the expansion's own words, never a placeholder, a
//! raw key or an id in backquotes; and every prompt an expansion asks is met and named.
//! The sentences met are printed, so `cargo test -p carcassonne-serve --test prompts --
//! --nocapture` lists what a player reads for each set.

use carcassonne_core::{Action, DecisionKind, Game, GameSetup};
use carcassonne_rules::{build_ruleset, RulesSpec};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn fan_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fan-expansions")
}

/// Each shipped set, with what it needs to play.
const SETS: &[&[&str]] = &[
    &["count"],
    &["king-robber"],
    &["river"],
    &["river2"],
    &["heretics-shrines"],
    &["inns-cathedrals"],
    &["traders-builders"],
    &["abbey-mayor"],
    &["princess-dragon"],
    &["tower"],
    &["abbot-garden"],
    &["hills-sheep"],
    &["bridges-castles-bazaars"],
    &["big-top"],
    &["tactician"],
    &["promotions"],
    &["courier"],
    &["fishermen", "river"],
    &["village-life"],
    &["wells", "abbey-mayor"],
    &["obelisk"],
    &["decinsky-sneznik"],
];

/// Sets whose rules ask questions of their own (prompts): each must be met and named.
const ASKING: &[&str] = &[
    "count",
    "tower",
    "princess-dragon",
    "abbey-mayor",
    "hills-sheep",
    "bridges-castles-bazaars",
    "tactician",
    "village-life",
];

#[test]
fn every_decision_of_every_shipped_set_is_in_words() {
    for set in SETS {
        let rules = build_ruleset(&RulesSpec {
            expansions: set.iter().map(|s| s.to_string()).collect(),
            options: Vec::new(),
            plugin_dirs: vec![fan_dir()],
        })
        .unwrap_or_else(|e| panic!("{set:?}: {e}"));
        let mut met = BTreeSet::new();
        let mut asked_by = BTreeSet::new();
        for seed in 1..=4u64 {
            let mut game = Game::new(
                Arc::clone(&rules),
                &GameSetup::new(vec!["Ann".into(), "Ben".into()], seed),
            )
            .unwrap();
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            while !game.is_over() {
                let ask = carcassonne_serve::view::ask(&game);
                let text = ask["text"].as_str().unwrap_or_default().to_string();
                let who = ask["who"].as_str().unwrap_or_default();
                assert!(who == "Ann" || who == "Ben", "{set:?}: who is `{who}`");
                assert!(!text.is_empty(), "{set:?}: an empty question");
                assert!(
                    text.chars().next().is_some_and(char::is_uppercase),
                    "{set:?}: `{text}`"
                );
                for bad in [
                    "`",
                    "prompt of",
                    "expansion",
                    "_",
                    "{",
                    "}",
                    " a a",
                    " a e",
                    " a i",
                    " a o",
                    " a u",
                ] {
                    assert!(!text.contains(bad), "{set:?}: `{text}` has `{bad}`");
                }
                if let DecisionKind::Prompt(p) = game.decision().kind {
                    let owner = rules.expansions()[p.owner.0 as usize].id().to_string();
                    assert_eq!(ask["step"], "prompt");
                    assert_eq!(ask["expansion"].as_str(), Some(owner.as_str()));
                    // Every shipped expansion puts its questions in words.
                    assert!(
                        rules.prompt_text(p).is_some(),
                        "{set:?}: a prompt of `{owner}` (tag {}) has no words",
                        p.code().tag
                    );
                    asked_by.insert(owner);
                }
                met.insert(format!("{}: {text}", ask["step"].as_str().unwrap_or("?")));
                // No choice ends in a bare number (an encoded value a player cannot read).
                for a in carcassonne_serve::view::actions(&game) {
                    let t = a["text"].as_str().unwrap_or_default();
                    let bare = t.rsplit_once(": ").or_else(|| t.rsplit_once(", "));
                    assert!(
                        bare.is_none_or(|(_, last)| last.parse::<i64>().is_err()),
                        "{set:?}: choice `{t}` ends in a bare number"
                    );
                }
                // Every shipped verb declares the words players read for it.
                for a in game.actions() {
                    if let Action::Custom(c) = a {
                        assert!(
                            rules.verb_text(c.verb).is_some(),
                            "{set:?}: verb `{}` has no words",
                            rules.verbs()[c.verb.0 as usize].1
                        );
                    }
                }
                // Play on, preferring anything but passing so that prompts come up.
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let actions = game.actions();
                let others: Vec<usize> = (0..actions.len())
                    .filter(|&i| actions[i] != Action::Pass)
                    .collect();
                let i = match others.len() {
                    0 => 0,
                    n if x % 4 != 0 => others[(x / 4 % n as u64) as usize],
                    _ => (x % actions.len() as u64) as usize,
                };
                game.apply_offered(i).unwrap();
            }
            assert!(carcassonne_serve::view::ask(&game).is_null());
        }
        let name = set[0];
        println!("{name}:");
        for m in &met {
            println!("  {m}");
        }
        if ASKING.contains(&name) {
            assert!(
                asked_by.contains(name),
                "{name} asked nothing in 4 games: its prompts went untested"
            );
        }
    }
}
