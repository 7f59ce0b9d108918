//! Our JCloisterZone saves for Abbey & Mayor (`tests/jcz/abbey-*.jcz`): the abbey as a
//! `PLACE_TILE` of `AM/A` instead of a draw (and in the final abbey round), the wagon's move
//! after scoring under `C1` and under a save without `wagon-move` (JCZ plays `C2`, AMQ-2), a
//! barn on a `Field` pointer (its placement and join scorings, its final scoring) and a mayor
//! in a city without pennants. Each replays through `carcassonne replay --json`, every
//! assertion written in it holds, and the pending decisions on the way are checked.

use carcassonne_jcz::assertions::{check_all, Outcome};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `replay --json` of `tests/jcz/NAME`, after `actions` messages if given.
fn replay_json(name: &str, actions: Option<usize>) -> Value {
    let file = repo().join("tests/jcz").join(name);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_carcassonne"));
    cmd.args(["replay", "--json", "--plugin-dir"])
        .arg(repo().join("expansions"))
        .arg(&file);
    if let Some(n) = actions {
        cmd.args(["--actions", &n.to_string()]);
    }
    let out = cmd.output().expect("the binary runs");
    assert!(
        out.status.success(),
        "replay {name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// Every assertion of the save holds; returns how many were checked.
fn check_save(name: &str) -> usize {
    let file = repo().join("tests/jcz").join(name);
    let save: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read save")).expect("JSON");
    let assertions: Vec<String> = save["test"]["assertions"]
        .as_array()
        .expect("assertions")
        .iter()
        .filter_map(|s| s.as_str().map(String::from))
        .collect();
    let out = replay_json(name, None);
    let mut n = 0;
    for (text, outcome) in check_all(&assertions, &out) {
        match outcome {
            Outcome::Passed => n += 1,
            Outcome::Failed(why) => panic!("{name}: `{text}` fails: {why}"),
            Outcome::Ignored(_) => {}
        }
    }
    n
}

/// `(figure, feature, x, y, location)` of the pending deployments.
fn deployments(v: &Value) -> Vec<(String, String, i64, i64, String)> {
    let mut d: Vec<_> = v["pending"]["deployments"]
        .as_array()
        .expect("deployments")
        .iter()
        .map(|d| {
            (
                d["figure"].as_str().unwrap().to_string(),
                d["feature"].as_str().unwrap().to_string(),
                d["x"].as_i64().unwrap(),
                d["y"].as_i64().unwrap(),
                d["location"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    d.sort();
    d
}

fn dep(f: &str, k: &str, x: i64, y: i64, l: &str) -> (String, String, i64, i64, String) {
    (f.into(), k.into(), x, y, l.into())
}

/// AM-3, AM-6, AM-7 (T-107): the abbey goes into the hole instead of a draw; it closes
/// Alice's city (2) and completes her cloister (9); the abbey takes a monk (JCZ's
/// `Monastery`); no tile is drawn that turn.
#[test]
fn the_abbey_closes_a_city_and_completes_a_cloister() {
    let name = "abbey-closes-city-and-cloister.jcz";
    assert_eq!(check_save(name), 4);
    // After 20 messages: Bob's abbey question, the hole at [0,-1] written as JCZ offers
    // it (tile AM/A, every rotation), passable (to draw instead).
    let before = replay_json(name, Some(20));
    let p = &before["pending"];
    assert_eq!(p["player"], "Bob");
    assert_eq!(p["tile"], "AM/A");
    assert_eq!(
        p["placements"],
        serde_json::json!([{"x": 0, "y": -1, "rotations": [0, 90, 180, 270]}])
    );
    assert_eq!(p["can_pass"], true);
    // After the PLACE_TILE: Bob's action step on the abbey, before any scoring.
    let placed = replay_json(name, Some(21));
    assert_eq!(placed["pending"]["tile"], "AM/A");
    assert_eq!(
        deployments(&placed),
        [
            dep("small-follower", "cloister", 0, -1, "I"),
            dep("wagon", "cloister", 0, -1, "I"),
        ]
    );
    assert_eq!(placed["events"], serde_json::json!([]));
    // The end: Alice's turn with a drawn tile (the abbey turn drew nothing, so the queue's
    // nine entries are used up and the draw is random); Bob holds no abbey any more.
    let end = replay_json(name, None);
    assert_eq!(end["pending"]["player"], "Alice");
    assert_eq!(end["state"]["abbey-mayor.abbey"], serde_json::json!([1, 0]));
}

/// AM-3, AM-4: a `PASS` declines the abbey and the player draws; the next player holding
/// his abbey is asked in turn (JCZ's tile step of `AM/A`).
#[test]
fn a_pass_declines_the_abbey_and_the_player_draws() {
    let name = "abbey-declined.jcz";
    assert_eq!(check_save(name), 4);
    let end = replay_json(name, None);
    assert_eq!(end["pending"]["player"], "Alice");
    assert_eq!(end["state"]["abbey-mayor.abbey"], serde_json::json!([1, 1]));
}

/// AM-9 (T-108): after the last draw (endTurn 9) the final abbey round starts left of the
/// last placer: Bob places his abbey (R90 in the save); Alice has no hole left; the game
/// ends with final scoring (Bob's abbey, incomplete: 8).
#[test]
fn the_final_abbey_round_runs_after_the_last_draw() {
    let name = "abbey-final-round.jcz";
    assert_eq!(check_save(name), 5);
    let before = replay_json(name, Some(20));
    assert_eq!(before["pending"]["player"], "Bob");
    assert_eq!(before["pending"]["tile"], "AM/A");
    let end = replay_json(name, None);
    assert_eq!(end["finished"], true);
    assert_eq!(end["pending"], Value::Null);
}

/// AM-15, AM-16: after the city scores, Alice's wagon may move. `C1` (rule `wagon-move`
/// `C1`): only the road linked to the city on AM/RC. No `wagon-move` key: JCZ plays `C2`
/// (AMQ-2): the start tile's unconnected road as well.
#[test]
fn the_wagon_moves_under_c1_and_under_a_save_without_the_rule() {
    let c1 = replay_json("abbey-mayor-wagon-c1.jcz", Some(3));
    assert_eq!(c1["pending"]["player"], "Alice");
    assert_eq!(deployments(&c1), [dep("wagon", "road", 0, -1, "E")]);
    assert_eq!(c1["pending"]["can_pass"], true);
    let c2 = replay_json("abbey-mayor-wagon-c2-default.jcz", Some(3));
    assert_eq!(
        deployments(&c2),
        [
            dep("wagon", "road", 0, -1, "E"),
            dep("wagon", "road", 0, 0, "WE")
        ]
    );
    assert_eq!(check_save("abbey-mayor-wagon-c1.jcz"), 2);
    assert_eq!(check_save("abbey-mayor-wagon-c2-default.jcz"), 2);
    // After the move it is Bob's tile step, and the wagon is no longer in supply: it is
    // not offered on the next city.
    let end = replay_json("abbey-mayor-wagon-c2-default.jcz", None);
    assert_eq!(end["pending"]["player"], "Bob");
}

/// AMQ-3: under `C1` a wagon scored on an abbey may move to the road the abbey closed by the
/// recommended reading, but JCZ never offers that move; its saves read as
/// `wagonAbbeyLinks=into-abbey`, so the question is not asked: after the scoring it is Bob's
/// tile step, and his wagon, back in supply, is offered in his action step.
#[test]
fn a_wagon_scored_on_an_abbey_has_no_target_in_a_jcz_save() {
    let name = "abbey-mayor-wagon-abbey-c1.jcz";
    assert_eq!(check_save(name), 5);
    let scored = replay_json(name, Some(25));
    assert_eq!(scored["pending"]["player"], "Bob");
    assert_eq!(scored["pending"]["tile"], "BA/RFr");
    assert!(deployments(&scored).is_empty());
    let next = replay_json(name, Some(26));
    assert_eq!(next["pending"]["tile"], "BA/RFr");
    assert!(deployments(&next).contains(&dep("wagon", "road", -2, 0, "WE")));
}

/// AM-20 … AM-25: the barn on a `Field` pointer at the NW corner of [1,1] (our action: the
/// placed tile's corner 0), its placement scoring (3), a join scoring (1) and its final
/// scoring (4 per city).
#[test]
fn the_barn_is_placed_from_a_field_pointer_and_scores() {
    let name = "abbey-mayor-barn-scorings.jcz";
    assert_eq!(check_save(name), 5);
    let step = replay_json(name, Some(11));
    let custom = step["pending"]["custom"]
        .as_array()
        .expect("custom actions");
    assert!(
        custom
            .iter()
            .any(|c| c["verb"] == "barn" && c["value"] == 0 && c["target"]["x"] == 1),
        "{custom:?}"
    );
    // In JCZ's terms: a barn deployment on the Field of [1,1], whose NW corner it is.
    assert!(deployments(&step).contains(&dep("barn", "field", 1, 1, "NL.NR.EL.ER.SL.SR.WL.WR")));
    let end = replay_json(name, None);
    assert_eq!(end["finished"], true);
    let events: Vec<(String, String, i64)> = end["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["player"].as_str().unwrap().into(),
                e["feature"].as_str().unwrap().into(),
                e["points"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            ("Alice".into(), "field".into(), 3),
            ("Bob".into(), "field".into(), 1),
            ("Alice".into(), "barn".into(), 4),
        ]
    );
}

/// AM-11, AM-12 (T-112): a mayor alone in a city without pennants scores nobody and comes
/// back: it is offered again in Alice's next action step. JCZ still reports the city to the
/// mayor's owner as a 0-point scoring (`mayorEmptyCity=zero-points`, written out for saves).
#[test]
fn a_mayor_in_a_city_without_pennants_scores_nobody() {
    let name = "abbey-mayor-pennantless-mayor.jcz";
    assert_eq!(check_save(name), 3);
    let end = replay_json(name, None);
    let events: Vec<(String, String, i64)> = end["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["player"].as_str().unwrap_or_default().to_string(),
                e["feature"].as_str().unwrap_or_default().to_string(),
                e["points"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    assert_eq!(events, [("Alice".into(), "city".into(), 0)]);
}
