//! The deterministic random generator ([`Rng`]) and the seed of each case.

use super::config::Target;

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

    /// Inserts a copy of a random item of `items` (not empty) at a random place: once, or,
    /// one time in eight, 2 to 65 times in a row (a list far longer than any file has).
    pub fn duplicate_item<T: Clone>(&mut self, items: &mut Vec<T>) {
        let item = items[self.below(items.len())].clone();
        let times = if self.chance(1, 8) {
            2 + self.small(64)
        } else {
            1
        };
        let at = self.below(items.len() + 1);
        for _ in 0..times {
            items.insert(at, item.clone());
        }
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
