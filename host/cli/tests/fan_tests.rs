//! Tests without Rust, for fan designers: `carcassonne expansions new ID` makes a folder
//! that `expansions check` and `expansions test` pass untouched, and `expansions test DIR`
//! runs an expansion's scenario files: one `PASS`/`FAIL` line per scenario, a failure
//! naming the file and the line of what failed, a bad file an error with file and line
//! (exit code 2), the worked example's `P-01.toml` passing (docs/modding.md 7.5, 7.6).

mod common;
use common::Scratch;
use common::{ok_in_repo as ok, run_in, run_in_repo as run};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

use common::repo;

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs a command that must fail with `code`; its stdout and stderr.
fn fails(args: &[&str], code: i32) -> (String, String) {
    let o = run(args);
    let (out, err) = text(&o);
    assert_eq!(
        o.status.code(),
        Some(code),
        "carcassonne {}:\nstdout:\n{out}\nstderr:\n{err}",
        args.join(" ")
    );
    (out, err)
}

/// A fresh skeleton `ID` in a scratch folder; (scratch, the expansion folder as argument).
fn skeleton(test: &str, id: &str) -> (Scratch, String) {
    let s = Scratch::new("fan-tests", test);
    ok(&["expansions", "new", id, "--dir", &s.arg("")]);
    let dir = s.arg(id);
    (s, dir)
}

/// The 1-based line of the first line of `file` that is `line` (trimmed).
fn line_of(file: &Path, line: &str) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .position(|l| l.trim() == line)
        .unwrap_or_else(|| panic!("{}: no line `{line}`", file.display()))
        + 1
}

#[test]
fn new_skeleton_passes_check_and_test_untouched() {
    let (s, dir) = skeleton("new", "my-fan");
    let out = ok(&["expansions", "new", "other-fan", "--dir", &s.arg("")]);
    assert!(
        out.contains("expansion.toml") && out.contains("scenarios"),
        "{out}"
    );
    for f in [
        "expansion.toml",
        "my-fan.rhai",
        "tiles.toml",
        "scenarios/S-01.toml",
    ] {
        assert!(s.path("my-fan").join(f).is_file(), "{f} is missing");
    }
    // Every hook of the script host is there as a commented-out stub with its explanation.
    let script = std::fs::read_to_string(s.path("my-fan").join("my-fan.rhai")).unwrap();
    for h in carcassonne_script::HOOKS {
        assert!(
            script.contains(&format!("// fn {}(", h.name)) && script.contains(h.doc),
            "no stub for `{}`:\n{script}",
            h.name
        );
    }
    let check = ok(&["expansions", "check", &dir]);
    assert!(check.contains("hooks: none"), "{check}");
    assert!(!check.contains("problem"), "{check}");
    let test = ok(&["expansions", "test", &dir]);
    assert_eq!(
        test,
        "PASS S-01 R's follower on the road across the new tile scores 3 points at the end.\n"
    );
    // The skeleton's tile set is the expansion's.
    let tiles = ok(&[
        "tiles",
        "--set",
        "my-fan",
        "--expansion-dir",
        &dir,
        "--json",
    ]);
    let v: Value = serde_json::from_str(&tiles).unwrap();
    assert_eq!(v[0]["id"], "my-fan/road-cloister");
}

/// Uncommenting every stub as it is gives a script that still passes both commands: the
/// stubs' bodies return "no change".
#[test]
fn every_stub_uncommented_still_passes() {
    let (s, dir) = skeleton("stubs", "all-hooks");
    let path = s.path("all-hooks").join("all-hooks.rhai");
    let script = std::fs::read_to_string(&path).unwrap();
    let code: Vec<&str> = script
        .lines()
        .map(|l| {
            if l.starts_with("// fn ") || l.starts_with("//     ") || l == "// }" {
                &l[3..]
            } else {
                l
            }
        })
        .collect();
    std::fs::write(&path, code.join("\n")).unwrap();
    let check = ok(&["expansions", "check", &dir, "--games", "5"]);
    for h in carcassonne_script::HOOKS {
        assert!(check.contains(h.name), "`{}` not found:\n{check}", h.name);
    }
    ok(&["expansions", "test", &dir]);
}

#[test]
fn new_refuses_an_existing_folder_and_bad_ids() {
    let (s, _dir) = skeleton("refuse", "taken");
    let (_, err) = fails(&["expansions", "new", "taken", "--dir", &s.arg("")], 1);
    assert!(err.contains("already exists"), "{err}");
    // Nothing was changed in the existing folder.
    assert!(s.path("taken").join("taken.rhai").is_file());
    for bad in ["My_Fan", "9lives", "x.y", "base", "a b", "über", ""] {
        let (_, err) = fails(&["expansions", "new", bad, "--dir", &s.arg("")], 1);
        assert!(
            err.starts_with("error: ") && err.contains("is not a valid expansion id"),
            "{bad}: {err}"
        );
        assert!(!s.path(bad).join("expansion.toml").exists(), "{bad}");
    }
}

