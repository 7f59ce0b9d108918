//! Our JCloisterZone saves for The Tower (`tests/jcz/tower-*.jcz`): `PLACE_TOKEN
//! TOWER_PIECE`, `CAPTURE_FOLLOWER` and `PAY_RANSOM` replay through `carcassonne replay
//! --json`, every assertion written in them holds, and the Tower's state comes out right:
//! the exchange of mutual prisoners (TW-12) and a ransom before the draw and in the action
//! step (TW-13).

use carcassonne_jcz::assertions::{check_all, Outcome};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn replay_json(name: &str) -> (Value, Vec<String>) {
    let file = repo().join("tests/jcz").join(name);
    let out = Command::new(env!("CARGO_BIN_EXE_carcassonne"))
        .args(["replay", "--json", "--plugin-dir"])
        .arg(repo().join("expansions"))
        .arg(&file)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "replay {name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let save: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read save")).expect("JSON");
    let assertions = save["test"]["assertions"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    (v, assertions)
}

fn check_assertions(out: &Value, assertions: &[String]) -> usize {
    let mut n = 0;
    for (text, outcome) in check_all(assertions, out) {
        match outcome {
            Outcome::Passed => n += 1,
            Outcome::Failed(why) => panic!("`{text}` fails: {why}"),
            Outcome::Ignored(_) => {}
        }
    }
    n
}

/// TW-7, TW-11, TW-12: each player captures the other's follower; the second capture
/// exchanges them at once: nobody holds a prisoner, no points, both towers at height 1.
#[test]
fn tower_exchange_save() {
    let (out, assertions) = replay_json("tower-exchange.jcz");
    assert_eq!(check_assertions(&out, &assertions), 2);
    let s = &out["state"];
    assert_eq!(s["tower.held"], serde_json::json!([0, 0]));
    assert_eq!(s["tower.pieces"], serde_json::json!([9, 9]));
    assert_eq!(s["tower.height.1"], 1);
    assert_eq!(s["tower.height.2"], 1);
    assert_eq!(s["tower.jailer"], serde_json::json!({}));
    assert_eq!(out["events"], serde_json::json!([]));
}

/// TW-13: Red (4 points) pays 3 to Blue at the start of his turn and redeploys the
/// follower on his road; the ransom is recorded for that turn.
#[test]
fn tower_ransom_save() {
    let (out, assertions) = replay_json("tower-ransom.jcz");
    assert_eq!(check_assertions(&out, &assertions), 4);
    let s = &out["state"];
    assert_eq!(s["tower.held"], serde_json::json!([0, 0]));
    assert_eq!(s["tower.pieces"], serde_json::json!([10, 8]));
    assert_eq!(s["tower.height.1"], 2);
    let events: Vec<(String, String, i64)> = out["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["player"].as_str().unwrap_or("").to_string(),
                e["feature"].as_str().unwrap_or("").to_string(),
                e["points"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            ("Red".to_string(), "city".to_string(), 4),
            ("Red".to_string(), "ransom".to_string(), -3),
            ("Blue".to_string(), "ransom".to_string(), 3),
        ]
    );
}

