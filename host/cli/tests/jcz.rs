//! JCloisterZone saves through the command line (`../shared/formats/jcz-saves.md`): the
//! three FCZ samples and our own saves for the Count, River II and Heretics & Shrines pass
//! every assertion written in them through `carcassonne replay --json`; `convert` round-trips;
//! whatever cannot be replayed is one clear error line naming the message.

mod common;
use carcassonne_jcz::assertions::{check_all, Outcome};
use common::Scratch;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_carcassonne"))
}

/// (success, stdout, stderr)
fn run(args: &[&str]) -> (bool, String, String) {
    let out = bin().args(args).output().expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn replay_json(file: &str) -> Value {
    let (ok, out, err) = run(&["replay", "--json", file]);
    assert!(ok, "replay {file} failed: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{file}: no JSON ({e}): {out}"))
}

/// JCloisterZone's own sample saves in the reference folder beside the repository: a
/// cross-check that runs only when the folder is there (`None`, and a line saying so, when a
/// clone stands alone; our own saves in `tests/jcz` are checked either way).
fn samples() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/formats/jcz-samples");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: the JCZ samples ({}) are not beside the repository",
            dir.display()
        );
        None
    }
}

fn ours() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/jcz")
}

fn saves(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jcz"))
        .map(|p| p.display().to_string())
        .collect();
    v.sort();
    v
}

