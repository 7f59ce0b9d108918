//! # carcassonne-play
//!
//! Games played and written down: [`record`] (the JSON game record, `docs/record-format.md`,
//! and its replay), [`replay`] (the replay output contract), [`bots`] (random, greedy and [`mcts`], the tree-search bot), [`arena`] (bots against bots with seats rotated, intervals and Elo), [`balance`] (paired games with and without an expansion), [`simulate`] (many
//! seeded games in parallel with a deterministic summary; [`jobs`] shares a run's games
//! between threads), and [`json`] (JSON files parsed
//! with errors that name the file, the position and the field).
//!
//! It must not know how expansions are loaded (it asks `carcassonne-rules` for a ruleset),
//! JCloisterZone saves, pictures or the command line.

pub mod arena;
pub mod balance;
pub mod bots;
mod error;
pub mod jobs;
pub mod json;
pub mod mcts;
pub mod record;
pub mod replay;
pub mod simulate;
pub mod stats;

pub use error::PlayError;
pub use json::JsonError;
