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

use carcassonne_core::{
    Action, ActionError, CustomAction, DrawMode, ExpansionIndex, FigureId, FigureKindId, Game,
    GameSetup, OptionType, Pos, Rotation, Ruleset, SegmentId, StartTile, TileKindId, VerbId,
};
use carcassonne_play::record::Record;
use carcassonne_rules::{build_ruleset, RulesSpec};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------
// Targets and configuration
// ---------------------------------------------------------------------------------------

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

    fn salt(self) -> u64 {
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

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn parse_u64(text: &str) -> Option<u64> {
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

// ---------------------------------------------------------------------------------------
// Randomness
// ---------------------------------------------------------------------------------------

/// SplitMix64: small, fast, and the same everywhere (cases are reproducible by seed).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next_u64() % den < num
    }

    /// A random element.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// Small values more often than large ones: `0..n`, skewed towards 0.
    pub fn small(&mut self, n: usize) -> usize {
        let a = self.below(n.max(1));
        let b = self.below(n.max(1));
        a.min(b)
    }
}

/// The seed of case `index` of `target` in a run with base seed `seed`.
pub fn case_seed(target: Target, seed: u64, index: u64) -> u64 {
    let mut r = Rng::new(seed ^ target.salt().wrapping_mul(0xD6E8_FEB8_6659_FD93));
    for _ in 0..2 {
        r.next_u64();
    }
    r.next_u64() ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

// ---------------------------------------------------------------------------------------
// Panics: a quiet hook on fuzzing threads, the message kept for the report
// ---------------------------------------------------------------------------------------

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once per process) a panic hook that records the message and location of a
/// panic on a thread running fuzz cases and prints nothing; on any other thread it
/// calls the previous hook, so other tests of the binary report as usual.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let payload = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(no message)".into());
                let at = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                    .unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("panicked at {at}: {payload}")));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `f` with panics caught and reported quietly.
fn guarded<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    install_panic_hook();
    QUIET.with(|q| q.set(true));
    LAST_PANIC.with(|p| p.borrow_mut().take());
    let r = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    r.map_err(|_| {
        LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "panicked".into())
    })
}

// ---------------------------------------------------------------------------------------
// Watchdog: a case that runs too long stops the process, after saying which one
// ---------------------------------------------------------------------------------------

struct Running {
    target: Target,
    base_seed: u64,
    seed: u64,
    since: Instant,
    input: PathBuf,
    repro: String,
}

fn running() -> &'static Mutex<BTreeMap<Target, Running>> {
    static RUNNING: OnceLock<Mutex<BTreeMap<Target, Running>>> = OnceLock::new();
    RUNNING.get_or_init(|| Mutex::new(BTreeMap::new()))
}

fn start_watchdog(timeout: Duration, out_dir: PathBuf) {
    static ONCE: Once = Once::new();
    ONCE.call_once(move || {
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            let map = running().lock().unwrap_or_else(|e| e.into_inner());
            for r in map.values() {
                if r.since.elapsed() > timeout {
                    let saved = save_failure(&out_dir, r.target, r.seed, &r.input);
                    eprintln!(
                        "fuzz {}: case {} HANGS: still running after {:?}\n  input: {}\n  reproduce: {}\n  or: CARCASSONNE_FUZZ_SEED={} CARCASSONNE_FUZZ_TARGET={} CARCASSONNE_FUZZ_CASE={} cargo test -p carcassonne-tests --test fuzz -- --nocapture",
                        r.target.name(),
                        r.seed,
                        timeout,
                        saved.display(),
                        r.repro.replace("{}", &saved.display().to_string()),
                        r.base_seed,
                        r.target.name(),
                        r.seed
                    );
                    std::process::exit(3);
                }
            }
        });
    });
}

// ---------------------------------------------------------------------------------------
// Paths and corpora
// ---------------------------------------------------------------------------------------

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

fn expansion_dirs() -> Vec<PathBuf> {
    let root = repo_root();
    vec![
        root.join("expansions"),
        root.join("fan-expansions"),
        root.join("docs").join("examples"),
    ]
}

/// One corpus entry.
#[derive(Clone, Debug)]
pub struct Seed {
    /// Where it came from (for reports).
    pub name: String,
    /// Its text.
    pub text: String,
    /// For manifests, tile files and scripts: the expansion folder it belongs to (its other
    /// files are copied beside the mutated one); `None` for the base tile file.
    pub dir: Option<PathBuf>,
    /// Its file name inside `dir`.
    pub file: String,
}

impl Seed {
    /// A seed that is not a file of an expansion folder.
    pub fn text(name: &str, text: String) -> Seed {
        Seed {
            name: name.to_string(),
            text,
            dir: None,
            file: String::new(),
        }
    }
}

fn files_in(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn file_seed(path: &Path, folder: bool) -> Option<Seed> {
    let text = std::fs::read_to_string(path).ok()?;
    let root = repo_root();
    let name = path
        .strip_prefix(&root)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string());
    Some(Seed {
        name,
        text,
        dir: folder
            .then(|| path.parent().map(Path::to_path_buf))
            .flatten(),
        file: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    })
}

/// Expansion folders (each holding an `expansion.toml`) of the repository.
fn expansion_folders() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for d in expansion_dirs() {
        for s in subdirs(&d) {
            if s.join("expansion.toml").is_file() {
                v.push(s);
            }
        }
    }
    v
}

/// The corpus of a target from the project's files (records generated by simulation are
/// added by the caller: the record JSON writer lives in a dev-dependency).
pub fn corpus(target: Target) -> Vec<Seed> {
    let root = repo_root();
    let mut seeds = Vec::new();
    match target {
        Target::Record => {
            for p in files_in(&root.join("docs").join("examples"), "json") {
                seeds.extend(file_seed(&p, false));
            }
        }
        Target::Jcz => {
            for dir in [
                root.join("tests").join("jcz"),
                root.join("..")
                    .join("shared")
                    .join("formats")
                    .join("jcz-samples"),
            ] {
                for p in files_in(&dir, "jcz") {
                    seeds.extend(file_seed(&p, false));
                }
            }
        }
        Target::Manifest => {
            for d in expansion_folders() {
                seeds.extend(file_seed(&d.join("expansion.toml"), true));
            }
        }
        Target::Tiles => {
            // The base set is loaded anyway: under fuzz it is a second set, renamed.
            seeds.extend(
                file_seed(&root.join("core").join("tiles").join("base.toml"), false).map(
                    |mut s| {
                        s.text = s
                            .text
                            .replace("set = \"base\"", "set = \"fuzz\"")
                            .replace("\"BA/", "\"FZ/")
                            .replace("aliases = [\"", "aliases = [\"fz-");
                        s
                    },
                ),
            );
            for d in expansion_folders() {
                let Ok(text) = std::fs::read_to_string(d.join("expansion.toml")) else {
                    continue;
                };
                let Ok(m) =
                    carcassonne_files::manifest::parse_manifest(&text, &d.join("expansion.toml"))
                else {
                    continue;
                };
                for t in &m.tiles {
                    seeds.extend(file_seed(t, true));
                }
            }
        }
        Target::Script => {
            for d in expansion_folders() {
                for p in files_in(&d, "rhai") {
                    seeds.extend(file_seed(&p, true));
                }
            }
        }
        Target::Actions => {}
    }
    seeds
}

// ---------------------------------------------------------------------------------------
// JSON: a small tree that keeps number literals as written (so extreme and malformed
// literals survive) and may hold raw text
// ---------------------------------------------------------------------------------------

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number literal, as written.
    Num(String),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object; duplicate keys are allowed (and written).
    Obj(Vec<(String, Json)>),
    /// Text written as is (malformed literals, lone surrogate escapes, `NaN`).
    Raw(String),
}

struct JsonParser<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\n' | b'\r' | b'\t') {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.b.get(self.i) == Some(&c)).then(|| self.i += 1)
    }

    fn value(&mut self) -> Option<Json> {
        self.depth += 1;
        if self.depth > 256 {
            return None;
        }
        self.ws();
        let v = match *self.b.get(self.i)? {
            b'n' => self.word("null", Json::Null),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'"' => self.string().map(Json::Str),
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b']').is_none() {
                    loop {
                        items.push(self.value()?);
                        if self.eat(b',').is_some() {
                            continue;
                        }
                        self.eat(b']')?;
                        break;
                    }
                }
                Some(Json::Arr(items))
            }
            b'{' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b'}').is_none() {
                    loop {
                        self.ws();
                        let k = self.string()?;
                        self.eat(b':')?;
                        items.push((k, self.value()?));
                        if self.eat(b',').is_some() {
                            continue;
                        }
                        self.eat(b'}')?;
                        break;
                    }
                }
                Some(Json::Obj(items))
            }
            b'-' | b'0'..=b'9' => {
                let s = self.i;
                while self.i < self.b.len()
                    && matches!(
                        self.b[self.i],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.i += 1;
                }
                Some(Json::Num(
                    String::from_utf8_lossy(&self.b[s..self.i]).into_owned(),
                ))
            }
            _ => None,
        };
        self.depth -= 1;
        v
    }

    fn word(&mut self, w: &str, v: Json) -> Option<Json> {
        self.b[self.i..].starts_with(w.as_bytes()).then(|| {
            self.i += w.len();
            v
        })
    }

    fn string(&mut self) -> Option<String> {
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = *self.b.get(self.i)?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = *self.b.get(self.i)?;
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let h = std::str::from_utf8(self.b.get(self.i..self.i + 4)?).ok()?;
                            let n = u32::from_str_radix(h, 16).ok()?;
                            self.i += 4;
                            let ch = char::from_u32(n).unwrap_or('\u{fffd}');
                            out.extend_from_slice(ch.to_string().as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
        Some(String::from_utf8_lossy(&out).into_owned())
    }
}

impl Json {
    /// Parses JSON text (lenient about number literals); `None` if it is no JSON.
    pub fn parse(text: &str) -> Option<Json> {
        let mut p = JsonParser {
            b: text.as_bytes(),
            i: 0,
            depth: 0,
        };
        let v = p.value()?;
        p.ws();
        (p.i == p.b.len()).then_some(v)
    }

