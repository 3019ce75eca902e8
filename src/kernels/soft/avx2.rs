//! The soft forward and backward in AVX2 + FMA intrinsics: eight lanes per register,
//! the lane loops of [`vector`]. In the backward, the compiler's own
//! vectorization of the portable loop spills its partial sums and sums them through a
//! 4x16 transpose; here the sixteen partials of each coefficient live in two registers
//! and the tree of [`sum_partials`](super::reference::sum_partials) is five vector
//! additions for all four coefficients.

use std::arch::x86_64::{
    __m128, __m256, _mm256_add_ps, _mm256_castps256_ps128, _mm256_extractf128_ps, _mm256_fmadd_ps,
    _mm256_loadu_ps, _mm256_mul_ps, _mm256_set1_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    _mm_add_ps, _mm_movehl_ps, _mm_movelh_ps, _mm_storeu_ps, _mm_unpackhi_ps, _mm_unpacklo_ps,
};

use super::lanes::{
    gate_backward_by_pointers, GateBackward, GateForward, InputRows, Lanes, PARTIALS,
};
use super::vector::{self, F32Vector};

/// The AVX2 gate kernels of [`forward`](super::forward) and
/// [`backward`](super::backward).
pub struct Avx2;

gate_backward_by_pointers!(Avx2, lanes, Partials, tree_sum, defer false, "AVX2");

/// f32 lanes per register.
const WIDTH: usize = 8;

/// A coefficient's sixteen partials in two registers, for each of the four.
type Partials = [[__m256; PARTIALS / WIDTH]; 4];

impl F32Vector for __m256 {
    const WIDTH: usize = WIDTH;
    type Partials = [__m256; PARTIALS / WIDTH];

    #[inline(always)]
    unsafe fn splat(x: f32) -> Self {
        // SAFETY: the caller's promise: the CPU has AVX and FMA.
        unsafe { _mm256_set1_ps(x) }
    }
    #[inline(always)]
    unsafe fn zero_partials() -> Self::Partials {
        // SAFETY: the caller's promise: the CPU has AVX and FMA.
        unsafe { [_mm256_setzero_ps(); PARTIALS / WIDTH] }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        // SAFETY: the caller's promise: the CPU has AVX and FMA.
        unsafe { _mm256_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        // SAFETY: the caller's promise: the CPU has AVX and FMA.
        unsafe { _mm256_storeu_ps(p, self) }
    }
    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: the caller's promise: the CPU has AVX and FMA.
        unsafe { _mm256_add_ps(self, other) }
    }
    #[inline(always)]
    unsafe fn mul(self, other: Self) -> Self {
        // SAFETY: the caller's promise: the CPU has AVX and FMA.
        unsafe { _mm256_mul_ps(self, other) }
    }
    #[inline(always)]
    unsafe fn mul_add(self, b: Self, c: Self) -> Self {
        // SAFETY: the caller's promise: the CPU has AVX and FMA.
        unsafe { _mm256_fmadd_ps(self, b, c) }
    }
}

impl GateForward for Avx2 {
    #[inline(always)]
    fn gate<const LIVE: usize>(c: &[f32; 4], a: &Lanes, b: &Lanes, out: &mut Lanes) {
        // SAFETY: `Avx2` runs only inside `multiversioned!`'s AVX2 wrapper, which checked
        // the CPU.
        unsafe { forward_lanes::<LIVE>(c, a, b, out) }
    }
}

/// [`vector::forward_lanes`] with AVX2 and FMA enabled.
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn forward_lanes<const LIVE: usize>(c: &[f32; 4], a: &Lanes, b: &Lanes, out: &mut Lanes) {
    // SAFETY: the caller's promise.
    unsafe { vector::forward_lanes::<__m256, LIVE>(c, a, b, out) }
}

/// [`vector::backward_lanes`] with AVX2 and FMA enabled.
///
/// # Safety
/// The CPU has AVX2 and FMA; `ga` and `gb` are valid for TILE floats (they may be equal).
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn lanes<const LIVE: usize, const STORE_A: bool, const STORE_B: bool>(
    c: &[f32; 4],
    a: &Lanes,
    b: &Lanes,
    g: &Lanes,
    ga: *mut f32,
    gb: *mut f32,
) -> Partials {
    // SAFETY: the caller's promise.
    unsafe { vector::backward_lanes::<__m256, LIVE, STORE_A, STORE_B>(c, a, b, g, ga, gb) }
}

/// The halving tree over each coefficient's 16 partials, for all four at once:
/// `p[j] + p[j+8]`, then `+4`, `+2`, `+1`, as in `sum_partials`.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(super) fn tree_sum(acc: Partials) -> [f32; 4] {
    let s4: [__m128; 4] = acc.map(|[lo, hi]| {
        let s8 = _mm256_add_ps(lo, hi);
        _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps::<1>(s8))
    });
    // s2 of coefficients (0, 1) interleaved: [x0+x2, y0+y2, x1+x3, y1+y3].
    let s2_01 = _mm_add_ps(_mm_unpacklo_ps(s4[0], s4[1]), _mm_unpackhi_ps(s4[0], s4[1]));
    let s2_23 = _mm_add_ps(_mm_unpacklo_ps(s4[2], s4[3]), _mm_unpackhi_ps(s4[2], s4[3]));
    // [s2[0] of each coefficient] + [s2[1] of each coefficient].
    let s1 = _mm_add_ps(_mm_movelh_ps(s2_01, s2_23), _mm_movehl_ps(s2_23, s2_01));
    let mut out = [0.0f32; 4];
    // SAFETY: `out` holds four floats.
    unsafe { _mm_storeu_ps(out.as_mut_ptr(), s1) };
    out
}
