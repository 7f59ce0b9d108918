//! The program's error: every crate's error, and the command line's own; each a one-line
//! message, printed by `main` as `error: <message>`.

use carcassonne_jcz::JczError;
use carcassonne_play::PlayError;
use carcassonne_raster::RasterError;
use carcassonne_render::RenderError;
use carcassonne_rules::RulesError;
use std::path::PathBuf;

/// Anything a command can fail with.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Wrong command-line input, or a file of the wrong kind for a command.
    #[error("{0}")]
    Usage(String),
    /// Input a command cannot work on at all, told apart from a failed check by its exit
    /// code, 2 (`expansions test`: an expansion that does not load, a scenario file that
    /// cannot be read).
    #[error("{0}")]
    Input(String),
    /// A file could not be written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The ruleset could not be built.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// A record could not be read or replayed, or a simulation failed.
    #[error(transparent)]
    Play(#[from] PlayError),
    /// A JCloisterZone save could not be read or replayed.
    #[error(transparent)]
    Jcz(#[from] JczError),
    /// A picture could not be drawn.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A picture could not be rasterised or written.
    #[error(transparent)]
    Raster(#[from] RasterError),
}

impl CliError {
    /// The process exit code: 2 for [`CliError::Input`], 1 for everything else.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 2,
            _ => 1,
        }
    }
}