    /// Writes the value as JSON text (indented when `pretty`).
    pub fn write(&self, pretty: bool) -> String {
        let mut s = String::new();
        self.write_to(&mut s, pretty, 0);
        s
    }

    fn write_to(&self, s: &mut String, pretty: bool, indent: usize) {
        let nl = |s: &mut String, n: usize| {
            if pretty {
                s.push('\n');
                for _ in 0..n.min(64) {
                    s.push_str("  ");
                }
            }
        };
        match self {
            Json::Null => s.push_str("null"),
            Json::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) | Json::Raw(n) => s.push_str(n),
            Json::Str(t) => write_json_string(s, t),
            Json::Arr(items) => {
                s.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    nl(s, indent + 1);
                    v.write_to(s, pretty, indent + 1);
                }
                if !items.is_empty() {
                    nl(s, indent);
                }
                s.push(']');
            }
            Json::Obj(items) => {
                s.push('{');
                for (i, (k, v)) in items.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    nl(s, indent + 1);
                    write_json_string(s, k);
                    s.push(':');
                    if pretty {
                        s.push(' ');
                    }
                    v.write_to(s, pretty, indent + 1);
                }
                if !items.is_empty() {
                    nl(s, indent);
                }
                s.push('}');
            }
        }
    }

    fn count(&self) -> usize {
        1 + match self {
            Json::Arr(a) => a.iter().map(Json::count).sum(),
            Json::Obj(o) => o.iter().map(|(_, v)| v.count()).sum(),
            _ => 0,
        }
    }

    fn nth(&self, k: &mut usize) -> Option<&Json> {
        if *k == 0 {
            return Some(self);
        }
        *k -= 1;
        match self {
            Json::Arr(a) => a.iter().find_map(|c| c.nth(k)),
            Json::Obj(o) => o.iter().find_map(|(_, c)| c.nth(k)),
            _ => None,
        }
    }

    fn nth_mut(&mut self, k: &mut usize) -> Option<&mut Json> {
        if *k == 0 {
            return Some(self);
        }
        *k -= 1;
        match self {
            Json::Arr(a) => {
                for c in a.iter_mut() {
                    if let Some(r) = c.nth_mut(k) {
                        return Some(r);
                    }
                }
                None
            }
            Json::Obj(o) => {
                for (_, c) in o.iter_mut() {
                    if let Some(r) = c.nth_mut(k) {
                        return Some(r);
                    }
                }
                None
            }
            _ => None,
        }
    }

    fn collect_words(&self, keys: &mut Vec<String>) {
        match self {
            Json::Str(s) if s.len() <= 40 => keys.push(s.clone()),
            Json::Arr(a) => a.iter().for_each(|c| c.collect_words(keys)),
            Json::Obj(o) => {
                for (k, v) in o {
                    keys.push(k.clone());
                    v.collect_words(keys);
                }
            }
            _ => {}
        }
    }
}

fn write_json_string(s: &mut String, t: &str) {
    s.push('"');
    for c in t.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

// ---------------------------------------------------------------------------------------
// Extreme values
// ---------------------------------------------------------------------------------------

const EXTREME_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "8",
    "9",
    "255",
    "256",
    "511",
    "512",
    "513",
    "-512",
    "-513",
    "65535",
    "65536",
    "2147483647",
    "-2147483648",
    "2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9007199254740993",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "100000000000000000000000000000",
    "0.5",
    "-0.0",
    "1.0",
    "0.9999999999999999",
    "1e308",
    "1e309",
    "-1e999",
    "1e-400",
    "2e9",
];

const EXTREME_RAW_JSON: &[&str] = &[
    "NaN",
    "Infinity",
    "-Infinity",
    "\"\\ud800\"",
    "\"\\udc00\\ud800\"",
    "01",
    "+1",
    ".5",
    "1.",
    "-",
    "0x10",
    "1e",
    "\"\\u0000\"",
    "undefined",
    "[,]",
    "{,}",
];

fn extreme_string(rng: &mut Rng) -> String {
    match rng.below(24) {
        0 => String::new(),
        1 => " ".into(),
        2 => "NaN".into(),
        3 => "-Infinity".into(),
        4 => "null".into(),
        5 => "\u{0}".into(),
        6 => "line one\nline two".into(),
        7 => "\r\n".into(),
        8 => "\u{1b}[31mred\u{1b}[0m".into(),
        9 => "\u{202e}esrever".into(),
        10 => "\u{feff}BOM".into(),
        11 => "é🀄\u{10ffff}".into(),
        12 => "x".repeat(1 << rng.below(17)),
        13 => "../../../etc/hostname".into(),
        14 => "-1".into(),
        15 => "9223372036854775808".into(),
        16 => "0.5".into(),
        17 => "true".into(),
        18 => "\t\u{7}\u{8}\u{c}".into(),
        19 => "#END".into(),
        20 => "R360".into(),
        21 => "a.b.c.d".into(),
        22 => "{}".into(),
        _ => "ẞ".repeat(1 + rng.below(2000)),
    }
}

/// A word of the corpus, half of the time one as long as `like` (an edge string for an
/// edge string, a half-edge for a half-edge).
fn similar_word(rng: &mut Rng, words: &[String], like: &str) -> String {
    if rng.chance(1, 2) {
        let same: Vec<&String> = words
            .iter()
            .filter(|w| w.len() == like.len() && *w != like)
            .collect();
        if !same.is_empty() {
            return rng.pick(&same).to_string();
        }
    }
    rng.pick(words).clone()
}

fn deep_json(rng: &mut Rng, inner: Json) -> Json {
    let depth = 1 + rng.small(300);
    let obj = rng.chance(1, 3);
    let mut v = inner;
    for _ in 0..depth {
        v = if obj {
            Json::Obj(vec![("a".into(), v)])
        } else {
            Json::Arr(vec![v])
        };
    }
    v
}

fn extreme_json(rng: &mut Rng, like: &Json, words: &[String], same_kind: bool) -> Json {
    // Mostly the same kind of value, sometimes any kind.
    let kind = match (like, same_kind || rng.chance(2, 3)) {
        (Json::Num(_), true) => 0,
        (Json::Str(_), true) => 1,
        _ => rng.below(8),
    };
    match kind {
        // Half of the numbers plausible (a coordinate, an index, a count), half extreme.
        0 if rng.chance(1, 2) => Json::Num((rng.below(140) as i64 - 20).to_string()),
        0 => Json::Num(rng.pick(EXTREME_NUMBERS).to_string()),
        1 if !words.is_empty() && (same_kind || rng.chance(1, 2)) && rng.chance(4, 5) => {
            Json::Str(similar_word(
                rng,
                words,
                match like {
                    Json::Str(s) => s,
                    _ => "",
                },
            ))
        }
        1 => Json::Str(extreme_string(rng)),
        2 => Json::Raw(rng.pick(EXTREME_RAW_JSON).to_string()),
        3 => Json::Null,
        4 => Json::Bool(rng.chance(1, 2)),
        5 => Json::Arr(Vec::new()),
        6 => Json::Obj(Vec::new()),
        _ => deep_json(rng, Json::Num("1".into())),
    }
}

// ---------------------------------------------------------------------------------------
// Byte-level mutations
// ---------------------------------------------------------------------------------------

const INTERESTING_BYTES: &[u8] = b"\x00\x01\x7f\x80\xff\n\r\t \"\\{}[]():,=.#-+0123456789eE'`$";

/// One byte-level mutation of `data`; returns its name.
fn mutate_bytes(
    rng: &mut Rng,
    data: &mut Vec<u8>,
    donors: &[&str],
    words: &[String],
) -> &'static str {
    let n = data.len();
    let pos = |rng: &mut Rng, n: usize| rng.below(n + 1);
    match rng.below(11) {
        0 if n > 0 => {
            let i = rng.below(n);
            data[i] ^= 1 << rng.below(8);
            "bytes:flip-bit"
        }
        1 if n > 0 => {
            let i = rng.below(n);
            data[i] = if rng.chance(1, 2) {
                *rng.pick(INTERESTING_BYTES)
            } else {
                rng.next_u64() as u8
            };
            "bytes:set"
        }
        2 => {
            let i = pos(rng, n);
            let k = 1 + rng.small(8);
            let bytes: Vec<u8> = (0..k)
                .map(|_| {
                    if rng.chance(2, 3) {
                        *rng.pick(INTERESTING_BYTES)
                    } else {
                        rng.next_u64() as u8
                    }
                })
                .collect();
            data.splice(i..i, bytes);
            "bytes:insert"
        }
        3 if n > 0 => {
            let i = rng.below(n);
            let k = 1 + rng.small(32.min(n - i));
            data.drain(i..(i + k).min(n));
            "bytes:delete"
        }
        4 if n > 0 => {
            let i = rng.below(n);
            let k = 1 + rng.small(64.min(n - i));
            let chunk: Vec<u8> = data[i..(i + k).min(n)].to_vec();
            let at = pos(rng, n);
            data.splice(at..at, chunk);
            "bytes:duplicate"
        }
        5 if !donors.is_empty() => {
            let other = rng.pick(donors).as_bytes();
            let i = pos(rng, n);
            let j = rng.below(other.len() + 1);
            data.truncate(i);
            data.extend_from_slice(&other[j..]);
            "bytes:splice"
        }
        6 if n > 0 => {
            data.truncate(rng.below(n));
            "bytes:truncate"
        }
        7 if !words.is_empty() => {
            let w = rng.pick(words).clone();
            let i = pos(rng, n);
            data.splice(i..i, w.into_bytes());
            "bytes:insert-word"
        }
        8 => {
            let c = *rng.pick(b"[{(\"");
            let k = 1 + rng.small(400);
            let i = pos(rng, n);
            data.splice(i..i, std::iter::repeat_n(c, k));
            "bytes:repeat"
        }
        9 if n > 1 => {
            // Swap two chunks.
            let a = rng.below(n);
            let b = rng.below(n);
            data.swap(a, b);
            "bytes:swap"
        }
        _ => {
            let i = pos(rng, n);
            let w = rng.pick(EXTREME_NUMBERS);
            data.splice(i..i, w.bytes());
            "bytes:insert-number"
        }
    }
}

