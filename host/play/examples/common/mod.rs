//! What the measuring examples share: the ruleset named on their command line and a
//! thread's CPU clock.

use carcassonne_core::Ruleset;
use carcassonne_rules::{build_ruleset, RulesSpec};
use std::sync::Arc;

/// The ruleset of the comma-separated expansion ids in `arg` (none: the base game), with
/// plugins found through `CARCASSONNE_PLUGIN_PATH` or beside the program; exits with
/// status 2 and the reason if it does not build.
pub fn ruleset_from_arg(arg: Option<&String>) -> Arc<Ruleset> {
    let expansions = arg
        .map(|s| {
            s.split(',')
                .filter(|e| !e.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    build_ruleset(&RulesSpec {
        expansions,
        options: Vec::new(),
        plugin_dirs: Vec::new(),
    })
    .unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    })
}

/// This thread's CPU time in nanoseconds, which another process on the core does not add
/// to, unlike wall time. (The schedstat file's run time, read before, stayed 0 on a guest
/// without scheduler statistics.)
#[allow(dead_code)] // not every example reads a clock
pub fn cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and the clock id is a constant.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
