//! Expansions from the command line: manifests found through `--plugin-dir` and the
//! environment, listed, resolved, loaded and played (with the `good` fixture plugin).

use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_carcassonne"))
}

/// A fresh folder with one manifest for the fixture plugin (built by the workspace build).
/// Removed when the returned value drops, so runs leave nothing in the temp folder.
fn plugin_dir(name: &str, manifest_version: &str, extra: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("carcassonne-{name}-"))
        .tempdir()
        .unwrap();
    let exp = dir.path().join("fixture-good");
    std::fs::create_dir_all(&exp).unwrap();
    std::fs::write(
        exp.join("expansion.toml"),
        format!(
            "[expansion]\nid = \"fixture-good\"\nname = \"Fixture\"\nversion = \"{manifest_version}\"\napi = \"1.0\"\nkind = \"native\"\nlibrary = \"fixture_plugin_good\"\n\n[options.bonus]\ntype = \"bool\"\ndefault = true\ndescription = \"a test option\"\n{extra}"
        ),
    )
    .unwrap();
    dir
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
fn list_shows_base_and_found_expansions() {
    let dir = plugin_dir("list", "0.1.0", "");
    let (ok, out, err) = run(bin()
        .args(["expansions", "list", "--json", "--plugin-dir"])
        .arg(dir.path()));
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list[0]["id"], "base");
    assert_eq!(list[0]["tiles"], 72);
    let fx = list
        .iter()
        .find(|e| e["id"] == "fixture-good")
        .expect("listed");
    assert_eq!(
        (fx["kind"].as_str(), fx["version"].as_str()),
        (Some("native"), Some("0.1.0"))
    );
    assert_eq!(fx["options"][0]["key"], "fixture-good.bonus");
    assert_eq!(fx["options"][0]["default"], "true");
    // The environment variable works the same way.
    let (ok, out, _) = run(bin()
        .args(["expansions", "list"])
        .env("CARCASSONNE_PLUGIN_PATH", dir.path()));
    assert!(ok && out.contains("fixture-good"), "{out}");
}

#[test]
fn a_native_expansion_plays_from_the_command_line() {
    let dir = plugin_dir("play", "0.1.0", "");
    let rec = dir.path().join("records");
    let (ok, _, err) = run(bin()
        .args([
            "simulate",
            "--games",
            "2",
            "--expansions",
            "fixture-good",
            "--option",
            "fixture-good.bonus=false",
            "--plugin-dir",
        ])
        .arg(dir.path())
        .arg("--record")
        .arg(&rec));
    assert!(ok, "{err}");
    // The plugin's final hook gave seat 0 its bonus; the record replays with the plugin found
    // through the environment.
    let (ok, out, err) = run(bin()
        .args(["replay", "--json"])
        .arg(rec.join("game-0.json"))
        .env("CARCASSONNE_PLUGIN_PATH", dir.path()));
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let bonus: Vec<_> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["feature"] == "fixture-bonus")
        .collect();
    assert_eq!(bonus.len(), 1);
    assert_eq!(bonus[0]["points"], 7);
    // The record lists the plugin with its version; another version refuses to replay.
    let path = rec.join("game-0.json");
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let exps = record["setup"]["expansions"].as_array_mut().unwrap();
    assert_eq!(
        exps[1],
        serde_json::json!({"id": "fixture-good", "version": "0.1.0"})
    );
    exps[1]["version"] = "0.0.9".into();
    std::fs::write(&path, serde_json::to_string(&record).unwrap()).unwrap();
    let (ok, _, err) = run(bin()
        .arg("replay")
        .arg(&path)
        .env("CARCASSONNE_PLUGIN_PATH", dir.path()));
    assert!(!ok && err.contains("record was made with 0.0.9"), "{err}");
}

#[test]
fn expansion_errors_are_one_clear_line() {
    let dir = plugin_dir("errors", "9.9.9", "");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--expansions".into(), "nope".into()],
            "expansion `nope` is not available",
        ),
        (
            vec!["--expansions".into(), "fixture-good".into()],
            "the manifest",
        ),
        (
            vec![
                "--expansions".into(),
                "fixture-good".into(),
                "--option".into(),
                "fixture-good.bonus=maybe".into(),
            ],
            "the manifest",
        ),
    ];
    for (args, want) in cases {
        let (ok, _, err) = run(bin()
            .args(["simulate"])
            .args(&args)
            .arg("--plugin-dir")
            .arg(dir.path()));
        assert!(!ok, "{args:?} should fail");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("error: ") && err.contains(want),
            "{args:?}: {err}"
        );
    }
    // A manifest whose library does not exist.
    let missing = plugin_dir("missing", "0.1.0", "");
    let m = missing.path().join("fixture-good/expansion.toml");
    let text = std::fs::read_to_string(&m)
        .unwrap()
        .replace("fixture_plugin_good", "no_such_library");
    std::fs::write(&m, text).unwrap();
    let (ok, _, err) = run(bin()
        .args(["simulate", "--expansions", "fixture-good", "--plugin-dir"])
        .arg(missing.path()));
    assert!(
        !ok && err.contains("no_such_library") && err.contains("not found"),
        "{err}"
    );
    // A broken manifest names the file and the line.
    let broken = plugin_dir("broken", "0.1.0", "colour = \"red\"\n");
    let (ok, _, err) = run(bin()
        .args(["expansions", "list", "--plugin-dir"])
        .arg(broken.path()));
    assert!(
        !ok && err.contains(
            &Path::new("fixture-good")
                .join("expansion.toml")
                .display()
                .to_string()
        ) && err.contains("colour"),
        "{err}"
    );
}