fn bytes_to_text(rng: &mut Rng, data: Vec<u8>) -> String {
    match String::from_utf8(data) {
        Ok(s) => s,
        // The files are read as UTF-8: invalid text is refused at once, so keep most
        // cases valid and let a few through to that error.
        Err(e) => {
            if rng.chance(1, 8) {
                // Written as bytes by `write_input`; the text is only the report's.
                unsafe_invalid(e.into_bytes())
            } else {
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        }
    }
}

/// Invalid UTF-8 cannot live in a `String`: mark it with a prefix that `write_input`
/// turns back into the bytes.
const RAW_BYTES: &str = "\u{0}carcassonne-fuzz-raw-bytes:";

fn unsafe_invalid(bytes: Vec<u8>) -> String {
    let mut s = String::from(RAW_BYTES);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn input_bytes(text: &str) -> Vec<u8> {
    match text.strip_prefix(RAW_BYTES) {
        Some(hex) => (0..hex.len() / 2)
            .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
            .collect(),
        None => text.as_bytes().to_vec(),
    }
}

// ---------------------------------------------------------------------------------------
// Structure-aware mutations: JSON
// ---------------------------------------------------------------------------------------

/// One structure-aware mutation of `doc`; `donors` are the parsed seeds with their node
/// counts.
fn mutate_json(
    rng: &mut Rng,
    doc: &mut Json,
    donors: &[(Json, usize)],
    words: &[String],
) -> &'static str {
    let total = doc.count();
    let mut k = rng.below(total);
    // Bias towards leaves and deep nodes a little: pick twice, keep the later one.
    let k2 = rng.below(total);
    if rng.chance(1, 2) {
        k = k.max(k2);
    }
    let kind = {
        let mut i = k;
        doc.nth(&mut i).map(std::mem::discriminant)
    };
    // Another subtree (of this document or another seed), of the same kind if one of a
    // few tries finds one: an action for an action, a position for a position.
    let mut other = None;
    for _ in 0..12 {
        let (d, n) = if donors.is_empty() || rng.chance(1, 2) {
            (&*doc, total)
        } else {
            let (d, n) = rng.pick(donors);
            (d, *n)
        };
        let mut i = rng.below(n);
        if let Some(n) = d.nth(&mut i) {
            let same = Some(std::mem::discriminant(n)) == kind;
            if same || other.is_none() {
                other = Some(n.clone());
            }
            if same {
                break;
            }
        }
    }
    let Some(node) = doc.nth_mut(&mut k) else {
        return "json:none";
    };
    // Mostly mutations that keep the document's shape, so that cases get past parsing.
    let op = match rng.below(100) {
        0..=21 => 2,
        22..=49 => 0,
        50..=59 => 3,
        60..=71 => 4,
        72..=83 => 5,
        84..=89 => 9,
        90..=92 => 6,
        93..=95 => 1,
        96..=97 => 8,
        _ => 7,
    };
    match op {
        0 => {
            *node = extreme_json(rng, node, words, true);
            "json:same-kind-value"
        }
        1 => {
            *node = extreme_json(rng, node, words, false);
            "json:extreme-value"
        }
        2 => {
            if let Json::Num(n) = node {
                if let Ok(v) = n.parse::<i128>() {
                    let d = match rng.below(6) {
                        0 => v + 1,
                        1 => v - 1,
                        2 => -v,
                        3 => v * 1000,
                        4 => v + rng.below(40) as i128 - 20,
                        _ => 0,
                    };
                    *n = d.to_string();
                    return "json:tweak-number";
                }
            }
            *node = extreme_json(rng, node, words, false);
            "json:extreme-value"
        }
        3 => match node {
            Json::Arr(a) if !a.is_empty() => {
                a.remove(rng.below(a.len()));
                "json:delete-item"
            }
            Json::Obj(o) if !o.is_empty() => {
                o.remove(rng.below(o.len()));
                "json:delete-key"
            }
            _ => {
                *node = extreme_json(rng, node, words, true);
                "json:same-kind-value"
            }
        },
        4 => match node {
            Json::Arr(a) if !a.is_empty() => {
                let item = a[rng.below(a.len())].clone();
                let times = if rng.chance(1, 8) {
                    2 + rng.small(64)
                } else {
                    1
                };
                let at = rng.below(a.len() + 1);
                for _ in 0..times {
                    a.insert(at, item.clone());
                }
                "json:duplicate-item"
            }
            Json::Obj(o) if !o.is_empty() => {
                let (key, v) = o[rng.below(o.len())].clone();
                let v = if rng.chance(1, 2) {
                    extreme_json(rng, &v, words, true)
                } else {
                    v
                };
                o.insert(rng.below(o.len() + 1), (key, v));
                "json:duplicate-key"
            }
            _ => {
                *node = extreme_json(rng, node, words, true);
                "json:same-kind-value"
            }
        },
        5 => {
            if let Some(v) = other {
                *node = v;
            }
            "json:swap-subtree"
        }
        6 => match node {
            Json::Obj(o) if !o.is_empty() => {
                let i = rng.below(o.len());
                o[i].0 = if !words.is_empty() && rng.chance(2, 3) {
                    rng.pick(words).clone()
                } else {
                    extreme_string(rng)
                };
                "json:rename-key"
            }
            Json::Arr(a) => {
                let v = extreme_json(rng, &Json::Null, words, false);
                a.insert(rng.below(a.len() + 1), v);
                "json:insert-item"
            }
            _ => {
                *node = extreme_json(rng, node, words, false);
                "json:extreme-value"
            }
        },
        7 => {
            *node = deep_json(rng, node.clone());
            "json:deep-nesting"
        }
        8 => {
            *node = match node.clone() {
                Json::Num(n) => Json::Str(n),
                Json::Str(s) => Json::Num(if s.parse::<f64>().is_ok() {
                    s
                } else {
                    "0".into()
                }),
                Json::Bool(b) => Json::Num((b as u8).to_string()),
                Json::Arr(a) => Json::Obj(
                    a.into_iter()
                        .enumerate()
                        .map(|(i, v)| (i.to_string(), v))
                        .collect(),
                ),
                Json::Obj(o) => Json::Arr(o.into_iter().map(|(_, v)| v).collect()),
                other => Json::Str(other.write(false)),
            };
            "json:change-type"
        }
        _ => match node {
            Json::Arr(a) if a.len() > 1 => {
                let i = rng.below(a.len());
                let j = rng.below(a.len());
                a.swap(i, j);
                "json:swap-items"
            }
            Json::Obj(o) if o.len() > 1 => {
                o.reverse();
                "json:reorder-keys"
            }
            _ => {
                *node = extreme_json(rng, node, words, false);
                "json:extreme-value"
            }
        },
    }
}

// ---------------------------------------------------------------------------------------
// Structure-aware mutations: TOML
// ---------------------------------------------------------------------------------------

fn toml_count(v: &toml::Value) -> usize {
    1 + match v {
        toml::Value::Array(a) => a.iter().map(toml_count).sum(),
        toml::Value::Table(t) => t.values().map(toml_count).sum(),
        _ => 0,
    }
}

fn toml_nth(v: &toml::Value, k: &mut usize) -> Option<toml::Value> {
    if *k == 0 {
        return Some(v.clone());
    }
    *k -= 1;
    match v {
        toml::Value::Array(a) => a.iter().find_map(|c| toml_nth(c, k)),
        toml::Value::Table(t) => t.values().find_map(|c| toml_nth(c, k)),
        _ => None,
    }
}

fn toml_nth_mut<'a>(v: &'a mut toml::Value, k: &mut usize) -> Option<&'a mut toml::Value> {
    if *k == 0 {
        return Some(v);
    }
    *k -= 1;
    match v {
        toml::Value::Array(a) => {
            for c in a.iter_mut() {
                if let Some(r) = toml_nth_mut(c, k) {
                    return Some(r);
                }
            }
            None
        }
        toml::Value::Table(t) => {
            for (_, c) in t.iter_mut() {
                if let Some(r) = toml_nth_mut(c, k) {
                    return Some(r);
                }
            }
            None
        }
        _ => None,
    }
}

fn toml_words(v: &toml::Value, out: &mut Vec<String>) {
    match v {
        toml::Value::String(s) if s.len() <= 40 => out.push(s.clone()),
        toml::Value::Array(a) => a.iter().for_each(|c| toml_words(c, out)),
        toml::Value::Table(t) => {
            for (k, c) in t {
                out.push(k.clone());
                toml_words(c, out);
            }
        }
        _ => {}
    }
}

fn extreme_toml(
    rng: &mut Rng,
    like: &toml::Value,
    words: &[String],
    same_kind: bool,
) -> toml::Value {
    use toml::Value as V;
    let kind = match (like, same_kind || rng.chance(2, 3)) {
        (V::Integer(_), true) => 0,
        (V::String(_), true) => 1,
        (V::Boolean(_), true) => 3,
        _ => rng.below(8),
    };
    match kind {
        0 if rng.chance(1, 2) => V::Integer(rng.below(140) as i64 - 20),
        0 => V::Integer(*rng.pick(&[
            0,
            -1,
            1,
            2,
            8,
            9,
            255,
            256,
            511,
            512,
            513,
            -513,
            65535,
            65536,
            i32::MAX as i64,
            i32::MIN as i64,
            u32::MAX as i64,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ])),
        1 if !words.is_empty() && (same_kind || rng.chance(1, 2)) && rng.chance(4, 5) => {
            V::String(similar_word(rng, words, like.as_str().unwrap_or("")))
        }
        1 => V::String(extreme_string(rng)),
        2 => V::Float(*rng.pick(&[
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            0.5,
            1e308,
            2.0,
        ])),
        3 => V::Boolean(rng.chance(1, 2)),
        4 => V::Datetime("1979-05-27T07:32:00Z".parse().expect("a TOML datetime")),
        5 => V::Array(Vec::new()),
        6 => V::Table(toml::Table::new()),
        _ => {
            let depth = 1 + rng.small(120);
            let mut v = V::Integer(1);
            for _ in 0..depth {
                v = V::Array(vec![v]);
            }
            v
        }
    }
}

