//! The soft forward and backward in AVX-512 intrinsics: sixteen lanes per register, the
//! lane loops of [`vector`]. In the backward, each coefficient's sixteen
//! partial sums are one register and a 64-lane gate is four steps. The compiler's own
//! 512-bit vectorization of the portable loop runs it at less than half the speed of the
//! AVX2 kernel. The partials are summed by the AVX2 kernel's tree, so the bits are the
//! same.

use std::arch::x86_64::{
    __m512, _mm256_castpd_ps, _mm512_add_ps, _mm512_castps512_ps256, _mm512_castps_pd,
    _mm512_extractf64x4_pd, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_mul_ps, _mm512_set1_ps,
    _mm512_setzero_ps, _mm512_storeu_ps,
};

use super::avx2::tree_sum;
use super::lanes::{
    gate_backward_by_pointers, GateBackward, GateForward, InputRows, Lanes, PARTIALS,
};
use super::vector::{self, F32Vector};

/// The AVX-512 gate kernels of [`forward`](super::forward) and
/// [`backward`](super::backward).
pub struct Avx512;

gate_backward_by_pointers!(Avx512, lanes, Partials, halves_tree_sum, defer true, "AVX-512");

/// f32 lanes per register.
const WIDTH: usize = 16;
const _: () = assert!(
    WIDTH == PARTIALS,
    "one register holds a coefficient's partials"
);

/// A coefficient's sixteen partials in one register, for each of the four.
type Partials = [[__m512; PARTIALS / WIDTH]; 4];

impl F32Vector for __m512 {
    const WIDTH: usize = WIDTH;
    type Partials = [__m512; PARTIALS / WIDTH];

    #[inline(always)]
    unsafe fn splat(x: f32) -> Self {
        // SAFETY: the caller's promise: the CPU has AVX-512F.
        unsafe { _mm512_set1_ps(x) }
    }
    #[inline(always)]
    unsafe fn zero_partials() -> Self::Partials {
        // SAFETY: the caller's promise: the CPU has AVX-512F.
        unsafe { [_mm512_setzero_ps(); PARTIALS / WIDTH] }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        // SAFETY: the caller's promise: the CPU has AVX-512F.
        unsafe { _mm512_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        // SAFETY: the caller's promise: the CPU has AVX-512F.
        unsafe { _mm512_storeu_ps(p, self) }
    }
    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: the caller's promise: the CPU has AVX-512F.
        unsafe { _mm512_add_ps(self, other) }
    }
    #[inline(always)]
    unsafe fn mul(self, other: Self) -> Self {
        // SAFETY: the caller's promise: the CPU has AVX-512F.
        unsafe { _mm512_mul_ps(self, other) }
    }
    #[inline(always)]
    unsafe fn mul_add(self, b: Self, c: Self) -> Self {
        // SAFETY: the caller's promise: the CPU has AVX-512F.
        unsafe { _mm512_fmadd_ps(self, b, c) }
    }
}

impl GateForward for Avx512 {
    #[inline(always)]
    fn gate<const LIVE: usize>(c: &[f32; 4], a: &Lanes, b: &Lanes, out: &mut Lanes) {
        // SAFETY: `Avx512` runs only inside `multiversioned!`'s AVX-512 wrapper, which
        // checked the CPU.
        unsafe { forward_lanes::<LIVE>(c, a, b, out) }
    }
}

/// [`vector::forward_lanes`] with AVX-512 enabled.
///
/// # Safety
/// The CPU has AVX-512F and FMA.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn forward_lanes<const LIVE: usize>(c: &[f32; 4], a: &Lanes, b: &Lanes, out: &mut Lanes) {
    // SAFETY: the caller's promise.
    unsafe { vector::forward_lanes::<__m512, LIVE>(c, a, b, out) }
}

/// [`vector::backward_lanes`] with AVX-512 enabled.
///
/// # Safety
/// The CPU has AVX-512F, AVX2 and FMA; `ga` and `gb` are valid for TILE floats (they may
/// be equal).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn lanes<const LIVE: usize, const STORE_A: bool, const STORE_B: bool>(
    c: &[f32; 4],
    a: &Lanes,
    b: &Lanes,
    g: &Lanes,
    ga: *mut f32,
    gb: *mut f32,
) -> Partials {
    // SAFETY: the caller's promise.
    unsafe { vector::backward_lanes::<__m512, LIVE, STORE_A, STORE_B>(c, a, b, g, ga, gb) }
}

/// The AVX2 kernel's tree over each coefficient's partials 0..8 and 8..16.
///
/// # Safety
/// The CPU has AVX-512F, AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn halves_tree_sum(acc: Partials) -> [f32; 4] {
    tree_sum(acc.map(|[p]| {
        let high = _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(p)));
        [_mm512_castps512_ps256(p), high]
    }))
}
