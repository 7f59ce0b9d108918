//! Fuzzing on the stable toolchain (`docs/fuzzing.md`, harness in
//! `carcassonne_tests::fuzz`): records, JCZ saves, manifests, tile files, scripts and
//! action sequences, one test per target so that they run in parallel.
//!
//! `cargo test` runs a short run (a few hundred cases per target). A long run:
//!
//! ```sh
//! CARCASSONNE_FUZZ_CASES=100000 cargo test --release -p carcassonne-tests --test fuzz -- --nocapture
//! ```
//!
//! A failing case prints its number and seed, saves its input under
//! `<temp dir>/carcassonne-fuzz/` and says how to reproduce it with the `carcassonne`
//! binary or with `CARCASSONNE_FUZZ_CASE=<n>`.

use carcassonne_core::{DrawMode, Game, GameSetup};
use carcassonne_play::bots::{Bot, RandomBot};
use carcassonne_play::record::Record;
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_tests::fuzz::{self, Config, Seed, Target};
use std::path::PathBuf;
use std::sync::Arc;

/// Records made by simulation: random games of several expansion mixes (one with chosen
/// draws and a draw cap), the guide's example expansion, and every JCZ save converted.
fn generated_records() -> Vec<Seed> {
    let root = fuzz::repo_root();
    let dirs: Vec<PathBuf> = vec![
        root.join("expansions"),
        root.join("fan-expansions"),
        root.join("docs").join("examples"),
    ];
    let mixes: &[(&[&str], u64, DrawMode, Option<u32>)] = &[
        (&[], 1, DrawMode::Random, None),
        (&["count"], 2, DrawMode::Random, None),
        (&["king-robber"], 3, DrawMode::Random, Some(30)),
        (&["river2"], 4, DrawMode::Random, None),
        (&["heretics-shrines"], 5, DrawMode::Chosen, Some(40)),
        (
            &["count", "king-robber", "river2", "heretics-shrines"],
            6,
            DrawMode::Random,
            None,
        ),
        (
            &[
                "count",
                "king-robber",
                "river2",
                "heretics-shrines",
                "tactician",
                "promotions",
            ],
            7,
            DrawMode::Random,
            None,
        ),
        (&["tactician", "promotions"], 8, DrawMode::Chosen, None),
        (&["pilgrims"], 9, DrawMode::Random, None),
        (
            &["inns-cathedrals", "count", "river2", "tactician"],
            10,
            DrawMode::Random,
            None,
        ),
        (&["traders-builders"], 11, DrawMode::Random, Some(40)),
        (&["princess-dragon"], 12, DrawMode::Random, None),
        (&["tower"], 13, DrawMode::Chosen, Some(40)),
        (&["abbey-mayor"], 15, DrawMode::Chosen, Some(40)),
        (
            &[
                "count",
                "king-robber",
                "river2",
                "heretics-shrines",
                "inns-cathedrals",
                "traders-builders",
                "princess-dragon",
                "tower",
                "abbey-mayor",
                "tactician",
                "promotions",
            ],
            14,
            DrawMode::Random,
            None,
        ),
    ];
    let mut seeds = Vec::new();
    for (exps, seed, draws, draw_limit) in mixes {
        let rules = build_ruleset(&RulesSpec {
            expansions: exps.iter().map(|s| s.to_string()).collect(),
            options: Vec::new(),
            plugin_dirs: dirs.clone(),
        })
        .unwrap_or_else(|e| panic!("{exps:?}: {e}"));
        let players = 2 + (*seed as usize % 3);
        let setup = GameSetup {
            draws: *draws,
            draw_limit: *draw_limit,
            ..GameSetup::new((0..players).map(|i| format!("P{i}")).collect(), *seed)
        };
        let mut game = Game::new(Arc::clone(&rules), &setup).expect("a game");
        let mut bot = RandomBot::new(*seed);
        let mut actions = Vec::new();
        while !game.is_over() {
            let i = bot.choose(&game);
            actions.push(game.state().offered_at(i).expect("offered"));
            game.apply_offered(i).expect("an offered action");
        }
        let rec = Record::with_setup(&game, &setup, &actions).expect("records");
        seeds.push(Seed::text(
            &format!("simulated {exps:?}"),
            serde_json::to_string_pretty(&rec).expect("JSON"),
        ));
    }
    for s in fuzz::corpus(Target::Jcz) {
        let Ok(save) = carcassonne_jcz::save::JczSave::parse(&s.text, &s.name) else {
            continue;
        };
        if let Ok(rec) =
            carcassonne_jcz::replay(&save, &s.name, &[], None).and_then(|g| g.to_record())
        {
            seeds.push(Seed::text(
                &format!("converted {}", s.name),
                serde_json::to_string_pretty(&rec).expect("JSON"),
            ));
        }
    }
    seeds
}

fn check(target: Target, extra: Vec<Seed>) {
    let cfg = Config::from_env(target);
    let report = fuzz::run_with(target, extra, &cfg);
    assert!(report.passed(cfg.strict), "{}", report.summary());
}

#[test]
fn fuzz_records() {
    let extra = if Config::from_env(Target::Record).enabled {
        generated_records()
    } else {
        Vec::new()
    };
    check(Target::Record, extra);
}

#[test]
fn fuzz_jcz_saves() {
    check(Target::Jcz, Vec::new());
}

#[test]
fn fuzz_manifests() {
    check(Target::Manifest, Vec::new());
}

#[test]
fn fuzz_tile_files() {
    check(Target::Tiles, Vec::new());
}

#[test]
fn fuzz_scripts() {
    check(Target::Script, Vec::new());
}

#[test]
fn fuzz_action_sequences() {
    check(Target::Actions, Vec::new());
}

/// The mutators themselves: deterministic per seed, and the JSON tree writes back what it
/// reads.
#[test]
fn harness_is_deterministic() {
    let text = r#"{"a": [1, -2.5e3, "x\n", true, null], "b": {"c": {}}}"#;
    let v = fuzz::Json::parse(text).expect("parses");
    assert_eq!(fuzz::Json::parse(&v.write(true)), Some(v.clone()));
    assert_eq!(fuzz::Json::parse(&v.write(false)), Some(v));
    let mut a = fuzz::Rng::new(7);
    let mut b = fuzz::Rng::new(7);
    assert!((0..100).all(|_| a.next_u64() == b.next_u64()));
    assert_eq!(
        fuzz::case_seed(Target::Record, 13, 5),
        fuzz::case_seed(Target::Record, 13, 5)
    );
    assert_ne!(
        fuzz::case_seed(Target::Record, 13, 5),
        fuzz::case_seed(Target::Jcz, 13, 5)
    );
}