fn mutate_toml(
    rng: &mut Rng,
    doc: &mut toml::Value,
    donors: &[toml::Value],
    words: &[String],
) -> &'static str {
    use toml::Value as V;
    let total = toml_count(doc);
    // Never the root itself (it must stay a table).
    let mut k = 1 + rng.below(total.saturating_sub(1).max(1));
    if total == 1 {
        k = 0;
    }
    let donor = if !donors.is_empty() && rng.chance(1, 2) {
        let d = rng.pick(donors);
        let mut i = rng.below(toml_count(d));
        toml_nth(d, &mut i)
    } else {
        let mut i = rng.below(total);
        toml_nth(doc, &mut i)
    };
    let Some(node) = toml_nth_mut(doc, &mut k) else {
        return "toml:none";
    };
    if k == 0 && total == 1 {
        if let V::Table(t) = node {
            t.insert(
                rng.pick(words.get(..1).unwrap_or(&["x".into()])).clone(),
                V::Integer(1),
            );
        }
        return "toml:insert-key";
    }
    let op = match rng.below(100) {
        0..=19 => 2,
        20..=41 => 0,
        42..=53 => 3,
        54..=65 => 4,
        66..=75 => 5,
        76..=81 => 6,
        82..=89 => 1,
        90..=94 => 7,
        _ => 8,
    };
    match op {
        0 => {
            *node = extreme_toml(rng, node, words, true);
            "toml:same-kind-value"
        }
        1 => {
            *node = extreme_toml(rng, node, words, false);
            "toml:extreme-value"
        }
        2 => match node {
            V::Integer(i) => {
                *i = match rng.below(5) {
                    0 => i.wrapping_add(1),
                    1 => i.wrapping_sub(1),
                    2 => i.wrapping_neg(),
                    3 => i.wrapping_mul(1000),
                    _ => 0,
                };
                "toml:tweak-number"
            }
            _ => {
                *node = extreme_toml(rng, node, words, false);
                "toml:extreme-value"
            }
        },
        3 => match node {
            V::Array(a) if !a.is_empty() => {
                a.remove(rng.below(a.len()));
                "toml:delete-item"
            }
            V::Table(t) if !t.is_empty() => {
                let key = t.keys().nth(rng.below(t.len())).cloned().expect("in range");
                t.remove(&key);
                "toml:delete-key"
            }
            _ => {
                *node = V::String(String::new());
                "toml:empty"
            }
        },
        4 => match node {
            V::Array(a) if !a.is_empty() => {
                let item = a[rng.below(a.len())].clone();
                let times = if rng.chance(1, 8) {
                    2 + rng.small(64)
                } else {
                    1
                };
                let at = rng.below(a.len() + 1);
                for _ in 0..times {
                    a.insert(at, item.clone());
                }
                "toml:duplicate-item"
            }
            V::Table(t) if !t.is_empty() => {
                // A duplicate key cannot be represented: copy an entry under another name.
                let (key, v) = t
                    .iter()
                    .nth(rng.below(t.len()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .expect("in range");
                let new_key = if !words.is_empty() && rng.chance(1, 2) {
                    rng.pick(words).clone()
                } else {
                    format!("{key}2")
                };
                t.insert(new_key, v);
                "toml:copy-key"
            }
            _ => {
                *node = V::Array(vec![node.clone(), node.clone()]);
                "toml:pair"
            }
        },
        5 => {
            if let Some(v) = donor {
                *node = v;
            }
            "toml:swap-subtree"
        }
        6 => match node {
            V::Table(t) if !t.is_empty() => {
                let key = t.keys().nth(rng.below(t.len())).cloned().expect("in range");
                let v = t.remove(&key).expect("present");
                let new_key = if !words.is_empty() && rng.chance(2, 3) {
                    rng.pick(words).clone()
                } else {
                    extreme_string(rng)
                };
                t.insert(new_key, v);
                "toml:rename-key"
            }
            V::Array(a) => {
                let like = a.first().cloned().unwrap_or(V::Integer(0));
                let v = extreme_toml(rng, &like, words, true);
                a.insert(rng.below(a.len() + 1), v);
                "toml:insert-item"
            }
            _ => {
                *node = extreme_toml(rng, node, words, false);
                "toml:extreme-value"
            }
        },
        7 => {
            *node = match node.clone() {
                V::Integer(i) => V::String(i.to_string()),
                V::String(s) => s.parse::<i64>().map(V::Integer).unwrap_or(V::Boolean(true)),
                V::Boolean(b) => V::Integer(b as i64),
                V::Array(a) => V::Table(
                    a.into_iter()
                        .enumerate()
                        .map(|(i, v)| (format!("k{i}"), v))
                        .collect(),
                ),
                V::Table(t) => V::Array(t.into_iter().map(|(_, v)| v).collect()),
                other => V::String(other.to_string()),
            };
            "toml:change-type"
        }
        _ => {
            let depth = 1 + rng.small(60);
            let mut v = node.clone();
            for i in 0..depth {
                v = if i % 2 == 0 {
                    V::Array(vec![v])
                } else {
                    V::Table([("a".to_string(), v)].into_iter().collect())
                };
            }
            *node = v;
            "toml:deep-nesting"
        }
    }
}

// ---------------------------------------------------------------------------------------
// Structure-aware mutations: Rhai
// ---------------------------------------------------------------------------------------

/// A token of Rhai text, as byte ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Int,
    Ident,
    Str,
}

fn rhai_tokens(text: &str) -> Vec<(Tok, usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'"' || c == b'`' {
            let s = i;
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
            out.push((Tok::Str, s, i));
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Int, s, i));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Ident, s, i));
        } else {
            i += 1;
        }
    }
    out
}

const RHAI_ARGS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "7",
    "8",
    "255",
    "65536",
    "9223372036854775807",
    "-9223372036854775808",
    "\"\"",
    "\"city\"",
    "\"road\"",
    "\"field\"",
    "\"cloister\"",
    "\"player\"",
    "\"game\"",
    "\"figure\"",
    "\"token\"",
    "\"count.countMove\"",
    "\"farmScoring\"",
    "\"BA/C\"",
    "\"small-follower\"",
    "\"take-token\"",
    "\"keep\"",
    "\"\\n\\r\\u0000\"",
    "()",
    "[]",
    "[1, 2, 3]",
    "#{}",
    "#{ token: 1 }",
    "#{ x: 0, y: 0 }",
    "true",
    "false",
    "active_player()",
    "players()",
];

/// Script API function names with their arity, and hook names with their parameters.
type RhaiApi = (Vec<(String, usize)>, Vec<(String, Vec<String>)>);

/// The script API's function names with their arity, and the hooks with their parameters.
fn rhai_api() -> &'static RhaiApi {
    static API: OnceLock<RhaiApi> = OnceLock::new();
    API.get_or_init(|| {
        let fns = carcassonne_script::api::FUNCTIONS
            .iter()
            .filter_map(|f| {
                let (name, rest) = f.signature.split_once('(')?;
                let args = rest.split_once(')')?.0.trim();
                let arity = if args.is_empty() {
                    0
                } else {
                    args.split(',').count()
                };
                Some((name.trim().to_string(), arity))
            })
            .collect();
        let hooks = carcassonne_script::HOOKS
            .iter()
            .map(|h| {
                (
                    h.name.to_string(),
                    h.params.iter().map(|p| p.to_string()).collect(),
                )
            })
            .collect();
        (fns, hooks)
    })
}

fn rhai_call(rng: &mut Rng, params: &[String]) -> String {
    let (fns, _) = rhai_api();
    let (name, arity) = rng.pick(fns).clone();
    // Now and then a wrong number of arguments.
    let arity = if rng.chance(1, 10) {
        rng.below(4)
    } else {
        arity
    };
    let args: Vec<String> = (0..arity)
        .map(|_| {
            if !params.is_empty() && rng.chance(1, 3) {
                rng.pick(params).clone()
            } else {
                rng.pick(RHAI_ARGS).to_string()
            }
        })
        .collect();
    format!("{name}({});", args.join(", "))
}

