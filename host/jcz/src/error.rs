//! The error of opening a JCloisterZone save.

use carcassonne_files::FileError;
use carcassonne_play::{JsonError, PlayError};

/// What can go wrong with a save: every variant one line naming the file, the same text the
/// program prints after `error: `.
#[derive(Debug, thiserror::Error)]
pub enum JczError {
    /// The save could not be read.
    #[error(transparent)]
    Read(#[from] FileError),
    /// The save is not valid JSON or not shaped like a save (the message names the field).
    #[error(transparent)]
    Json(#[from] JsonError),
    /// The save cannot be mapped to our rules (sets, elements, rules, players, start).
    #[error("{path}: {message}")]
    Setup {
        /// The save.
        path: String,
        /// What is not supported or wrong.
        message: String,
    },
    /// A message of the save cannot be replayed.
    #[error("{path}: message {index} ({kind}): {message}")]
    Message {
        /// The save.
        path: String,
        /// Index of the message in `replay` (0-based).
        index: usize,
        /// Its type (`PLACE_TILE`, …).
        kind: String,
        /// What went wrong.
        message: String,
    },
    /// The replayed game could not be written as our record.
    #[error(transparent)]
    Record(#[from] PlayError),
}
