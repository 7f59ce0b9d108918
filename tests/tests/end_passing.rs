//! A search's valuation that passes the end's questions unlisted (issue 33):
//! `Game::end_now_passing` ends the game as `Game::end_now` does, but answers each prompt of
//! the end whose expansion offers the pass there (the Count's final round, CO-18) with that
//! pass, without listing the prompt. The game must end exactly as if every such prompt had
//! been passed from its listed offer; a prompt of any other expansion (the Big Top's last
//! token, BT-2 under `tokenDraws=chosen`) is asked as usual, and a prompt filter that does
//! not promise to keep the pass (a fan script's) keeps every prompt of the end listed.

use carcassonne_core::{Action, DecisionKind, Game, Ruleset};
use carcassonne_tests::copies::{assert_same_position, each_decision, every_official};
use carcassonne_tests::{expansions_dir, official_and_fan_rules as rules, NINE_OFFICIAL};
use std::path::PathBuf;
use std::sync::Arc;

/// Whether `g` waits on a prompt that `end_now_passing` would have passed unlisted.
fn passable_prompt(g: &Game) -> bool {
    !g.is_over()
        && matches!(g.decision().kind, DecisionKind::Prompt(p) if g.rules().passes_at_end(p.owner))
}

/// Ends copies of `g` both ways and plays them side by side: the listed copy passes each
/// passable prompt from its offer (which must hold the pass); any other decision is answered
/// alike on both with its first action. They must wait on the same decisions and end with
/// the same scores, figures and score events. Returns how many prompts were passed.
fn end_both_ways(g: &Game, seed: u64) -> u32 {
    let mut passing = g.clone();
    passing.end_now_passing().expect("the end runs");
    let mut listed = g.clone();
    listed.end_now().expect("the end runs");
    let mut passed = 0;
    loop {
        while passable_prompt(&listed) {
            let at = listed
                .actions()
                .iter()
                .position(|a| *a == Action::Pass)
                .unwrap_or_else(|| panic!("seed {seed}: a passable prompt offers the pass"));
            listed.apply_offered(at).expect("the pass applies");
            passed += 1;
        }
        assert_same_position(&passing, &listed, seed);
        assert!(!passable_prompt(&passing), "seed {seed}: passed, not asked");
        if passing.is_over() {
            break;
        }
        passing.apply_offered(0).expect("the first offer applies");
        listed.apply_offered(0).expect("the first offer applies");
    }
    // Scores, supplies and every other public count of each player.
    assert_eq!(
        passing.state().players(),
        listed.state().players(),
        "seed {seed}"
    );
    assert_eq!(
        passing.state().events(),
        listed.state().events(),
        "seed {seed}"
    );
    passed
}

/// At every `every`-th decision of random games of `rules` (`seeds`), the game ended passing
/// the end's prompts ends as the game ended passing them from their listed offers; returns
/// how many positions passed at least one prompt.
fn passing_ends_as_listed(rules: &Arc<Ruleset>, seeds: std::ops::Range<u64>, every: u32) -> u32 {
    let mut positions = 0;
    for seed in seeds {
        let mut decision = 0u32;
        each_decision(rules, seed, |g| {
            decision += 1;
            if decision.is_multiple_of(every) && end_both_ways(g, seed) > 0 {
                positions += 1;
            }
            true
        });
    }
    positions
}

/// The Count's index in `rules`.
fn count_index(rules: &Ruleset) -> carcassonne_core::ExpansionIndex {
    let i = rules
        .expansions()
        .iter()
        .position(|e| e.id() == "count")
        .expect("the Count is loaded");
    carcassonne_core::ExpansionIndex(i as u8)
}

/// CO-18: the Count's final round, passed unlisted, ends the game as every player passing.
#[test]
fn the_counts_final_round_passed_unlisted_ends_as_passed_from_its_offers() {
    let rules = rules(&["count"], &[]);
    assert!(rules.passes_at_end(count_index(&rules)));
    let n = passing_ends_as_listed(&rules, 0..10, 1);
    assert!(n > 40, "{n} positions passed a final prompt");
}