fn mutate_rhai(
    rng: &mut Rng,
    text: &mut String,
    donors: &[&str],
    words: &[String],
) -> &'static str {
    let (_, hooks) = rhai_api();
    match rng.below(9) {
        0 => {
            // Delete, duplicate or swap lines, or take a line from another script.
            let mut lines: Vec<String> = text.lines().map(String::from).collect();
            if lines.is_empty() {
                return "rhai:none";
            }
            let i = rng.below(lines.len());
            let name = match rng.below(4) {
                0 => {
                    let k = 1 + rng.small(6);
                    lines.drain(i..(i + k).min(lines.len()));
                    "rhai:delete-lines"
                }
                1 => {
                    let l = lines[i].clone();
                    lines.insert(rng.below(lines.len() + 1), l);
                    "rhai:duplicate-line"
                }
                2 => {
                    let j = rng.below(lines.len());
                    lines.swap(i, j);
                    "rhai:swap-lines"
                }
                _ => {
                    let d: Vec<&str> = rng.pick(donors).lines().collect();
                    if !d.is_empty() {
                        lines.insert(i, d[rng.below(d.len())].to_string());
                    }
                    "rhai:foreign-line"
                }
            };
            *text = lines.join("\n");
            name
        }
        1 | 2 => {
            // Replace a token: an integer with an extreme one, a name with another name,
            // a string with an extreme one.
            let toks = rhai_tokens(text);
            if toks.is_empty() {
                return "rhai:none";
            }
            let (kind, s, e) = *rng.pick(&toks);
            let (with, name) = match kind {
                Tok::Int => (rng.pick(&RHAI_ARGS[..10]).to_string(), "rhai:extreme-int"),
                Tok::Ident if !words.is_empty() => (rng.pick(words).clone(), "rhai:swap-name"),
                Tok::Ident => ("x".to_string(), "rhai:swap-name"),
                Tok::Str => {
                    let s = extreme_string(rng);
                    let mut lit = String::from("\"");
                    for c in s.chars() {
                        match c {
                            '"' => lit.push_str("\\\""),
                            '\\' => lit.push_str("\\\\"),
                            c => lit.push(c),
                        }
                    }
                    lit.push('"');
                    (lit, "rhai:extreme-string")
                }
            };
            text.replace_range(s..e, &with);
            name
        }
        3 | 4 => {
            // Call an API function with random arguments at the start of a function body.
            let starts: Vec<(usize, Vec<String>)> = text
                .match_indices("fn ")
                .filter_map(|(i, _)| {
                    let rest = &text[i..];
                    let open = rest.find('(')?;
                    let close = rest.find(')')?;
                    let brace = rest.find('{')?;
                    (open < close && close < brace).then(|| {
                        let params = rest[open + 1..close]
                            .split(',')
                            .map(|p| p.trim().to_string())
                            .filter(|p| !p.is_empty())
                            .collect();
                        (i + brace + 1, params)
                    })
                })
                .collect();
            if starts.is_empty() {
                return "rhai:none";
            }
            let (at, params) = rng.pick(&starts).clone();
            let calls: String = (0..1 + rng.small(3))
                .map(|_| format!(" {}", rhai_call(rng, &params)))
                .collect();
            text.insert_str(at, &calls);
            "rhai:insert-call"
        }
        5 | 6 => {
            // Define a hook the script lacks, calling API functions.
            let free: Vec<&(String, Vec<String>)> = hooks
                .iter()
                .filter(|(n, _)| !text.contains(&format!("fn {n}(")))
                .collect();
            let (name, params) = if free.is_empty() || rng.chance(1, 6) {
                rng.pick(hooks)
            } else {
                *rng.pick(&free)
            };
            let calls: String = (0..1 + rng.small(4))
                .map(|_| format!("    {}\n", rhai_call(rng, params)))
                .collect();
            let ret = if rng.chance(1, 2) {
                format!("    {}\n", rng.pick(RHAI_ARGS))
            } else {
                String::new()
            };
            let _ = write!(
                text,
                "\nfn {name}({}) {{\n{calls}{ret}}}\n",
                params.join(", ")
            );
            "rhai:add-hook"
        }
        7 => {
            // Hostile statements the sandbox must stop.
            let stmt = *rng.pick(&[
                "loop { }",
                "let a = []; loop { a.push(a.len()); }",
                "let s = \"x\"; loop { s += s; }",
                "fn_rec(1);",
                "throw \"fuzz\";",
                "let m = #{}; for i in 0..100000 { m[`k${i}`] = i; }",
                "let x = 1 / 0;",
                "let x = 9223372036854775807 + 1;",
                "let x = -9223372036854775808 / -1;",
                "let x = [1][5];",
                "let x = \"abc\".sub_string(-5, 100);",
                "let x = (); x.y = 1;",
            ]);
            let at = text.find('{').map(|i| i + 1).unwrap_or(0);
            text.insert_str(at, &format!(" {stmt} "));
            if stmt.starts_with("fn_rec") {
                text.push_str("\nfn fn_rec(n) { fn_rec(n + 1) }\n");
            }
            "rhai:hostile"
        }
        _ => {
            // Wrap a function body in deep nesting.
            let depth = 1 + rng.small(100);
            let at = text.find('{').map(|i| i + 1).unwrap_or(0);
            let open = "{ ".repeat(depth);
            text.insert_str(at, &open);
            let close_at = text[at..].find('}').map(|i| i + at).unwrap_or(text.len());
            text.insert_str(close_at, &" }".repeat(depth));
            "rhai:deep-nesting"
        }
    }
}

// ---------------------------------------------------------------------------------------
// Mutating a case
// ---------------------------------------------------------------------------------------

/// What a format's structure-aware mutations need, prepared once per run.
struct Mutator {
    seeds: Vec<Seed>,
    words: Vec<String>,
    /// Parsed JSON seeds with their node counts.
    json: Vec<(Json, usize)>,
    /// Each seed parsed (JSON), by seed index.
    parsed: Vec<Option<Json>>,
    toml: Vec<toml::Value>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Toml,
    Rhai,
}

impl Mutator {
    fn new(seeds: Vec<Seed>, format: Format) -> Mutator {
        let mut words = Vec::new();
        let mut json = Vec::new();
        let mut parsed = Vec::new();
        let mut tomls = Vec::new();
        for s in &seeds {
            match format {
                Format::Json => {
                    let j = Json::parse(&s.text);
                    if let Some(j) = &j {
                        j.collect_words(&mut words);
                        json.push((j.clone(), j.count()));
                    }
                    parsed.push(j);
                }
                Format::Toml => {
                    if let Ok(t) = toml::from_str::<toml::Table>(&s.text) {
                        let v = toml::Value::Table(t);
                        toml_words(&v, &mut words);
                        tomls.push(v);
                    }
                }
                Format::Rhai => {
                    for (k, a, b) in rhai_tokens(&s.text) {
                        if k != Tok::Int {
                            words.push(s.text[a..b].to_string());
                        }
                    }
                }
            }
        }
        if format == Format::Rhai {
            let (fns, hooks) = rhai_api();
            words.extend(fns.iter().map(|f| f.0.clone()));
            words.extend(hooks.iter().map(|h| h.0.clone()));
        }
        words.sort();
        words.dedup();
        Mutator {
            seeds,
            words,
            json,
            parsed,
            toml: tomls,
        }
    }

    /// The input of one case: a seed (as is for the first cases, so every seed is run
    /// once unchanged), mutated 1–6 times; returns the seed's index, the text and the
    /// mutations applied.
    fn mutate(
        &self,
        rng: &mut Rng,
        index: u64,
        format: Format,
    ) -> (usize, String, Vec<&'static str>) {
        let n = self.seeds.len();
        if (index as usize) < n {
            return (
                index as usize,
                self.seeds[index as usize].text.clone(),
                vec!["none"],
            );
        }
        let si = rng.below(n);
        let seed = &self.seeds[si];
        let donors: Vec<&str> = self.seeds.iter().map(|s| s.text.as_str()).collect();
        let mut ops = Vec::new();
        let mut text = seed.text.clone();
        let mode = rng.below(20);
        // 0..13: structure only, 13..16: structure then bytes, 16..: bytes only.
        if mode < 16 {
            let rounds = 1 + rng.small(3);
            match format {
                Format::Json => {
                    if let Some(mut doc) = self.parsed[si].clone() {
                        for _ in 0..rounds {
                            ops.push(mutate_json(rng, &mut doc, &self.json, &self.words));
                        }
                        text = doc.write(rng.chance(3, 4));
                    }
                }
                Format::Toml => {
                    if let Ok(t) = toml::from_str::<toml::Table>(&text) {
                        let mut doc = toml::Value::Table(t);
                        for _ in 0..rounds {
                            ops.push(mutate_toml(rng, &mut doc, &self.toml, &self.words));
                        }
                        match toml::to_string(&doc) {
                            Ok(t) => text = t,
                            Err(_) => ops.push("toml:unwritable"),
                        }
                    }
                }
                Format::Rhai => {
                    for _ in 0..rounds {
                        ops.push(mutate_rhai(rng, &mut text, &donors, &self.words));
                    }
                }
            }
        }
        if mode >= 13 {
            let mut data = text.into_bytes();
            let rounds = if mode < 16 { 1 } else { 1 + rng.small(3) };
            for _ in 0..rounds {
                ops.push(mutate_bytes(rng, &mut data, &donors, &self.words));
            }
            text = bytes_to_text(rng, data);
        }
        (si, text, ops)
    }
}

// ---------------------------------------------------------------------------------------
// Outcomes
// ---------------------------------------------------------------------------------------

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

fn truncate(s: &str, n: usize) -> String {
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
fn has_control_chars(s: &str) -> bool {
    s.chars().any(|c| c.is_control() && c != '\t')
}

// ---------------------------------------------------------------------------------------
// The work dir of a run: where each case's input is written before it runs
// ---------------------------------------------------------------------------------------

fn work_dir(target: Target) -> PathBuf {
    std::env::temp_dir()
        .join(format!("carcassonne-fuzz-{}", std::process::id()))
        .join(target.name())
}

fn write_input(path: &Path, text: &str) {
    if let Some(d) = path.parent() {
        let _ = std::fs::create_dir_all(d);
    }
    let _ = std::fs::write(path, input_bytes(text));
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::create_dir_all(to);
    if let Ok(rd) = std::fs::read_dir(from) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_file() {
                let _ = std::fs::copy(&p, to.join(e.file_name()));
            }
        }
    }
}

/// Copies a failing input (file or folder) to the output folder; returns where.
fn save_failure(out_dir: &Path, target: Target, seed: u64, input: &Path) -> PathBuf {
    let _ = std::fs::create_dir_all(out_dir);
    let stem = format!("{}-{seed:016x}", target.name());
    if input.is_dir() {
        let to = out_dir.join(&stem);
        let _ = std::fs::remove_dir_all(&to);
        copy_dir(input, &to);
        to
    } else {
        let ext = input
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        let to = out_dir.join(format!("{stem}{ext}"));
        let _ = std::fs::copy(input, &to);
        to
    }
}

// ---------------------------------------------------------------------------------------
// Rulesets: cached by spec (loading expansions is the slow part of a replay)
// ---------------------------------------------------------------------------------------

fn cached_ruleset(spec: &RulesSpec) -> Result<Arc<Ruleset>, String> {
    type Cache = Mutex<BTreeMap<String, Result<Arc<Ruleset>, String>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = format!("{spec:?}");
    let cache = CACHE.get_or_init(|| Mutex::new(BTreeMap::new()));
    if let Some(r) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return r.clone();
    }
    let r = build_ruleset(spec).map_err(|e| e.to_string());
    let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
    if c.len() > 512 {
        c.clear();
    }
    c.insert(key, r.clone());
    r
}

// ---------------------------------------------------------------------------------------
// Playing: a short game with random offered moves, state checked after each failure
// ---------------------------------------------------------------------------------------