fn assertions(file: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(file).expect("read save"))
        .expect("save is JSON");
    v["test"]["assertions"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Every assertion of `file` holds on `replay --json`; returns how many were checked.
fn check_save(file: &str) -> usize {
    let out = replay_json(file);
    let mut checked = 0;
    for (text, outcome) in check_all(&assertions(file), &out) {
        match outcome {
            Outcome::Passed => checked += 1,
            Outcome::Failed(why) => panic!("{file}: `{text}` fails: {why}"),
            Outcome::Ignored(_) => {}
        }
    }
    checked
}

#[test]
fn the_three_samples_pass_every_assertion() {
    let Some(samples) = samples() else {
        return;
    };
    let files = saves(&samples);
    assert_eq!(files.len(), 3, "{files:?}");
    let mut checked = 0;
    for f in &files {
        checked += check_save(f);
    }
    // 5 + 2 + 2: every score, scoring and meeple assertion (the rest are JCZ internals).
    assert_eq!(checked, 10);
}

#[test]
fn the_city_and_road_sample_ends_at_wendys_random_draw() {
    let Some(samples) = samples() else {
        return;
    };
    let out = replay_json(
        &samples
            .join("city-and-road-scoring.jcz")
            .display()
            .to_string(),
    );
    assert_eq!(out["finished"], false);
    let p = &out["pending"];
    // Queue empty, r = 0.0: index 0 of the sorted pack (§12).
    assert_eq!(p["player"], "Wendy");
    assert_eq!(p["tile"], "BA/C");
    assert_eq!(p["can_pass"], false);
    assert!(!p["placements"].as_array().unwrap().is_empty());
    let kr = replay_json(
        &samples
            .join("king-and-robber-scoring.jcz")
            .display()
            .to_string(),
    );
    assert_eq!(
        kr["finished"], true,
        "endTurn 8 = 8 draws: final scoring done"
    );
    assert_eq!(kr["pending"], Value::Null);
    let feats: Vec<&str> = kr["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["feature"].as_str().unwrap())
        .collect();
    assert_eq!(feats, ["king", "robber"]);
}

#[test]
fn our_count_river_and_shrine_saves_pass_every_assertion() {
    let files: Vec<String> = saves(&ours())
        .into_iter()
        .filter(|f| !f.ends_with("river-second-right-turn.jcz"))
        .collect();
    assert!(files.len() >= 6, "{files:?}");
    for f in &files {
        assert!(check_save(f) >= 1, "{f} checks nothing");
    }
}

/// CO-4 / T-17: the pending decision is the Count deployment, in JCZ's quarter notation.
#[test]
fn count_deployment_is_pending_with_quarters_on_co7() {
    let out = replay_json(
        &ours()
            .join("count-deploy-into-city.jcz")
            .display()
            .to_string(),
    );
    let p = &out["pending"];
    assert_eq!(p["player"], "Red");
    let quarters: Vec<(String, i64, i64)> = p["deployments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["feature"], "quarter");
            (
                d["location"].as_str().unwrap().to_string(),
                d["x"].as_i64().unwrap(),
                d["y"].as_i64().unwrap(),
            )
        })
        .collect();
    // Farmers are off in this save: no market (as in JCZ).
    assert_eq!(quarters.len(), 3);
    assert!(quarters.iter().all(|(_, x, y)| (*x, *y) == (0, 0)));
    assert!(quarters.iter().any(|(l, _, _)| l == "QUARTER_CATHEDRAL"));
    assert!(!quarters.iter().any(|(l, _, _)| l == "QUARTER_MARKET"));
}

/// CO-16: after deploying into the city the placer may move the Count: the offered moves
/// are listed under `custom`, their targets in JCZ's quarter notation.
#[test]
fn the_counts_move_is_listed_as_custom_actions() {
    let f = ours().join("count-final-round.jcz").display().to_string();
    let (ok, out, err) = run(&["replay", "--json", "--actions", "9", &f]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let p = &v["pending"];
    assert_eq!(p["player"], "Red");
    assert_eq!(p["can_pass"], true);
    let moves: Vec<&str> = p["custom"]
        .as_array()
        .expect("custom actions")
        .iter()
        .map(|c| {
            assert_eq!(c["verb"], "move-count");
            c["target"]["location"].as_str().unwrap()
        })
        .collect();
    // The Count is in the castle: it may go to any other quarter but the market, which
    // is closed without farmers (as in JCZ).
    assert_eq!(moves, ["QUARTER_BLACKSMITH", "QUARTER_CATHEDRAL"]);
}

/// T-38 (RV-5): a second right turn in a row is refused, naming the message.
#[test]
fn an_illegal_move_names_its_message() {
    let f = ours()
        .join("river-second-right-turn.jcz")
        .display()
        .to_string();
    let (ok, out, err) = run(&["replay", "--json", &f]);
    assert!(!ok && out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: ")
            && err.contains("message 9 (PLACE_TILE)")
            && err.contains("RI.2/RrII")
            && err.contains("not legal"),
        "{err}"
    );
}

#[test]
fn convert_round_trips_every_save() {
    let dir = Scratch::new("jcz", "convert");
    let Some(samples) = samples() else {
        return;
    };
    let files: Vec<String> = saves(&samples)
        .into_iter()
        .chain(saves(&ours()))
        .filter(|f| !f.ends_with("river-second-right-turn.jcz"))
        // Shown at JCZ's step before a COMMIT our engine does not wait for (below).
        .filter(|f| !f.ends_with("-awaits-commit.jcz"))
        .collect();
    for (i, f) in files.iter().enumerate() {
        let rec = dir.arg(&format!("{i}.json"));
        let (ok, _, err) = run(&["convert", f, "-o", &rec]);
        assert!(ok, "convert {f}: {err}");
        let record: Value = serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
        assert_eq!(record["format"], "carcassonne-record");
        assert_eq!(record["setup"]["draws"], "chosen");
        assert_eq!(
            replay_json(f),
            replay_json(&rec),
            "{f} and its record differ"
        );
    }
}

/// A save that ends while JCZ waits for a `COMMIT` shows that step (its `ConfirmAction`: the
/// player cannot pass, nothing is offered): before the turn's scoring when the turn part is
/// not committed (JCZ scores after the commit), after a wagon's move (AM-15: JCZ's
/// `WagonPhase` confirms each player's moves). The save's record is our game, which has
/// moved on: the city is scored, the next question is asked.
#[test]
fn a_save_ending_before_jczs_commit_shows_that_step() {
    let dir = Scratch::new("jcz", "awaits-commit");
    let names = |out: &Value| -> Vec<(String, i64)> {
        out["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_string(),
                    p["score"].as_i64().unwrap(),
                )
            })
            .collect()
    };
    // The save's output (JCZ's step: Alice to commit, nothing offered) and its record's.
    let both = |save: &str| -> (Value, Value) {
        let f = ours().join(save).display().to_string();
        let out = replay_json(&f);
        let p = &out["pending"];
        assert_eq!(
            (p["player"].as_str(), p["can_pass"].as_bool()),
            (Some("Alice"), Some(false)),
            "{save}"
        );
        assert_eq!(p["placements"], serde_json::json!([]), "{save}");
        assert_eq!(p["deployments"], serde_json::json!([]), "{save}");
        let rec = dir.arg(&format!("{save}.json"));
        let (ok, _, err) = run(&["convert", &f, "-o", &rec]);
        assert!(ok, "{err}");
        (out, replay_json(&rec))
    };
    let (out, ours_now) = both("base-city-closed-awaits-commit.jcz");
    assert_eq!(names(&out), [("Alice".into(), 0), ("Bob".into(), 0)]);
    assert_eq!(out["events"], serde_json::json!([]));
    assert_eq!(names(&ours_now), [("Alice".into(), 4), ("Bob".into(), 0)]);
    assert_eq!(ours_now["pending"]["player"], "Bob");
    assert_eq!(ours_now["pending"]["tile"], "BA/RFr");

    let (out, ours_now) = both("abbey-mayor-two-wagons-awaits-commit.jcz");
    assert_eq!(names(&out), [("Alice".into(), 4), ("Bob".into(), 4)]);
    // Our engine asks Bob's wagon at once: his roads at the crossroads (AM-15, C2).
    let p = &ours_now["pending"];
    assert_eq!(
        (p["player"].as_str(), p["can_pass"].as_bool()),
        (Some("Bob"), Some(true))
    );
    assert!(!p["deployments"].as_array().unwrap().is_empty(), "{p}");
}

