//! The gather's and scatter's register ([`PatchRegister`]) with AVX-512: 16 lanes, masks
//! in mask registers.

use std::arch::x86_64::{
    __m512, _mm512_mask_add_ps, _mm512_mask_loadu_ps, _mm512_maskz_loadu_ps, _mm512_setzero_ps,
    _mm512_storeu_ps,
};

use super::registers::PatchRegister;

impl PatchRegister for __m512 {
    const WIDTH: usize = 16;
    type Mask = u16;

    #[inline(always)]
    unsafe fn mask(k: u16) -> u16 {
        k
    }

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the trait's contract.
        unsafe { _mm512_setzero_ps() }
    }

    #[inline(always)]
    unsafe fn load_into(self, mask: u16, p: *const f32) -> Self {
        // SAFETY: the trait's contract: the lanes of `mask` are valid at `p`.
        unsafe { _mm512_mask_loadu_ps(self, mask, p) }
    }

    #[inline(always)]
    unsafe fn load_or_zero(mask: u16, p: *const f32) -> Self {
        // SAFETY: as above.
        unsafe { _mm512_maskz_loadu_ps(mask, p) }
    }

    #[inline(always)]
    unsafe fn add_where(self, mask: u16, other: Self) -> Self {
        // SAFETY: the trait's contract.
        unsafe { _mm512_mask_add_ps(self, mask, self, other) }
    }

    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        // SAFETY: the trait's contract: 16 floats are valid at `p`.
        unsafe { _mm512_storeu_ps(p, self) }
    }
}
