//! Opening a game file of either kind: our JSON record or a JCloisterZone save (`.jcz`).

use crate::error::CliError;
use carcassonne_core::Game;
use carcassonne_jcz::{self as jcz, JczGame};
use carcassonne_play::record::Record;
use carcassonne_rules::build_ruleset;
use std::path::{Path, PathBuf};

/// A game read from a file.
#[derive(Clone, Debug)]
pub enum LoadedGame {
    /// Our own record.
    Record(Box<Game>),
    /// A JCloisterZone save, replayed.
    Jcz(Box<JczGame>),
}

impl LoadedGame {
    /// The replay output in JCZ's notation (what the expansions declare for JCZ: a save's
    /// own declarations, or, for a record, those its expansions' manifests give).
    pub fn jcz_output(
        &self,
        plugin_dirs: &[PathBuf],
    ) -> Result<carcassonne_play::replay::ReplayOutput, CliError> {
        Ok(match self {
            LoadedGame::Record(g) => {
                let decl =
                    jcz::Declarations::load(g.rules(), plugin_dirs).map_err(CliError::Usage)?;
                jcz::output(g, &decl)
            }
            LoadedGame::Jcz(j) => j.output(),
        })
    }

    /// The game, owned.
    pub fn into_game(self) -> Game {
        match self {
            LoadedGame::Record(g) => *g,
            LoadedGame::Jcz(j) => j.game,
        }
    }
}

/// Whether a path names a JCloisterZone save (extension `.jcz`).
pub fn is_jcz(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jcz"))
}

/// Reads a record or a save and replays its first `limit` actions (records) or messages
/// (saves), all when `None`.
pub fn load_game(
    path: &Path,
    limit: Option<usize>,
    plugin_dirs: &[PathBuf],
) -> Result<LoadedGame, CliError> {
    if is_jcz(path) {
        let j = jcz::load(path, plugin_dirs, limit)?;
        return Ok(LoadedGame::Jcz(Box::new(j)));
    }
    let record = Record::load(path)?;
    if let Some(n) = limit.filter(|n| *n > record.actions.len()) {
        return Err(CliError::Usage(format!(
            "{}: the record has {} actions, not {n}",
            path.display(),
            record.actions.len()
        )));
    }
    let mut spec = record.rules_spec();
    spec.plugin_dirs = plugin_dirs.to_vec();
    let origin = path.display().to_string();
    let rules =
        build_ruleset(&spec).map_err(|e| CliError::Usage(format!("{origin}: setup: {e}")))?;
    let game = record.replay_with(&rules, &origin, limit)?;
    Ok(LoadedGame::Record(Box::new(game)))
}