/// FCZ's element `fishermen` replaces its river capability: no river phase
/// (`river.riverSetup=mixed`), so the spring is drawn after the base start tile and the
/// river scores for its fisherman (FI-2: 3 tiles, 6). Without the element our River I runs
/// its river phase from a spring of its own, and the save's spring is no longer in the pack.
#[test]
fn the_fishermen_element_plays_river_i_without_its_phase() {
    let f = ours().join("fishermen-river1-no-river-phase.jcz");
    assert_eq!(check_save(&f.display().to_string()), 3);
    let dir = Scratch::new("jcz", "no-fishermen");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    v["setup"]["elements"]
        .as_object_mut()
        .unwrap()
        .remove("fishermen");
    let file = dir.path("plain-river.jcz");
    std::fs::write(&file, v.to_string()).unwrap();
    let (ok, _, err) = run(&["replay", &file.display().to_string()]);
    assert!(
        !ok && err.contains("message 0") && err.contains("RI/s"),
        "{err}"
    );
}

/// Mutates a sample and expects one error line containing `want`.
fn refused(name: &str, edit: impl Fn(&mut Value), want: &[&str]) {
    let dir = Scratch::new("jcz", name);
    let Some(samples) = samples() else {
        return;
    };
    let src = samples.join("city-and-road-scoring.jcz");
    let mut save: Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    edit(&mut save);
    let file = dir.path(&format!("{name}.jcz"));
    std::fs::write(&file, serde_json::to_string_pretty(&save).unwrap()).unwrap();
    let (ok, out, err) = run(&["replay", "--json", &file.display().to_string()]);
    assert!(!ok, "{name}: accepted: {out}");
    assert!(!err.contains("panicked"), "{name}: {err}");
    assert_eq!(err.lines().count(), 1, "{name}: {err}");
    for w in want {
        assert!(err.contains(w), "{name}: `{err}` lacks `{w}`");
    }
}

