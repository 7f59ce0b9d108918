//! The error of building a ruleset.

use carcassonne_core::SetupError;
use carcassonne_files::{FileError, FilesError};
use carcassonne_plugins::PluginError;
use carcassonne_script::{LoadError, ScriptError};

/// Why a ruleset could not be built: every variant one line, the same text the program
/// prints after `error: `.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// A manifest or tile file could not be read or parsed.
    #[error(transparent)]
    Files(#[from] FilesError),
    /// Core refused the ruleset (tiles, options, an expansion's `setup`).
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A native plugin could not be loaded or failed to create its expansion.
    #[error(transparent)]
    Plugin(#[from] PluginError),
    /// A fan expansion's script does not compile or breaks a load limit.
    #[error(transparent)]
    Script(#[from] ScriptError),
    /// The request cannot be met: an unknown expansion or option, a bad option value, a
    /// library that is missing or not the manifest's, a script entry that cannot be read.
    #[error("{0}")]
    Invalid(String),
}

impl From<FileError> for RulesError {
    fn from(e: FileError) -> Self {
        RulesError::Files(e.into())
    }
}

impl From<LoadError> for RulesError {
    fn from(e: LoadError) -> Self {
        match e {
            LoadError::Entry(message) => RulesError::Invalid(message),
            LoadError::Script(e) => RulesError::Script(e),
        }
    }
}