/// A snapshot of a game's state (its `Debug` text) for "refused means unchanged" and
/// "replays to the same state", without the cache of the offered placements as actions
/// (built when first asked for, and kept past the tile step: not part of the game).
fn snapshot(g: &Game) -> String {
    let mut s = format!("{:?}", g.state());
    const CACHE: &str = "placement_actions: OnceLock(";
    if let Some(i) = s.find(CACHE) {
        let from = i + CACHE.len();
        let mut depth = 1;
        let mut end = s.len();
        for (j, c) in s[from..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = from + j;
                        break;
                    }
                }
                _ => {}
            }
        }
        s.replace_range(from..end, "…");
    }
    s
}

/// Where two snapshots first differ, with some context.
fn first_difference(a: &str, b: &str) -> String {
    let i = a
        .bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = i.saturating_sub(120);
    let from = (0..=from)
        .rev()
        .find(|j| a.is_char_boundary(*j) && b.is_char_boundary(*j))
        .unwrap_or(0);
    let end = |s: &str| {
        let mut e = (i + 120).min(s.len());
        while !s.is_char_boundary(e) {
            e -= 1;
        }
        e
    };
    format!(
        "at byte {i}: `{}` vs `{}`",
        &a[from..end(a)],
        &b[from..end(b)]
    )
}

/// Plays up to `moves` random offered actions. A hook failure ends the game (rejected),
/// after checking that it was rolled back.
fn play_random(g: &mut Game, rng: &mut Rng, moves: usize) -> Result<Verdict, String> {
    for _ in 0..moves {
        if g.is_over() {
            break;
        }
        let n = g.action_count();
        if n == 0 {
            return Err(format!(
                "no action offered but the game is not over ({})",
                g.describe_decision()
            ));
        }
        let before = g.clone();
        match g.apply_offered(rng.below(n)) {
            Ok(()) => {}
            Err(ActionError::Hook(e)) => {
                if snapshot(&before) != snapshot(g) {
                    return Err(format!("a failing hook was not rolled back: {e}"));
                }
                return Ok(Verdict::Rejected("hook", e.to_string()));
            }
            Err(e) => return Err(format!("an offered index was refused: {e}")),
        }
    }
    Ok(Verdict::Accepted)
}

/// Random options for a ruleset's declared options (a valid value mostly, sometimes not).
fn random_options(rng: &mut Rng, rules: &Ruleset, wild: bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for d in rules.option_defs() {
        if !rng.chance(1, 3) {
            continue;
        }
        let v = match &d.ty {
            _ if wild && rng.chance(1, 30) => extreme_string(rng),
            OptionType::Choice(vals) => rng.pick(vals).clone(),
            OptionType::Bool => rng.pick(&["true", "false"]).to_string(),
            OptionType::Int { min, max } => {
                let span = (max - min).clamp(0, 1000) as usize;
                (min + rng.below(span + 1) as i64).to_string()
            }
        };
        out.push((d.key.clone(), v));
    }
    out
}

// ---------------------------------------------------------------------------------------
// The targets
// ---------------------------------------------------------------------------------------

/// Most actions replayed from one record or save (more than any real game has).
const MAX_REPLAY: usize = 400;

fn run_record(path: &Path, rng: &mut Rng) -> Result<Verdict, String> {
    let origin = path.display().to_string();
    let rec = match Record::load(path) {
        Ok(r) => r,
        Err(e) => return Ok(Verdict::Rejected("parse", e.to_string())),
    };
    // As `load_game` does (`replay FILE [--actions N]`), with the guide's example folder
    // as `--expansion-dir`.
    let limit = if rng.chance(1, 4) {
        Some(rng.below(rec.actions.len() + 3))
    } else {
        None
    };
    if let Some(n) = limit.filter(|n| *n > rec.actions.len()) {
        return Ok(Verdict::Rejected(
            "limit",
            format!("the record has {} actions, not {n}", rec.actions.len()),
        ));
    }
    let limit = Some(limit.unwrap_or(rec.actions.len()).min(MAX_REPLAY));
    let mut spec = rec.rules_spec();
    spec.plugin_dirs = vec![repo_root().join("docs").join("examples")];
    let rules = match cached_ruleset(&spec) {
        Ok(r) => r,
        Err(e) => return Ok(Verdict::Rejected("setup", e)),
    };
    let game = match rec.replay_with(&rules, &origin, limit) {
        Ok(g) => g,
        Err(e) => return Ok(Verdict::Rejected("replay", e.to_string())),
    };
    let _ = carcassonne_play::replay::replay_output(&game);
    if rng.chance(1, 6) {
        let _ = carcassonne_render::render_svg(&game, &Default::default());
    }
    Ok(Verdict::Accepted)
}

fn run_jcz(path: &Path, rng: &mut Rng, mismatches: &mut Vec<String>) -> Result<Verdict, String> {
    let save = match carcassonne_jcz::save::JczSave::load(path) {
        Ok(s) => s,
        Err(e) => return Ok(Verdict::Rejected("parse", e.to_string())),
    };
    let limit = if rng.chance(1, 4) {
        Some(rng.below(save.replay.len() + 3))
    } else {
        None
    };
    if let Some(n) = limit.filter(|n| *n > save.replay.len()) {
        return Ok(Verdict::Rejected(
            "limit",
            format!("the save has {} messages, not {n}", save.replay.len()),
        ));
    }
    let limit = Some(limit.unwrap_or(save.replay.len()).min(MAX_REPLAY));
    let origin = path.display().to_string();
    let jg = match carcassonne_jcz::replay(&save, &origin, &[], limit) {
        Ok(g) => g,
        Err(e) => return Ok(Verdict::Rejected("replay", e.to_string())),
    };
    let _ = jg.output();
    if rng.chance(1, 6) {
        let _ = carcassonne_render::render_svg(&jg.game, &Default::default());
    }
    // `convert`: the save as our record, which must replay to the same game.
    let rec = match jg.to_record() {
        Ok(r) => r,
        Err(e) => return Ok(Verdict::Rejected("convert", e.to_string())),
    };
    match rec.replay_with(jg.game.rules(), "(converted)", None) {
        Ok(g) if snapshot(&g) == snapshot(&jg.game) => {}
        Ok(g) => mismatches.push(format!(
            "the converted record replays to another state, {}",
            first_difference(&snapshot(&g), &snapshot(&jg.game))
        )),
        Err(e) => mismatches.push(format!("the converted record does not replay: {e}")),
    }
    Ok(Verdict::Accepted)
}

/// The manifest id of an expansion folder.
fn folder_id(dir: &Path) -> Option<String> {
    let path = dir.join("expansion.toml");
    let text = std::fs::read_to_string(&path).ok()?;
    carcassonne_files::manifest::parse_manifest(&text, &path)
        .ok()
        .map(|m| m.id)
}

/// A script expansion that only adds the base tile file under fuzz (the binary has no
/// other way to load a tile file).
const TILES_WRAPPER: &str = r#"[expansion]
id = "fuzz-tiles"
name = "Fuzzed tiles"
version = "1.0.0"
api = "1.0"
kind = "script"
entry = "fuzz.rhai"

[assets]
tiles = ["tiles.toml"]
"#;

/// Writes the expansion folder of a manifest, tile file or script case into `dir` and
/// returns the id to request.
fn write_folder(target: Target, seed: &Seed, text: &str, dir: &Path) -> String {
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::create_dir_all(dir);
    let Some(src) = &seed.dir else {
        // The base tile file, wrapped.
        write_input(&dir.join("expansion.toml"), TILES_WRAPPER);
        write_input(&dir.join("fuzz.rhai"), "fn setup() { }\n");
        write_input(&dir.join("tiles.toml"), text);
        return "fuzz-tiles".into();
    };
    if let Ok(rd) = std::fs::read_dir(src) {
        for e in rd.flatten() {
            let p = e.path();
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if p.is_file()
                && (ext == "toml" || ext == "rhai")
                && p.file_name() != Some("Cargo.toml".as_ref())
            {
                let _ = std::fs::copy(&p, dir.join(e.file_name()));
            }
        }
    }
    write_input(&dir.join(&seed.file), text);
    let seed_id = folder_id(src).unwrap_or_default();
    if target == Target::Manifest {
        if let Ok(m) =
            carcassonne_files::manifest::parse_manifest(text, &dir.join("expansion.toml"))
        {
            return m.id;
        }
    }
    seed_id
}

const NATIVE: [&str; 4] = ["count", "king-robber", "river2", "heretics-shrines"];
/// The expansions the `actions` target mixes: every official plugin and both fan scripts
/// (bit i of a mix = `MIXABLE[i]`).
const MIXABLE: [&str; 11] = [
    "count",
    "king-robber",
    "river2",
    "heretics-shrines",
    "tactician",
    "promotions",
    "inns-cathedrals",
    "traders-builders",
    "princess-dragon",
    "tower",
    "abbey-mayor",
];

fn random_players(rng: &mut Rng) -> Vec<String> {
    let n = if rng.chance(1, 40) {
        *rng.pick(&[0, 9])
    } else {
        *rng.pick(&[2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 1, 6, 7, 8])
    };
    (0..n)
        .map(|i| {
            if rng.chance(1, 20) {
                extreme_string(rng)
            } else {
                format!("P{i}")
            }
        })
        .collect()
}

fn random_setup(rng: &mut Rng, rules: &Ruleset) -> GameSetup {
    let mut setup = GameSetup::new(random_players(rng), rng.next_u64());
    setup.draws = match rng.below(10) {
        0..=6 => DrawMode::Random,
        7 | 8 => DrawMode::Chosen,
        _ => DrawMode::InOrder,
    };
    if rng.chance(1, 4) {
        setup.draw_limit = Some(*rng.pick(&[0, 1, 2, 3, 5, 8, 13, 20, u32::MAX]));
    }
    if rng.chance(1, 10) && !rules.tiles().is_empty() {
        let n = 1 + rng.small(3);
        setup.start = Some(
            (0..n)
                .map(|_| {
                    let (x, y) = *rng.pick(&[
                        (0, 0),
                        (1, 0),
                        (0, -1),
                        (-2, -1),
                        (0, -35),
                        (-50, -1),
                        (512, 512),
                        (-512, 0),
                        (513, 0),
                        (0, -513),
                        (i32::MAX, 0),
                        (i32::MIN, i32::MIN),
                        (2_000_000_000, 2_000_000_000),
                    ]);
                    StartTile {
                        kind: TileKindId(rng.below(rules.tiles().len()) as u16),
                        pos: Pos::new(x, y),
                        rotation: *rng.pick(&Rotation::ALL),
                    }
                })
                .collect(),
        );
    }
    setup
}

