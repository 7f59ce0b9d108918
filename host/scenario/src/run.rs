//! Running a case: the ruleset (expansions found on the search path, plus in-process ones
//! the caller provides), the start position, each step, the expectations.
//!
//! Here: the [`Harness`] and what a [`Failure`] reports. Below: `position` (the start
//! position of a case), `runner` (the game under test and how steps play on it), `checks`
//! (the expectations) and `text` (how a failure names what it saw).

mod checks;
mod position;
mod runner;
mod text;

pub use position::build_position;
use runner::Runner;

use crate::format::{Scenario, Step};
use carcassonne_core::{Expansion, Game, GameError, Ruleset, SetupError};
use carcassonne_rules::{build_ruleset_with, RulesError, RulesSpec};
use std::path::PathBuf;
use std::sync::Arc;

/// What scenarios run with: where expansions are searched, the in-process expansions a
/// scenario may name, and the expansions every scenario loads.
#[derive(Clone, Default)]
pub struct Harness {
    /// Folders searched for expansion manifests first (like `--plugin-dir`), before
    /// `CARCASSONNE_PLUGIN_PATH`, `./expansions`, … (`carcassonne_rules::discovery`).
    pub plugin_dirs: Vec<PathBuf>,
    /// In-process expansions (test doubles, an embedder's own rules). A scenario that
    /// names one by its [`Expansion::id`] in `expansions` gets it, added after the loaded
    /// expansions in the scenario's order; the others are not added.
    pub extra: Vec<Arc<dyn Expansion>>,
    /// Expansion ids loaded in every scenario, whether its `expansions` names them or not
    /// (`carcassonne expansions test DIR`: the expansion under test).
    pub always: Vec<String>,
}

impl std::fmt::Debug for Harness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Harness")
            .field("plugin_dirs", &self.plugin_dirs)
            .field(
                "extra",
                &self
                    .extra
                    .iter()
                    .map(|e| e.id().to_string())
                    .collect::<Vec<_>>(),
            )
            .field("always", &self.always)
            .finish()
    }
}

/// The part of a case a failure is about, to point at its line in the file
/// ([`crate::Case::line`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Building the ruleset or the start position. `key` is the top-level key at fault
    /// when known (`tile`, `figure`, `draws`, `state`, `expansions`, `options`, …), `index`
    /// the entry of an array key.
    Setup {
        /// The top-level key.
        key: Option<&'static str>,
        /// The entry of an array (0-based).
        index: Option<usize>,
    },
    /// A step (`index` 0-based, `label` its `do`); for an `expect` step, `field` is the
    /// first expectation that does not hold.
    Step {
        /// 0-based index in `step`.
        index: usize,
        /// The step's `do`.
        label: &'static str,
        /// The first failing key of an `expect` step.
        field: Option<&'static str>,
    },
    /// The `[expect]` table, checked after the last step; `field` is the first
    /// expectation that does not hold.
    Expect {
        /// The first failing key.
        field: Option<&'static str>,
    },
}

/// Why a case did not pass: where, what differed, and the state of the game then.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.report())]
pub struct Failure {
    /// Where.
    pub part: Part,
    /// What went wrong: one message, or one per expectation that does not hold.
    pub problems: Vec<String>,
    /// The game at that moment (decision, offered actions, scores, supplies, figures,
    /// score events, discarded tiles), several lines; none when there was no game yet.
    pub state: Option<String>,
}

impl Failure {
    fn setup(key: Option<&'static str>, index: Option<usize>, message: String) -> Failure {
        Failure {
            part: Part::Setup { key, index },
            problems: vec![message],
            state: None,
        }
    }

    /// Where and what, on one line: `step 5 (custom): no offered …`,
    /// `expectations after the last step: points: B gained 3, expected 5; …`.
    pub fn summary(&self) -> String {
        self.prefixed("; ")
    }

