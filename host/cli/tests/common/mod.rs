//! Helpers shared by the host's integration tests (each test binary includes this module).
#![allow(dead_code)] // every test binary uses a different part of it

use std::path::{Path, PathBuf};

/// The repository root (host/cli's grandparent).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("host/cli has a grandparent")
        .to_path_buf()
}

/// A fresh, empty folder under the system temp dir for one test, removed when dropped.
/// The process id in its name keeps concurrent test runs apart.
pub struct Scratch(PathBuf);

impl Scratch {
    /// `<temp>/carcassonne-<suite>-<pid>-<name>`, emptied first.
    pub fn new(suite: &str, name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("carcassonne-{suite}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }

    pub fn dir(&self) -> &Path {
        &self.0
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// [`Scratch::path`] as a command-line argument.
    pub fn arg(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `carcassonne ARGS --plugin-dir <repo>/expansions` (the repository's plugins).
pub fn run_with_plugins(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_carcassonne"))
        .args(args)
        .arg("--plugin-dir")
        .arg(repo().join("expansions"))
        .output()
        .expect("the binary runs")
}

/// [`run_with_plugins`], which must succeed; its standard output.
pub fn ok_with_plugins(args: &[&str]) -> String {
    let out = run_with_plugins(args);
    assert!(
        out.status.success(),
        "carcassonne {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `carcassonne ARGS` with `dir` as its working folder.
pub fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_carcassonne"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the carcassonne binary runs")
}

/// Runs `carcassonne ARGS` from the repository root (so relative paths name its files).
pub fn run_in_repo(args: &[&str]) -> std::process::Output {
    run_in(&repo(), args)
}

/// [`run_in_repo`], which must succeed; its standard output (both streams shown if not).
pub fn ok_in_repo(args: &[&str]) -> String {
    let o = run_in_repo(args);
    assert!(
        o.status.success(),
        "carcassonne {} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        args.join(" "),
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("stdout is UTF-8")
}
