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
    let mut cmd = bin();
    cmd.args(args);
    wait_for(cmd, args, secs)
}

/// Waits for `cmd` (the program run with `args`) with a kill timer; panics on a hang.
fn wait_for(mut cmd: Command, args: &[&str], secs: u64) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the program starts");
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
    let dir = script_named(
        &tmp,
        "loop",
        "Loop",
        "fn setup() { declare_verb(\"v\"); }\n\
         fn window_turn_start() { prompt(active_player(), 1, 0); }\n\
         fn prompt_actions(player, code, arg) { [custom_action(\"v\")] }\n\
         fn apply_prompt(player, code, arg, action) { prompt(player, 1, 0); }\n",
    );
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

/// The count expansion's folder in this repository.
fn count_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../expansions/count")
}

/// The count plugin's library file name on this platform.
fn count_lib_name() -> String {
    format!(
        "{}carcassonne_count{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    )
}

/// A plugin folder with a copy of count's manifest and tiles (no library yet).
fn count_copy(tmp: &Scratch, name: &str) -> std::path::PathBuf {
    let dir = tmp.path(name);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["expansion.toml", "tiles.toml"] {
        std::fs::copy(count_dir().join(f), dir.join(f)).unwrap();
    }
    dir
}

/// The count plugin's library as `cargo build` put it beside the program.
#[cfg(target_os = "linux")]
fn built_count_library() -> Vec<u8> {
    let lib = std::path::Path::new(env!("CARGO_BIN_EXE_carcassonne"))
        .parent()
        .unwrap()
        .join(count_lib_name());
    std::fs::read(&lib).expect("`cargo build` builds the count plugin")
}

/// The arguments of one game with expansion `id` found in `plugin_dir`.
fn one_game<'a>(plugin_dir: &'a str, id: &'a str) -> [&'a str; 7] {
    [
        "simulate",
        "--games",
        "1",
        "--plugin-dir",
        plugin_dir,
        "--expansions",
        id,
    ]
}

/// One game with the count plugin found in `dir` (a [`count_copy`]), under a kill timer.
fn simulate_count_from(dir: &std::path::Path, secs: u64) -> Output {
    run(&one_game(&dir.display().to_string(), "count"), secs)
}

/// [`run`] under a 2 GB address-space limit on Unix, so that a regression which reads
/// `/dev/zero` to the end fails the test instead of exhausting the machine's memory.
fn run_capped(args: &[&str], secs: u64) -> Output {
    if !cfg!(unix) {
        return run(args, secs);
    }
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -v 2000000 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_carcassonne"))
        .args(args);
    wait_for(cmd, args, secs)
}

