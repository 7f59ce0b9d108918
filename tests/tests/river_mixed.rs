//! River I (`docs/rules/river.md`) in seeded games of random and greedy bots, alone, with
//! River II (R1-9: one river) and with every other official expansion and both fan scripts,
//! River I's and River II's options varied, 2–6 players. Checked by
//! [`play_checked`]: after every action figures conserved, occupancy exact, scores monotone
//! and equal to the events (and every expansion's own checks); at the end every tile placed,
//! discarded or held back, edges matching, the river one tree from the spring (R1-4, RV-6);
//! every record replays to the identical game. Also: every game starts with the spring and
//! its river tiles come before any other tile (R1-2, R1-3).

use carcassonne_core::{DecisionKind, Game, GameSetup, Ruleset};
use carcassonne_play::bots::{make_bot, Bot};
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::mixed::play_checked;
use carcassonne_tests::{expansions_dir, fan_expansions_dir};
use std::sync::Arc;

/// The mixes: River I alone, with River II, with the *Count, King & Robber* parts, and with
/// every official expansion and both fan scripts.
const MIXES: &[&[&str]] = &[
    &["river"],
    &["river", "river2"],
    &["river", "count", "king-robber", "heretics-shrines"],
    &[
        "river",
        "river2",
        "count",
        "king-robber",
        "heretics-shrines",
        "inns-cathedrals",
        "traders-builders",
        "princess-dragon",
        "tower",
        "abbey-mayor",
        "tactician",
        "promotions",
    ],
];

/// Option sets the games cycle through (defaults first); each names only River options, so
/// it fits every mix (River II's are set only where River II is loaded).
const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[],
    &[("river.riverLookahead", "true")],
    &[("river.riverPlacement", "fcz")],
    &[
        ("river2.riverLakes", "per-branch"),
        ("river2.riverPlacement", "fcz"),
        ("river2.riverEnds", "both-last"),
    ],
    &[
        ("river2.riverLookahead", "true"),
        ("river2.volcanoExtraTile", "true"),
    ],
];

fn rules(mix: &[&str], set: usize) -> Arc<Ruleset> {
    let with_river2 = mix.contains(&"river2");
    build_ruleset(&RulesSpec {
        expansions: mix.iter().map(|s| s.to_string()).collect(),
        options: OPTION_SETS[set]
            .iter()
            .filter(|(k, _)| with_river2 || !k.starts_with("river2."))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        plugin_dirs: vec![expansions_dir(), fan_expansions_dir()],
    })
    .unwrap_or_else(|e| panic!("{mix:?} with option set {set} loads: {e}"))
}

/// R1-2, R1-3: the game starts with the spring, and the first draws are river tiles.
fn check_river_first(rules: &Arc<Ruleset>, setup: &GameSetup, ctx: &str) {
    let g = Game::new(Arc::clone(rules), setup).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let spring = rules.tiles().find("RI/s").expect("the spring");
    assert!(
        g.state().board().tiles().iter().any(|t| t.kind == spring),
        "{ctx}: the spring is laid (R1-2)"
    );
    if let DecisionKind::PlaceTile { tile } = g.decision().kind {
        assert!(
            rules.tiles().get(tile).id.starts_with("RI"),
            "{ctx}: the first draw is a river tile (R1-3)"
        );
    }
}

fn run(mix_index: usize, games: u64) {
    let mix = MIXES[mix_index];
    let rulesets: Vec<Arc<Ruleset>> = (0..OPTION_SETS.len()).map(|s| rules(mix, s)).collect();
    let mut actions = 0;
    for seed in 0..games {
        let set = (seed % OPTION_SETS.len() as u64) as usize;
        let players = 2 + (seed % 5) as usize;
        let greedy = seed % 7 == 3 && mix.len() < 5;
        let ctx = format!("{mix:?}, option set {set}, seed {seed}, {players} players");
        let setup = GameSetup::new((0..players).map(|p| format!("P{p}")).collect(), seed);
        check_river_first(&rulesets[set], &setup, &ctx);
        let bots: Vec<Box<dyn Bot>> = (0..players)
            .map(|p| {
                let kind = if greedy && p % 2 == 0 {
                    "greedy"
                } else {
                    "random"
                };
                make_bot(kind, seed.rotate_left(11) ^ p as u64).expect("bot")
            })
            .collect();
        actions += play_checked(&rulesets[set], &setup, bots, 6000, &ctx).actions;
    }
    eprintln!("river_mixed {mix:?}: {games} games, {actions} actions");
}

#[test]
fn river_i_alone() {
    run(0, 1000);
}

#[test]
fn river_i_with_river_ii() {
    run(1, 1000);
}

#[test]
fn river_i_with_count_king_robber() {
    run(2, 500);
}

#[test]
fn river_i_with_everything() {
    run(3, 300);
}