/// A ransom the save pays while nobody holds that follower is one clear error.
#[test]
fn a_ransom_without_a_prisoner_is_refused() {
    let file = repo().join("tests/jcz/tower-ransom.jcz");
    let mut save: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("JSON");
    // Drop the capture (message 11) and the ransom still follows.
    let replay = save["replay"].as_array_mut().expect("replay");
    replay.remove(11);
    let dir = std::env::temp_dir().join(format!("carcassonne-tower-jcz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("no-prisoner.jcz");
    std::fs::write(&bad, serde_json::to_string(&save).expect("JSON")).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_carcassonne"))
        .args(["replay", "--json", "--plugin-dir"])
        .arg(repo().join("expansions"))
        .arg(&bad)
        .output()
        .expect("the binary runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("PAY_RANSOM") && err.lines().count() == 1,
        "{err}"
    );
}

/// TW-13 in the action step (JCZ's usual moment): the step is offered again after the
/// ransom, and the save's `COMMIT` declines it; the follower is back in Red's supply.
#[test]
fn tower_ransom_in_the_action_step_save() {
    let (out, assertions) = replay_json("tower-ransom-action-step.jcz");
    assert_eq!(check_assertions(&out, &assertions), 3);
    let s = &out["state"];
    assert_eq!(s["tower.held"], serde_json::json!([0, 0]));
    assert_eq!(s["tower.captive"], serde_json::json!([0, 0]));
    assert_eq!(s["tower.ransom-turn"], 5);
    assert_eq!(out["pending"]["player"], "Blue");
}

/// TW-13 under the importer's `ransomAsked=jcz`: Red passes his action step and pays in
/// JCZ's commit step; the action step comes back whole (FCZ's rewind) and Red deploys the
/// ransomed follower there: −3/+3, nobody held, Red's follower on the board again.
#[test]
fn tower_ransom_in_the_commit_step_save() {
    let (out, assertions) = replay_json("tower-ransom-commit-step.jcz");
    assert_eq!(check_assertions(&out, &assertions), 4);
    let s = &out["state"];
    assert_eq!(s["tower.held"], serde_json::json!([0, 0]));
    assert_eq!(out["players"][0]["score"], 1);
    assert_eq!(out["players"][1]["score"], 3);
}

/// TW-13 under `ransomAsked=jcz` with the Count (`tower-count-ransom-in-round.jcz`, our own
/// game written by `convert` and cut; JCZ 5's engine replays it to these scores): P2 commits
/// without paying, then pays in the Count's scoring round when it asks him (JCZ takes
/// `PAY_RANSOM` from the player its round asks) and moves his blacksmith follower onto the
/// road that scores. The ransom is P3's +3 before the road's scoring; written back, the save
/// has the same messages in the same order (`COMMIT`, `PAY_RANSOM`, `DEPLOY_MEEPLE`,
/// `COMMIT`).
#[test]
fn a_ransom_declined_after_the_action_is_paid_in_the_counts_round() {
    let name = "tower-count-ransom-in-round.jcz";
    let (out, assertions) = replay_json(name);
    assert_eq!(check_assertions(&out, &assertions), 7);
    let events = out["events"].as_array().expect("events");
    let tail: Vec<(&str, &str, i64)> = events[events.len() - 3..]
        .iter()
        .map(|e| {
            (
                e["player"].as_str().unwrap_or(""),
                e["feature"].as_str().unwrap_or(""),
                e["points"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        tail,
        [("P3", "ransom", 3), ("P2", "road", 2), ("P4", "road", 2)]
    );
    // Round trip: the save as our record, the record as a save: the same messages.
    let dir = std::env::temp_dir().join(format!("jcz-tower-count-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let run = |args: &[&std::ffi::OsStr]| {
        let o = Command::new(env!("CARGO_BIN_EXE_carcassonne"))
            .args(args)
            .arg("--plugin-dir")
            .arg(repo().join("expansions"))
            .output()
            .expect("the binary runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let (record, back) = (dir.join("game.json"), dir.join("back.jcz"));
    let file = repo().join("tests/jcz").join(name);
    run(&[
        "convert".as_ref(),
        file.as_os_str(),
        "-o".as_ref(),
        record.as_os_str(),
    ]);
    run(&[
        "convert".as_ref(),
        record.as_os_str(),
        "-o".as_ref(),
        back.as_os_str(),
    ]);
    let read = |p: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(p).expect("read save")).expect("JSON")
    };
    let kinds = |v: &Value| -> Vec<(String, i64)> {
        v["replay"]
            .as_array()
            .expect("replay")
            .iter()
            .map(|m| {
                (
                    m["type"].as_str().unwrap_or("").to_string(),
                    m["player"].as_i64().unwrap_or(-1),
                )
            })
            .collect()
    };
    let (orig, written) = (read(&file), read(&back));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(kinds(&written), kinds(&orig));
    let last: Vec<(String, i64)> = kinds(&written).split_off(kinds(&written).len() - 4);
    let want = ["COMMIT", "PAY_RANSOM", "DEPLOY_MEEPLE", "COMMIT"].map(|k| (k.to_string(), 1));
    assert_eq!(last, want);
}

/// JCZ lists a follower on a tower top among that figure's deployments (`{Tower,I,[x,y]}`):
/// the replay output lists our offered `cap-tower` so too, and `replay --check` compares the
/// `Meeple SmallFollower options` line of `tower-top-offered.jcz` (our game, cut; the options
/// are those JCZ 5's engine lists for it) instead of ignoring it.
#[test]
fn a_tower_top_is_among_the_followers_options() {
    let (out, _) = replay_json("tower-top-offered.jcz");
    let tops: Vec<&Value> = out["pending"]["deployments"]
        .as_array()
        .expect("deployments")
        .iter()
        .filter(|d| d["feature"] == "tower")
        .collect();
    assert_eq!(
        tops,
        [
            &serde_json::json!({"figure": "small-follower", "feature": "tower", "x": -1, "y": 0, "location": "I"})
        ]
    );
    let file = repo().join("tests/jcz/tower-top-offered.jcz");
    let o = Command::new(env!("CARGO_BIN_EXE_carcassonne"))
        .args(["replay", "--check", "--plugin-dir"])
        .arg(repo().join("expansions"))
        .arg(&file)
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("ok ")).count(),
        4,
        "{text}"
    );
    assert!(!text.contains("ignored"), "{text}");
}
