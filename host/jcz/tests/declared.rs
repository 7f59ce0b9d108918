//! A script expansion declares its JCZ names in its manifest (`[jcz]`, docs/jcz.md) and a
//! save using them replays: the fixture `tests/fixtures/jcz-fixture` maps the set
//! `fixture-set:1`, the element `explorer`, the rule `fixture-bonus` and JCZ's meeple kind
//! `explorer` (its figure `scout`), none of which the importer knows.

use carcassonne_jcz::{replay, save::JczSave};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Red places `BA/C` on the start tile's city, completing it, and deploys JCZ's
/// `0.explorer.1` there: our `scout` (strength 2) scores the city.
fn save(sets: Value, elements: Value, rules: Value, meeple: &str) -> JczSave {
    let v = json!({
        "appVersion": "6.2.0", "gameId": "1", "name": "", "initialRandom": 0.0,
        "setup": {
            "sets": sets, "elements": elements, "rules": rules, "timer": null,
            "start": [{"tile": "BA/RCr", "x": 0, "y": 0, "rotation": 0}]
        },
        "players": [{"name": "Red", "slot": 0}, {"name": "Blue", "slot": 1}],
        "replay": [
            {"type": "PLACE_TILE", "payload": {"tileId": "BA/C", "rotation": "R180",
                                               "position": [0, -1]}, "player": 0},
            {"type": "DEPLOY_MEEPLE", "payload": {"meepleId": meeple, "pointer": {
                "position": [0, -1], "feature": "City", "location": "S"}}, "player": 0},
            {"type": "COMMIT", "payload": {"random": 0.0}, "player": 0}
        ],
        "gameAnnotations": {"drawOrder": ["BA/C"]}
    });
    JczSave::parse(&v.to_string(), "fixture save").expect("the save parses")
}

fn fixture_save(rules: Value, meeple: &str) -> JczSave {
    save(
        json!({"basic:1": 1, "fixture-set:1": 1}),
        json!({"small-follower": 7, "explorer": 1}),
        rules,
        meeple,
    )
}

#[test]
fn a_declared_set_element_rule_and_figure_are_honoured() {
    let g = replay(
        &fixture_save(json!({"fixture-bonus": "yes"}), "0.explorer.1"),
        "fixture save",
        &[fixture_dir()],
        None,
    )
    .expect("the save replays");
    assert_eq!(g.spec.expansions, ["jcz-fixture"]);
    let option = |k: &str| {
        g.spec
            .options
            .iter()
            .filter(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
            .next_back()
    };
    // `[jcz] options` writes `off`, the rule read from the save comes after it.
    assert_eq!(option("jcz-fixture.bonus"), Some("on"));
    assert_eq!(g.game.rules().options().str("jcz-fixture.bonus"), "on");
    // The scout (JCZ's explorer) completed the city alone: Red 4, and it is back in supply.
    let out = g.output();
    assert_eq!(out.players[0].score, 4, "{:?}", out.players);
    assert_eq!(out.players[1].score, 0);
    let scout = g
        .game
        .rules()
        .figure_named("scout")
        .expect("declared figure");
    let st = g.game.state();
    assert!(st.figures().iter().any(|f| f.kind == scout
        && f.owner.0 == 0
        && f.loc == carcassonne_core::FigureLoc::Supply));
    // The rule's default where the save has no key.
    let g = replay(
        &fixture_save(json!({}), "0.explorer.1"),
        "fixture save",
        &[fixture_dir()],
        None,
    )
    .expect("the save replays");
    assert_eq!(g.game.rules().options().str("jcz-fixture.bonus"), "off");
}

#[test]
fn what_the_fixture_does_not_declare_is_refused_by_name() {
    let err = |s: &JczSave, dirs: &[PathBuf]| {
        replay(s, "fixture save", dirs, None)
            .expect_err("refused")
            .to_string()
    };
    // Without the fixture, its set is unknown.
    let e = err(&fixture_save(json!({}), "0.explorer.1"), &[]);
    assert!(e.contains("`fixture-set:1` is not supported"), "{e}");
    // A rule value the declaration does not list.
    let e = err(
        &fixture_save(json!({"fixture-bonus": "maybe"}), "0.explorer.1"),
        &[fixture_dir()],
    );
    assert!(
        e.contains("`fixture-bonus` = `maybe` is not supported"),
        "{e}"
    );
    // The required element missing.
    let e = err(
        &save(
            json!({"basic:1": 1, "fixture-set:1": 1}),
            json!({"small-follower": 7}),
            json!({}),
            "0.explorer.1",
        ),
        &[fixture_dir()],
    );
    assert!(e.contains("without the element `explorer`"), "{e}");
    // The element without the set: JCZ switches it on alone, so the expansion is loaded
    // without its tiles (the fixture has none).
    let g = replay(
        &save(
            json!({"basic:1": 1}),
            json!({"small-follower": 7, "explorer": 1}),
            json!({}),
            "0.explorer.1",
        ),
        "fixture save",
        &[fixture_dir()],
        None,
    )
    .expect("an element alone loads its expansion");
    assert_eq!(g.game.rules().expansions()[0].id(), "jcz-fixture");
    // A JCZ meeple kind nobody declares.
    let e = err(&fixture_save(json!({}), "0.scout.1"), &[fixture_dir()]);
    assert!(e.contains("figure kind `scout` is not supported"), "{e}");
}

#[test]
fn a_declared_verb_the_expansion_lacks_names_manifest_line_and_field() {
    let dir = std::env::temp_dir().join(format!("carcassonne-jcz-declared-{}", std::process::id()));
    let exp = dir.join("jcz-fixture");
    std::fs::create_dir_all(&exp).expect("temp dir");
    let src = fixture_dir().join("jcz-fixture");
    let manifest = std::fs::read_to_string(src.join("expansion.toml")).expect("manifest");
    let line = manifest.lines().count() + 2;
    std::fs::write(
        exp.join("expansion.toml"),
        format!("{manifest}\n[[jcz.actions]]\nmessage = \"CAPTURE_FOLLOWER\"\nverb = \"nab\"\n"),
    )
    .expect("write manifest");
    std::fs::copy(src.join("fixture.rhai"), exp.join("fixture.rhai")).expect("copy script");
    let e = replay(
        &fixture_save(json!({}), "0.explorer.1"),
        "fixture save",
        std::slice::from_ref(&dir),
        None,
    )
    .expect_err("refused")
    .to_string();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        e.contains(&format!("expansion.toml:{line}: `jcz.actions[0].verb`"))
            && e.contains("declares no verb `nab`"),
        "{e}"
    );
}
