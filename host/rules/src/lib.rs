//! # carcassonne-rules
//!
//! From "these expansions, these options" to an `Arc<Ruleset>`: [`discovery`] finds the
//! expansion folders (manifests) and native libraries, [`build_ruleset`] resolves the
//! requested expansions into a load order, loads each once — a native plugin through
//! `carcassonne-plugins`, a fan script through `carcassonne-script` — with its tile files,
//! and types the option values against what the ruleset declares; [`list_expansions`] is
//! `carcassonne expansions list`.
//!
//! It must not know libloading or rhai themselves (it calls the crates that do), nor game
//! records, JCloisterZone saves, bots, pictures or the command line. The modules depend
//! one way: `listing` → `ruleset` → `discovery`.

pub mod discovery;
mod error;
pub mod listing;
mod ruleset;
mod vocabulary;

pub use error::RulesError;
pub use listing::{list_expansions, ExpansionInfo, OptionInfo};
pub use ruleset::{
    base_ruleset, build_ruleset, build_ruleset_with, linked_ruleset, parse_option, RulesSpec,
};
