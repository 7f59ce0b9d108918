//! The four official expansion plugins of *Count, King & Robber* as the program finds and
//! loads them (issue 3): the real built libraries pass the loader's header checks, the
//! listing shows them, mixed games run, record and replay from the command line, and
//! options and mistakes are handled on the command line.

use carcassonne_plugins::{library_filename, load_plugin};
use std::path::PathBuf;
use std::process::Command;

const ALL_FOUR: &str = "count,king-robber,river2,heretics-shrines";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_carcassonne"))
}

fn run(cmd: &mut Command) -> (bool, String, String) {
    let out = cmd.output().expect("runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// `target/<profile>/lib<name>.so` (or the platform's name) beside the program.
fn library(name: &str) -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_carcassonne"));
    let path = exe
        .parent()
        .expect("target/<profile>")
        .join(library_filename(name));
    assert!(
        path.exists(),
        "{} is missing: build the workspace first (`cargo build --workspace --all-targets`)",
        path.display()
    );
    path
}

#[test]
fn the_real_plugin_files_pass_the_header_checks() {
    for (id, lib) in [
        ("count", "carcassonne_count"),
        ("king-robber", "carcassonne_king_robber"),
        ("river2", "carcassonne_river2"),
        ("river", "carcassonne_river"),
        ("heretics-shrines", "carcassonne_heretics_shrines"),
        ("inns-cathedrals", "carcassonne_inns_cathedrals"),
        ("traders-builders", "carcassonne_traders_builders"),
        ("princess-dragon", "carcassonne_princess_dragon"),
        ("abbot-garden", "carcassonne_abbot_garden"),
        ("hills-sheep", "carcassonne_hills_sheep"),
        (
            "bridges-castles-bazaars",
            "carcassonne_bridges_castles_bazaars",
        ),
        ("big-top", "carcassonne_big_top"),
        ("phantom", "carcassonne_phantom"),
    ] {
        let p = load_plugin(&library(lib)).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(p.id, id);
        assert_eq!(p.version, "1.0.0", "{id}: crate version");
    }
}

#[test]
fn list_shows_the_four_with_options_and_tiles() {
    let (ok, out, err) = run(bin().args(["expansions", "list", "--json"]));
    assert!(ok, "{err}");
    let list: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let find = |id: &str| {
        list.as_array()
            .expect("array")
            .iter()
            .find(|e| e["id"] == id)
            .unwrap_or_else(|| panic!("{id} listed in {out}"))
            .clone()
    };
    for (id, tiles, option, default) in [
        ("count", 12, "count.countMove", "free"),
        (
            "king-robber",
            5,
            "king-robber.kingRobberAward",
            "per-feature",
        ),
        ("river2", 12, "river2.riverEnds", "volcano-last"),
        ("river", 12, "river.riverLookahead", "false"),
        (
            "heretics-shrines",
            6,
            "heretics-shrines.cultPlaces",
            "false",
        ),
        (
            "inns-cathedrals",
            18,
            "inns-cathedrals.innCathedralIncomplete",
            "zero",
        ),
        (
            "traders-builders",
            24,
            "traders-builders.builderDoubleTurn",
            "mandatory",
        ),
        (
            "princess-dragon",
            30,
            "princess-dragon.dragonTiming",
            "before-scoring",
        ),
        // Its 8 garden tiles have count 0: they take their twins' places (AG-1).
        ("abbot-garden", 0, "abbot-garden.gardenTiles", "true"),
        // 18 tiles; the second edition's garden twin has count 0 (HL-1).
        (
            "hills-sheep",
            18,
            "hills-sheep.hillTiebreaker",
            "at-least-one",
        ),
        // 20 tiles in each list, JCZ's (`tiles.toml`; the second edition's two garden twins
        // have count 0, BT-1) and FanCloisterZone's (`tiles-c1.toml`, BT-15): `edition`
        // deals one of them.
        ("big-top", 40, "big-top.edition", "1"),
    ] {
        let e = find(id);
        assert_eq!(e["kind"], "native", "{id}");
        assert_eq!(e["version"], "1.0.0", "{id}");
        assert_eq!(e["tiles"], tiles, "{id}");
        let opt = e["options"]
            .as_array()
            .expect("options")
            .iter()
            .find(|o| o["key"] == option)
            .unwrap_or_else(|| panic!("{id}: option {option}"))
            .clone();
        assert_eq!(opt["default"], default, "{id}: {option}");
    }
}

#[test]
fn a_mixed_simulation_runs_and_is_deterministic() {
    let args = [
        "simulate",
        "--expansions",
        ALL_FOUR,
        "--games",
        "200",
        "--players",
        "3",
        "--seed",
        "11",
        "--json",
    ];
    let (ok, out, err) = run(bin().args(args));
    assert!(ok, "{err}");
    let s: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(s["games"], 200);
    let loaded: Vec<&str> = s["expansions"]
        .as_array()
        .expect("expansions")
        .iter()
        .map(|e| e.as_str().expect("text"))
        .collect();
    for id in ALL_FOUR.split(',') {
        assert!(
            loaded.iter().any(|l| l.starts_with(&format!("{id} "))),
            "{id} in {loaded:?}"
        );
    }
    // 72 + 5 + 12 + 5 tiles (the city block is laid, not drawn): games last longer.
    assert!(s["turns_mean"].as_f64().expect("turns") > 80.0, "{out}");
    // Same seed, same games (the timing line aside).
    let (_, again, _) = run(bin().args(args));
    let strip = |t: &str| {
        let mut v: serde_json::Value = serde_json::from_str(t).expect("JSON");
        v["games_per_second"] = serde_json::Value::Null;
        v
    };
    assert_eq!(strip(&out), strip(&again));
}

#[test]
fn a_recorded_mixed_game_replays_from_its_file() {
    let dir = std::env::temp_dir().join(format!("carcassonne-ckr-records-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (ok, _, err) = run(bin()
        .args([
            "simulate",
            "--expansions",
            ALL_FOUR,
            "--option",
            "count.countMove=clockwise",
            "--option",
            "king-robber.kingRobberAward=continuously",
            "--games",
            "3",
            "--seed",
            "5",
            "--record",
        ])
        .arg(&dir));
    assert!(ok, "{err}");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("record dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 3);
    for f in &files {
        let text = std::fs::read_to_string(f).expect("record");
        assert!(text.contains("\"count.countMove\""), "options recorded");
        assert!(text.contains("\"river2\""), "expansions recorded");
        let (ok, out, err) = run(bin().arg("replay").arg(f).arg("--json"));
        assert!(ok, "{}: {err}", f.display());
        let r: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(r["finished"], true, "{}", f.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mistakes_are_one_clear_line() {
    for (args, want) in [
        (
            vec![
                "--expansions",
                "count",
                "--option",
                "count.countMove=sideways",
            ],
            "`sideways` is not allowed (one of free, clockwise, follow)",
        ),
        (
            vec!["--expansions", "count", "--option", "countMove=free"],
            "unknown option `countMove`",
        ),
        (vec!["--expansions", "cathars"], "expansion `cathars`"),
    ] {
        let (ok, out, err) = run(bin().args(["simulate", "--games", "1"]).args(&args));
        assert!(!ok, "{args:?} must fail: {out}");
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}
