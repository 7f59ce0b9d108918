//! `serve --watch DIR`: a fan expansion's folder watched while the server runs, so that a
//! designer edits the script and plays the new version without restarting anything.
//!
//! On every change (debounced), the expansion is built again on its own. If it builds,
//! the generation goes up and the ruleset cache is emptied: the next game created uses the
//! new files, and the page offers one. If it does not, the error (the script host's
//! `file:line:col: …`) is kept for the page and nothing else changes: games already running
//! keep the ruleset they were built with, so the old version stays playable.

use carcassonne_rules::{build_ruleset, discovery::discover, RulesSpec};
use notify::{RecursiveMode, Watcher};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the page is told about the watched folders.
#[derive(Debug, Default)]
pub struct WatchState {
    /// Folders watched.
    pub dirs: Vec<PathBuf>,
    /// Goes up at every change that built.
    pub generation: u64,
    /// The last change's build error, until a change builds again.
    pub error: Option<String>,
    /// The expansion ids in the watched folders.
    pub ids: Vec<String>,
}

impl WatchState {
    pub fn to_json(&self) -> Value {
        json!({
            "watching": self.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>(),
            "expansions": self.ids,
            "generation": self.generation,
            "error": self.error,
        })
    }
}

/// Builds each watched expansion alone; the first error, or the ids found.
pub fn check(dirs: &[PathBuf], plugin_dirs: &[PathBuf]) -> Result<Vec<String>, String> {
    let manifests = discover(dirs).map_err(|e| e.to_string())?;
    if manifests.is_empty() {
        return Err(format!(
            "no expansion.toml in {}",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let ids: Vec<String> = manifests.iter().map(|m| m.id.clone()).collect();
    for id in &ids {
        let spec = RulesSpec {
            expansions: vec![id.clone()],
            options: Vec::new(),
            plugin_dirs: plugin_dirs.to_vec(),
        };
        build_ruleset(&spec).map_err(|e| e.to_string())?;
    }
    Ok(ids)
}

/// Starts watching; `on_reload` runs after every change that built (to empty caches).
/// The returned watcher must be kept alive.
pub fn start(
    state: Arc<Mutex<WatchState>>,
    plugin_dirs: Vec<PathBuf>,
    on_reload: impl Fn() + Send + 'static,
) -> Result<notify::RecommendedWatcher, String> {
    let dirs = lock(&state).dirs.clone();
    match check(&dirs, &plugin_dirs) {
        Ok(ids) => lock(&state).ids = ids,
        Err(e) => lock(&state).error = Some(e),
    }
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let mut watcher = notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
        if ev.is_ok_and(|e| !e.kind.is_access()) {
            let _ = tx.send(());
        }
    })
    .map_err(|e| format!("cannot watch: {e}"))?;
    for d in &dirs {
        watcher
            .watch(d, RecursiveMode::Recursive)
            .map_err(|e| format!("cannot watch {}: {e}", d.display()))?;
    }
    std::thread::spawn(move || {
        while rx.recv().is_ok() {
            // An editor writes a file in several steps: wait until it is quiet.
            while rx.recv_timeout(Duration::from_millis(150)).is_ok() {}
            match check(&dirs, &plugin_dirs) {
                Ok(ids) => {
                    on_reload();
                    let mut s = lock(&state);
                    s.ids = ids;
                    s.error = None;
                    s.generation += 1;
                }
                Err(e) => lock(&state).error = Some(e),
            }
        }
    });
    Ok(watcher)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