fn run_folder(target: Target, dir: &Path, id: &str, rng: &mut Rng) -> Result<Verdict, String> {
    let mut expansions = vec![id.to_string()];
    if target != Target::Manifest && rng.chance(1, 3) {
        for n in NATIVE {
            if rng.chance(1, 3) && n != id {
                expansions.push(n.to_string());
            }
        }
    }
    let mut spec = RulesSpec {
        expansions,
        options: Vec::new(),
        plugin_dirs: vec![dir.to_path_buf(), repo_root().join("docs").join("examples")],
    };
    let mut rules = match build_ruleset(&spec) {
        Ok(r) => r,
        Err(e) => return Ok(Verdict::Rejected("setup", e.to_string())),
    };
    if rng.chance(1, 3) {
        spec.options = random_options(rng, &rules, true);
        rules = match build_ruleset(&spec) {
            Ok(r) => r,
            Err(e) => return Ok(Verdict::Rejected("options", e.to_string())),
        };
    }
    let setup = random_setup(rng, &rules);
    let mut game = match Game::new(Arc::clone(&rules), &setup) {
        Ok(g) => g,
        Err(e) => return Ok(Verdict::Rejected("new-game", e.to_string())),
    };
    let moves = match target {
        Target::Manifest => 40,
        _ => 120,
    };
    let v = play_random(&mut game, rng, moves)?;
    let _ = carcassonne_play::replay::replay_output(&game);
    Ok(v)
}

/// The ruleset of a mix of the [`MIXABLE`] expansions (bit i = `MIXABLE[i]`), with option variant
/// `variant` (0: defaults; others: random valid values fixed by mix and variant).
fn mix_ruleset(mix: usize, variant: usize) -> Result<Arc<Ruleset>, String> {
    let root = repo_root();
    let spec = RulesSpec {
        expansions: MIXABLE
            .iter()
            .enumerate()
            .filter(|(i, _)| mix >> i & 1 == 1)
            .map(|(_, s)| s.to_string())
            .collect(),
        options: Vec::new(),
        plugin_dirs: vec![root.join("expansions"), root.join("fan-expansions")],
    };
    let rules = cached_ruleset(&spec)?;
    if variant == 0 {
        return Ok(rules);
    }
    let mut vr = Rng::new(((mix as u64) << 8) | variant as u64);
    let options = random_options(&mut vr, &rules, false);
    cached_ruleset(&RulesSpec { options, ..spec })
}

fn near_i32(rng: &mut Rng, v: i32) -> i32 {
    match rng.below(6) {
        0 => v.wrapping_add(1),
        1 => v.wrapping_sub(1),
        2 => *rng.pick(&[0, 512, -512, 513, -513, i32::MAX, i32::MIN]),
        3 => v.wrapping_neg(),
        _ => v.wrapping_add(rng.below(7) as i32 - 3),
    }
}

fn random_segment(rng: &mut Rng, n: usize) -> SegmentId {
    SegmentId::new(match rng.below(5) {
        0 | 1 => rng.below(n.max(1)),
        2 => n + rng.below(3),
        3 => u32::MAX as usize - rng.below(2),
        _ => rng.below(n + 8),
    })
}

fn random_small_id(rng: &mut Rng, n: usize, max: usize) -> usize {
    match rng.below(4) {
        0 | 1 => rng.below(n.max(1)),
        2 => n + rng.below(2),
        _ => max - rng.below(2),
    }
}

/// A random action: mostly an offered one changed a little, otherwise anything.
fn random_action(rng: &mut Rng, g: &Game) -> Action {
    let st = g.state();
    let rules = g.rules();
    let nseg = st.graph().len();
    let nfig = st.figures().len();
    let nkind = rules.figure_kinds().len();
    let ntile = rules.tiles().len();
    let nexp = rules.expansions().len();
    let nverb = rules.verbs().len();
    let value = |rng: &mut Rng| *rng.pick(&[0, 1, -1, 2, 3, 4, 7, 100, i32::MAX, i32::MIN]);
    let offered = g.actions();
    if !offered.is_empty() && rng.chance(2, 3) {
        let a = *rng.pick(offered);
        return match a {
            Action::Place { pos, rotation } => match rng.below(3) {
                0 => Action::Place {
                    pos,
                    rotation: *rng.pick(&Rotation::ALL),
                },
                1 => Action::Place {
                    pos: Pos::new(near_i32(rng, pos.x), pos.y),
                    rotation,
                },
                _ => Action::Place {
                    pos: Pos::new(pos.x, near_i32(rng, pos.y)),
                    rotation,
                },
            },
            Action::Deploy { figure, segment } => match rng.below(3) {
                0 => Action::Deploy {
                    figure: FigureKindId(random_small_id(rng, nkind, 255) as u8),
                    segment,
                },
                1 => Action::Deploy {
                    figure,
                    segment: SegmentId::new(near_i32(rng, segment.index() as i32) as u32 as usize),
                },
                _ => Action::Move {
                    figure: FigureId(random_small_id(rng, nfig, 65535) as u16),
                    segment,
                },
            },
            Action::Move { figure, segment } => match rng.below(3) {
                0 => Action::Move {
                    figure: FigureId(random_small_id(rng, nfig, 65535) as u16),
                    segment,
                },
                1 => Action::Move {
                    figure,
                    segment: random_segment(rng, nseg),
                },
                _ => Action::Deploy {
                    figure: FigureKindId(figure.0 as u8),
                    segment,
                },
            },
            Action::Draw { tile } => Action::Draw {
                tile: TileKindId(if rng.chance(1, 2) {
                    near_i32(rng, tile.0 as i32) as u16
                } else {
                    random_small_id(rng, ntile, 65535) as u16
                }),
            },
            Action::Custom(c) => {
                let mut c = c;
                match rng.below(5) {
                    0 => c.expansion = ExpansionIndex(random_small_id(rng, nexp, 255) as u8),
                    1 => c.verb = VerbId(random_small_id(rng, nverb, 65535) as u16),
                    2 => {
                        c.figure = if rng.chance(1, 3) {
                            None
                        } else {
                            Some(FigureId(random_small_id(rng, nfig, 65535) as u16))
                        }
                    }
                    3 => {
                        c.segment = if rng.chance(1, 3) {
                            None
                        } else {
                            Some(random_segment(rng, nseg))
                        }
                    }
                    _ => {
                        c.value = if rng.chance(1, 2) {
                            value(rng)
                        } else {
                            c.value.wrapping_add(1)
                        }
                    }
                }
                Action::Custom(c)
            }
            Action::Pass => Action::Deploy {
                figure: FigureKindId(0),
                segment: random_segment(rng, nseg),
            },
        };
    }
    match rng.below(6) {
        0 => Action::Place {
            pos: Pos::new(near_i32(rng, 0), near_i32(rng, 0)),
            rotation: *rng.pick(&Rotation::ALL),
        },
        1 => Action::Deploy {
            figure: FigureKindId(random_small_id(rng, nkind, 255) as u8),
            segment: random_segment(rng, nseg),
        },
        2 => Action::Move {
            figure: FigureId(random_small_id(rng, nfig, 65535) as u16),
            segment: random_segment(rng, nseg),
        },
        3 => Action::Pass,
        4 => Action::Draw {
            tile: TileKindId(random_small_id(rng, ntile, 65535) as u16),
        },
        _ => Action::Custom(CustomAction {
            expansion: ExpansionIndex(random_small_id(rng, nexp, 255) as u8),
            verb: VerbId(random_small_id(rng, nverb, 65535) as u16),
            figure: rng
                .chance(1, 2)
                .then(|| FigureId(random_small_id(rng, nfig, 65535) as u16)),
            segment: rng.chance(1, 2).then(|| random_segment(rng, nseg)),
            value: value(rng),
        }),
    }
}

/// Steps per action-sequence case.
const ACTION_STEPS: usize = 160;