#[test]
fn what_cannot_be_replayed_is_a_clear_error() {
    refused(
        "set",
        |s| s["setup"]["sets"]["flier:1"] = 1.into(),
        &["setup.sets", "flier:1", "not supported"],
    );
    // Elements alone, figure counts and parts of a set are set-ups JCZ allows and we play
    // (`setup.rs`'s tests); what stays refused:
    refused(
        "later-element",
        |s| s["setup"]["elements"]["flier"] = 1.into(),
        &["setup.elements", "flier", "not supported yet"],
    );
    refused(
        "two-editions",
        |s| {
            s["setup"]["sets"]["inns-and-cathedrals:1"] = 1.into();
            s["setup"]["sets"]["inns-and-cathedrals:2"] = 1.into();
        },
        &["setup.sets", "inns-and-cathedrals", "one edition"],
    );
    refused(
        "base-copies",
        |s| s["setup"]["sets"]["basic:1"] = 2.into(),
        &["setup.sets", "basic:1", "one copy of the base game"],
    );
    refused(
        "element",
        |s| s["setup"]["elements"]["gizmo"] = true.into(),
        &["setup.elements", "unknown element `gizmo`"],
    );
    refused(
        "followers",
        |s| s["setup"]["elements"]["small-follower"] = 40.into(),
        &["small-follower", "0 to 32"],
    );
    refused(
        "rule",
        |s| s["setup"]["rules"]["tiny-city-scoring"] = "3".into(),
        &["tiny-city-scoring", "3"],
    );
    refused(
        "message",
        |s| s["replay"][3]["type"] = "BAZAAR_BID".into(),
        &["message 3 (BAZAAR_BID)", "not supported"],
    );
    refused(
        "mismatch",
        |s| s["replay"][0]["payload"]["tileId"] = "BA/L".into(),
        &["message 0 (PLACE_TILE)", "drawn tile is `BA/CC.2`", "BA/L"],
    );
    refused(
        "unknown-tile",
        |s| s["gameAnnotations"]["drawOrder"][1] = "XX/nope".into(),
        &["message 3 (PLACE_TILE)", "XX/nope"],
    );
    refused(
        "illegal",
        |s| s["replay"][0]["payload"]["position"] = serde_json::json!([5, 5]),
        &["message 0 (PLACE_TILE)", "[5, 5]", "not legal"],
    );
    refused(
        "deploy",
        |s| s["replay"][4]["payload"]["pointer"]["location"] = "N".into(),
        &["message 4 (DEPLOY_MEEPLE)", "City N"],
    );
    refused(
        "undo",
        // A COMMIT (it carries `random`) clears the undo stack.
        |s| s["replay"][3] = serde_json::json!({"type": "UNDO", "payload": {}}),
        &["message 3 (UNDO)", "nothing to undo"],
    );
    refused(
        "json",
        |s| s["players"] = "nobody".into(),
        &["line", "column", "players"],
    );
}

#[test]
fn malformed_and_missing_files_fail_cleanly() {
    let dir = Scratch::new("jcz", "files");
    let bad = dir.path("broken.jcz");
    std::fs::write(&bad, "{\"setup\": ").unwrap();
    let (ok, _, err) = run(&["replay", &bad.display().to_string()]);
    assert!(
        !ok && err.starts_with("error: ") && err.contains("line 1"),
        "{err}"
    );
    let (ok, _, err) = run(&["replay", &dir.arg("missing.jcz")]);
    assert!(!ok && err.contains("missing.jcz"), "{err}");
}

/// JCZ's random draw: index floor(r × n) of the active tiles, sorted by id in byte order.
#[test]
fn a_random_draw_follows_jczs_sorted_pack() {
    let dir = Scratch::new("jcz", "random");
    let Some(samples) = samples() else {
        return;
    };
    let src = samples.join("city-and-road-scoring.jcz");
    let mut save: Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    save["replay"] = serde_json::json!([]);
    save["gameAnnotations"] = serde_json::json!({});
    save["initialRandom"] = 0.5.into();
    let file = dir.path("random.jcz");
    std::fs::write(&file, save.to_string()).unwrap();
    let out = replay_json(&file.display().to_string());
    // 71 tiles; floor(0.5 × 71) = 35: BA/C ×5, CC.2 ×2, CFC.2 ×3, CFc+ ×2, CFc.1, CRRR ×3,
    // CRr ×3, Cc+ ×2, Cc.1 ×3, CcRr ×3, CcRr+ ×2, Ccc ×3, Ccc+, CccR (34 tiles), then CccR+.
    assert_eq!(out["pending"]["tile"], "BA/CccR+");
    assert_eq!(out["pending"]["player"], "David");
}