/// With the nine: the Abbey & Mayor's (AM-23) and the dragon's (PD-5) prompt filters keep
/// the pass, so the Count's final round is still passed unlisted.
#[test]
fn the_final_round_is_passed_unlisted_with_the_nine() {
    let rules = rules(&NINE_OFFICIAL, &[]);
    assert!(rules.passes_at_end(count_index(&rules)));
    let n = passing_ends_as_listed(&rules, 0..1, 5);
    assert!(n > 10, "{n} positions passed a final prompt");
}

/// Every official set, the Big Top drawing its tokens by choice: its last token (BT-2) is
/// a chance prompt without a pass, asked as usual, while the Count's prompts are passed.
#[test]
fn another_expansions_end_prompt_is_asked_as_usual() {
    let rules = rules(&every_official(), &[("big-top.tokenDraws", "chosen")]);
    assert!(rules.passes_at_end(count_index(&rules)));
    let big_top = rules
        .expansions()
        .iter()
        .position(|e| e.id() == "big-top")
        .expect("the Big Top is loaded");
    assert!(!rules.passes_at_end(carcassonne_core::ExpansionIndex(big_top as u8)));
    let mut asked = 0;
    let mut decision = 0u32;
    each_decision(&rules, 2, |g| {
        decision += 1;
        if decision.is_multiple_of(5) {
            end_both_ways(g, 2);
            let mut ended = g.clone();
            ended.end_now_passing().expect("the end runs");
            if let DecisionKind::Prompt(p) = ended.decision().kind {
                assert_eq!(p.owner.0 as usize, big_top, "only the Big Top asks");
                asked += 1;
            }
        }
        true
    });
    assert!(asked > 5, "{asked} positions asked the last token");
}

/// A directory holding one fan script, `prompt-filter`, whose prompt filter keeps every
/// action but does not promise so.
fn script_with_a_prompt_filter() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("end-passing-{}", std::process::id()));
    let script = dir.join("prompt-filter");
    std::fs::create_dir_all(&script).expect("temporary directory");
    std::fs::write(
        script.join("expansion.toml"),
        "[expansion]\nid = \"prompt-filter\"\nname = \"Prompt filter\"\nversion = \"1.0.0\"\n\
         api = \"1.3\"\nkind = \"script\"\nentry = \"filter.rhai\"\n\
         description = \"A prompt filter that keeps everything.\"\n",
    )
    .expect("manifest");
    std::fs::write(
        script.join("filter.rhai"),
        "fn filter_prompt_actions(player, owner, actions) { actions }\n",
    )
    .expect("script");
    dir
}

/// A fan script's prompt filter says nothing about the pass: with one, every prompt of the
/// end is listed, and `end_now_passing` waits where `end_now` does.
#[test]
fn a_script_prompt_filter_keeps_the_end_listed() {
    let dir = script_with_a_prompt_filter();
    let rules = carcassonne_rules::build_ruleset(&carcassonne_rules::RulesSpec {
        expansions: vec!["count".into(), "prompt-filter".into()],
        options: Default::default(),
        plugin_dirs: vec![expansions_dir(), dir.clone()],
    })
    .unwrap_or_else(|e| panic!("the Count and the script load: {e}"));
    assert!(!rules.passes_at_end(count_index(&rules)));
    let mut asked = 0;
    for seed in 0..10 {
        each_decision(&rules, seed, |g| {
            let mut passing = g.clone();
            passing.end_now_passing().expect("the end runs");
            let mut ended = g.clone();
            ended.end_now().expect("the end runs");
            assert_same_position(&passing, &ended, seed);
            asked += u32::from(!ended.is_over());
            true
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(asked > 40, "{asked} positions asked a final prompt");
}
