//! Outcomes: how a case ended ([`Verdict`]), a failed case ([`Failure`]) and a target's [`Report`].

use super::config::Target;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

/// How a case ended when it did not fail.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Read and played through.
    Accepted,
    /// Refused cleanly at `stage` with this error message.
    Rejected(&'static str, String),
}

/// A case that broke a property.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Case number (with the run's base seed, `CARCASSONNE_FUZZ_CASE` reruns it).
    pub index: u64,
    /// Case seed.
    pub seed: u64,
    /// What went wrong (panic message and location, or the broken property).
    pub message: String,
    /// The mutations that made the input.
    pub ops: String,
    /// The saved input.
    pub input: PathBuf,
    /// The command that reproduces it with the `carcassonne` binary.
    pub repro: String,
}

/// The result of fuzzing one target.
#[derive(Clone, Debug)]
pub struct Report {
    /// The target.
    pub target: Target,
    /// Cases run.
    pub cases: u64,
    /// Corpus size.
    pub seeds: usize,
    /// Cases read and played through.
    pub accepted: u64,
    /// Clean rejections by stage.
    pub rejected: BTreeMap<&'static str, u64>,
    /// Error messages with a line break or another control character from the input:
    /// the program escapes them when it prints the line (`escape_line`), so they are only
    /// counted (the first one kept as an example).
    pub control_chars: (u64, Option<(u64, String)>),
    /// The longest error message (case, length in bytes): one line, but how long.
    pub longest_error: (u64, usize),
    /// Soft mismatches (e.g. a converted save that does not replay), strict mode fails.
    pub mismatches: Vec<(u64, String)>,
    /// Failed cases.
    pub failures: Vec<Failure>,
    /// Wall time.
    pub elapsed: Duration,
    /// Time spent in the cases themselves (without preparing the corpus).
    pub busy: Duration,
    /// The slowest case and its time.
    pub slowest: (u64, Duration),
    /// Whether the time budget stopped the run early.
    pub budget_hit: bool,
    /// The run's base seed.
    pub base_seed: u64,
}

impl Report {
    /// Mean time per case: making the input, writing it, running it.
    pub fn per_case(&self) -> Duration {
        if self.cases == 0 {
            Duration::ZERO
        } else {
            self.elapsed / self.cases as u32
        }
    }

    /// Mean time per case spent running the input through the host library.
    pub fn per_case_running(&self) -> Duration {
        if self.cases == 0 {
            Duration::ZERO
        } else {
            self.busy / self.cases as u32
        }
    }

    /// One summary line per target (and detail lines).
    pub fn summary(&self) -> String {
        let mut s = format!(
            "fuzz {:<8} {:>7} cases, {} failures, {} accepted, {} rejected, {:.1} s, mean {:.2} ms/case ({:.2} ms running it), slowest {:.0} ms (case {}), corpus {} seeds{}",
            self.target.name(),
            self.cases,
            self.failures.len(),
            self.accepted,
            self.rejected.values().sum::<u64>(),
            self.elapsed.as_secs_f64(),
            self.per_case().as_secs_f64() * 1000.0,
            self.per_case_running().as_secs_f64() * 1000.0,
            self.slowest.1.as_secs_f64() * 1000.0,
            self.slowest.0,
            self.seeds,
            if self.budget_hit { " (time budget reached)" } else { "" }
        );
        let stages: Vec<String> = self
            .rejected
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = write!(s, "\n    rejected at: {}", stages.join(", "));
        if let (n, Some((case, example))) = &self.control_chars {
            let _ = write!(
                s,
                "\n    {n} error messages carry control characters from the input (escaped when printed), e.g. case {case}: {:?}",
                truncate(example, 200)
            );
        }
        if self.longest_error.1 > 0 {
            let _ = write!(
                s,
                "\n    longest error message: {} bytes (case {})",
                self.longest_error.1, self.longest_error.0
            );
        }
        for (seed, m) in self.mismatches.iter().take(5) {
            let _ = write!(s, "\n    mismatch in case {seed}: {}", truncate(m, 400));
        }
        for f in &self.failures {
            let _ = write!(
                s,
                "\n  FAILURE case {} (seed {:#018x}; {}): {}\n    input: {}\n    reproduce: {}\n    or: CARCASSONNE_FUZZ_SEED={} CARCASSONNE_FUZZ_TARGET={} CARCASSONNE_FUZZ_CASE={} cargo test -p carcassonne-tests --test fuzz -- --nocapture",
                f.index,
                f.seed,
                f.ops,
                f.message,
                f.input.display(),
                f.repro,
                self.base_seed,
                self.target.name(),
                f.index
            );
        }
        s
    }

    /// Whether the run passed (strict mode also counts mismatches).
    pub fn passed(&self, strict: bool) -> bool {
        self.failures.is_empty() && (!strict || self.mismatches.is_empty())
    }
}

pub(super) fn truncate(s: &str, n: usize) -> String {
    if s.len() <= n {
        s.to_string()
    } else {
        let mut i = n;
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        format!("{}…", &s[..i])
    }
}

/// Text with a line break or another control character.
pub(super) fn has_control_chars(s: &str) -> bool {
    s.chars().any(|c| c.is_control() && c != '\t')
}
