//! The small statistics `arena` and `balance` report: means and proportions with 95%
//! intervals, summed in a fixed order so reports do not depend on thread timing.

use serde::Serialize;

/// A mean with its normal 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Mean {
    /// The mean.
    pub mean: f64,
    /// Normal 95% interval.
    pub ci95: [f64; 2],
    /// Observations.
    pub n: u64,
}

/// A proportion with its Wilson 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rate {
    /// Successes / trials.
    pub rate: f64,
    /// Wilson 95% interval.
    pub ci95: [f64; 2],
    /// Trials.
    pub n: u64,
}

impl Rate {
    /// `x` successes in `n` trials.
    pub fn of(x: u64, n: u64) -> Rate {
        Rate {
            rate: round(x as f64 / n.max(1) as f64, 4),
            ci95: wilson(x as f64, n as f64),
            n,
        }
    }
}

/// Count, sum and sum of squares of a sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct Moments {
    n: u64,
    sum: f64,
    sq: f64,
}

impl Moments {
    /// Adds one observation.
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sq += x * x;
    }

    /// The mean and its normal 95% interval (a point interval below two observations).
    pub fn mean(&self) -> Mean {
        let n = self.n.max(1) as f64;
        let mean = self.sum / n;
        let half = if self.n < 2 {
            0.0
        } else {
            let var = ((self.sq - self.sum * self.sum / n) / (n - 1.0)).max(0.0);
            1.96 * (var / n).sqrt()
        };
        Mean {
            mean: round(mean, 4),
            ci95: [round(mean - half, 4), round(mean + half, 4)],
            n: self.n,
        }
    }
}

/// Wilson score interval (95%) for `x` successes in `n` trials.
pub fn wilson(x: f64, n: f64) -> [f64; 2] {
    if n <= 0.0 {
        return [0.0, 1.0];
    }
    let z = 1.96f64;
    let p = x / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    [
        round((centre - half).max(0.0), 4),
        round((centre + half).min(1.0), 4),
    ]
}

/// `x` rounded to `digits` decimals (reports stay short and stable).
pub fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// Locks a mutex whose holder may have panicked (the data are plain results).
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_known_values() {
        // 95 of 100: the textbook interval is about [0.888, 0.978].
        let [lo, hi] = wilson(95.0, 100.0);
        assert!(
            (lo - 0.8882).abs() < 0.001 && (hi - 0.9785).abs() < 0.001,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0.0, 0.0), [0.0, 1.0]);
    }

    #[test]
    fn mean_interval() {
        let mut m = Moments::default();
        for x in [1.0, 2.0, 3.0, 4.0] {
            m.add(x);
        }
        let s = m.mean();
        assert_eq!(s.mean, 2.5);
        // sd = 1.2910, se = 0.6455, half = 1.2652
        assert!((s.ci95[0] - 1.2348).abs() < 1e-3 && (s.ci95[1] - 3.7652).abs() < 1e-3);
    }
}
