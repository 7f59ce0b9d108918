//! Four `u32` lanes, one per rotation, computed on at once: the placement tests ask the same
//! question of a tile kind's four rotations ([`super::placement::RotationCodes`],
//! the overlay's `KindCodes`).
//!
//! On x86_64 a [`Lanes`] is an SSE2 register (SSE2 is part of that target's baseline, so no
//! feature detection is needed); elsewhere it is an array the compiler may vectorise. All of
//! the `unsafe` of the placement tests is here, in one-instruction methods.

/// Four `u32` lanes in an SSE2 register; lane q belongs to the rotation of q quarter turns.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Lanes(std::arch::x86_64::__m128i);

/// Other targets: [`ArrayLanes`].
#[cfg(not(target_arch = "x86_64"))]
pub(crate) type Lanes = ArrayLanes;

#[cfg(target_arch = "x86_64")]
impl Lanes {
    /// The lanes `v[0]`, …, `v[3]`.
    #[inline(always)]
    pub(crate) fn new(v: &[u32; 4]) -> Lanes {
        use std::arch::x86_64::*;
        // SAFETY (every block of this impl): SSE2 is part of the x86_64 baseline, so these
        // intrinsics are always available; they compute on registers only.
        Lanes(unsafe { _mm_set_epi32(v[3] as i32, v[2] as i32, v[1] as i32, v[0] as i32) })
    }

    /// `x` in every lane.
    #[inline(always)]
    pub(crate) fn splat(x: u32) -> Lanes {
        Lanes(unsafe { std::arch::x86_64::_mm_set1_epi32(x as i32) })
    }

    #[inline(always)]
    pub(crate) fn and(self, o: Lanes) -> Lanes {
        Lanes(unsafe { std::arch::x86_64::_mm_and_si128(self.0, o.0) })
    }

    /// `self & !o`, lane by lane.
    #[inline(always)]
    pub(crate) fn and_not(self, o: Lanes) -> Lanes {
        Lanes(unsafe { std::arch::x86_64::_mm_andnot_si128(o.0, self.0) })
    }

    #[inline(always)]
    pub(crate) fn xor(self, o: Lanes) -> Lanes {
        Lanes(unsafe { std::arch::x86_64::_mm_xor_si128(self.0, o.0) })
    }

    /// Bit q of the result: whether lane q of `self` equals lane q of `o`.
    #[inline(always)]
    pub(crate) fn eq_bits(self, o: Lanes) -> u8 {
        use std::arch::x86_64::*;
        unsafe { _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(self.0, o.0))) as u8 }
    }
}

/// [`Lanes`] as an array: the type on other targets, and the reference in tests.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[derive(Clone, Copy)]
pub(crate) struct ArrayLanes([u32; 4]);

#[cfg(any(test, not(target_arch = "x86_64")))]
impl ArrayLanes {
    #[inline(always)]
    pub(crate) fn new(v: &[u32; 4]) -> ArrayLanes {
        ArrayLanes(*v)
    }

    #[inline(always)]
    pub(crate) fn splat(x: u32) -> ArrayLanes {
        ArrayLanes([x; 4])
    }

    #[inline(always)]
    pub(crate) fn and(self, o: ArrayLanes) -> ArrayLanes {
        ArrayLanes(std::array::from_fn(|q| self.0[q] & o.0[q]))
    }

    #[inline(always)]
    pub(crate) fn and_not(self, o: ArrayLanes) -> ArrayLanes {
        ArrayLanes(std::array::from_fn(|q| self.0[q] & !o.0[q]))
    }

    #[inline(always)]
    pub(crate) fn xor(self, o: ArrayLanes) -> ArrayLanes {
        ArrayLanes(std::array::from_fn(|q| self.0[q] ^ o.0[q]))
    }

    #[inline(always)]
    pub(crate) fn eq_bits(self, o: ArrayLanes) -> u8 {
        (0..4).fold(0, |bits, q| bits | u8::from(self.0[q] == o.0[q]) << q)
    }
}

#[cfg(test)]
mod tests {
    use super::{ArrayLanes, Lanes};

    /// Every operation answers lane by lane as plain `u32` arithmetic does, in both forms.
    #[test]
    fn lanes_compute_lane_by_lane() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Few distinct values, so that lanes are often equal.
            (x as u32) & 0x0101_0303
        };
        let bits = |f: &dyn Fn(usize) -> bool| (0..4).fold(0u8, |b, q| b | u8::from(f(q)) << q);
        for _ in 0..10_000 {
            let (a, b, c): ([u32; 4], [u32; 4], [u32; 4]) = (
                std::array::from_fn(|_| next()),
                std::array::from_fn(|_| next()),
                std::array::from_fn(|_| next()),
            );
            macro_rules! check {
                ($l:ident) => {
                    let (la, lb, lc) = ($l::new(&a), $l::new(&b), $l::new(&c));
                    assert_eq!(la.eq_bits(lb), bits(&|q| a[q] == b[q]));
                    assert_eq!(la.and(lb).eq_bits(lc), bits(&|q| a[q] & b[q] == c[q]));
                    assert_eq!(la.and_not(lb).eq_bits(lc), bits(&|q| a[q] & !b[q] == c[q]));
                    assert_eq!(la.xor(lb).eq_bits(lc), bits(&|q| a[q] ^ b[q] == c[q]));
                    assert_eq!($l::splat(a[1]).eq_bits(la), bits(&|q| a[q] == a[1]));
                };
            }
            check!(Lanes);
            check!(ArrayLanes);
        }
    }
}