#[test]
fn a_failing_scenario_names_its_file_and_line() {
    let (s, dir) = skeleton("failing", "fails");
    let scenarios = s.path("fails").join("scenarios");
    let good = std::fs::read_to_string(scenarios.join("S-01.toml")).unwrap();
    // S-02: a wrong expectation after the last step.
    let wrong_points = good
        .replace("id = \"S-01\"", "id = \"S-02\"")
        .replace("gained = { R = 3 }", "gained = { R = 4 }");
    std::fs::write(scenarios.join("S-02.toml"), wrong_points).unwrap();
    // S-03: a placement that is not legal (north of the start tile is a city edge).
    let wrong_step = good
        .replace("id = \"S-01\"", "id = \"S-03\"")
        .replace("at = [1, 0]", "at = [0, -1]");
    std::fs::write(scenarios.join("S-03.toml"), wrong_step).unwrap();
    let (out, err) = fails(&["expansions", "test", &dir], 1);
    assert_eq!(err, "error: 2 of 3 scenario(s) failed\n");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("PASS S-01 "), "{out}");
    let s02 = scenarios.join("S-02.toml");
    assert_eq!(
        lines[1],
        format!(
            "FAIL S-02 {}:{}: expectations after the last step: points: R gained 3, expected 4",
            s02.display(),
            line_of(&s02, "gained = { R = 4 }")
        )
    );
    // The step's `[[step]]` line: the first step.
    let s03 = scenarios.join("S-03.toml");
    let prefix = format!(
        "FAIL S-03 {}:{}: step 1 (place): ",
        s03.display(),
        line_of(&s03, "[[step]]")
    );
    assert!(lines[2].starts_with(&prefix), "{}\n{prefix}", lines[2]);
    // --verbose shows the game below the failure; --json has the same facts.
    let o = run(&["expansions", "test", &dir, "--verbose"]);
    let (out, _) = text(&o);
    assert!(out.contains("\n    decision: over\n"), "{out}");
    let o = run(&["expansions", "test", &dir, "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["passed"].as_u64(), v["failed"].as_u64()),
        (Some(1), Some(2))
    );
    let case = &v["cases"][1];
    assert_eq!(case["id"], "S-02");
    assert_eq!(case["passed"], false);
    assert_eq!(
        case["line"].as_u64(),
        Some(line_of(&s02, "gained = { R = 4 }") as u64)
    );
    assert!(case["state"].as_str().unwrap().contains("decision: over"));
}

#[test]
fn a_bad_scenario_file_is_an_error_with_file_and_line() {
    let (s, dir) = skeleton("bad", "bad-files");
    let scenarios = s.path("bad-files").join("scenarios");
    let good = std::fs::read_to_string(scenarios.join("S-01.toml")).unwrap();
    // A misspelt key.
    let typo = good
        .replace("id = \"S-01\"", "id = \"S-02\"")
        .replace("gained = {", "gaind = {");
    std::fs::write(scenarios.join("S-02.toml"), typo).unwrap();
    let (out, err) = fails(&["expansions", "test", &dir], 2);
    let s02 = scenarios.join("S-02.toml");
    let at = format!("{}:{}: ", s02.display(), line_of(&s02, "gaind = { R = 3 }"));
    assert!(out.starts_with("PASS S-01 "), "{out}");
    assert!(
        out.contains(&format!("\nERROR S-02 {at}expect: unknown field `gaind`")),
        "{out}"
    );
    assert!(
        err.starts_with(&format!("error: {at}expect: unknown field `gaind`")),
        "{err}"
    );
    // Bad TOML, and an id that is not the file's name.
    std::fs::write(scenarios.join("S-02.toml"), "id = \"S-02\"\ntitle = \"x\n").unwrap();
    let (_, err) = fails(&["expansions", "test", &dir], 2);
    assert!(
        err.starts_with(&format!("error: {}:2: ", s02.display())),
        "{err}"
    );
    std::fs::write(scenarios.join("S-02.toml"), good.clone()).unwrap();
    let (_, err) = fails(&["expansions", "test", &dir], 2);
    assert!(
        err.contains(&format!("{}:5: id `S-01` does not match", s02.display())),
        "{err}"
    );
}

#[test]
fn input_that_cannot_be_tested_exits_2() {
    let s = Scratch::new("fan-tests", "untestable");
    // No manifest.
    let (_, err) = fails(&["expansions", "test", &s.arg("")], 2);
    assert!(err.contains("expansion.toml"), "{err}");
    // A script that does not compile.
    ok(&["expansions", "new", "broken", "--dir", &s.arg("")]);
    let dir = s.arg("broken");
    std::fs::write(s.path("broken").join("broken.rhai"), "fn setup( {\n").unwrap();
    let (out, err) = fails(&["expansions", "test", &dir], 2);
    assert_eq!(out, "");
    assert!(err.contains("broken.rhai:1"), "{err}");
    // No scenario file.
    std::fs::write(s.path("broken").join("broken.rhai"), "").unwrap();
    std::fs::remove_dir_all(s.path("broken").join("scenarios")).unwrap();
    let (_, err) = fails(&["expansions", "test", &dir], 2);
    assert!(err.contains("no scenario files"), "{err}");
}

