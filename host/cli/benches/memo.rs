//! The fan scripts' memo of hook calls (`host/script/src/memo/`), timed: whole random
//! 2-player base games with one script, its hook calls answered from the memo
//! (`memo-on`, how scripts always run) and the script run for every call (`memo-off`,
//! `ScriptExpansion::without_memo`). The tests check that both play the same games; this
//! says what the memo saves. Times are the benchmark thread's CPU time, as in `engine`.
//!
//! `cargo bench -p carcassonne-cli --bench memo [-- FILTER]`

use carcassonne_core::Ruleset;
use carcassonne_script::{compile_source, ScriptExpansion};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

mod common;
use common::{bench_games, CpuTime};

/// The scripts timed, as (id, path from the repository's root): the two fan expansions
/// that ship and the benchmarks' ferry (a script whose hooks run at every placement).
const SCRIPTS: [(&str, &str); 3] = [
    ("tactician", "fan-expansions/tactician/tactician.rhai"),
    ("promotions", "fan-expansions/promotions/promotions.rhai"),
    (
        "ferry-lite",
        "host/cli/benches/fan/ferry-lite/ferry-lite.rhai",
    ),
];

/// The base game with the script `id`, remembering hook calls or not: built from the
/// script alone (no manifest, so no option is set), as the memo's tests build it.
fn ruleset(id: &str, path: &Path, memo: bool) -> Arc<Ruleset> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let script = compile_source(id, "1.0.0", path.to_path_buf(), &text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut x = ScriptExpansion::new(script);
    if !memo {
        x = x.without_memo();
    }
    let rules = Ruleset::builder()
        .tiles(carcassonne_files::tiles::base_tile_set())
        .expansion(Arc::new(x))
        .build()
        .unwrap_or_else(|e| panic!("{id}: {e}"));
    Arc::new(rules)
}

fn memo(c: &mut Criterion<CpuTime>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut group = c.benchmark_group("memo");
    group.throughput(Throughput::Elements(1));
    group.measurement_time(Duration::from_secs(5));
    for (id, file) in SCRIPTS {
        for (name, on) in [("memo-on", true), ("memo-off", false)] {
            let rules = ruleset(id, &root.join(file), on);
            bench_games(&mut group, &format!("{id}/{name}"), &rules);
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = memo
}
criterion_main!(benches);