/// Issue 13 (2): a truncated plugin library used to be mapped past its end and kill the
/// process with SIGBUS (exit 135, no message). Its ELF headers are now checked against its
/// size before loading: every truncation is a one-line error naming the file, and the
/// whole library still loads.
#[cfg(target_os = "linux")]
#[test]
fn a_truncated_plugin_is_refused_before_loading() {
    let bytes = built_count_library();
    let tmp = Scratch::new("hostile", "truncated-plugin");
    let dir = count_copy(&tmp, "count");
    let target = dir.join(count_lib_name());
    for n in [
        0,
        64,
        680,
        4096,
        100_000,
        372_736,
        bytes.len() / 2,
        bytes.len() - 1,
    ] {
        std::fs::write(&target, &bytes[..n]).unwrap();
        let out = simulate_count_from(&dir, 60);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_clean_error(&out, &target.display().to_string());
        assert!(
            err.contains("refusing to load the library"),
            "{n} bytes: {err}"
        );
    }
    std::fs::write(&target, &bytes).unwrap();
    let out = simulate_count_from(&dir, 120);
    assert!(
        out.status.success(),
        "the whole library loads: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 13 (5): a directory named like the plugin library beside the manifest used to be
/// skipped silently in favour of the copy beside the program. It is now refused.
#[test]
fn a_directory_named_like_the_library_is_refused() {
    let tmp = Scratch::new("hostile", "library-dir");
    let dir = count_copy(&tmp, "count");
    let fake = dir.join(count_lib_name());
    std::fs::create_dir_all(&fake).unwrap();
    let out = simulate_count_from(&dir, 60);
    assert_clean_error(&out, "is not a regular file (it is a directory)");
    assert_clean_error(&out, &fake.display().to_string());
}

/// A script expansion in `tmp/<id>/` with the given `entry` and `[assets] tiles`.
fn script_expansion(tmp: &Scratch, id: &str, entry: &str, tiles: &[&str]) -> std::path::PathBuf {
    let dir = tmp.path(id);
    std::fs::create_dir_all(&dir).unwrap();
    let tiles: Vec<String> = tiles.iter().map(|t| format!("{t:?}")).collect();
    std::fs::write(
        dir.join("expansion.toml"),
        format!(
            "[expansion]\nid = \"{id}\"\nname = \"X\"\nversion = \"1.0.0\"\napi = \"1.0\"\n\
             kind = \"script\"\nentry = {entry:?}\n\n[assets]\ntiles = [{}]\n",
            tiles.join(", ")
        ),
    )
    .unwrap();
    std::fs::write(dir.join("x.rhai"), "fn setup() { }\n").unwrap();
    dir
}

/// A script expansion in `tmp/<id>/` named `name` (TOML string contents, escapes allowed),
/// its entry `<id>.rhai` holding `script`.
fn script_named(tmp: &Scratch, id: &str, name: &str, script: &str) -> std::path::PathBuf {
    let dir = tmp.path(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("expansion.toml"),
        format!(
            "[expansion]\nid = \"{id}\"\nname = \"{name}\"\nversion = \"1.0.0\"\napi = \"1.0\"\n\
             kind = \"script\"\nentry = \"{id}.rhai\"\n"
        ),
    )
    .unwrap();
    std::fs::write(dir.join(format!("{id}.rhai")), script).unwrap();
    dir
}

/// Issue 13 (5): `entry = "/dev/zero"` used to be read until memory ran out.
#[cfg(unix)]
#[test]
fn a_script_entry_of_dev_zero_is_refused() {
    let tmp = Scratch::new("hostile", "entry-zero");
    let dir = script_expansion(&tmp, "zero", "/dev/zero", &[]);
    let d = tmp.arg("");
    let out = run_capped(&one_game(&d, "zero"), 60);
    assert_clean_error(&out, "/dev/zero");
    assert_clean_error(&out, "not a regular file");
    let out = run_capped(&["expansions", "check", &dir.display().to_string()], 60);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("not a regular file"), "{stdout}");
}

/// Issue 13 (5): a tile file that is `/dev/zero`, a directory or too large is refused.
#[test]
fn a_tile_asset_that_is_not_a_small_regular_file_is_refused() {
    let tmp = Scratch::new("hostile", "tiles-zero");
    let big = tmp.path("big.toml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(17 << 20)
        .unwrap();
    let cases: Vec<(String, &str)> = vec![
        (
            "/dev/zero".into(),
            "is not a regular file (it is a character device)",
        ),
        (tmp.arg(""), "is not a regular file (it is a directory)"),
        (
            big.display().to_string(),
            "is 17 MiB, more than the 16 MiB limit",
        ),
    ];
    for (i, (tiles, want)) in cases.iter().enumerate() {
        if tiles.starts_with("/dev/") && !cfg!(unix) {
            continue;
        }
        let id = format!("tiles{i}");
        let sub = Scratch::new("hostile", &format!("tiles-zero-{i}"));
        script_expansion(&sub, &id, "x.rhai", &[tiles]);
        let d = sub.arg("");
        let out = run_capped(&one_game(&d, &id), 60);
        assert_clean_error(&out, want);
        let out = run_capped(&["expansions", "list", "--plugin-dir", &d], 60);
        assert_clean_error(&out, want);
    }
}

/// Issue 13 (5): a record or save path that is a directory, `/dev/zero` or too large.
#[test]
fn a_game_file_that_is_not_a_small_regular_file_is_refused() {
    let tmp = Scratch::new("hostile", "record-zero");
    let dir = tmp.path("dir.json");
    std::fs::create_dir_all(&dir).unwrap();
    let jcz_dir = tmp.path("dir.jcz");
    std::fs::create_dir_all(&jcz_dir).unwrap();
    let big = tmp.path("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(20 << 20)
        .unwrap();
    let mut cases = vec![
        (
            dir.display().to_string(),
            "is not a regular file (it is a directory)",
        ),
        (
            jcz_dir.display().to_string(),
            "is not a regular file (it is a directory)",
        ),
        (
            big.display().to_string(),
            "is 20 MiB, more than the 16 MiB limit",
        ),
    ];
    if cfg!(unix) {
        cases.push((
            "/dev/zero".into(),
            "/dev/zero: is not a regular file (it is a character device)",
        ));
    }
    let svg = tmp.arg("out.svg");
    for (f, want) in &cases {
        assert_clean_error(&run_capped(&["replay", "--json", f], 60), want);
        assert_clean_error(&run_capped(&["render", f, "-o", &svg], 60), want);
    }
    let out = run_capped(&["convert", &jcz_dir.display().to_string(), "-o", &svg], 60);
    assert_clean_error(&out, "is not a regular file (it is a directory)");
}

/// Issue 13 (5): a manifest larger than 1 MiB is refused.
#[test]
fn a_manifest_over_the_limit_is_refused() {
    let tmp = Scratch::new("hostile", "big-manifest");
    let dir = tmp.path("big");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::File::create(dir.join("expansion.toml"))
        .unwrap()
        .set_len(2 << 20)
        .unwrap();
    let out = run(&["expansions", "list", "--plugin-dir", &tmp.arg("")], 60);
    assert_clean_error(&out, "is 2 MiB, more than the 1 MiB limit");
    let out = run(&["expansions", "check", &dir.display().to_string()], 60);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("more than the 1 MiB limit"), "{stdout}");
}

/// Every line of `out`'s stdout starts with one of `prefixes` (no line was split).
fn assert_lines_start_with(out: &Output, prefixes: &[&str]) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in stdout.lines() {
        assert!(
            prefixes.iter().any(|p| line.starts_with(p)),
            "a split line `{line}` in: {stdout}"
        );
    }
    assert!(
        !stdout.contains(['\0', '\r', '\u{1b}']),
        "control characters in: {stdout:?}"
    );
}

/// A record of one real game, for mutating.
fn played_record(tmp: &Scratch) -> Value {
    let out = run(
        &[
            "simulate",
            "--games",
            "1",
            "--seed",
            "3",
            "--record",
            &tmp.arg("rec"),
        ],
        60,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(tmp.path("rec/game-0.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Issue 13 (6): control characters from a record used to be echoed into the error line:
/// an action type `"\n"` and a NUL, CR and LF in a tile id now come out escaped.
#[test]
fn control_characters_in_a_record_are_escaped_in_the_error_line() {
    let tmp = Scratch::new("hostile", "ctrl-record");
    let base = played_record(&tmp);
    let mut r = base.clone();
    r["actions"] = json!([{"type": "\n", "player": 0}]);
    let f = tmp.path("newline.json");
    std::fs::write(&f, r.to_string()).unwrap();
    let out = run(&["replay", "--json", &f.display().to_string()], 60);
    assert_clean_error(&out, "`\\n`");
    let mut r = base.clone();
    r["actions"][0]["tile"] = json!("BA/\u{0}\r\nX\u{1b}[2J");
    let f = tmp.path("nul.json");
    std::fs::write(&f, r.to_string()).unwrap();
    let out = run(&["replay", "--json", &f.display().to_string()], 60);
    assert_clean_error(&out, "BA/\\0\\r\\nX\\u{1b}[2J");
    assert!(!String::from_utf8_lossy(&out.stderr).contains(['\0', '\r', '\u{1b}']));
}

/// Issue 13 (6): a NUL (and newline, CR, escape) in player names of a JCZ save, echoed by
/// the error about a message sent by the wrong player, and by `replay --check` lines.
#[test]
fn control_characters_in_player_names_are_escaped() {
    let tmp = Scratch::new("hostile", "ctrl-names");
    let save = json!({
        "appVersion": "6.2.0",
        "initialRandom": 0.0,
        "test": {
            "description": "names",
            "assertions": ["Red\u{0}\n has 5 points", "Red\u{0}\n has 0 points", "Zed\nx has 0 points"]
        },
        "setup": {
            "sets": {"basic:1": 1},
            "elements": {"small-follower": 7, "farmers": true},
            "rules": {},
            "start": [{"tile": "BA/RCr", "x": 0, "y": 0, "rotation": 0}]
        },
        "players": [{"name": "Red\u{0}\n", "slot": 0}, {"name": "Blue\r\u{1b}[2J", "slot": 1}],
        "replay": [],
    });
    let f = tmp.path("names.jcz");
    std::fs::write(&f, save.to_string()).unwrap();
    let f = f.display().to_string();
    let out = run(&["replay", "--check", &f], 60);
    assert_clean_error(&out, "2 of 3 assertions failed");
    assert_lines_start_with(&out, &["ok ", "FAILED ", "ignored "]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    assert!(stdout.contains("no player `Zed\\nx`"), "{stdout}");

    let mut wrong = save.clone();
    wrong["replay"] = json!([{
        "type": "PLACE_TILE",
        "payload": {"tileId": "BA/L", "rotation": "R0", "position": [0, 1]},
        "player": 1
    }]);
    wrong["gameAnnotations"] = json!({"drawOrder": ["BA/L"]});
    let g = tmp.path("wrong.jcz");
    std::fs::write(&g, wrong.to_string()).unwrap();
    let out = run(&["replay", "--json", &g.display().to_string()], 60);
    assert_clean_error(&out, "Blue\\r\\u{1b}[2J), but it is Red\\0\\n's decision");
}

/// Issue 13 (6): a CRLF manifest with a TOML syntax error: the parser's message quotes the
/// line with its CR. One line everywhere it is printed.
#[test]
fn a_crlf_manifest_syntax_error_is_one_line() {
    let tmp = Scratch::new("hostile", "crlf");
    let dir = tmp.path("bad");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("expansion.toml"),
        "[expansion]\r\nid = \"bad\"\r\nname = \"Bad\r\nversion = \"1.0.0\"\r\n",
    )
    .unwrap();
    let d = tmp.arg("");
    for args in [
        vec!["expansions", "list", "--plugin-dir", &d],
        one_game(&d, "bad").to_vec(),
    ] {
        let out = run(&args, 60);
        assert_clean_error(&out, "TOML parse error at line 3");
        assert!(!String::from_utf8_lossy(&out.stderr).contains('\r'));
    }
    let out = run(&["expansions", "check", &dir.display().to_string()], 60);
    assert_clean_error(&out, "1 problem(s) found");
    assert_lines_start_with(&out, &["ok: ", "problem: "]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\\r"));
}

/// Issue 33 A: `replay FILE` in text mode printed raw control characters from player
/// names (an escape sequence, CR/LF, a right-to-left override); they come out escaped, as
/// with `--json` and `--check`.
#[test]
fn replay_text_escapes_player_names() {
    let tmp = Scratch::new("hostile", "replay-names");
    let mut r = played_record(&tmp);
    r["setup"]["players"] = json!(["Red\u{1b}[2J", "Blue\r\nx\u{202e}"]);
    let f = tmp.path("names.json");
    std::fs::write(&f, r.to_string()).unwrap();
    let out = run(&["replay", &f.display().to_string()], 60);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Red\\u{1b}[2J"), "{stdout}");
    assert!(stdout.contains("Blue\\r\\nx\\u{202e}"), "{stdout}");
    assert!(
        !stdout.contains(['\u{1b}', '\r', '\u{202e}']),
        "raw control characters in: {stdout:?}"
    );
    // Two score lines and the events line: no name split a line.
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
}

/// Issue 33 B: a broken or looping symbolic link named like the library beside the
/// manifest used to be skipped for the copy beside the program. It is refused, naming it.
#[cfg(unix)]
#[test]
fn a_broken_or_looping_library_link_is_refused() {
    let tmp = Scratch::new("hostile", "library-link");
    for (name, looping) in [("dangling", false), ("looping", true)] {
        let dir = count_copy(&tmp, name);
        let link = dir.join(count_lib_name());
        let to = if looping {
            link.clone()
        } else {
            dir.join("nowhere.so")
        };
        std::os::unix::fs::symlink(&to, &link).unwrap();
        let out = simulate_count_from(&dir, 60);
        assert_clean_error(&out, "is a symbolic link that does not lead to a file");
        assert_clean_error(&out, &link.display().to_string());
    }
}

/// Issue 33 C: a library whose ELF machine field says another architecture used to fail
/// with "cannot open shared object file: No such file or directory". The header is read
/// first and the error says what the library was built for.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn a_library_for_another_architecture_says_so() {
    let bytes = built_count_library();
    let tmp = Scratch::new("hostile", "foreign-arch");
    for (machine, name) in [(183u16, "AArch64"), (243, "RISC-V"), (3, "i386")] {
        let dir = count_copy(&tmp, name);
        let mut b = bytes.clone();
        b[18..20].copy_from_slice(&machine.to_le_bytes());
        std::fs::write(dir.join(count_lib_name()), &b).unwrap();
        let out = simulate_count_from(&dir, 60);
        assert_clean_error(
            &out,
            &format!("was built for {name} (64-bit, little-endian), this program is x86-64"),
        );
    }
    // The class byte too: a 64-bit library marked 32-bit is refused before loading
    // (its headers no longer parse as 32-bit, or its class differs).
    let dir = count_copy(&tmp, "class");
    let mut b = bytes.clone();
    b[5] = 2; // big-endian
    std::fs::write(dir.join(count_lib_name()), &b).unwrap();
    let out = simulate_count_from(&dir, 60);
    assert_clean_error(&out, "refusing to load the library");
}

/// The script expansion `flaky` in `tmp`: it throws "flaky failed" on the third turn in
/// about a quarter of the games (the game's own seeded random numbers decide which).
fn flaky_script(tmp: &Scratch) {
    script_named(
        tmp,
        "flaky",
        "Flaky",
        "fn setup() { }\n\
         fn window_turn_start() { if turn() == 2 && random(4) == 0 { throw \"flaky failed\"; } }\n",
    );
}

/// Issue 33 D: one failing game used to stop the whole `simulate` run with no summary
/// and no seed. The other games are played and counted, the failed ones are named with
/// their seeds, and the exit status is 1.
#[test]
fn one_failing_game_does_not_stop_a_simulation() {
    let tmp = Scratch::new("hostile", "failing-game");
    flaky_script(&tmp);
    let d = tmp.arg("");
    let rec = tmp.arg("rec");
    let out = run(
        &[
            "simulate",
            "--games",
            "20",
            "--threads",
            "2",
            "--json",
            "--record",
            &rec,
            "--plugin-dir",
            &d,
            "--expansions",
            "flaky",
        ],
        240,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let summary: Value = serde_json::from_slice(&out.stdout).expect("a summary is printed");
    let failed = summary["failed"]
        .as_array()
        .expect("failed games are listed");
    let played = summary["games"].as_u64().unwrap();
    assert!(!failed.is_empty() && played > 0, "{summary}");
    assert_eq!(played + failed.len() as u64, 20, "{summary}");
    for f in failed {
        let (i, seed) = (f["index"].as_u64().unwrap(), f["seed"].as_u64().unwrap());
        assert!(f["error"].as_str().unwrap().contains("flaky failed"), "{f}");
        assert!(
            err.contains(&format!("game {i} (seed {seed}) failed:")),
            "{err}"
        );
        assert!(!tmp.path(&format!("rec/game-{i}.json")).exists());
    }
    assert!(
        err.contains(&format!("{} of 20 games failed", failed.len())),
        "{err}"
    );
    let records = std::fs::read_dir(tmp.path("rec")).unwrap().count() as u64;
    assert_eq!(records, played, "every game that finished was recorded");
}

/// A balance report is paired games: one that fails cannot be left out without biasing
/// the pairs, so the run stops with an error, not a panic, and names the first failing
/// game (its index, seed and arm) so that the designer can play it again. An arena the
/// same.
#[test]
fn a_failing_game_in_balance_or_arena_is_named() {
    let tmp = Scratch::new("hostile", "failing-balance");
    flaky_script(&tmp);
    let d = tmp.arg("");
    let common = ["--games", "20", "--threads", "2", "--plugin-dir", &d];
    let balance = [&["balance", "--expansion", "flaky"][..], &common].concat();
    let arena = [
        &["arena", "--bots", "random,random", "--expansions", "flaky"][..],
        &common,
    ]
    .concat();
    for (args, arm) in [(balance, "with it"), (arena, "")] {
        let out = run(&args, 240);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        let line = err
            .lines()
            .find(|l| l.starts_with("error: game "))
            .unwrap_or_else(|| panic!("the failing game is named: {err}"));
        assert!(
            line.contains(" (seed ") && line.contains(arm) && line.contains("flaky failed"),
            "{line}"
        );
    }
}

/// Issue 33 E: `expansions list` printed a manifest's name raw; it is escaped. And a
/// manifest that is a FIFO or a directory, skipped in silence during discovery while
/// `expansions check` reported it, is an error naming it there too.
#[test]
fn expansions_list_escapes_names_and_reports_odd_manifests() {
    let tmp = Scratch::new("hostile", "list-names");
    script_named(
        &tmp,
        "odd",
        "Odd\\u001b[2J\\r\\nname\\u202e",
        "fn setup() { }\n",
    );
    let d = tmp.arg("");
    let out = run(&["expansions", "list", "--plugin-dir", &d], 60);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Odd\\u{1b}[2J\\r\\nname\\u{202e}"),
        "{stdout}"
    );
    assert!(!stdout.contains(['\u{1b}', '\r', '\u{202e}']), "{stdout:?}");

    let odd = tmp.path("dir-manifest");
    std::fs::create_dir_all(odd.join("x/expansion.toml")).unwrap();
    let out = run(
        &[
            "expansions",
            "list",
            "--plugin-dir",
            &odd.display().to_string(),
        ],
        60,
    );
    assert_clean_error(&out, "is not a regular file (it is a directory)");
    #[cfg(unix)]
    {
        let fifo = tmp.path("fifo-manifest");
        std::fs::create_dir_all(fifo.join("y")).unwrap();
        let path = fifo.join("y/expansion.toml");
        let made = Command::new("mkfifo").arg(&path).status();
        if made.is_ok_and(|s| s.success()) {
            let out = run(
                &[
                    "expansions",
                    "list",
                    "--plugin-dir",
                    &fifo.display().to_string(),
                ],
                60,
            );
            assert_clean_error(&out, "is not a regular file (it is a FIFO)");
            assert_clean_error(&out, &path.display().to_string());
        }
    }
}
