//! The crate boundaries Cargo enforces (ARCHITECTURE.md, "Invariants Cargo enforces"),
//! read from `cargo metadata --format-version 1 --no-deps`:
//!
//! - rhai is a dependency of exactly one workspace crate, `carcassonne-script`; libloading
//!   of `carcassonne-plugins` only; resvg and the embedded fonts (`dejavu`) of
//!   `carcassonne-raster` only. Any other crate that wants them has to go through those
//!   crates' APIs, which is what keeps "only the scripting crate knows rhai" true; pyo3
//!   and numpy belong to `carcassonne-python` (the extension module) only;
//! - the scenario tests (this crate) reach neither the rasteriser nor the command line
//!   through the workspace's own crates, so they build without resvg and its fonts;
//! - the drawing crate depends on core alone, the rasteriser on no crate of the workspace,
//!   core on none of the host's crates.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// A workspace crate's dependencies: (dependency name, kind: `normal`, `dev` or `build`).
type Deps = BTreeMap<String, Vec<(String, String)>>;

/// Every workspace crate with its direct dependencies, from `cargo metadata`.
fn workspace() -> Deps {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(&root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    let mut crates = Deps::new();
    for p in meta["packages"].as_array().expect("packages") {
        let name = p["name"].as_str().expect("package name").to_string();
        let deps = p["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .map(|d| {
                (
                    d["name"].as_str().expect("dependency name").to_string(),
                    d["kind"].as_str().unwrap_or("normal").to_string(),
                )
            })
            .collect();
        crates.insert(name, deps);
    }
    assert!(
        crates.contains_key("carcassonne-core") && crates.contains_key("carcassonne-cli"),
        "the workspace's crates were found: {:?}",
        crates.keys().collect::<Vec<_>>()
    );
    crates
}

/// The workspace crates that depend on `dep` directly, in any role (normal, dev, build).
fn dependents<'a>(crates: &'a Deps, dep: &str) -> Vec<&'a str> {
    crates
        .iter()
        .filter(|(_, deps)| deps.iter().any(|(d, _)| d == dep))
        .map(|(name, _)| name.as_str())
        .collect()
}

/// Workspace crates reachable from `from` through normal dependencies (plus `from`'s own
/// dev-dependencies: what its tests link).
fn reachable<'a>(crates: &'a Deps, from: &'a str) -> BTreeSet<&'a str> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![(from, true)];
    while let Some((name, root)) = todo.pop() {
        for (d, kind) in &crates[name] {
            let follow = kind == "normal" || (root && kind == "dev");
            if follow && crates.contains_key(d.as_str()) && seen.insert(d.as_str()) {
                todo.push((d.as_str(), false));
            }
        }
    }
    seen
}

/// The workspace crates `name` depends on directly (normal dependencies).
fn workspace_deps<'a>(crates: &'a Deps, name: &str) -> BTreeSet<&'a str> {
    crates[name]
        .iter()
        .filter(|(d, kind)| kind == "normal" && crates.contains_key(d.as_str()))
        .map(|(d, _)| d.as_str())
        .collect()
}

#[test]
fn rhai_libloading_and_resvg_each_belong_to_one_crate() {
    let crates = workspace();
    for (dep, owner) in [
        ("rhai", "carcassonne-script"),
        ("libloading", "carcassonne-plugins"),
        ("resvg", "carcassonne-raster"),
        ("dejavu", "carcassonne-raster"),
        // The Python boundary (issue 21): only the extension module knows pyo3 and numpy.
        ("pyo3", "carcassonne-python"),
        ("numpy", "carcassonne-python"),
    ] {
        assert_eq!(
            dependents(&crates, dep),
            vec![owner],
            "`{dep}` must be a direct dependency of `{owner}` and of no other workspace crate"
        );
    }
}

#[test]
fn the_scenario_tests_build_without_the_rasteriser_or_the_cli() {
    let crates = workspace();
    let reach = reachable(&crates, "carcassonne-tests");
    assert!(reach.contains("carcassonne-rules"), "{reach:?}");
    for not in ["carcassonne-raster", "carcassonne-cli"] {
        assert!(
            !reach.contains(not),
            "carcassonne-tests reaches {not}: {reach:?}"
        );
    }
}

#[test]
fn drawing_rasterising_and_core_stay_small() {
    let crates = workspace();
    assert_eq!(
        workspace_deps(&crates, "carcassonne-render"),
        BTreeSet::from(["carcassonne-core"]),
        "carcassonne-render draws from core's types alone"
    );
    assert_eq!(
        workspace_deps(&crates, "carcassonne-raster"),
        BTreeSet::new(),
        "carcassonne-raster knows no game"
    );
    assert_eq!(
        workspace_deps(&crates, "carcassonne-core"),
        BTreeSet::new(),
        "core depends on no other crate of the workspace"
    );
}
