//! Shared helpers for the integration tests: a data-driven scenario runner for the
//! rules spec's part E (`../shared/rules/spec.md`), reading `tests/scenarios/*.toml`.

pub mod scenario;
