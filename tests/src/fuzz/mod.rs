//! A fuzzing harness that runs on the stable toolchain (`docs/fuzzing.md`).
//!
//! cargo-fuzz needs nightly; this harness needs nothing beyond the crate's dependencies. Each
//! [`Target`] takes inputs seeded from the project's own files (game records, JCZ saves,
//! expansion manifests, tile files, Rhai scripts; for action sequences the expansions
//! themselves), mutates them deterministically from a 64-bit case seed — byte-level
//! mutations and structure-aware ones for JSON, TOML and Rhai — and runs them through
//! the host library as the `carcassonne` program would. Properties:
//!
//! - nothing panics (every case runs under `catch_unwind`, with a panic hook that stays
//!   quiet on fuzzing threads and keeps the message for the report);
//! - nothing hangs (a watchdog thread stops the process when one case runs longer than
//!   `CARCASSONNE_FUZZ_TIMEOUT` seconds, after saving the case); every case is bounded
//!   (actions per replay, moves per game);
//! - for action sequences: a refused action leaves the state unchanged (a `Debug`
//!   snapshot of the state compared), an offered one is never refused, a non-offered one
//!   never accepted, and the record of the accepted actions replays to the same state.
//!
//! A failing case prints its target and seed and writes its input (a file, or an
//! expansion folder) under `<temp dir>/carcassonne-fuzz/`, with the command that
//! reproduces it with the `carcassonne` binary. A clean rejection must print as one
//! line (`error: ` + `escape_line(message)`, as the program prints it); messages that carry
//! control characters from the input, and the longest message, are reported. A converted
//! JCZ save that replays to another state is reported, and fails the run only with
//! `CARCASSONNE_FUZZ_STRICT=1`.
//!
//! Environment: `CARCASSONNE_FUZZ_CASES` (cases per target), `CARCASSONNE_FUZZ_SECONDS`
//! (time budget per target), `CARCASSONNE_FUZZ_SEED` (base seed), `CARCASSONNE_FUZZ_TARGET`
//! (run only these targets, comma-separated), `CARCASSONNE_FUZZ_CASE` (run only case
//! number n), `CARCASSONNE_FUZZ_TIMEOUT` (seconds per case), `CARCASSONNE_FUZZ_OUT` (where
//! failing inputs go), `CARCASSONNE_FUZZ_STRICT`, `CARCASSONNE_FUZZ_VERBOSE` (print every
//! clean rejection).

mod action_sequences;
mod byte_mutation;
mod config;
mod corpus;
mod extreme_values;
mod json;
mod json_mutation;
mod mutator;
mod panic_guard;
mod play;
mod report;
mod rhai_mutation;
mod rng;
mod ruleset_cache;
mod runner;
mod targets;
mod toml_mutation;
mod watchdog;
mod work_dir;

pub use config::{Config, Target};
pub use corpus::{corpus, repo_root, Seed};
pub use json::Json;
pub use report::{Failure, Report, Verdict};
pub use rng::{case_seed, Rng};
pub use runner::{run, run_with};