#[test]
fn check_flag_reports_and_fails_on_a_wrong_assertion() {
    let Some(samples) = samples() else {
        return;
    };
    let f = samples
        .join("king-and-robber-scoring.jcz")
        .display()
        .to_string();
    let (ok, out, _) = run(&["replay", "--check", &f]);
    assert!(ok, "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("ok")).count(), 2);
    let dir = Scratch::new("jcz", "check");
    let mut save: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    save["test"]["assertions"][0] = "Alice has 4 points".into();
    let file = dir.path("wrong.jcz");
    std::fs::write(&file, save.to_string()).unwrap();
    let (ok, out, err) = run(&["replay", "--check", &file.display().to_string()]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("FAILED   Alice has 4 points: Alice has 3 points"),
        "{out}"
    );
    assert!(err.contains("1 of 2 assertions failed"), "{err}");
}

/// Bad input never panics: hundreds of saves with one field of one message (or of the setup)
/// changed to a wrong value replay or fail with an error, nothing else.
#[test]
fn mutated_saves_never_panic() {
    use carcassonne_jcz::{replay, save::JczSave};
    let Some(samples) = samples() else {
        return;
    };
    let files: Vec<String> = saves(&samples).into_iter().chain(saves(&ours())).collect();
    let junk = [
        serde_json::json!(null),
        serde_json::json!(-1),
        serde_json::json!(1e300),
        serde_json::json!("R45"),
        serde_json::json!("QUARTER_NOWHERE"),
        serde_json::json!([]),
        serde_json::json!([2_147_483_648i64, -5]),
        serde_json::json!({"position": [0, 0], "feature": "Quarter", "location": "N"}),
        serde_json::json!("9.small.1"),
        serde_json::json!("0.big.1"),
        serde_json::json!("COMMIT"),
        serde_json::json!("UNDO"),
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let (mut replayed, mut refused) = (0, 0);
    for round in 0..400 {
        let file = &files[round % files.len()];
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let value = junk[next(junk.len())].clone();
        let msgs = v["replay"].as_array().map_or(0, Vec::len);
        if msgs > 0 && next(4) > 0 {
            let m = &mut v["replay"][next(msgs)];
            let keys = ["type", "player", "payload"];
            match next(3) {
                0 | 1 => m[keys[next(2)]] = value,
                _ => {
                    let payload = m["payload"].as_object_mut();
                    if let Some(p) = payload {
                        let ks: Vec<String> = p.keys().cloned().collect();
                        if !ks.is_empty() {
                            let k = &ks[next(ks.len())];
                            if let Some(ptr) = p[k].as_object_mut() {
                                let pk: Vec<String> = ptr.keys().cloned().collect();
                                if !pk.is_empty() {
                                    ptr.insert(pk[next(pk.len())].clone(), value);
                                }
                            } else {
                                p.insert(k.clone(), value);
                            }
                        }
                    }
                }
            }
        } else {
            let part = ["sets", "elements", "rules", "start"][next(4)];
            v["setup"][part] = value;
        }
        let Ok(save) = JczSave::parse(&v.to_string(), "mutated") else {
            refused += 1;
            continue;
        };
        match replay(&save, "mutated", &[], None) {
            Ok(_) => replayed += 1,
            Err(e) => {
                assert!(!e.to_string().is_empty());
                refused += 1;
            }
        }
    }
    assert!(
        refused > 100 && replayed > 10,
        "{refused} refused, {replayed} replayed"
    );
}

/// `replay --json --actions n` on one of our saves: the state after its first `n` messages.
fn after_messages(name: &str, n: usize) -> Value {
    let f = ours().join(name).display().to_string();
    let (ok, out, err) = run(&["replay", "--json", "--actions", &n.to_string(), &f]);
    assert!(ok, "{name} after {n} messages: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{name}: no JSON ({e}): {out}"))
}

/// The pending player and the (feature, location) of each pending deployment.
fn pending_moves(v: &Value) -> (String, Vec<(String, String)>) {
    let p = &v["pending"];
    let moves = p["deployments"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| {
                    (
                        d["feature"].as_str().unwrap().to_string(),
                        d["location"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (p["player"].as_str().unwrap_or("").to_string(), moves)
}

/// CO-10 as JCZ plays it: the scoring round runs from the placer's left neighbour round to
/// the placer, asks only players with a follower in a matching quarter (not the Count's),
/// and a player who moved his only such follower is done (JCZ's COMMIT).
#[test]
fn count_scoring_round_runs_from_the_placers_left_to_the_placer() {
    let save = "count-scoring-round-five-players.jcz";
    // Red's BA/RRR closes Black's road (messages 19-21): Yellow, with a follower in the
    // blacksmith, is the only one asked, and passes.
    let (who, moves) = pending_moves(&after_messages(save, 22));
    assert_eq!(who, "Yellow");
    assert!(
        !moves.is_empty() && moves.iter().all(|(f, _)| f == "road"),
        "{moves:?}"
    );
    // Blue's BA/CRRR (messages 25-27): Green (nothing), Yellow (blacksmith -> road), Black
    // (nothing), Red (castle -> city), Blue last (castle -> city).
    let expected = [
        (28, "Yellow", "road"),
        (30, "Red", "city"),
        (32, "Blue", "city"),
    ];
    for (n, player, feature) in expected {
        let v = after_messages(save, n);
        let (who, moves) = pending_moves(&v);
        assert_eq!(who, player, "after {n} messages");
        assert!(
            !moves.is_empty() && moves.iter().all(|(f, _)| f == feature),
            "after {n} messages: {moves:?}"
        );
        assert_eq!(v["pending"]["can_pass"], true);
    }
    assert_eq!(after_messages(save, 33)["finished"], true);

    let save = "count-scoring-round-three-players.jcz";
    // Green's BA/CRRR (messages 19-21): Red (blacksmith -> road), Blue (castle -> city),
    // then Green, who has nothing to move, deploys into the city.
    let expected = [
        (22, "Red", "road"),
        (24, "Blue", "city"),
        (26, "Green", "quarter"),
    ];
    for (n, player, feature) in expected {
        let (who, moves) = pending_moves(&after_messages(save, n));
        assert_eq!(who, player, "after {n} messages");
        assert!(
            !moves.is_empty() && moves.iter().all(|(f, _)| f == feature),
            "after {n} messages: {moves:?}"
        );
    }
}

/// A player with followers in two matching quarters is asked again after a move and may pass;
/// one with two followers in the castle may move both.
#[test]
fn count_scoring_round_asks_the_mover_again_while_he_can_move() {
    // Blue moved from the blacksmith onto the road; the castle -> city move is still open.
    let (who, moves) = pending_moves(&after_messages("count-blacksmith-to-road.jcz", 20));
    assert_eq!(who, "Blue");
    assert_eq!(moves, [("city".to_string(), "N".to_string())]);
    // Blue moved his first castle follower; the second may follow.
    let (who, moves) = pending_moves(&after_messages("count-castle-to-city-other-tile.jcz", 20));
    assert_eq!(who, "Blue");
    assert!(moves.iter().all(|(f, _)| f == "city") && !moves.is_empty());
}

/// A scoring-round move may name any tile of the feature being scored, not only the tile
/// our replay lists (JCZ offers every place of the feature).
#[test]
fn a_scoring_round_move_may_name_any_tile_of_the_feature() {
    for (save, n) in [
        ("count-castle-to-city-other-tile.jcz", 19),
        ("count-blacksmith-to-road.jcz", 19),
    ] {
        let v = after_messages(save, n);
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(ours().join(save)).unwrap()).unwrap();
        let msg = &file["replay"][n];
        assert_eq!(msg["type"], "DEPLOY_MEEPLE", "{save}: message {n}");
        let feature = msg["payload"]["pointer"]["feature"]
            .as_str()
            .unwrap()
            .to_lowercase();
        // Where our replay offers the move onto that feature.
        let listed: Vec<(i64, i64)> = v["pending"]["deployments"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["feature"] == feature.as_str())
            .map(|d| (d["x"].as_i64().unwrap(), d["y"].as_i64().unwrap()))
            .collect();
        let pos = &msg["payload"]["pointer"]["position"];
        let named = (pos[0].as_i64().unwrap(), pos[1].as_i64().unwrap());
        assert!(
            !listed.is_empty() && listed[0] != named,
            "{save}: message {n} should name a tile other than the first listed {listed:?}"
        );
    }
    assert!(
        check_save(
            &ours()
                .join("count-castle-to-city-other-tile.jcz")
                .display()
                .to_string()
        ) >= 5
    );
}

/// CO-18 as JCZ plays it (`coc-final-scoring` market-only): the final round starts left of
/// the last placer, and a player who passed is not asked again after another player moved.
#[test]
fn count_final_round_pass_is_final() {
    let save = "count-market-to-field-final-round.jcz";
    // After Blue's last turn (messages 19-21): Red, left of Blue, may move his market
    // follower onto a field.
    let v = after_messages(save, 22);
    let (who, moves) = pending_moves(&v);
    assert_eq!(who, "Red");
    assert!(
        !moves.is_empty() && moves.iter().all(|(f, _)| f == "field"),
        "{moves:?}"
    );
    assert_eq!(v["pending"]["can_pass"], true);
    // Red passes: Blue's turn.
    let (who, moves) = pending_moves(&after_messages(save, 23));
    assert_eq!(who, "Blue");
    assert!(
        !moves.is_empty() && moves.iter().all(|(f, _)| f == "field"),
        "{moves:?}"
    );
    // Blue moves: Red, who passed, is not asked again; the game is over.
    let v = after_messages(save, 24);
    assert_eq!(v["finished"], true, "{}", v["pending"]);
    // market-only: followers in other quarters stay put at the end.
    assert_eq!(
        replay_json(
            &ours()
                .join("count-blacksmith-to-road.jcz")
                .display()
                .to_string()
        )["finished"],
        true
    );
}

/// CO-4, CO-16 as FCZ plays them: the market is offered for a deployment and as the Count's
/// destination only with farmers.
#[test]
fn count_market_is_open_only_with_farmers() {
    let count_moves = |save: &str| -> Vec<String> {
        let v = after_messages(save, 7);
        let mut m: Vec<String> = v["pending"]["custom"]
            .as_array()
            .expect("custom actions")
            .iter()
            .map(|c| c["target"]["location"].as_str().unwrap().to_string())
            .collect();
        m.sort();
        m
    };
    // Blue has just deployed into a quarter (message 6); the Count is in the castle.
    assert_eq!(
        count_moves("count-market-to-field-final-round.jcz"),
        ["QUARTER_BLACKSMITH", "QUARTER_CATHEDRAL", "QUARTER_MARKET"]
    );
    assert_eq!(
        count_moves("count-castle-to-city-after-placer-passes.jcz"),
        ["QUARTER_BLACKSMITH", "QUARTER_CATHEDRAL"]
    );
    let quarters = |save: &str, n: usize| -> Vec<String> {
        let (_, moves) = pending_moves(&after_messages(save, n));
        let mut q: Vec<String> = moves
            .into_iter()
            .map(|(f, l)| {
                assert_eq!(f, "quarter");
                l
            })
            .collect();
        q.sort();
        q
    };
    assert_eq!(
        quarters("count-market-offered-with-farmers.jcz", 6),
        [
            "QUARTER_BLACKSMITH",
            "QUARTER_CASTLE",
            "QUARTER_CATHEDRAL",
            "QUARTER_MARKET"
        ]
    );
    assert_eq!(
        quarters("count-castle-to-city-after-placer-passes.jcz", 6),
        ["QUARTER_BLACKSMITH", "QUARTER_CASTLE", "QUARTER_CATHEDRAL"]
    );
}

/// TB-11, TB-12: Red's second PLACE_TILE in one turn replays (JCZ's builder double turn),
/// and the pending step is still Red's; TB-4, TB-6: goods in the replay output's state and
/// JCZ's `trade-goods` event at the end.
#[test]
fn traders_and_builders_saves() {
    let out = replay_json(
        &ours()
            .join("traders-builder-double-turn.jcz")
            .display()
            .to_string(),
    );
    assert_eq!(out["finished"], false);
    assert_eq!(out["pending"]["player"], "Red");
    assert_eq!(out["pending"]["tile"], "BA/RFr");
    let out = replay_json(
        &ours()
            .join("traders-goods-final-scoring.jcz")
            .display()
            .to_string(),
    );
    assert_eq!(out["finished"], true);
    assert_eq!(
        out["state"]["traders-builders.wine"],
        serde_json::json!([0, 1])
    );
    assert_eq!(out["state"]["traders-builders.wine-supply"], 8);
    let last = out["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["feature"], "trade-goods");
    assert_eq!(last["player"], "Blue");
}

/// PD-7, PD-8: a dragon step from the wrong player, onto an illegal cell, or a princess
/// removal of a follower outside her city is refused, naming the message.
#[test]
fn dragon_and_princess_messages_are_checked() {
    let cases: [(&str, &str, usize, Value, &[&str]); 3] = [
        // The second step is Blue's (player 1), not Green's.
        (
            "dragon-flight-three-players.jcz",
            "wrong-steerer",
            12,
            serde_json::json!({"type": "MOVE_NEUTRAL_FIGURE", "payload": {"figureId": "dragon.1", "to": [1, 0]}, "player": 2}),
            &["message 12", "MOVE_NEUTRAL_FIGURE", "player 2"],
        ),
        // Back onto the volcano, where the flight started.
        (
            "dragon-flight-three-players.jcz",
            "revisit",
            12,
            serde_json::json!({"type": "MOVE_NEUTRAL_FIGURE", "payload": {"figureId": "dragon.1", "to": [0, 1]}, "player": 1}),
            &["message 12", "dragon.1", "not legal"],
        ),
        // Blue's princess cannot take a follower of another city (Red has none there).
        (
            "princess-portal-fairy.jcz",
            "princess",
            4,
            serde_json::json!({"type": "RETURN_MEEPLE", "payload": {"source": "PRINCESS", "pointer": {"featurePointer": {"position": [0, 0], "feature": "Road", "location": "WE"}, "meepleId": "0.small.2"}}, "player": 1}),
            &["message 4", "RETURN_MEEPLE"],
        ),
    ];
    for (src, name, index, msg, want) in cases {
        let dir = Scratch::new("jcz", name);
        let mut save: Value =
            serde_json::from_str(&std::fs::read_to_string(ours().join(src)).unwrap()).unwrap();
        save["replay"][index] = msg;
        let file = dir.path(&format!("{name}.jcz"));
        std::fs::write(&file, serde_json::to_string_pretty(&save).unwrap()).unwrap();
        let (ok, out, err) = run(&["replay", "--json", &file.display().to_string()]);
        assert!(!ok, "{name}: accepted: {out}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        for w in want {
            assert!(err.contains(w), "{name}: `{err}` lacks `{w}`");
        }
    }
}

/// Village Life's `[jcz]` (`neutral-figures` with `via`): JCZ's one `MOVE_NEUTRAL_FIGURE
/// donkey.1` to a cell is our `donkey` offer and then that tile in its prompt. The donkey
/// then stands on the tile at [1,0]: its state is its segment + 1, and the start tile
/// `BA/RCr` has segments 0…3 (city, road, two fields), so the next tile's first is 4.
#[test]
fn one_neutral_message_moves_the_donkey_in_our_two_steps() {
    let file = ours().join("village-life-donkey-move.jcz");
    let out = replay_json(&file.display().to_string());
    assert_eq!(out["state"]["village-life.donkey"], 5, "{}", out["state"]);
}

/// PH-3 … PH-5: our phantom save (`tests/jcz/phantom-step-deploy-and-pass.jcz`) reads as
/// our actions: Red's follower and then his phantom in one turn (the deployment step, then
/// the phantom step), Blue's `PASS` with no phantom step after it, Blue's phantom as his only
/// follower, Red's `PASS` of a phantom step after his thief.
#[test]
fn the_phantom_save_reads_as_a_deployment_and_a_phantom_step() {
    let file = ours().join("phantom-step-deploy-and-pass.jcz");
    let scratch = Scratch::new("jcz", "phantom");
    let back = scratch.arg("back.json");
    let (ok, _, err) = run(&["convert", &file.display().to_string(), "-o", &back]);
    assert!(ok, "{err}");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(&back).expect("record")).expect("JSON");
    let acts: Vec<String> = record["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .filter(|a| a["type"] != "draw")
        .map(|a| {
            let fig = a["figure"].as_str().unwrap_or("");
            format!("{}:{}{}", a["player"], a["type"].as_str().unwrap_or(""), {
                if fig.is_empty() {
                    String::new()
                } else {
                    format!(":{fig}")
                }
            })
        })
        .collect();
    let first: Vec<&str> = acts.iter().take(10).map(String::as_str).collect();
    assert_eq!(
        first,
        [
            "0:place",
            "0:deploy:small-follower",
            "0:deploy:phantom",
            "1:place",
            "1:pass",
            "0:place",
            "0:deploy:small-follower",
            "1:place",
            "1:deploy:phantom",
            "0:place",
        ],
        "{acts:?}"
    );
    // Turn 11: Red's thief, then the phantom step passed.
    let tail: Vec<&str> = acts
        .iter()
        .rev()
        .take(3)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(tail, ["0:place", "0:deploy:small-follower", "0:pass"]);
    let out = replay_json(&file.display().to_string());
    assert_eq!(out["players"][0]["score"], 10, "{}", out["players"]);
    assert_eq!(out["players"][1]["score"], 0, "{}", out["players"]);
}
