//! The soft forward and backward in AVX2 + FMA intrinsics. The forward broadcasts each
//! coefficient from memory (the compiler's loop used a shuffle, which takes a
//! multiply-add's port). In the backward, the compiler's own vectorization of the
//! portable loop spills its partial sums and sums them through a 4x16 transpose; here
//! the sixteen partials of each coefficient live in two registers and the tree of
//! [`sum_partials`](super::reference::sum_partials) is five vector additions for all
//! four coefficients. The operations and their order are the scalar reference's, so the bits are the same.

use std::arch::x86_64::{
    __m128, __m256, _mm256_add_ps, _mm256_castps256_ps128, _mm256_extractf128_ps, _mm256_fmadd_ps,
    _mm256_loadu_ps, _mm256_mul_ps, _mm256_set1_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    _mm_add_ps, _mm_movehl_ps, _mm_movelh_ps, _mm_storeu_ps, _mm_unpackhi_ps, _mm_unpacklo_ps,
};

use super::lanes::{
    gate_backward_by_pointers, GateBackward, GateForward, InputRows, Lanes, PARTIALS, TILE,
};

/// The AVX2 gate kernels of [`forward`](super::forward) and
/// [`backward`](super::backward).
pub struct Avx2;

/// f32 lanes per AVX2 register.
const WIDTH: usize = 8;

gate_backward_by_pointers!(Avx2, lanes, Partials, tree_sum, defer false, "AVX2");

/// A coefficient's sixteen partials in two registers, for each of the four.
type Partials = [[__m256; PARTIALS / WIDTH]; 4];

impl GateForward for Avx2 {
    #[inline(always)]
    fn gate(c: &[f32; 4], a: &Lanes, b: &Lanes, out: &mut Lanes) {
        // SAFETY: `Avx2` runs only inside `multiversioned!`'s AVX2 wrapper, which checked
        // the CPU.
        unsafe { forward_lanes(c, a, b, out) }
    }
}

/// One gate's forward, eight lanes a step, the coefficients broadcast from memory.
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn forward_lanes(c: &[f32; 4], a: &Lanes, b: &Lanes, out: &mut Lanes) {
    let [c0, c1, c2, c3] = c.map(|x| _mm256_set1_ps(x));
    for chunk in 0..TILE / WIDTH {
        let l = chunk * WIDTH;
        // SAFETY: l + WIDTH <= TILE, the length of every row here.
        unsafe {
            let (av, bv) = (
                _mm256_loadu_ps(a.as_ptr().add(l)),
                _mm256_loadu_ps(b.as_ptr().add(l)),
            );
            let v = _mm256_fmadd_ps(av, _mm256_fmadd_ps(c3, bv, c1), _mm256_fmadd_ps(c2, bv, c0));
            _mm256_storeu_ps(out.as_mut_ptr().add(l), v);
        }
    }
}

/// One gate over the tile, eight lanes a step; `STORE_*` store rather than add.
///
/// # Safety
/// The CPU has AVX2 and FMA; `ga` and `gb` are valid for TILE floats (they may be equal).
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn lanes<const STORE_A: bool, const STORE_B: bool>(
    c: &[f32; 4],
    a: &Lanes,
    b: &Lanes,
    g: &Lanes,
    ga: *mut f32,
    gb: *mut f32,
) -> Partials {
    let (c1, c2, c3) = (
        _mm256_set1_ps(c[1]),
        _mm256_set1_ps(c[2]),
        _mm256_set1_ps(c[3]),
    );
    // acc[k][h]: coefficient k's partials h*8..h*8 + 8.
    let mut acc = [[_mm256_setzero_ps(); PARTIALS / WIDTH]; 4];
    for chunk in 0..TILE / PARTIALS {
        for h in 0..PARTIALS / WIDTH {
            let l = chunk * PARTIALS + h * WIDTH;
            // SAFETY: l + WIDTH <= TILE, the length of every row here.
            let (av, bv, gv) = unsafe {
                (
                    _mm256_loadu_ps(a.as_ptr().add(l)),
                    _mm256_loadu_ps(b.as_ptr().add(l)),
                    _mm256_loadu_ps(g.as_ptr().add(l)),
                )
            };
            // soft_gate_input_grads: g*(c1 + c3*b), g*(c2 + c3*a).
            let da = _mm256_mul_ps(gv, _mm256_fmadd_ps(c3, bv, c1));
            let db = _mm256_mul_ps(gv, _mm256_fmadd_ps(c3, av, c2));
            // SAFETY: as above, for the caller's rows `ga` and `gb`; `gb` is read after
            // `ga` is written, so a shared row adds `db` to what `da` left.
            unsafe {
                store_or_add::<STORE_A>(ga.add(l), da);
                store_or_add::<STORE_B>(gb.add(l), db);
            }
            // add_soft_gate_coef_grads: [s0 + g, s1 + g*a, g*b + s2, (g*a)*b + s3].
            let gav = _mm256_mul_ps(gv, av);
            acc[0][h] = _mm256_add_ps(acc[0][h], gv);
            acc[1][h] = _mm256_add_ps(acc[1][h], gav);
            acc[2][h] = _mm256_fmadd_ps(gv, bv, acc[2][h]);
            acc[3][h] = _mm256_fmadd_ps(gav, bv, acc[3][h]);
        }
    }
    acc
}

/// `*p = v` or `*p += v` on eight lanes.
///
/// # Safety
/// The CPU has AVX; `p` is valid for eight floats.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn store_or_add<const STORE: bool>(p: *mut f32, v: __m256) {
    // SAFETY: the caller's promise.
    unsafe {
        let out = if STORE {
            v
        } else {
            _mm256_add_ps(_mm256_loadu_ps(p), v)
        };
        _mm256_storeu_ps(p, out);
    }
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
