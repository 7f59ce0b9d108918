//! The runner: every case of a target made, run under the guard and watchdog, and reported.

use super::action_sequences::run_actions;
use super::config::{Config, Target};
use super::corpus::{corpus, Seed};
use super::mutator::{Format, Mutator};
use super::panic_guard::guarded;
use super::report::{has_control_chars, truncate, Failure, Report, Verdict};
use super::rng::{case_seed, Rng};
use super::targets::{run_folder, run_jcz, run_record, write_folder};
use super::watchdog::{running, start_watchdog, Running};
use super::work_dir::{save_failure, work_dir, write_input};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

pub(super) fn format_of(target: Target) -> Format {
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
