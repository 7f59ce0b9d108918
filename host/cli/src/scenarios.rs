//! `carcassonne expansions test DIR`: a fan expansion's scenario files, run.
//!
//! The expansion is the folder's manifest; the folder goes first on the search path (so
//! this copy is the one loaded) and the expansion is loaded in every scenario. The
//! scenario files are every `.toml` file in the folder and its sub-folders except
//! `expansion.toml` and the tile files the manifest lists
//! (`carcassonne_scenario::find_scenario_files`). The format and the runner are
//! `carcassonne-scenario`'s, the same the repository's `cargo test` uses.

use carcassonne_files::escape_line;
use carcassonne_files::fsio::{read_text, MANIFEST_LIMIT};
use carcassonne_files::manifest::parse_manifest;
use carcassonne_rules::{build_ruleset, RulesSpec};
use carcassonne_scenario::{find_scenario_files, load_cases, Harness};
use std::path::{Path, PathBuf};

/// What to test.
#[derive(Clone, Debug)]
pub struct TestConfig {
    /// The expansion folder (holding `expansion.toml`).
    pub dir: PathBuf,
    /// Extra manifest folders (for the expansion's requirements and other expansions the
    /// scenarios load).
    pub plugin_dirs: Vec<PathBuf>,
}

/// The outcome of one case (a scenario file, or one of its `[[variant]]`s).
#[derive(Clone, Debug, serde::Serialize)]
pub struct CaseReport {
    /// The scenario's id (`S-01`).
    pub id: String,
    /// The variant's name; `None` for the file itself.
    pub variant: Option<String>,
    /// The scenario's title.
    pub title: String,
    /// The file.
    pub file: String,
    /// The line the case starts on, or the line of what failed.
    pub line: usize,
    /// Whether it passed.
    pub passed: bool,
    /// What differed, on one line (failures only).
    pub message: Option<String>,
    /// The game when it failed: decision, offered actions, scores, figures, events.
    pub state: Option<String>,
}

impl CaseReport {
    /// `S-01` or `S-01 [variant]`.
    pub fn name(&self) -> String {
        match &self.variant {
            Some(v) => format!("{} [{v}]", self.id),
            None => self.id.clone(),
        }
    }
}

/// Everything `expansions test` found.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct TestReport {
    /// The expansion's id (once its manifest parsed).
    pub id: Option<String>,
    /// The scenario files found, in the order they ran.
    pub files: Vec<String>,
    /// Every case of the files that could be read.
    pub cases: Vec<CaseReport>,
    /// Cases passed.
    pub passed: usize,
    /// Cases failed.
    pub failed: usize,
    /// Input that could not be used: the expansion (manifest, script, tiles) or a scenario
    /// file (unreadable, bad TOML, unknown key, wrong id).
    pub errors: Vec<InputError>,
}

/// Input that could not be used.
#[derive(Clone, Debug, serde::Serialize)]
pub struct InputError {
    /// The scenario file, if the error is about one.
    pub file: Option<String>,
    /// A one-line message with the file and line.
    pub message: String,
}

impl InputError {
    fn new(file: Option<&Path>, message: String) -> InputError {
        InputError {
            file: file.map(|f| f.display().to_string()),
            message,
        }
    }
}

impl TestReport {
    /// The report as text: per scenario file in order, one line per case
    /// (`PASS S-01 title`, `FAIL S-01 file:line: what differed`, with `verbose` the
    /// game's state below a failure, indented) or one line for a file that cannot be
    /// read (`ERROR S-02 file:line: why`). Errors about no file are not included.
    pub fn lines(&self, verbose: bool) -> Vec<String> {
        let mut out = Vec::new();
        for f in &self.files {
            if let Some(e) = self.errors.iter().find(|e| e.file.as_ref() == Some(f)) {
                out.push(format!("ERROR {} {}", file_id(f), escape_line(&e.message)));
                continue;
            }
            for c in self.cases.iter().filter(|c| &c.file == f) {
                if c.passed {
                    let title = if c.title.is_empty() {
                        String::new()
                    } else {
                        format!(" {}", c.title)
                    };
                    out.push(escape_line(&format!("PASS {}{title}", c.name())).into_owned());
                } else {
                    out.push(
                        escape_line(&format!(
                            "FAIL {} {}:{}: {}",
                            c.name(),
                            c.file,
                            c.line,
                            c.message.as_deref().unwrap_or("failed")
                        ))
                        .into_owned(),
                    );
                    if let (true, Some(state)) = (verbose, &c.state) {
                        out.extend(state.lines().map(|l| format!("  {}", escape_line(l))));
                    }
                }
            }
        }
        out
    }
}

/// Runs the scenarios.
pub fn test(cfg: &TestConfig) -> TestReport {
    let mut r = TestReport::default();
    let manifest_path = cfg.dir.join("expansion.toml");
    let manifest = match read_text(&manifest_path, MANIFEST_LIMIT)
        .map_err(|e| e.to_string())
        .and_then(|t| parse_manifest(&t, &manifest_path).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => {
            r.errors.push(InputError::new(None, e));
            return r;
        }
    };
    r.id = Some(manifest.id.clone());
    // The folder itself first: its manifest wins over any other copy of the expansion.
    let mut dirs = vec![cfg.dir.clone()];
    dirs.extend(cfg.plugin_dirs.iter().cloned());
    // The expansion must load on its own before its scenarios can say anything.
    if let Err(e) = build_ruleset(&RulesSpec {
        expansions: vec![manifest.id.clone()],
        options: Vec::new(),
        plugin_dirs: dirs.clone(),
    }) {
        r.errors.push(InputError::new(None, e.to_string()));
        return r;
    }
    let files = match find_scenario_files(&cfg.dir, &manifest.tiles) {
        Ok(f) => f,
        Err(e) => {
            r.errors
                .push(InputError::new(None, format!("{}: {e}", cfg.dir.display())));
            return r;
        }
    };
    if files.is_empty() {
        r.errors.push(InputError::new(
            None,
            format!(
                "{}: no scenario files (every `.toml` file in the folder and its sub-folders \
             other than expansion.toml and the tile files is one; `carcassonne expansions \
             new` shows one in scenarios/S-01.toml)",
                cfg.dir.display()
            ),
        ));
        return r;
    }
    let harness = Harness {
        plugin_dirs: dirs,
        extra: Vec::new(),
        always: vec![manifest.id.clone()],
    };
    for file in &files {
        r.files.push(file.display().to_string());
        let cases = match load_cases(file) {
            Ok(c) => c,
            Err(e) => {
                r.errors.push(InputError::new(Some(file), e.to_string()));
                continue;
            }
        };
        for case in &cases {
            let sc = &case.scenario;
            let (passed, line, message, state) = match harness.run(sc) {
                Ok(()) => (true, case.start, None, None),
                Err(f) => (false, case.line(&f.part), Some(f.summary()), f.state),
            };
            if passed {
                r.passed += 1;
            } else {
                r.failed += 1;
            }
            r.cases.push(CaseReport {
                id: sc.id.clone(),
                variant: (sc.name != "base").then(|| sc.name.clone()),
                title: sc.title.clone(),
                file: file.display().to_string(),
                line,
                passed,
                message,
                state,
            });
        }
    }
    r
}

/// The scenario id an unreadable file would have had (its name without `.toml`).
fn file_id(file: &str) -> String {
    Path::new(file)
        .file_stem()
        .map_or_else(|| file.to_string(), |s| s.to_string_lossy().into())
}
