//! The error of reading, replaying, recording and simulating games.

use crate::json::JsonError;
use carcassonne_core::{ActionError, GameError};
use carcassonne_files::FileError;

/// What can go wrong with a record or a simulation: every variant one line, the same text
/// the program prints after `error: `.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// A record file could not be read.
    #[error(transparent)]
    Read(#[from] FileError),
    /// A record is not valid JSON, or not a record of a version we read.
    #[error(transparent)]
    Json(#[from] JsonError),
    /// A record's setup does not fit the rules: its ruleset does not build, or differs
    /// from the one given, or its players, seed or start tiles are refused.
    #[error("{origin}: setup: {message}")]
    Setup {
        /// The record.
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// A record does not replay.
    #[error("{path}: action {index}: {message}")]
    Replay {
        /// The record.
        path: String,
        /// Index of the failing action (0-based).
        index: usize,
        /// What went wrong.
        message: String,
    },
    /// A simulated game could not be created.
    #[error(transparent)]
    Game(#[from] GameError),
    /// An action was refused during simulation.
    #[error(transparent)]
    Action(#[from] ActionError),
    /// A simulation that cannot run (player count, unknown bot, a worker panicked).
    #[error("{0}")]
    Invalid(String),
}
