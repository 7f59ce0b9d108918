//! Indexed jobs spread over threads, each thread taking the next index nobody has taken.
//!
//! Bot games differ in length by several times (a search bot's game with the nine
//! expansions runs from under a second to several), so handing thread `t` the indices
//! `t, t + threads, …` left one thread playing its last long games while the others
//! waited. Here a shared counter hands out the indices in order, and the results are
//! gathered by index, so what a run reports never depends on which thread played what.

use crate::PlayError;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// The worker threads a run asks for: `0` is one per core of this machine (as the CLI's
/// `--threads 0` and the Python package's `threads=0`).
pub fn thread_count(asked: usize) -> usize {
    match asked {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// The threads a run of `count` jobs starts: as asked, at least one, at most one a job.
pub(crate) fn threads_for(asked: usize, count: u64) -> usize {
    thread_count(asked).max(1).min(count.max(1) as usize)
}

/// Runs `job(worker, i)` for every `i` in `0..count` on [`threads_for`] threads, each
/// with its own `worker` built by `init` (a game template, a thread's totals) and turned
/// into its result by `finish` at the end; the results in thread order.
///
/// `progress` gets the number of jobs done after each one. A job that fails or panics
/// stops the handing out of indices; the jobs already taken finish, and the error of the
/// lowest failing index is returned. As indices are taken in order, that is the first
/// failing index of the whole run, whatever the threads did. An `init` failure counts as
/// index 0's.
pub(crate) fn run_workers<W, R: Send, E: From<PlayError> + Send>(
    count: u64,
    threads: usize,
    init: impl Fn() -> Result<W, E> + Sync,
    job: impl Fn(&mut W, u64) -> Result<(), E> + Sync,
    finish: impl Fn(W) -> R + Sync,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<R>, E> {
    let threads = threads_for(threads, count);
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<(u64, E)>> = Mutex::new(None);
    let fail = |i: u64, e: E| {
        stop.store(true, Ordering::Relaxed);
        let mut f = crate::stats::lock(&failure);
        if f.as_ref().is_none_or(|(at, _)| i < *at) {
            *f = Some((i, e));
        }
    };
    let mut parts: Vec<R> = Vec::with_capacity(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (next, done, stop, init, job, finish, fail) =
                    (&next, &done, &stop, &init, &job, &finish, &fail);
                s.spawn(move || {
                    let mut worker = match init() {
                        Ok(w) => w,
                        Err(e) => {
                            fail(0, e);
                            return None;
                        }
                    };
                    while !stop.load(Ordering::Relaxed) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= count {
                            break;
                        }
                        if let Err(e) = caught(|| job(&mut worker, i)) {
                            fail(i, e);
                            break;
                        }
                        progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                    }
                    Some(finish(worker))
                })
            })
            .collect();
        for h in handles {
            // Every job's panic is caught above; this is the thread's own code.
            if let Ok(Some(r)) = h.join() {
                parts.push(r);
            }
        }
    });
    if let Some((_, e)) = crate::stats::lock(&failure).take() {
        return Err(e);
    }
    Ok(parts)
}

/// [`run_workers`] for jobs that each give a result: the results in index order, so that
/// what a run reports never depends on which thread played what.
pub(crate) fn run_indexed<S, T: Send>(
    count: u64,
    threads: usize,
    init: impl Fn() -> Result<S, PlayError> + Sync,
    job: impl Fn(&mut S, u64) -> Result<T, PlayError> + Sync,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<T>, PlayError> {
    let parts = run_workers::<_, _, PlayError>(
        count,
        threads,
        || Ok((init()?, Vec::new())),
        |(state, out): &mut (S, Vec<(u64, T)>), i| {
            out.push((i, job(state, i)?));
            Ok(())
        },
        |(_, out)| out,
        progress,
    )?;
    let mut all: Vec<(u64, T)> = parts.into_iter().flatten().collect();
    all.sort_unstable_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, t)| t).collect())
}

/// Runs one game's work `f`; a panic in it becomes its error ("the game panicked: …"), so
/// that one game's panic is that game's alone.
pub(crate) fn caught<T, E: From<PlayError>>(f: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let what = panic_message(p.as_ref());
        Err(PlayError::Invalid(format!("the game panicked: {what}")).into())
    })
}

/// A caught panic's message (its `&str` or `String` payload).
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_index_order_whatever_the_threads() {
        for threads in [1, 2, 3, 8] {
            let got = run_indexed(
                50,
                threads,
                || Ok(0u64),
                |calls, i| {
                    *calls += 1;
                    // Uneven jobs, so the threads interleave differently.
                    std::thread::sleep(std::time::Duration::from_micros((i * 37) % 300));
                    Ok(i * i)
                },
                &|_| {},
            )
            .unwrap();
            assert_eq!(got, (0..50).map(|i| i * i).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_lowest_failing_index_is_reported_and_later_jobs_are_not_started() {
        let started = AtomicU64::new(0);
        let e = run_indexed(
            1000,
            2,
            || Ok(()),
            |_, i| {
                started.fetch_add(1, Ordering::Relaxed);
                match i {
                    7 => Err(PlayError::Invalid("seven".into())),
                    9 => panic!("nine"),
                    _ => Ok(i),
                }
            },
            &|_| {},
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            PlayError::Invalid("seven".into()).to_string()
        );
        assert!(
            started.load(Ordering::Relaxed) < 1000,
            "the run stopped early"
        );
    }

    #[test]
    fn a_panic_becomes_that_jobs_error() {
        let e = run_indexed(
            3,
            1,
            || Ok(()),
            |_, i| if i == 1 { panic!("boom") } else { Ok(i) },
            &|_| {},
        )
        .unwrap_err();
        assert!(e.to_string().contains("the game panicked: boom"), "{e}");
    }

    #[test]
    fn progress_counts_every_job_and_an_empty_run_is_empty() {
        let seen = AtomicU64::new(0);
        let got = run_indexed(5, 2, || Ok(()), |_, i| Ok(i), &|n| {
            seen.fetch_max(n, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(got.len(), 5);
        assert_eq!(seen.load(Ordering::Relaxed), 5);
        let none: Vec<u64> = run_indexed(0, 4, || Ok(()), |_, i| Ok(i), &|_| {}).unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn a_failing_init_is_the_runs_error() {
        let e = run_indexed(
            4,
            2,
            || Err::<(), _>(PlayError::Invalid("no template".into())),
            |_, i| Ok(i),
            &|_| {},
        )
        .unwrap_err();
        assert!(e.to_string().contains("no template"), "{e}");
    }
}
