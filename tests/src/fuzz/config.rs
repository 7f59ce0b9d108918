//! What is fuzzed ([`Target`]) and how a run is set up ([`Config`], from the environment).

use std::path::PathBuf;
use std::time::Duration;

/// What is fuzzed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// Game records (JSON), replayed with the host library (`carcassonne replay`).
    Record,
    /// JCloisterZone saves (JSON), replayed and converted (`replay`, `convert`).
    Jcz,
    /// Expansion manifests: a folder with the mutated `expansion.toml` loaded and played.
    Manifest,
    /// Tile files (TOML): an expansion folder with the mutated tile file, loaded and played.
    Tiles,
    /// Rhai scripts: a fan expansion folder with the mutated script, loaded and played.
    Script,
    /// Random and invalid actions on games of random expansion mixes.
    Actions,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 6] = [
        Target::Record,
        Target::Jcz,
        Target::Manifest,
        Target::Tiles,
        Target::Script,
        Target::Actions,
    ];

    /// Short name (`CARCASSONNE_FUZZ_TARGET`, reports, file names).
    pub fn name(self) -> &'static str {
        match self {
            Target::Record => "record",
            Target::Jcz => "jcz",
            Target::Manifest => "manifest",
            Target::Tiles => "tiles",
            Target::Script => "script",
            Target::Actions => "actions",
        }
    }

    /// Cases per target in the short run (`cargo test`), chosen so that all six stay
    /// well under a minute in a debug build on two cores.
    pub fn short_cases(self) -> u64 {
        match self {
            Target::Record => 1500,
            Target::Jcz => 1000,
            Target::Manifest => 800,
            Target::Tiles => 800,
            Target::Script => 400,
            Target::Actions => 400,
        }
    }

    pub(super) fn salt(self) -> u64 {
        0x5EED_0000 + self as u64
    }
}

/// How a run is set up (from the environment, see the module documentation).
#[derive(Clone, Debug)]
pub struct Config {
    /// Cases to run.
    pub cases: u64,
    /// Stop earlier once this much time has passed.
    pub budget: Duration,
    /// Base seed.
    pub seed: u64,
    /// Run only this case seed.
    pub only_case: Option<u64>,
    /// Longest a case may run before it counts as a hang.
    pub timeout: Duration,
    /// Where failing inputs are written.
    pub out_dir: PathBuf,
    /// Soft mismatches (a converted JCZ save that replays differently) fail the run too.
    pub strict: bool,
    /// Whether this target runs at all (`CARCASSONNE_FUZZ_TARGET`).
    pub enabled: bool,
    /// Print every clean rejection (`CARCASSONNE_FUZZ_VERBOSE=1`).
    pub verbose: bool,
}

pub(super) fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

pub(super) fn parse_u64(text: &str) -> Option<u64> {
    let t = text.trim();
    match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}

impl Config {
    /// The configuration of `target` from the environment.
    pub fn from_env(target: Target) -> Config {
        let cases = env("CARCASSONNE_FUZZ_CASES").and_then(|v| parse_u64(&v));
        let long = cases.is_some();
        let only_case = env("CARCASSONNE_FUZZ_CASE").map(|v| {
            parse_u64(&v)
                .unwrap_or_else(|| panic!("CARCASSONNE_FUZZ_CASE: `{v}` is not a case number"))
        });
        let enabled = match env("CARCASSONNE_FUZZ_TARGET") {
            Some(list) => list.split(',').any(|t| t.trim() == target.name()),
            None => true,
        };
        Config {
            cases: cases.unwrap_or(target.short_cases()),
            budget: Duration::from_secs(
                env("CARCASSONNE_FUZZ_SECONDS")
                    .and_then(|v| parse_u64(&v))
                    // The short run is capped so that a slow machine cannot stall CI.
                    .unwrap_or(if long { u64::MAX / 4 } else { 40 }),
            ),
            seed: env("CARCASSONNE_FUZZ_SEED")
                .and_then(|v| parse_u64(&v))
                .unwrap_or(13),
            only_case,
            timeout: Duration::from_secs(
                env("CARCASSONNE_FUZZ_TIMEOUT")
                    .and_then(|v| parse_u64(&v))
                    .unwrap_or(60),
            ),
            out_dir: env("CARCASSONNE_FUZZ_OUT")
                .map(PathBuf::from)
                .unwrap_or_else(|| std::env::temp_dir().join("carcassonne-fuzz")),
            strict: env("CARCASSONNE_FUZZ_STRICT").is_some_and(|v| v != "0"),
            enabled,
            verbose: env("CARCASSONNE_FUZZ_VERBOSE").is_some_and(|v| v != "0"),
        }
    }
}