/// `state` (the script's `apply_setting`) works as in the repository's tests; a setting
/// the script refuses fails the scenario at the line of `state`.
#[test]
fn scenario_settings_reach_apply_setting() {
    let (s, dir) = skeleton("settings", "tokens");
    let root = s.path("tokens");
    std::fs::write(
        root.join("tokens.rhai"),
        r#"fn setup() { declare_state("tokens", "player", 0); }
// tokens = "2,5": each player's tokens, in seat order.
fn apply_setting(key, value) {
    if key != "tokens" { throw `unknown setting '${key}' (known: tokens)`; }
    let parts = value.split(",");
    for p in 0..parts.len() { set_player_state("tokens", p, parse_int(parts[p])); }
}
"#,
    )
    .unwrap();
    let scenario = r#"id = "S-02"
title = "settings"
players = ["R", "B"]
state = { "tokens.tokens" = "2,5" }
draws = ["BA/C"]

[[tile]]
at = [0, 0]
tile = "BA/RCr"

[expect]
slots = { "tokens.tokens@R" = 2, "tokens.tokens@B" = 5 }
"#;
    let file = root.join("scenarios").join("S-02.toml");
    std::fs::write(&file, scenario).unwrap();
    let out = ok(&["expansions", "test", &dir]);
    assert!(out.contains("PASS S-02 settings"), "{out}");
    std::fs::write(
        &file,
        scenario.replace("\"tokens.tokens\" =", "\"tokens.nope\" ="),
    )
    .unwrap();
    let (out, _) = fails(&["expansions", "test", &dir], 1);
    assert!(
        out.contains(&format!(
            "FAIL S-02 {}:4: the position is refused: ",
            file.display()
        )) && out.contains("unknown setting 'nope' (known: tokens)"),
        "{out}"
    );
}

/// The worked example's scenario (docs/modding.md 7.4, 7.5) passes, both cases.
#[test]
fn pilgrims_example_scenarios_pass() {
    let out = ok(&["expansions", "test", "docs/examples/pilgrims"]);
    let title = "B's pilgrim walks the start tile's road; R and B close both ends with junctions: B scores 3 (P-3), then lets him stay for 2 more (P-4).";
    assert_eq!(
        out,
        format!("PASS P-01 {title}\nPASS P-01 [pilgrim-home] {title}\n")
    );
    // docs/modding.md 7.5 shows this output.
    let guide = std::fs::read_to_string(repo().join("docs").join("modding.md")).unwrap();
    assert!(
        guide.contains(&format!(
            "$ carcassonne expansions test docs/examples/pilgrims\n{out}```"
        )),
        "docs/modding.md 7.5 does not show this output:\n{out}"
    );
    // Run from elsewhere, with the path given in full, it finds the same files.
    let dir = repo().join("docs/examples/pilgrims");
    let o = run_in(
        &std::env::temp_dir(),
        &["expansions", "test", &dir.display().to_string()],
    );
    assert!(o.status.success(), "{:?}", text(&o));
}

/// The console sessions of docs/modding.md 7.5 (a failing scenario) and 7.6 (a new
/// skeleton, checked and tested) are what the program prints.
#[test]
fn the_guide_shows_real_sessions() {
    let guide = std::fs::read_to_string(repo().join("docs").join("modding.md")).unwrap();
    let s = Scratch::new("fan-tests", "guide");
    let session = |commands: &[&[&str]]| -> String {
        let mut t = String::new();
        for args in commands {
            let o = run_in(s.dir(), args);
            let (out, err) = text(&o);
            t.push_str(&format!("$ carcassonne {}\n{out}{err}", args.join(" ")));
        }
        t
    };
    let new = session(&[
        &["expansions", "new", "my-exp", "--dir", "my-expansions"],
        &["expansions", "check", "my-expansions/my-exp"],
        &["expansions", "test", "my-expansions/my-exp"],
    ]);
    assert!(
        guide.contains(&format!("```console\n{new}```")),
        "docs/modding.md 7.6 does not show this session:\n{new}"
    );
    let dir = s.path("my-expansions/my-exp/scenarios");
    let good = std::fs::read_to_string(dir.join("S-01.toml")).unwrap();
    std::fs::write(
        dir.join("S-02.toml"),
        good.replace("id = \"S-01\"", "id = \"S-02\"")
            .replace("gained = { R = 3 }", "gained = { R = 4 }"),
    )
    .unwrap();
    let failing = session(&[&["expansions", "test", "my-expansions/my-exp"]]);
    assert!(
        guide.contains(&format!("```console\n{failing}```")),
        "docs/modding.md 7.5 does not show this session:\n{failing}"
    );
}
