//! The lane loops of the hand-written kernels, written once over a register of f32 lanes
//! ([`F32Vector`]): `__m256` for AVX2 (eight lanes), `__m512` for AVX-512 (sixteen). Each
//! width's module enables its features on a thin entry point into which these loops are
//! inlined, so each width compiles to its own instructions: the same machine code, at
//! both widths, as the two hand-written copies of the loops that these replace (so the
//! same instruction counts on AVX2, and the same code on AVX-512, where they cannot be
//! counted).
//!
//! The operations and their order are the scalar reference's, so the bits are the same:
//! the input gradients are `g*(c1 + c3*b)` and `g*(c2 + c3*a)`
//! (`soft_gate_input_grads`), the coefficient gradients add `[g, g*a, g*b, (g*a)*b]`
//! to the partials (`add_soft_gate_coef_grads`), lane `l` into partial `l % PARTIALS`.

use std::ops::IndexMut;

use super::lanes::{Lanes, PARTIALS, TILE};

/// A register of [`WIDTH`](Self::WIDTH) f32 lanes and the operations the soft kernels
/// run on it.
///
/// # Safety
/// Each method is an intrinsic of the register's instruction set: it may run only where
/// the CPU has that set.
pub(super) trait F32Vector: Copy {
    /// Lanes per register; divides [`PARTIALS`].
    const WIDTH: usize;
    /// One coefficient's [`PARTIALS`] partial sums, `PARTIALS / WIDTH` registers.
    type Partials: Copy + IndexMut<usize, Output = Self>;

    /// Every lane `x`.
    unsafe fn splat(x: f32) -> Self;
    /// Partial sums of zero.
    unsafe fn zero_partials() -> Self::Partials;
    /// `WIDTH` floats from `p`, which must be valid for them.
    unsafe fn load(p: *const f32) -> Self;
    /// To `WIDTH` floats at `p`, which must be valid for them.
    unsafe fn store(self, p: *mut f32);
    unsafe fn add(self, other: Self) -> Self;
    unsafe fn mul(self, other: Self) -> Self;
    /// `self * b + c`, rounded once.
    unsafe fn mul_add(self, b: Self, c: Self) -> Self;
}

/// One gate's forward on lanes `0..LIVE`, `WIDTH` lanes a step, the coefficients
/// broadcast from memory (the compiler's own loop used a shuffle, which takes a
/// multiply-add's port).
///
/// # Safety
/// The CPU has `V`'s instruction set.
#[inline(always)]
pub(super) unsafe fn forward_lanes<V: F32Vector, const LIVE: usize>(
    c: &[f32; 4],
    a: &Lanes,
    b: &Lanes,
    out: &mut Lanes,
) {
    const { assert!(LIVE <= TILE && LIVE.is_multiple_of(PARTIALS)) };
    // SAFETY: the caller's promise for the CPU; l + WIDTH <= LIVE <= TILE, the length of
    // every row here.
    unsafe {
        let [c0, c1, c2, c3] = c.map(|x| V::splat(x));
        for chunk in 0..LIVE / V::WIDTH {
            let l = chunk * V::WIDTH;
            let (av, bv) = (V::load(a.as_ptr().add(l)), V::load(b.as_ptr().add(l)));
            let v = av.mul_add(c3.mul_add(bv, c1), c2.mul_add(bv, c0));
            v.store(out.as_mut_ptr().add(l));
        }
    }
}

/// One gate's backward on lanes `0..LIVE`, `WIDTH` lanes a step; `STORE_*` store rather
/// than add. Returns each coefficient's partials: step `s` adds to register `s %
/// (PARTIALS / WIDTH)` of them, so lane `l` goes to partial `l % PARTIALS`.
///
/// One flat loop over the steps rather than a loop over groups of `PARTIALS` lanes
/// around one over their registers: nested, the AVX-512 backward compiled to another
/// schedule (the last step's `g*a` copied ahead of a branch into three of the store
/// variants, three more instructions in its code); flat, both widths compile to the
/// hand-written kernels' code exactly.
///
/// # Safety
/// The CPU has `V`'s instruction set; `ga` and `gb` are valid for TILE floats (they may
/// be equal).
#[inline(always)]
pub(super) unsafe fn backward_lanes<
    V: F32Vector,
    const LIVE: usize,
    const STORE_A: bool,
    const STORE_B: bool,
>(
    c: &[f32; 4],
    a: &Lanes,
    b: &Lanes,
    g: &Lanes,
    ga: *mut f32,
    gb: *mut f32,
) -> [V::Partials; 4] {
    const { assert!(LIVE <= TILE && LIVE.is_multiple_of(PARTIALS)) };
    // SAFETY: the caller's promise for the CPU and for `ga` and `gb`; l + WIDTH <= LIVE <=
    // TILE, the length of every row here. `gb` is read after `ga` is written, so a shared
    // row adds `db` to what `da` left.
    unsafe {
        let (c1, c2, c3) = (V::splat(c[1]), V::splat(c[2]), V::splat(c[3]));
        let mut acc = [V::zero_partials(); 4];
        for step in 0..LIVE / V::WIDTH {
            let (l, h) = (step * V::WIDTH, step % (PARTIALS / V::WIDTH));
            let (av, bv, gv) = (
                V::load(a.as_ptr().add(l)),
                V::load(b.as_ptr().add(l)),
                V::load(g.as_ptr().add(l)),
            );
            let da = gv.mul(c3.mul_add(bv, c1));
            let db = gv.mul(c3.mul_add(av, c2));
            store_or_add::<V, STORE_A>(ga.add(l), da);
            store_or_add::<V, STORE_B>(gb.add(l), db);
            let gav = gv.mul(av);
            acc[0][h] = acc[0][h].add(gv);
            acc[1][h] = acc[1][h].add(gav);
            acc[2][h] = gv.mul_add(bv, acc[2][h]);
            acc[3][h] = gav.mul_add(bv, acc[3][h]);
        }
        acc
    }
}

/// `*p = v` or `*p += v` on `WIDTH` lanes.
///
/// # Safety
/// The CPU has `V`'s instruction set; `p` is valid for `WIDTH` floats.
#[inline(always)]
unsafe fn store_or_add<V: F32Vector, const STORE: bool>(p: *mut f32, v: V) {
    // SAFETY: the caller's promise.
    unsafe {
        let out = if STORE { v } else { V::load(p).add(v) };
        out.store(p);
    }
}