    fn prefixed(&self, sep: &str) -> String {
        let what = self.problems.join(sep);
        match &self.part {
            Part::Setup { .. } => what,
            Part::Step { index, label, .. } => format!("step {} ({label}): {what}", index + 1),
            Part::Expect { .. } => format!("expectations after the last step: {what}"),
        }
    }

    /// The whole report: where and every problem, then the state of the game.
    pub fn report(&self) -> String {
        let mut out = self.prefixed("\n  ");
        if let Some(s) = &self.state {
            out.push('\n');
            out.push_str(s);
        }
        out
    }
}

fn option_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Harness {
    /// Builds the scenario's ruleset: the base game, the expansions it names (and
    /// [`Harness::always`]) found on the search path, then the [`Harness::extra`]
    /// expansions it names; its options.
    pub fn build_rules(&self, sc: &Scenario) -> Result<Arc<Ruleset>, Failure> {
        let options: Vec<(String, String)> = sc
            .options
            .iter()
            .map(|(k, v)| (k.clone(), option_text(v)))
            .collect();
        let is_extra = |n: &str| self.extra.iter().any(|e| e.id() == n);
        // Real expansions are loaded as the program loads them: manifest, tiles and the
        // built plugin library or the compiled script. In-process ones come after them.
        let mut real: Vec<String> = Vec::new();
        let mut extra: Vec<Arc<dyn Expansion>> = Vec::new();
        for n in sc.expansions.iter().chain(&self.always) {
            if let Some(e) = self.extra.iter().find(|e| e.id() == n) {
                if !extra.iter().any(|x| x.id() == n) {
                    extra.push(Arc::clone(e));
                }
            } else if !real.contains(n) && !is_extra(n) {
                real.push(n.clone());
            }
        }
        build_ruleset_with(
            &RulesSpec {
                expansions: real,
                options,
                plugin_dirs: self.plugin_dirs.clone(),
            },
            &extra,
        )
        .map_err(|e| {
            let key = match &e {
                RulesError::Setup(
                    SetupError::UnknownOption { .. } | SetupError::BadOptionValue { .. },
                ) => "options",
                _ => "expansions",
            };
            Failure::setup(Some(key), None, e.to_string())
        })
    }

    /// Runs one case: builds the game, performs the steps, checks the expectations.
    pub fn run(&self, sc: &Scenario) -> Result<(), Failure> {
        let rules = self.build_rules(sc)?;
        let position = build_position(&rules, sc)?;
        let game = Game::from_position(Arc::clone(&rules), &position).map_err(|e| {
            let key = match &e {
                GameError::Hook(h) if h.hook == "apply_setting" => Some("state"),
                GameError::Players(_) => Some("players"),
                _ => None,
            };
            Failure::setup(key, None, format!("the position is refused: {e}"))
        })?;
        let mut r = Runner {
            rules,
            game,
            players: sc.players.clone(),
            initial: position.scores.clone(),
        };
        for (index, step) in sc.step.iter().enumerate() {
            let errs: Vec<(Option<&'static str>, String)> = match step {
                Step::Expect(e) => r.check(e).into_iter().map(|(f, m)| (Some(f), m)).collect(),
                other => r
                    .step(other)
                    .err()
                    .map(|m| vec![(None, m)])
                    .unwrap_or_default(),
            };
            if let Some((field, _)) = errs.first() {
                return Err(Failure {
                    part: Part::Step {
                        index,
                        label: step.label(),
                        field: *field,
                    },
                    problems: errs.into_iter().map(|(_, m)| m).collect(),
                    state: Some(r.dump()),
                });
            }
        }
        if let Some(exp) = &sc.expect {
            let errs = r.check(exp);
            if let Some((field, _)) = errs.first() {
                return Err(Failure {
                    part: Part::Expect {
                        field: Some(*field),
                    },
                    problems: errs.into_iter().map(|(_, m)| m).collect(),
                    state: Some(r.dump()),
                });
            }
        }
        Ok(())
    }
}
