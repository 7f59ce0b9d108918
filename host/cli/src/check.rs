//! `carcassonne expansions check DIR`: what a fan designer runs on a new expansion.
//!
//! It reads the folder's manifest, compiles its script (or loads its library), resolves
//! its dependencies, builds a ruleset with it, then plays seeded random games with it and
//! reports every problem with its position (file, line, column, hook; game seed and
//! action index). Every step runs even when an earlier game failed, so one run lists all
//! problems it can find.

use carcassonne_files::fsio::{read_text, MANIFEST_LIMIT};
use carcassonne_files::manifest::{parse_manifest, Kind};
use carcassonne_play::bots::make_bot;
use carcassonne_play::simulate::{game_seed, play_game};
use carcassonne_rules::discovery::{discover, search_dirs};
use carcassonne_rules::{build_ruleset, RulesSpec};
use std::path::{Path, PathBuf};

/// What to check.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    /// The expansion folder (holding `expansion.toml`).
    pub dir: PathBuf,
    /// Random games to play.
    pub games: u64,
    /// Base seed.
    pub seed: u64,
    /// Other expansions to load with it.
    pub with: Vec<String>,
    /// Options `key=value`.
    pub options: Vec<(String, String)>,
    /// Extra manifest folders.
    pub plugin_dirs: Vec<PathBuf>,
}

/// The outcome: what was checked and what went wrong.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct CheckReport {
    /// Expansion id (once the manifest parsed).
    pub id: Option<String>,
    /// Steps that passed, in order.
    pub passed: Vec<String>,
    /// Problems, each a one-line message with its position.
    pub problems: Vec<String>,
    /// Games played to the end.
    pub games_finished: u64,
}

impl CheckReport {
    /// Whether nothing went wrong.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Runs the check.
pub fn check(cfg: &CheckConfig) -> CheckReport {
    let mut r = CheckReport::default();
    let manifest_path = cfg.dir.join("expansion.toml");
    let text = match read_text(&manifest_path, MANIFEST_LIMIT) {
        Ok(t) => t,
        Err(e) => {
            r.problems.push(e.to_string());
            return r;
        }
    };
    let m = match parse_manifest(&text, &manifest_path) {
        Ok(m) => m,
        Err(e) => {
            r.problems.push(e.to_string());
            return r;
        }
    };
    r.id = Some(m.id.clone());
    r.passed.push(format!(
        "manifest {}: `{}` {} ({}), {} option(s), {} tile file(s)",
        manifest_path.display(),
        m.id,
        m.version,
        match m.kind {
            Kind::Script => "script",
            Kind::Native => "native",
        },
        m.options.len(),
        m.tiles.len()
    ));
    if m.kind == Kind::Script {
        match carcassonne_script::compile(&m) {
            Ok(s) => {
                let hooks: Vec<&str> = carcassonne_script::HOOKS
                    .iter()
                    .filter(|h| s.defines(h.hook))
                    .map(|h| h.name)
                    .collect();
                r.passed.push(format!(
                    "script {}: compiled; hooks: {}",
                    s.file.display(),
                    if hooks.is_empty() {
                        "none".to_string()
                    } else {
                        hooks.join(", ")
                    }
                ));
            }
            Err(e) => {
                r.problems.push(e.to_string());
                return r;
            }
        }
    }
    // The folder's parent goes first so that this copy of the expansion is the one used.
    let mut dirs = vec![parent_dir(&cfg.dir)];
    dirs.extend(cfg.plugin_dirs.iter().cloned());
    match discover(&search_dirs(&dirs)) {
        Ok(found) => {
            let same = |a: &Path, b: &Path| {
                a.canonicalize()
                    .ok()
                    .zip(b.canonicalize().ok())
                    .is_some_and(|(a, b)| a == b)
            };
            if let Some(other) = found
                .iter()
                .find(|f| f.id == m.id && !same(&f.path, &m.path))
            {
                r.problems.push(format!(
                    "{}: another expansion with id `{}` is found first ({})",
                    manifest_path.display(),
                    m.id,
                    other.path.display()
                ));
                return r;
            }
        }
        Err(e) => {
            r.problems.push(e.to_string());
            return r;
        }
    }
    let mut expansions = cfg.with.clone();
    expansions.push(m.id.clone());
    let spec = RulesSpec {
        expansions,
        options: cfg.options.clone(),
        plugin_dirs: dirs,
    };
    let rules = match build_ruleset(&spec) {
        Ok(rules) => rules,
        Err(e) => {
            r.problems.push(e.to_string());
            return r;
        }
    };
    r.passed.push(format!(
        "ruleset: {} with {} tile kinds, {} option(s)",
        spec.expansions.join(" + "),
        rules.tiles().len(),
        rules.option_defs().len()
    ));
    for i in 0..cfg.games {
        let players = 2 + (i % 4) as usize;
        let seed = game_seed(cfg.seed, i);
        let mut bots: Vec<_> = (0..players)
            .map(|k| make_bot("random", seed ^ (k as u64 + 1)).expect("random bot exists"))
            .collect();
        match play_game(&rules, players, seed, &mut bots) {
            Ok(_) => r.games_finished += 1,
            Err(e) => {
                let msg = format!("game {i} ({players} players, seed {seed}): {e}");
                if !r.problems.contains(&msg) {
                    r.problems.push(msg);
                }
                if r.problems.len() >= 20 {
                    r.problems.push("(stopped after 20 problems)".into());
                    break;
                }
            }
        }
    }
    if r.games_finished == cfg.games {
        r.passed.push(format!(
            "{} random game(s) with 2 to 5 players played to the end",
            cfg.games
        ));
    }
    r
}

fn parent_dir(dir: &Path) -> PathBuf {
    let abs = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    abs.parent().map(Path::to_path_buf).unwrap_or(abs)
}
