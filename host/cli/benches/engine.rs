//! Engine benchmarks (criterion): whole random games, placement enumeration, state clones.
//!
//! Times are CPU time of the benchmark thread (`CLOCK_THREAD_CPUTIME_ID`), not wall
//! time: the machine is shared, and wall time there counts other processes' turns too.
//!
//! `cargo build --release && cargo bench -p carcassonne-cli --bench engine`
//! (the first command builds the expansion plugins that `games/ckr-4-2p` loads).
//! `games/ckr-4-fan-2-2p` adds the two fan expansions (Rhai scripts from `fan-expansions/`)
//! to the same four: the issue-4 figure compares it with `games/ckr-4-2p`.

use carcassonne_core::{DecisionKind, Game, Ruleset, TileKindId};
use carcassonne_rules::{base_ruleset, build_ruleset, RulesSpec};
use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::sync::Arc;
use std::time::Duration;

mod common;
use common::{bench_games, new_game, play, CpuTime, Pick};

/// Base game + the four Count, King & Robber expansions, loaded as plugins, and `fan`
/// fan expansions (scripts).
fn ckr_ruleset(fan: &[&str]) -> Arc<Ruleset> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut expansions: Vec<String> = ["count", "king-robber", "river2", "heretics-shrines"]
        .map(String::from)
        .to_vec();
    expansions.extend(fan.iter().map(|f| f.to_string()));
    build_ruleset(&RulesSpec {
        expansions,
        plugin_dirs: vec![root.join("expansions"), root.join("fan-expansions")],
        ..RulesSpec::default()
    })
    .unwrap_or_else(|e| panic!("{e} (build the plugins first: `cargo build --release`)"))
}

/// A game stopped at a tile step after about `tiles` placements.
fn midgame(rules: &Arc<Ruleset>, tiles: usize) -> Game {
    let mut g = new_game(rules, 42);
    let mut pick = Pick(7);
    play(&mut g, &mut pick, |g| {
        g.state().board().tiles().len() > tiles
            && matches!(g.decision().kind, DecisionKind::PlaceTile { .. })
    });
    g
}

fn games(c: &mut Criterion<CpuTime>) {
    let mut group = c.benchmark_group("games");
    group.throughput(Throughput::Elements(1));
    group.measurement_time(Duration::from_secs(5));
    for (name, rules) in [
        ("random-2p", base_ruleset()),
        ("ckr-4-2p", ckr_ruleset(&[])),
        ("ckr-4-fan-2-2p", ckr_ruleset(&["tactician", "promotions"])),
    ] {
        bench_games(&mut group, name, &rules);
    }
    group.finish();
}

fn placements(c: &mut Criterion<CpuTime>) {
    let rules = base_ruleset();
    let g = midgame(&rules, 35);
    let kinds: Vec<TileKindId> = ["BA/RFr", "BA/C", "BA/Cccc+", "BA/L"]
        .iter()
        .map(|n| rules.tiles().find(n).unwrap())
        .collect();
    let DecisionKind::PlaceTile { tile: drawn } = g.decision().kind else {
        unreachable!("`midgame` stops at a tile step")
    };
    let mut group = c.benchmark_group("placements");
    group.measurement_time(Duration::from_secs(3));
    let mut cells = Vec::new();
    // Issue 19: the legal placements of the drawn tile on a mid-game board (< 100 ns).
    group.bench_function("drawn-tile-midgame", |b| {
        b.iter(|| black_box(g.placement_cells_for(black_box(drawn), &mut cells).unwrap()))
    });
    group.bench_function("enumerate-midgame", |b| {
        b.iter(|| {
            let mut n = 0;
            for k in &kinds {
                n += g.placement_cells_for(*k, &mut cells).unwrap();
            }
            black_box(n)
        })
    });
    let mut actions = Vec::new();
    group.bench_function("enumerate-midgame-as-actions", |b| {
        b.iter(|| {
            for k in &kinds {
                g.placements_for(*k, &mut actions).unwrap();
            }
            black_box(actions.len())
        })
    });
    group.bench_function("turn-midgame", |b| {
        b.iter_batched(
            || g.clone(),
            |mut g| {
                let mut pick = Pick(3);
                let turn = g.state().turn();
                play(&mut g, &mut pick, |g| g.state().turn() != turn);
                g
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn clones(c: &mut Criterion<CpuTime>) {
    let rules = base_ruleset();
    let mid = midgame(&rules, 35);
    let mut end = new_game(&rules, 9);
    play(&mut end, &mut Pick(9), |_| false);
    let mut group = c.benchmark_group("state");
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("clone-midgame", |b| b.iter(|| black_box(mid.clone())));
    group.bench_function("clone-end", |b| b.iter(|| black_box(end.clone())));
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = games, placements, clones
}
criterion_main!(benches);
