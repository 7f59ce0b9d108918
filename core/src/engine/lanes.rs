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

    #[inline(always)]
    pub(crate) fn or(self, o: Lanes) -> Lanes {
        Lanes(unsafe { std::arch::x86_64::_mm_or_si128(self.0, o.0) })
    }

    /// Bit q of the result: whether lane q of `self` equals lane q of `o`.
    #[inline(always)]
    pub(crate) fn eq_bits(self, o: Lanes) -> u8 {
        use std::arch::x86_64::*;
        unsafe { _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(self.0, o.0))) as u8 }
    }

    /// The lanes `v[0]`, …, `v[3]` read by one load ([`Lanes::new`] may build them from
    /// four).
    #[inline(always)]
    pub(crate) fn load(v: &[u32; 4]) -> Lanes {
        use std::arch::x86_64::*;
        // SAFETY: `v` is 16 readable bytes; the load takes any alignment.
        Lanes(unsafe { _mm_loadu_si128(v.as_ptr().cast::<__m128i>()) })
    }

    /// Lane 2 in every lane.
    #[inline(always)]
    pub(crate) fn lane2(self) -> Lanes {
        // (Each 2-bit field of the shuffle's control names the lane to copy: 2.)
        Lanes(unsafe { std::arch::x86_64::_mm_shuffle_epi32::<0xAA>(self.0) })
    }

    /// Lane 3 in every lane.
    #[inline(always)]
    pub(crate) fn lane3(self) -> Lanes {
        Lanes(unsafe { std::arch::x86_64::_mm_shuffle_epi32::<0xFF>(self.0) })
    }

    /// Lane by lane: all ones where lane q of `self` equals lane q of `o`, else 0.
    #[inline(always)]
    pub(crate) fn eq(self, o: Lanes) -> Lanes {
        Lanes(unsafe { std::arch::x86_64::_mm_cmpeq_epi32(self.0, o.0) })
    }

    /// Bit q of the result: the top bit of lane q ([`Lanes::eq`]'s answer as bits).
    #[inline(always)]
    pub(crate) fn bits(self) -> u8 {
        use std::arch::x86_64::*;
        unsafe { _mm_movemask_ps(_mm_castsi128_ps(self.0)) as u8 }
    }

    /// `self - o`, lane by lane, wrapping.
    #[inline(always)]
    pub(crate) fn sub(self, o: Lanes) -> Lanes {
        Lanes(unsafe { std::arch::x86_64::_mm_sub_epi32(self.0, o.0) })
    }

    /// Writes lanes 0 and 1, 8 bytes as they lie in memory, to `dst`.
    ///
    /// # Safety
    /// `dst` is valid for writes of 8 bytes (any alignment).
    #[inline(always)]
    pub(crate) unsafe fn store_low(self, dst: *mut u8) {
        use std::arch::x86_64::*;
        // SAFETY: the caller's.
        unsafe { _mm_storel_epi64(dst.cast::<__m128i>(), self.0) }
    }

    /// The four lanes added, wrapping.
    #[inline(always)]
    pub(crate) fn sum(self) -> u32 {
        use std::arch::x86_64::*;
        unsafe {
            let two = _mm_add_epi32(self.0, _mm_shuffle_epi32::<0x4E>(self.0));
            let one = _mm_add_epi32(two, _mm_shuffle_epi32::<0xB1>(two));
            _mm_cvtsi128_si32(one) as u32
        }
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
    pub(crate) fn or(self, o: ArrayLanes) -> ArrayLanes {
        ArrayLanes(std::array::from_fn(|q| self.0[q] | o.0[q]))
    }

    #[inline(always)]
    pub(crate) fn eq_bits(self, o: ArrayLanes) -> u8 {
        (0..4).fold(0, |bits, q| bits | u8::from(self.0[q] == o.0[q]) << q)
    }

    #[inline(always)]
    pub(crate) fn load(v: &[u32; 4]) -> ArrayLanes {
        ArrayLanes(*v)
    }

    #[inline(always)]
    pub(crate) fn lane2(self) -> ArrayLanes {
        ArrayLanes([self.0[2]; 4])
    }

    #[inline(always)]
    pub(crate) fn lane3(self) -> ArrayLanes {
        ArrayLanes([self.0[3]; 4])
    }

    #[inline(always)]
    pub(crate) fn eq(self, o: ArrayLanes) -> ArrayLanes {
        ArrayLanes(std::array::from_fn(|q| {
            if self.0[q] == o.0[q] {
                u32::MAX
            } else {
                0
            }
        }))
    }

    #[inline(always)]
    pub(crate) fn bits(self) -> u8 {
        (0..4).fold(0, |bits, q| bits | u8::from(self.0[q] >> 31 == 1) << q)
    }

    #[inline(always)]
    pub(crate) fn sub(self, o: ArrayLanes) -> ArrayLanes {
        ArrayLanes(std::array::from_fn(|q| self.0[q].wrapping_sub(o.0[q])))
    }

    /// # Safety
    /// `dst` is valid for writes of 8 bytes (any alignment).
    #[inline(always)]
    pub(crate) unsafe fn store_low(self, dst: *mut u8) {
        // SAFETY: the caller's; the source is this array's first 8 bytes.
        unsafe { std::ptr::copy_nonoverlapping(self.0.as_ptr().cast::<u8>(), dst, 8) }
    }

    #[inline(always)]
    pub(crate) fn sum(self) -> u32 {
        self.0.iter().fold(0u32, |s, x| s.wrapping_add(*x))
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
                    assert_eq!(la.or(lb).eq_bits(lc), bits(&|q| a[q] | b[q] == c[q]));
                    assert_eq!($l::splat(a[1]).eq_bits(la), bits(&|q| a[q] == a[1]));
                    assert_eq!($l::load(&a).eq_bits(lb), bits(&|q| a[q] == b[q]));
                    assert_eq!(la.eq(lb).bits(), bits(&|q| a[q] == b[q]));
                    assert_eq!(la.lane2().eq_bits(lb), bits(&|q| a[2] == b[q]));
                    assert_eq!(la.lane3().eq_bits(lb), bits(&|q| a[3] == b[q]));
                    let sum = a.iter().fold(0u32, |s, x| s.wrapping_add(*x));
                    assert_eq!(la.sum(), sum);
                    assert_eq!(la.sub(lb).sum(), sum.wrapping_sub(b.iter().sum::<u32>()));
                    let mut low = [0u8; 8];
                    // SAFETY: `low` is 8 writable bytes.
                    unsafe { la.store_low(low.as_mut_ptr()) };
                    assert_eq!(low[..4], a[0].to_ne_bytes());
                    assert_eq!(low[4..], a[1].to_ne_bytes());
                    // Counting equal lanes by subtracting the all-ones answers.
                    let n = (0..4).filter(|&q| a[q] == b[q]).count() as u32;
                    assert_eq!($l::splat(0).sub(la.eq(lb)).sum(), n);
                };
            }
            check!(Lanes);
            check!(ArrayLanes);
        }
    }
}
