//! Loading real plugin files built from the fixtures in tests/plugins/ (issue 3, item 6):
//! a good load, wrong magic, a fingerprint from another build, a missing symbol, and a
//! panicking hook that becomes an error instead of an abort.
//!
//! The fixtures are workspace members built as `cdylib`; `cargo test` alone does not
//! produce cdylib files, so the README's test command builds the workspace first.

use carcassonne_core::{ActionError, Game, GameSetup, Ruleset, ScoreSource};
use carcassonne_plugins::{library_filename, load_plugin, PluginError};
use std::path::PathBuf;
use std::sync::Arc;

/// `target/<profile>/lib<name>.so` (or the platform's name), next to this test's `deps/`.
fn fixture(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>");
    let path = dir.join(library_filename(&format!("fixture_plugin_{name}")));
    assert!(
        path.exists(),
        "{} is missing: build the workspace first (`cargo build --workspace --all-targets`)",
        path.display()
    );
    path
}

fn ruleset_with(e: Arc<dyn carcassonne_core::Expansion>) -> Arc<Ruleset> {
    Arc::new(
        Ruleset::builder()
            .tiles(carcassonne_files::tiles::base_tile_set())
            .expansion(e)
            .build()
            .expect("ruleset"),
    )
}

fn play_to_end(game: &mut Game) -> Result<(), ActionError> {
    while !game.is_over() {
        game.apply_offered(game.action_count() - 1)?;
    }
    Ok(())
}

#[test]
fn a_good_plugin_loads_and_plays() {
    let p = load_plugin(&fixture("good")).expect("loads");
    assert_eq!(p.id, "fixture-good");
    assert_eq!(p.version, "0.1.0");
    let rules = ruleset_with(p.expansion);
    let mut g = Game::new(
        rules.clone(),
        &GameSetup::new(vec!["A".into(), "B".into()], 3),
    )
    .unwrap();
    play_to_end(&mut g).unwrap();
    let bonus = g
        .state()
        .events()
        .iter()
        .find(|e| matches!(e.source, ScoreSource::Label(l) if rules.labels()[l.0 as usize] == "fixture-bonus"))
        .expect("the plugin's final hook ran");
    assert_eq!(bonus.points, 7);
    // Loading twice is fine: libraries stay loaded.
    assert!(load_plugin(&fixture("good")).is_ok());
}

#[test]
fn wrong_magic_is_refused_before_anything_else_is_read() {
    let err = load_plugin(&fixture("bad_magic")).unwrap_err();
    assert!(
        matches!(err, PluginError::BadMagic { found, .. } if &found == b"NOTAPLUG"),
        "{err}"
    );
    assert!(err.to_string().contains("not an expansion plugin"));
}

#[test]
fn a_fingerprint_from_another_build_is_refused_with_both_values() {
    let err = load_plugin(&fixture("old_fingerprint")).unwrap_err();
    let PluginError::Fingerprint { host, plugin, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(*plugin, 0x0123_4567_89ab_cdef);
    assert_eq!(*host, carcassonne_core::plugin::ABI_FINGERPRINT);
    let text = err.to_string();
    assert!(
        text.contains("0123456789abcdef") && text.contains(&format!("{host:016x}")),
        "{text}"
    );
    assert!(text.contains("old_fingerprint"), "names the file: {text}");
}

#[test]
fn a_library_without_the_header_is_refused() {
    let err = load_plugin(&fixture("no_symbol")).unwrap_err();
    assert!(matches!(err, PluginError::MissingSymbol { .. }), "{err}");
}

#[test]
fn a_missing_file_is_an_open_error() {
    let err = load_plugin(std::path::Path::new("/nonexistent/libnothing.so")).unwrap_err();
    assert!(matches!(err, PluginError::Open { .. }), "{err}");
}

#[test]
fn a_panicking_hook_is_an_error_naming_expansion_and_hook() {
    let p = load_plugin(&fixture("panics")).expect("loads");
    let rules = ruleset_with(p.expansion);
    let mut g = Game::new(rules, &GameSetup::new(vec!["A".into(), "B".into()], 1)).unwrap();
    loop {
        let before = format!("{:?}", g.state());
        match g.apply_offered(g.action_count() - 1) {
            Ok(()) => assert!(!g.is_over(), "the panicking hook never ran"),
            Err(ActionError::Hook(h)) => {
                assert_eq!(
                    (h.expansion.as_str(), h.hook),
                    ("fixture-panics", "on_turn_end")
                );
                assert!(
                    h.message.contains("fixture panic in on_turn_end"),
                    "{}",
                    h.message
                );
                assert_eq!(
                    before,
                    format!("{:?}", g.state()),
                    "the failing action was rolled back"
                );
                return;
            }
            Err(other) => panic!("{other:?}"),
        }
    }
}
