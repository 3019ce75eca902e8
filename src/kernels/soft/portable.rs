//! The lane kernels in plain Rust, which the compiler vectorizes for the level it is
//! built for: the baseline's, and the reference for the hand-written ones.

use super::lanes::{GateBackward, GateForward, InputRows, Lanes, PARTIALS};
use super::reference::sum_partials;
use crate::model::gates::{add_soft_gate_coef_grads, soft_gate, soft_gate_input_grads};

/// The lane loops in plain Rust, vectorized by the compiler for the level it is built for.
pub(super) struct Portable;

impl GateBackward for Portable {
    type Partials = [[f32; PARTIALS]; 4];
    const DEFER_SUM: bool = false;

    #[inline(always)]
    fn gate<const LIVE: usize>(
        c: &[f32; 4],
        a: &Lanes,
        b: &Lanes,
        g: &Lanes,
        rows: InputRows<'_>,
        store: (bool, bool),
    ) -> Self::Partials {
        match rows {
            InputRows::Shared(row) => match store.0 {
                true => portable_lanes::<LIVE>(c, a, b, g, &mut OneRow::<true>(row)),
                false => portable_lanes::<LIVE>(c, a, b, g, &mut OneRow::<false>(row)),
            },
            InputRows::Apart(ga, gb) => match store {
                (true, true) => {
                    portable_lanes::<LIVE>(c, a, b, g, &mut TwoRows::<true, true>(ga, gb))
                }
                (true, false) => {
                    portable_lanes::<LIVE>(c, a, b, g, &mut TwoRows::<true, false>(ga, gb))
                }
                (false, true) => {
                    portable_lanes::<LIVE>(c, a, b, g, &mut TwoRows::<false, true>(ga, gb))
                }
                (false, false) => {
                    portable_lanes::<LIVE>(c, a, b, g, &mut TwoRows::<false, false>(ga, gb))
                }
            },
        }
    }

    #[inline(always)]
    fn sum(partials: Self::Partials) -> [f32; 4] {
        partials.map(sum_partials)
    }
}

impl GateForward for Portable {
    #[inline(always)]
    fn gate<const LIVE: usize>(c: &[f32; 4], a: &Lanes, b: &Lanes, out: &mut Lanes) {
        for l in 0..LIVE {
            out[l] = soft_gate(c, a[l], b[l]);
        }
    }
}

/// [`Portable`]'s lanes: input gradients to `sink`, coefficient gradients as partial sums.
#[inline(always)]
fn portable_lanes<const LIVE: usize>(
    c: &[f32; 4],
    a: &Lanes,
    b: &Lanes,
    g: &Lanes,
    sink: &mut impl InputGrads,
) -> [[f32; PARTIALS]; 4] {
    let (mut p0, mut p1, mut p2, mut p3) = (
        [0.0f32; PARTIALS],
        [0.0; PARTIALS],
        [0.0; PARTIALS],
        [0.0; PARTIALS],
    );
    for chunk in 0..LIVE / PARTIALS {
        let lanes = chunk * PARTIALS..(chunk + 1) * PARTIALS;
        let (a, b, g) = (&a[lanes.clone()], &b[lanes.clone()], &g[lanes]);
        for j in 0..PARTIALS {
            let (da, db) = soft_gate_input_grads(c, a[j], b[j], g[j]);
            sink.put(chunk * PARTIALS + j, da, db);
            [p0[j], p1[j], p2[j], p3[j]] =
                add_soft_gate_coef_grads(a[j], b[j], g[j], [p0[j], p1[j], p2[j], p3[j]]);
        }
    }
    [p0, p1, p2, p3]
}

/// Where [`portable_lanes`] puts a lane's input gradients: stored or added.
trait InputGrads {
    fn put(&mut self, l: usize, da: f32, db: f32);
}

struct TwoRows<'r, const STORE_A: bool, const STORE_B: bool>(&'r mut Lanes, &'r mut Lanes);

impl<const STORE_A: bool, const STORE_B: bool> InputGrads for TwoRows<'_, STORE_A, STORE_B> {
    #[inline(always)]
    fn put(&mut self, l: usize, da: f32, db: f32) {
        self.0[l] = if STORE_A { da } else { self.0[l] + da };
        self.1[l] = if STORE_B { db } else { self.1[l] + db };
    }
}

struct OneRow<'r, const STORE: bool>(&'r mut Lanes);

impl<const STORE: bool> InputGrads for OneRow<'_, STORE> {
    #[inline(always)]
    fn put(&mut self, l: usize, da: f32, db: f32) {
        let first = if STORE { da } else { self.0[l] + da };
        self.0[l] = first + db;
    }
}
