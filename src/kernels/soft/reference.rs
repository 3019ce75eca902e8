//! Scalar references of the soft kernels: one lane at a time, in the plainest order, the
//! semantics every level must reproduce bit for bit (the tests compare them).

use super::lanes::{PARTIALS, TILE};
use crate::model::circuit::GateRef;
use crate::model::gates::{add_soft_gate_coef_grads, soft_gate, soft_gate_input_grads};

/// The sum of the partials as a tree: halves added pairwise (`p[j] + p[j + n/2]`) until
/// one is left, which a vector unit does in a few instructions.
#[inline(always)]
pub fn sum_partials(mut p: [f32; PARTIALS]) -> f32 {
    let mut n = PARTIALS;
    while n > 1 {
        n /= 2;
        for j in 0..n {
            p[j] += p[j + n];
        }
    }
    p[0]
}

/// Scalar reference of [`forward`](super::forward): one lane at a time, no tiling tricks.
pub fn forward_reference(
    gates: &[GateRef],
    coefs: &[[f32; 4]],
    input_rows: usize,
    acts: &mut [f32],
) {
    for (i, gate) in gates.iter().enumerate() {
        for l in 0..TILE {
            let a = acts[gate.a as usize * TILE + l];
            let b = acts[gate.b as usize * TILE + l];
            acts[(input_rows + i) * TILE + l] = soft_gate(&coefs[gate.param as usize], a, b);
        }
    }
}

/// Scalar reference of [`backward`](super::backward): every gate, one lane at a time, on
/// a gradient table that holds zeros outside the output rows; lane `l`'s coefficient
/// gradient goes to partial `l % PARTIALS`, as in the kernel.
pub fn backward_reference(
    gates: &[GateRef],
    coefs: &[[f32; 4]],
    input_rows: usize,
    acts: &[f32],
    grads: &mut [f32],
    coef_grads: &mut [[f64; 4]],
) {
    for (i, gate) in gates.iter().enumerate().rev() {
        let c = &coefs[gate.param as usize];
        let mut partials = [[0.0f32; 4]; PARTIALS];
        for l in 0..TILE {
            let g = grads[(input_rows + i) * TILE + l];
            let a = acts[gate.a as usize * TILE + l];
            let b = acts[gate.b as usize * TILE + l];
            let (da, db) = soft_gate_input_grads(c, a, b, g);
            grads[gate.a as usize * TILE + l] += da;
            grads[gate.b as usize * TILE + l] += db;
            partials[l % PARTIALS] = add_soft_gate_coef_grads(a, b, g, partials[l % PARTIALS]);
        }
        for k in 0..4 {
            coef_grads[gate.param as usize][k] +=
                f64::from(sum_partials(std::array::from_fn(|j| partials[j][k])));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partials_are_summed_as_a_halving_tree() {
        // Values whose sum depends on the order in f32: 1e8 swallows 1 unless paired first.
        let mut p = [0.0f32; PARTIALS];
        p[0] = 1e8;
        p[8] = -1e8;
        p[1] = 1.0;
        p[9] = 1.0;
        // Tree: (p0 + p8) + ... = 0 + 2 = 2; in lane order 1e8 + 1 + 1 - 1e8 would be 0.
        assert_eq!(sum_partials(p), 2.0);
    }
}
