//! The gather's and scatter's register ([`PatchRegister`]) with AVX2: 8 lanes, a mask
//! being a vector whose lanes are all ones or all zeros (AVX2 has no mask registers: a
//! masked load, then a blend).

use std::arch::x86_64::{
    __m256, __m256i, _mm256_add_ps, _mm256_and_si256, _mm256_blendv_ps, _mm256_castsi256_ps,
    _mm256_cmpeq_epi32, _mm256_maskload_ps, _mm256_set1_epi32, _mm256_setr_epi32,
    _mm256_setzero_ps, _mm256_storeu_ps,
};

use super::registers::PatchRegister;

impl PatchRegister for __m256 {
    const WIDTH: usize = 8;
    type Mask = __m256i;

    #[inline(always)]
    unsafe fn mask(k: u16) -> __m256i {
        // SAFETY: the trait's contract.
        unsafe {
            let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
            _mm256_cmpeq_epi32(
                _mm256_and_si256(_mm256_set1_epi32(i32::from(k)), bits),
                bits,
            )
        }
    }

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the trait's contract.
        unsafe { _mm256_setzero_ps() }
    }

    #[inline(always)]
    unsafe fn load_into(self, mask: __m256i, p: *const f32) -> Self {
        // SAFETY: the trait's contract: the lanes of `mask` are valid at `p` (a masked
        // load touches no other).
        unsafe {
            let loaded = _mm256_maskload_ps(p, mask);
            _mm256_blendv_ps(self, loaded, _mm256_castsi256_ps(mask))
        }
    }

    #[inline(always)]
    unsafe fn load_or_zero(mask: __m256i, p: *const f32) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_maskload_ps(p, mask) }
    }

    #[inline(always)]
    unsafe fn add_where(self, mask: __m256i, other: Self) -> Self {
        // SAFETY: the trait's contract.
        unsafe {
            let sum = _mm256_add_ps(self, other);
            _mm256_blendv_ps(self, sum, _mm256_castsi256_ps(mask))
        }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        // SAFETY: the trait's contract: 8 floats are valid at `p`.
        unsafe { _mm256_storeu_ps(p, self) }
    }
}
