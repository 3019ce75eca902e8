//! Soft (training) evaluation of a circuit on one tile of lanes, forward and backward.
//!
//! Activations are `rows x TILE` floats: a row holds one gate's value in every lane, so a
//! gate is a straight loop over `TILE` lanes, and the compiler turns it into SIMD. The
//! instruction set is chosen at run time (AVX-512, AVX2 or the portable baseline); no
//! mode fuses multiply-adds, so every mode gives bit-identical results.

use multiversion::multiversion;

use crate::model::circuit::GateRef;
use crate::model::gates::{soft_gate, soft_gate_coef_grads, soft_gate_input_grads};

/// Lanes per tile. Tiles are the unit of parallel work and of gradient reduction, so the
/// number is fixed: results must not depend on the thread count.
///
/// 64 lanes keep a reference checkerboard tile (4680 rows) at 1.2 MB of activations.
pub const TILE: usize = 64;
/// Partial sums per coefficient gradient (one SIMD register of f32 on AVX-512).
const PARTIALS: usize = 16;

type Lanes = [f32; TILE];

fn row(table: &[f32], r: usize) -> &Lanes {
    table[r * TILE..(r + 1) * TILE]
        .try_into()
        .expect("row inside the table")
}

fn row_mut(table: &mut [f32], r: usize) -> &mut Lanes {
    (&mut table[r * TILE..(r + 1) * TILE])
        .try_into()
        .expect("row inside the table")
}

/// Evaluates every gate; rows `0..input_rows` of `acts` must hold the patch.
// The targets are those of `simd::SimdLevel::detect`, widest first.
#[multiversion(targets("x86_64+avx512f+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
pub fn forward(gates: &[GateRef], coefs: &[[f32; 4]], input_rows: usize, acts: &mut [f32]) {
    for (i, gate) in gates.iter().enumerate() {
        let (inputs, rest) = acts.split_at_mut((input_rows + i) * TILE);
        let (a, b) = (row(inputs, gate.a as usize), row(inputs, gate.b as usize));
        let out = row_mut(rest, 0);
        let c = &coefs[gate.param as usize];
        for l in 0..TILE {
            out[l] = soft_gate(c, a[l], b[l]);
        }
    }
}

/// Backpropagates through every gate in reverse order.
///
/// `grads` has the shape of `acts`; on entry it holds the gradient of the output rows
/// and zeros elsewhere; on exit rows `0..input_rows` hold the patch gradient. Coefficient
/// gradients are added to `coef_grads` (lanes summed in a fixed order).
// The targets are those of `simd::SimdLevel::detect`, widest first.
#[multiversion(targets("x86_64+avx512f+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
pub fn backward(
    gates: &[GateRef],
    coefs: &[[f32; 4]],
    input_rows: usize,
    acts: &[f32],
    grads: &mut [f32],
    coef_grads: &mut [[f64; 4]],
) {
    for (i, gate) in gates.iter().enumerate().rev() {
        let (in_grads, rest) = grads.split_at_mut((input_rows + i) * TILE);
        let g = row(rest, 0);
        let (a, b) = (row(acts, gate.a as usize), row(acts, gate.b as usize));
        let c = &coefs[gate.param as usize];
        let mut da = [0.0f32; TILE];
        let mut db = [0.0f32; TILE];
        let mut partial = [[0.0f32; PARTIALS]; 4];
        for chunk in 0..TILE / PARTIALS {
            for j in 0..PARTIALS {
                let l = chunk * PARTIALS + j;
                (da[l], db[l]) = soft_gate_input_grads(c, a[l], b[l], g[l]);
                let dc = soft_gate_coef_grads(a[l], b[l], g[l]);
                for k in 0..4 {
                    partial[k][j] += dc[k];
                }
            }
        }
        // Two passes, so a gate wired twice to one row adds both contributions.
        let ga = row_mut(in_grads, gate.a as usize);
        for l in 0..TILE {
            ga[l] += da[l];
        }
        let gb = row_mut(in_grads, gate.b as usize);
        for l in 0..TILE {
            gb[l] += db[l];
        }
        let target = &mut coef_grads[gate.param as usize];
        for k in 0..4 {
            target[k] += partial[k].iter().sum::<f32>() as f64;
        }
    }
}

/// Scalar reference of [`forward`]: one lane at a time, no tiling tricks.
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

/// Scalar reference of [`backward`], summing coefficient gradients in f64 lane by lane.
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
        for l in 0..TILE {
            let g = grads[(input_rows + i) * TILE + l];
            let a = acts[gate.a as usize * TILE + l];
            let b = acts[gate.b as usize * TILE + l];
            let (da, db) = soft_gate_input_grads(c, a, b, g);
            grads[gate.a as usize * TILE + l] += da;
            grads[gate.b as usize * TILE + l] += db;
            let dc = soft_gate_coef_grads(a, b, g);
            for k in 0..4 {
                coef_grads[gate.param as usize][k] += dc[k] as f64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A random little circuit with a gate wired twice to one row and a shared parameter.
    fn random_case(seed: u64) -> (Vec<GateRef>, Vec<[f32; 4]>, usize, Vec<f32>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let input_rows = 5;
        let mut gates = Vec::new();
        for i in 0..40u32 {
            let rows = input_rows as u32 + i;
            gates.push(GateRef {
                a: rng.random_range(0..rows),
                b: rng.random_range(0..rows),
                param: rng.random_range(0..12),
            });
        }
        gates[7].b = gates[7].a;
        let coefs = (0..12)
            .map(|_| std::array::from_fn(|_| rng.random_range(-1.0..1.0)))
            .collect();
        let mut acts = vec![0.0; (input_rows + gates.len()) * TILE];
        for v in &mut acts[..input_rows * TILE] {
            *v = rng.random();
        }
        (gates, coefs, input_rows, acts)
    }

    #[test]
    fn fast_forward_equals_reference_bit_for_bit() {
        let (gates, coefs, input_rows, acts) = random_case(1);
        let (mut fast, mut slow) = (acts.clone(), acts);
        forward(&gates, &coefs, input_rows, &mut fast);
        forward_reference(&gates, &coefs, input_rows, &mut slow);
        assert_eq!(fast, slow);
    }

    #[test]
    fn fast_backward_matches_reference() {
        let (gates, coefs, input_rows, mut acts) = random_case(2);
        forward(&gates, &coefs, input_rows, &mut acts);
        let mut seed = vec![0.0; acts.len()];
        let last = input_rows + gates.len() - 1;
        for l in 0..TILE {
            seed[last * TILE + l] = (l as f32 * 0.1).sin();
        }
        let (mut g_fast, mut g_slow) = (seed.clone(), seed);
        let (mut c_fast, mut c_slow) = (vec![[0.0; 4]; 12], vec![[0.0; 4]; 12]);
        backward(&gates, &coefs, input_rows, &acts, &mut g_fast, &mut c_fast);
        backward_reference(&gates, &coefs, input_rows, &acts, &mut g_slow, &mut c_slow);
        assert_eq!(
            g_fast, g_slow,
            "input gradients are summed in the same order"
        );
        for (f, s) in c_fast.iter().flatten().zip(c_slow.iter().flatten()) {
            assert!((f - s).abs() <= 1e-4 * (1.0 + s.abs()), "{f} vs {s}");
        }
    }
}
