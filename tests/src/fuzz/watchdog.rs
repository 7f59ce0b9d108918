//! The watchdog thread that stops the process when a case runs too long.

use super::config::Target;
use super::work_dir::save_failure;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

pub(super) struct Running {
    pub(super) target: Target,
    pub(super) base_seed: u64,
    pub(super) seed: u64,
    pub(super) since: Instant,
    pub(super) input: PathBuf,
    pub(super) repro: String,
}

pub(super) fn running() -> &'static Mutex<BTreeMap<Target, Running>> {
    static RUNNING: OnceLock<Mutex<BTreeMap<Target, Running>>> = OnceLock::new();
    RUNNING.get_or_init(|| Mutex::new(BTreeMap::new()))
}

pub(super) fn start_watchdog(timeout: Duration, out_dir: PathBuf) {
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