fn run_actions(rng: &mut Rng, log: &mut String) -> Result<Verdict, String> {
    let mix = rng.below(1 << MIXABLE.len());
    let variant = rng.below(3);
    let _ = writeln!(
        log,
        "expansions: {:?}, option variant {variant}",
        MIXABLE
            .iter()
            .enumerate()
            .filter(|(i, _)| mix >> i & 1 == 1)
            .map(|(_, s)| *s)
            .collect::<Vec<_>>()
    );
    let rules = match mix_ruleset(mix, variant) {
        Ok(r) => r,
        Err(e) => return Ok(Verdict::Rejected("setup", e)),
    };
    let _ = writeln!(log, "options: {:?}", rules.options());
    let mut setup = random_setup(rng, &rules);
    if rng.chance(1, 4) {
        // Short games reach final scoring within the step budget.
        setup.draw_limit = Some(1 + rng.below(12) as u32);
    }
    let _ = writeln!(log, "setup: {setup:?}");
    let mut game = match Game::new(Arc::clone(&rules), &setup) {
        Ok(g) => g,
        Err(e) => return Ok(Verdict::Rejected("new-game", e.to_string())),
    };
    let checkpoints = !rng.chance(1, 10);
    game.set_checkpoints(checkpoints);
    let _ = writeln!(log, "checkpoints: {checkpoints}");
    let mut taken: Vec<Action> = Vec::new();
    let mut verdict = Verdict::Accepted;
    // A start tile far out makes the board's grid large and its `Debug` text megabytes
    // long: then compare the state after one refusal in ten only.
    let big = snapshot(&game).len() > 200_000;
    let unchanged = |rng: &mut Rng, before: &Game, after: &Game| {
        if big && !rng.chance(1, 10) {
            return true;
        }
        snapshot(before) == snapshot(after)
    };
    let valid_share = 40 + rng.below(50) as u64;
    for step in 0..ACTION_STEPS {
        let before = game.clone();
        let r = rng.below(100) as u64;
        let (what, result, offered) = if game.is_over() || r >= valid_share {
            if rng.chance(1, 8) {
                let i = *rng.pick(&[game.action_count(), game.action_count() + 1, usize::MAX]);
                (format!("apply_offered({i})"), game.apply_offered(i), false)
            } else {
                let a = random_action(rng, &game);
                let offered = before.state().is_offered(&a);
                (
                    format!("apply({a:?})"),
                    game.apply(a).map(|()| taken.push(a)),
                    offered,
                )
            }
        } else {
            let n = game.action_count();
            if n == 0 {
                return Err(format!(
                    "step {step}: no action offered but the game is not over ({})",
                    game.describe_decision()
                ));
            }
            let i = rng.below(n);
            let a = game.state().offered_at(i).expect("in range");
            (
                format!("apply_offered({i}) = {a:?}"),
                game.apply_offered(i).map(|()| taken.push(a)),
                true,
            )
        };
        let _ = writeln!(log, "step {step}: {what} -> {result:?}");
        match result {
            Ok(()) if !offered => {
                return Err(format!(
                    "step {step}: {what} was accepted but not offered ({})",
                    before.describe_decision()
                ));
            }
            Ok(()) => {}
            Err(ActionError::Hook(e)) if before.failure().is_none() => {
                if checkpoints {
                    if !unchanged(rng, &before, &game) {
                        return Err(format!(
                            "step {step}: {what} failed in a hook and was not rolled back: {e}"
                        ));
                    }
                } else if game.failure().is_none() || game.apply(Action::Pass).is_ok() {
                    return Err(format!(
                        "step {step}: without checkpoints a failing hook must stop the game: {e}"
                    ));
                }
                verdict = Verdict::Rejected("hook", e.to_string());
                break;
            }
            Err(e) => {
                if offered && before.failure().is_none() && !before.is_over() {
                    return Err(format!(
                        "step {step}: {what} is offered but was refused: {e}"
                    ));
                }
                if !unchanged(rng, &before, &game) {
                    return Err(format!(
                        "step {step}: {what} was refused ({e}) but changed the state"
                    ));
                }
                if game.is_over()
                    && !matches!(e, ActionError::GameOver)
                    && !matches!(e, ActionError::BadIndex { .. })
                {
                    return Err(format!("step {step}: a finished game refused {what} with `{e}`, not `the game is over`"));
                }
            }
        }
        if game.is_over() && rng.chance(1, 3) {
            break;
        }
    }
    // Host side: the replay output, a picture now and then, and the record of the
    // accepted actions, which must replay to the same state.
    let _ = carcassonne_play::replay::replay_output(&game);
    if rng.chance(1, 8) {
        let _ = carcassonne_render::render_svg(&game, &Default::default());
    }
    if game.failure().is_none() && rng.chance(1, 2) {
        let rec = Record::with_setup(&game, &setup, &taken)
            .map_err(|e| format!("the accepted actions do not record: {e}"))?;
        let replayed = rec
            .replay_with(&rules, "(fuzz record)", None)
            .map_err(|e| format!("the record of the accepted actions does not replay: {e}"))?;
        let (a, b) = (snapshot(&replayed), snapshot(&game));
        if a != b {
            return Err(format!(
                "the record of the accepted actions replays to another state, {}",
                first_difference(&a, &b)
            ));
        }
    }
    Ok(verdict)
}

// ---------------------------------------------------------------------------------------
// The runner
// ---------------------------------------------------------------------------------------

fn format_of(target: Target) -> Format {
    match target {
        Target::Record | Target::Jcz | Target::Actions => Format::Json,
        Target::Manifest | Target::Tiles => Format::Toml,
        Target::Script => Format::Rhai,
    }
}

/// Fuzzes `target` as configured by the environment, with `extra` seeds added to its
/// corpus; prints the summary and returns the report.
pub fn run(target: Target, extra: Vec<Seed>) -> Report {
    run_with(target, extra, &Config::from_env(target))
}

/// Fuzzes `target` with this configuration.
pub fn run_with(target: Target, extra: Vec<Seed>, cfg: &Config) -> Report {
    let mut seeds = corpus(target);
    seeds.extend(extra);
    let mut report = Report {
        target,
        cases: 0,
        seeds: seeds.len(),
        accepted: 0,
        rejected: BTreeMap::new(),
        control_chars: (0, None),
        longest_error: (0, 0),
        mismatches: Vec::new(),
        failures: Vec::new(),
        elapsed: Duration::ZERO,
        busy: Duration::ZERO,
        slowest: (0, Duration::ZERO),
        budget_hit: false,
        base_seed: cfg.seed,
    };
    if !cfg.enabled {
        return report;
    }
    assert!(
        target == Target::Actions || !seeds.is_empty(),
        "fuzz {}: empty corpus",
        target.name()
    );
    let mutator = Mutator::new(seeds, format_of(target));
    start_watchdog(cfg.timeout, cfg.out_dir.clone());
    let wd = work_dir(target);
    let _ = std::fs::create_dir_all(&wd);
    let start = Instant::now();
    let cases: Vec<u64> = match cfg.only_case {
        Some(c) => vec![c],
        None => (0..cfg.cases).collect(),
    };
    for index in cases {
        if start.elapsed() > cfg.budget {
            report.budget_hit = true;
            break;
        }
        let seed = case_seed(target, cfg.seed, index);
        let mut rng = Rng::new(seed);
        let mut log = String::new();
        let (input, repro, ops, folder) = match target {
            Target::Actions => {
                let p = wd.join("case.txt");
                (
                    p,
                    "(no input file: a seeded game; the case's steps are in the file)".to_string(),
                    "random actions".to_string(),
                    None,
                )
            }
            Target::Record | Target::Jcz => {
                let (_, text, ops) = mutator.mutate(&mut rng, index, Format::Json);
                let p = wd.join(if target == Target::Record {
                    "case.json"
                } else {
                    "case.jcz"
                });
                write_input(&p, &text);
                let extra = if target == Target::Record {
                    " --expansion-dir docs/examples"
                } else {
                    ""
                };
                (
                    p,
                    format!("carcassonne replay {{}} --json{extra}"),
                    ops.join(", "),
                    None,
                )
            }
            Target::Manifest | Target::Tiles | Target::Script => {
                let (si, text, ops) = mutator.mutate(&mut rng, index, format_of(target));
                let p = wd.join("case");
                let id = write_folder(target, &mutator.seeds[si], &text, &p);
                (
                    p,
                    format!("carcassonne simulate --plugin-dir {{}} --expansion-dir docs/examples --expansions {id} --games 200 --seed {index}"),
                    format!("{} of {}", ops.join(", "), mutator.seeds[si].name),
                    Some(id),
                )
            }
        };
        running().lock().unwrap_or_else(|e| e.into_inner()).insert(
            target,
            Running {
                target,
                base_seed: cfg.seed,
                seed: index,
                since: Instant::now(),
                input: input.clone(),
                repro: repro.clone(),
            },
        );
        let t0 = Instant::now();
        let mut mismatches = Vec::new();
        let result = guarded(|| match target {
            Target::Record => run_record(&input, &mut rng),
            Target::Jcz => run_jcz(&input, &mut rng, &mut mismatches),
            Target::Manifest | Target::Tiles | Target::Script => {
                run_folder(target, &input, folder.as_deref().unwrap_or(""), &mut rng)
            }
            Target::Actions => run_actions(&mut rng, &mut log),
        });
        let dt = t0.elapsed();
        running()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&target);
        report.cases += 1;
        report.busy += dt;
        if dt > report.slowest.1 {
            report.slowest = (index, dt);
        }
        for m in mismatches {
            report.mismatches.push((index, m));
        }
        let failure = match result {
            Ok(Ok(Verdict::Accepted)) => {
                report.accepted += 1;
                None
            }
            Ok(Ok(Verdict::Rejected(stage, msg))) => {
                if cfg.verbose {
                    println!(
                        "fuzz {} case {index} ({ops}): {stage}: {}",
                        target.name(),
                        truncate(&msg, 300)
                    );
                }
                *report.rejected.entry(stage).or_default() += 1;
                if msg.len() > report.longest_error.1 {
                    report.longest_error = (index, msg.len());
                }
                if has_control_chars(&msg) {
                    report.control_chars.0 += 1;
                    if report.control_chars.1.is_none() {
                        report.control_chars.1 = Some((index, msg.clone()));
                    }
                }
                // The program prints `error: <message>` through `escape_line`: that line
                // must be one line.
                let line = format!("error: {}", carcassonne_files::escape_line(&msg));
                has_control_chars(&line)
                    .then(|| format!("the error line is not one line: {line:?}"))
            }
            Ok(Err(property)) => Some(property),
            Err(panic) => Some(panic),
        };
        if let Some(message) = failure {
            if target == Target::Actions {
                write_input(&input, &log);
            }
            let saved = save_failure(&cfg.out_dir, target, index, &input);
            let f = Failure {
                index,
                seed,
                message,
                ops,
                repro: repro.replace("{}", &saved.display().to_string()),
                input: saved,
            };
            eprintln!(
                "fuzz {}: case {} (seed {seed:#018x}) FAILED: {}\n  input: {}\n  reproduce: {}\n  or: CARCASSONNE_FUZZ_SEED={} CARCASSONNE_FUZZ_TARGET={} CARCASSONNE_FUZZ_CASE={} cargo test -p carcassonne-tests --test fuzz -- --nocapture",
                target.name(),
                index,
                f.message,
                f.input.display(),
                f.repro,
                cfg.seed,
                target.name(),
                index
            );
            report.failures.push(f);
        }
    }
    report.elapsed = start.elapsed();
    let _ = std::fs::remove_dir_all(&wd);
    // The run's folder goes once the last target is done with it.
    if let Some(parent) = wd.parent() {
        let _ = std::fs::remove_dir(parent);
    }
    println!("{}", report.summary());
    report
}
