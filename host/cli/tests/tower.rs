//! The Tower's plugin as the program finds and loads it: the built library passes the
//! loader's header checks; `expansions list` shows its 18 tiles and its three options
//! (C.5, defaults first); seeded games with it and the four *Count, King & Robber* plugins
//! run, are deterministic, record and replay; a bad option value is one clear line.

use carcassonne_plugins::{library_filename, load_plugin};
use std::path::{Path, PathBuf};
use std::process::Command;

const WITH_ALL: &str = "count,king-robber,river2,heretics-shrines,tower";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_carcassonne"));
    c.env(
        "CARCASSONNE_PLUGIN_PATH",
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../expansions"),
    );
    c
}

fn run(cmd: &mut Command) -> (bool, String, String) {
    let out = cmd.output().expect("runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn the_tower_plugin_passes_the_header_checks() {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_carcassonne"));
    let path = exe
        .parent()
        .and_then(|p| {
            if p.ends_with("deps") {
                p.parent()
            } else {
                Some(p)
            }
        })
        .expect("target/<profile>")
        .join(library_filename("carcassonne_tower"));
    assert!(
        path.exists(),
        "{} is missing: build the workspace first",
        path.display()
    );
    let p = load_plugin(&path).unwrap_or_else(|e| panic!("tower: {e}"));
    assert_eq!(p.id, "tower");
    assert_eq!(p.version, "1.0.0");
}

#[test]
fn list_shows_the_tower_with_its_options_and_tiles() {
    let (ok, out, err) = run(bin().args(["expansions", "list", "--json"]));
    assert!(ok, "{err}");
    let list: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let e = list
        .as_array()
        .expect("array")
        .iter()
        .find(|e| e["id"] == "tower")
        .unwrap_or_else(|| panic!("tower listed in {out}"))
        .clone();
    assert_eq!(e["kind"], "native");
    assert_eq!(e["tiles"], 18);
    for (key, default) in [
        ("tower.towerTopCapture", "allowed"),
        ("tower.ransomFunds", "need-3"),
        ("tower.cocQuarterFigures", "protected"),
    ] {
        let opt = e["options"]
            .as_array()
            .expect("options")
            .iter()
            .find(|o| o["key"] == key)
            .unwrap_or_else(|| panic!("option {key}"))
            .clone();
        assert_eq!(opt["default"], default, "{key}");
        assert!(
            !opt["description"].as_str().unwrap_or("").is_empty(),
            "{key} has a description"
        );
    }
}

#[test]
fn mixed_games_with_the_tower_run_deterministically_and_replay() {
    let args = [
        "simulate",
        "--expansions",
        WITH_ALL,
        "--option",
        "tower.ransomFunds=may-go-negative",
        "--games",
        "60",
        "--players",
        "4",
        "--seed",
        "3",
        "--json",
    ];
    let (ok, out, err) = run(bin().args(args));
    assert!(ok, "{err}");
    let (_, again, _) = run(bin().args(args));
    let strip = |t: &str| {
        let mut v: serde_json::Value = serde_json::from_str(t).expect("JSON");
        v["games_per_second"] = serde_json::Value::Null;
        v
    };
    assert_eq!(strip(&out), strip(&again));
    let dir =
        std::env::temp_dir().join(format!("carcassonne-tower-records-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (ok, _, err) = run(bin()
        .args([
            "simulate",
            "--expansions",
            WITH_ALL,
            "--games",
            "3",
            "--seed",
            "9",
            "--record",
        ])
        .arg(&dir));
    assert!(ok, "{err}");
    for f in std::fs::read_dir(&dir).expect("records") {
        let f = f.expect("entry").path();
        let (ok, out, err) = run(bin().arg("replay").arg(&f).arg("--json"));
        assert!(ok, "{}: {err}", f.display());
        let r: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(r["finished"], true);
        assert!(r["state"]["tower.pieces"].is_array(), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_tower_option_is_one_clear_line() {
    let (ok, _, err) = run(bin().args([
        "simulate",
        "--games",
        "1",
        "--expansions",
        "tower",
        "--option",
        "tower.ransomFunds=maybe",
    ]));
    assert!(!ok);
    assert!(
        err.starts_with("error: ") && err.lines().count() == 1,
        "{err}"
    );
    assert!(err.contains("need-3"), "{err}");
}
