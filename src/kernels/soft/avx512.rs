//! The soft forward and backward in AVX-512 intrinsics: sixteen lanes per register. The
//! forward is the AVX2 kernel's at twice the width. In the backward, each coefficient's
//! sixteen partial sums are one register and a 64-lane gate is four steps.
//! The compiler's own 512-bit vectorization of the portable loop runs it at less than
//! half the speed of the AVX2 kernel. The operations and their order are the scalar
//! reference's, and the partials are summed by the AVX2 kernel's tree, so the bits are
//! the same.

use std::arch::x86_64::{
    __m512, _mm256_castpd_ps, _mm512_add_ps, _mm512_castps512_ps256, _mm512_castps_pd,
    _mm512_extractf64x4_pd, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_mul_ps, _mm512_set1_ps,
    _mm512_setzero_ps, _mm512_storeu_ps,
};

use super::avx2::tree_sum;
use super::lanes::{
    gate_backward_by_pointers, GateBackward, GateForward, InputRows, Lanes, PARTIALS, TILE,
};

/// The AVX-512 gate kernels of [`forward`](super::forward) and
/// [`backward`](super::backward).
pub struct Avx512;

/// f32 lanes per AVX-512 register: one register holds a coefficient's partials.
const WIDTH: usize = 16;
const _: () = assert!(WIDTH == PARTIALS);

gate_backward_by_pointers!(
    Avx512,
    lanes,
    [__m512; 4],
    halves_tree_sum,
    defer true,
    "AVX-512"
);

impl GateForward for Avx512 {
    #[inline(always)]
    fn gate(c: &[f32; 4], a: &Lanes, b: &Lanes, out: &mut Lanes) {
        // SAFETY: `Avx512` runs only inside `multiversioned!`'s AVX-512 wrapper, which
        // checked the CPU.
        unsafe { forward_lanes(c, a, b, out) }
    }
}

/// One gate's forward, sixteen lanes a step, the coefficients broadcast from memory.
///
/// # Safety
/// The CPU has AVX-512F and FMA.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn forward_lanes(c: &[f32; 4], a: &Lanes, b: &Lanes, out: &mut Lanes) {
    let [c0, c1, c2, c3] = c.map(|x| _mm512_set1_ps(x));
    for chunk in 0..TILE / WIDTH {
        let l = chunk * WIDTH;
        // SAFETY: l + WIDTH <= TILE, the length of every row here.
        unsafe {
            let (av, bv) = (
                _mm512_loadu_ps(a.as_ptr().add(l)),
                _mm512_loadu_ps(b.as_ptr().add(l)),
            );
            let v = _mm512_fmadd_ps(av, _mm512_fmadd_ps(c3, bv, c1), _mm512_fmadd_ps(c2, bv, c0));
            _mm512_storeu_ps(out.as_mut_ptr().add(l), v);
        }
    }
}

/// One gate over the tile, sixteen lanes a step; `STORE_*` store rather than add.
///
/// # Safety
/// The CPU has AVX-512F, AVX2 and FMA; `ga` and `gb` are valid for TILE floats (they may
/// be equal).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn lanes<const STORE_A: bool, const STORE_B: bool>(
    c: &[f32; 4],
    a: &Lanes,
    b: &Lanes,
    g: &Lanes,
    ga: *mut f32,
    gb: *mut f32,
) -> [__m512; 4] {
    let (c1, c2, c3) = (
        _mm512_set1_ps(c[1]),
        _mm512_set1_ps(c[2]),
        _mm512_set1_ps(c[3]),
    );
    let mut acc = [_mm512_setzero_ps(); 4];
    for chunk in 0..TILE / WIDTH {
        let l = chunk * WIDTH;
        // SAFETY: l + WIDTH <= TILE, the length of every row here.
        let (av, bv, gv) = unsafe {
            (
                _mm512_loadu_ps(a.as_ptr().add(l)),
                _mm512_loadu_ps(b.as_ptr().add(l)),
                _mm512_loadu_ps(g.as_ptr().add(l)),
            )
        };
        // soft_gate_input_grads: g*(c1 + c3*b), g*(c2 + c3*a).
        let da = _mm512_mul_ps(gv, _mm512_fmadd_ps(c3, bv, c1));
        let db = _mm512_mul_ps(gv, _mm512_fmadd_ps(c3, av, c2));
        // SAFETY: as above; `gb` is read after `ga` is written, so a shared row adds `db`
        // to what `da` left.
        unsafe {
            store_or_add::<STORE_A>(ga.add(l), da);
            store_or_add::<STORE_B>(gb.add(l), db);
        }
        // add_soft_gate_coef_grads: [s0 + g, s1 + g*a, g*b + s2, (g*a)*b + s3].
        let gav = _mm512_mul_ps(gv, av);
        acc[0] = _mm512_add_ps(acc[0], gv);
        acc[1] = _mm512_add_ps(acc[1], gav);
        acc[2] = _mm512_fmadd_ps(gv, bv, acc[2]);
        acc[3] = _mm512_fmadd_ps(gav, bv, acc[3]);
    }
    acc
}

/// The AVX2 kernel's tree over each coefficient's partials 0..8 and 8..16.
///
/// # Safety
/// The CPU has AVX-512F, AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn halves_tree_sum(acc: [__m512; 4]) -> [f32; 4] {
    tree_sum(acc.map(|p| {
        let high = _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(p)));
        [_mm512_castps512_ps256(p), high]
    }))
}

/// `*p = v` or `*p += v` on sixteen lanes.
///
/// # Safety
/// The CPU has AVX-512F; `p` is valid for sixteen floats.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn store_or_add<const STORE: bool>(p: *mut f32, v: __m512) {
    // SAFETY: the caller's promise.
    unsafe {
        let out = if STORE {
            v
        } else {
            _mm512_add_ps(_mm512_loadu_ps(p), v)
        };
        _mm512_storeu_ps(p, out);
    }
}
