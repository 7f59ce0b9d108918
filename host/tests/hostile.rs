//! Hostile input never crashes the program (issue 13): each reproduction of a crash found
//! by trying the program as an attacker would, run through the real binary. Every case must
//! end in a one-line error and a non-zero exit, or in a normal result, within a time limit;
//! never a panic (exit 101), a signal or a hang.

mod common;
use common::Scratch;
use serde_json::{json, Value};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_carcassonne"))
}

/// Runs the program with a kill timer; panics on a hang.
fn run(args: &[&str], secs: u64) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            panic!(
                "`carcassonne {}` still running after {secs} s",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A clean failure: exit code 1 (not 101 = panic, not a signal) and one stderr line
/// containing `want`.
fn assert_clean_error(out: &Output, want: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "not a clean error exit: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains(want), "`{want}` not in: {err}");
}

/// A base-game record with the given start layout and no actions.
fn record_with_start(start: Value) -> Value {
    json!({
        "format": "carcassonne-record",
        "version": 1,
        "setup": {
            "engine": env!("CARGO_PKG_VERSION"),
            "expansions": [{"id": "base", "version": env!("CARGO_PKG_VERSION")}],
            "options": {"farmScoring": "3rd", "farmers": "true", "smallCity": "normal"},
            "players": ["P1", "P2"],
            "seed": 1,
            "start": start
        },
        "actions": []
    })
}

fn start(tiles: &[(i64, i64)]) -> Value {
    Value::Array(
        tiles
            .iter()
            .map(|(x, y)| json!({"tile": "BA/RCr", "x": x, "y": y, "rotation": 0}))
            .collect(),
    )
}

/// Issue 13 (1): start tiles far from the origin used to panic in the board (index out
/// of bounds, "frontier cells are inside", "room ensured", capacity overflow). Within the
/// board's bound they now replay; beyond it they are a one-line error.
#[test]
fn far_start_tiles_replay_or_fail_cleanly() {
    let tmp = Scratch::new("hostile", "far-start");
    let inside: &[&[(i64, i64)]] = &[
        &[(0, -35)],
        &[(-2, -1), (-50, -1)],
        &[(512, -512)],
        &[(-512, -512), (512, 512)],
    ];
    for (i, tiles) in inside.iter().enumerate() {
        let f = tmp.path(&format!("inside-{i}.json"));
        std::fs::write(&f, record_with_start(start(tiles)).to_string()).unwrap();
        let f = f.display().to_string();
        let out = run(&["replay", "--json", &f], 60);
        assert!(
            out.status.success(),
            "{tiles:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).expect("replay output");
        // No placement is ever offered beyond the bound.
        for c in v["pending"]["placements"].as_array().expect("a tile step") {
            let (x, y) = (c["x"].as_i64().unwrap(), c["y"].as_i64().unwrap());
            assert!(
                x.abs() <= 512 && y.abs() <= 512,
                "{tiles:?}: offered ({x},{y})"
            );
        }
        // SVG renders; convert is not for records, render is.
        let svg = tmp.arg(&format!("inside-{i}.svg"));
        let out = run(&["render", &f, "-o", &svg], 60);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let beyond: &[&[(i64, i64)]] = &[
        &[(2147483647, 0)],
        &[(0, 0), (2000000000, 2000000000)],
        &[(0, 513)],
        &[(-2147483648, -2147483648)],
    ];
    for (i, tiles) in beyond.iter().enumerate() {
        let f = tmp.path(&format!("beyond-{i}.json"));
        std::fs::write(&f, record_with_start(start(tiles)).to_string()).unwrap();
        let out = run(&["replay", "--json", &f.display().to_string()], 60);
        assert_clean_error(&out, "beyond the board's bound");
    }
}

/// Issue 13 (1): the far-apart layout fits the board but its PNG would need gigabytes:
/// refused before allocating, with the way out named.
#[test]
fn a_png_too_large_is_refused() {
    let tmp = Scratch::new("hostile", "png");
    let f = tmp.path("far.json");
    std::fs::write(
        &f,
        record_with_start(start(&[(-512, -512), (512, 512)])).to_string(),
    )
    .unwrap();
    let out = run(
        &[
            "render",
            &f.display().to_string(),
            "-o",
            &tmp.arg("far.png"),
        ],
        60,
    );
    assert_clean_error(&out, "more than the limit");
}

/// Issue 13 (1): the same start coordinates in a JCZ save (`convert`, `render`, `replay`).
#[test]
fn far_start_tiles_in_a_jcz_save_fail_cleanly() {
    let tmp = Scratch::new("hostile", "jcz-far");
    let save = json!({
        "appVersion": "6.2.0",
        "initialRandom": 0.0,
        "setup": {
            "sets": {"basic:1": 1},
            "elements": {"small-follower": 7, "farmers": true},
            "rules": {},
            "start": [{"tile": "BA/RCr", "x": 0, "y": 2147483647, "rotation": 0}]
        },
        "players": [{"name": "A", "slot": 0}, {"name": "B", "slot": 1}],
        "replay": []
    });
    let f = tmp.path("far.jcz");
    std::fs::write(&f, save.to_string()).unwrap();
    let f = f.display().to_string();
    assert_clean_error(
        &run(&["replay", "--json", &f], 60),
        "beyond the board's bound",
    );
    assert_clean_error(
        &run(&["convert", &f, "-o", &tmp.arg("out.json")], 60),
        "beyond the board's bound",
    );
    assert_clean_error(
        &run(&["render", &f, "-o", &tmp.arg("out.svg")], 60),
        "beyond the board's bound",
    );
}

/// Issue 13 (3): a fan script whose `apply_prompt` always asks again used to run a game
/// forever. A turn now has a bound on prompts; past it, a game error names the expansion.
#[test]
fn a_prompt_that_always_asks_again_ends() {
    let tmp = Scratch::new("hostile", "endless-prompt");
    let dir = tmp.path("loop");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("expansion.toml"),
        "[expansion]\nid = \"loop\"\nname = \"Loop\"\nversion = \"1.0.0\"\napi = \"1.0\"\nkind = \"script\"\nentry = \"loop.rhai\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("loop.rhai"),
        "fn setup() { declare_verb(\"v\"); }\n\
         fn window_turn_start() { prompt(active_player(), 1, 0); }\n\
         fn prompt_actions(player, code, arg) { [custom_action(\"v\")] }\n\
         fn apply_prompt(player, code, arg, action) { prompt(player, 1, 0); }\n",
    )
    .unwrap();
    let d = tmp.arg("");
    let out = run(
        &[
            "simulate",
            "--games",
            "2",
            "--plugin-dir",
            &d,
            "--expansions",
            "loop",
        ],
        120,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{err}");
    assert!(!out.status.success(), "the games cannot succeed: {err}");
    assert!(
        err.contains("loop") && err.contains("prompts in one turn"),
        "{err}"
    );
    let out = run(&["expansions", "check", &dir.display().to_string()], 120);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("prompts in one turn"), "{text}");
}
