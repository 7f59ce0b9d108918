//! # carcassonne-host
//!
//! Everything around the rules kernel: reading tile files (TOML), building rulesets
//! from a list of expansions and options, bots, simulation, game records (JSON) and
//! replay output. This is the only crate that knows file formats; `carcassonne-core`
//! stays pure.

pub mod bots;
pub mod check;
pub mod discovery;
pub mod error;
pub mod fsio;
pub mod jcz;
pub mod load;
pub mod manifest;
pub mod plugin_file;
pub mod plugins;
pub mod record;
pub mod render;
pub mod replay;
pub mod rules;
pub mod script;
pub mod simulate;
pub mod tiles;

pub use error::HostError;
