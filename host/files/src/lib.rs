//! # carcassonne-files
//!
//! The files a user hands the program, read safely and parsed strictly:
//!
//! - [`fsio`] — every file read on a user's behalf: regular files only, up to a size limit,
//!   UTF-8 text ([`FileError`] names the file and says why);
//! - [`tiles`] — tile files (TOML, `docs/tile-format.md`) into core's `TileSetData`;
//! - [`manifest`] — `expansion.toml`: strict parsing, engine-API and semver checks, and the
//!   resolution of a requested set of expansions into a load order ([`ManifestError`]);
//! - [`jcz`] — a manifest's `[prompts]` and `[jcz]` sections: what an expansion tells the
//!   JCloisterZone importer about itself (sets, elements, rules, names, messages);
//! - [`escape_line`] — makes any message built from such input print as one line.
//!
//! It must not know how an expansion is found on disk, loaded or run (no libloading, no
//! rhai), nor game records, JCloisterZone saves or pictures: core is its only engine
//! dependency, for the data types it fills.

mod escape;
pub mod fsio;
pub mod jcz;
pub mod manifest;
pub mod tiles;
pub mod vocabulary;

pub use escape::escape_line;
pub use fsio::FileError;
pub use manifest::ManifestError;

/// What can go wrong reading a tile file or a manifest: every variant one line naming the
/// file.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    /// The file could not be read (missing, not a regular file, too large, not UTF-8).
    #[error(transparent)]
    Read(#[from] FileError),
    /// A TOML file is malformed (the message carries line and column).
    #[error("{path}: {message}")]
    Toml {
        /// The file.
        path: String,
        /// Parser message with position.
        message: String,
    },
    /// A manifest is malformed or does not fit the others.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}
