//! Hard (evaluation) circuit on bit-sliced lanes: 64 lanes per `u64` word.

use crate::kernels::simd::multiversioned;
use crate::model::circuit::GateRef;
use crate::model::gates::OPS;

/// Words per row of a hard tile (512 lanes).
pub const WORDS: usize = 8;
/// Lanes per hard tile.
pub const HARD_TILE: usize = WORDS * 64;

type Words = [u64; WORDS];

/// A gate's op as the four masks of its algebraic normal form ([`crate::model::gates::Op::normal_form`],
/// each all ones or all zeros), so that evaluation is branch-free and takes seven bitwise
/// operations (a multiplexer of the truth table takes nine).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TruthMasks([u64; 4]);

impl TruthMasks {
    pub fn of_op(op: usize) -> Self {
        TruthMasks(
            OPS[op]
                .normal_form()
                .map(|bit| if bit { u64::MAX } else { 0 }),
        )
    }

    #[inline(always)]
    fn eval(&self, a: u64, b: u64) -> u64 {
        let [c0, c1, c2, c3] = self.0;
        c0 ^ (a & c1) ^ (b & c2) ^ (a & b & c3)
    }
}

fn row(table: &[u64], r: usize) -> &Words {
    table[r * WORDS..(r + 1) * WORDS]
        .try_into()
        .expect("row inside the table")
}

multiversioned! {
    /// Evaluates every gate; rows `0..input_rows` of `bits` must hold the patch. A row of
    /// 512 lanes is one AVX-512 register, and a gate three ternary-logic instructions.
    pub fn forward / forward_at(
        gates: &[GateRef],
        truth: &[TruthMasks],
        input_rows: usize,
        bits: &mut [u64],
    ) => forward_body
}

#[inline(always)]
fn forward_body(gates: &[GateRef], truth: &[TruthMasks], input_rows: usize, bits: &mut [u64]) {
    for (i, gate) in gates.iter().enumerate() {
        let (inputs, rest) = bits.split_at_mut((input_rows + i) * WORDS);
        let (a, b) = (row(inputs, gate.a as usize), row(inputs, gate.b as usize));
        let t = &truth[gate.param as usize];
        for (w, out) in rest[..WORDS].iter_mut().enumerate() {
            *out = t.eval(a[w], b[w]);
        }
    }
}

/// Reference of [`forward`]: one lane at a time through the op table.
pub fn forward_reference(gates: &[GateRef], ops: &[usize], input_rows: usize, bits: &mut [u64]) {
    for (i, gate) in gates.iter().enumerate() {
        let op = &OPS[ops[gate.param as usize]];
        for lane in 0..HARD_TILE {
            let (w, s) = (lane / 64, lane % 64);
            let a = (bits[gate.a as usize * WORDS + w] >> s) & 1 == 1;
            let b = (bits[gate.b as usize * WORDS + w] >> s) & 1 == 1;
            let out = op.truth[(a as usize) * 2 + b as usize];
            let word = &mut bits[(input_rows + i) * WORDS + w];
            *word = (*word & !(1 << s)) | ((out as u64) << s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::simd::SimdLevel;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn bitsliced_forward_equals_lane_by_lane_reference_at_every_level() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let input_rows = 4;
        let gates: Vec<GateRef> = (0..30u32)
            .map(|i| GateRef {
                a: rng.random_range(0..input_rows as u32 + i),
                b: rng.random_range(0..input_rows as u32 + i),
                param: i % 16,
            })
            .collect();
        let ops: Vec<usize> = (0..16).collect();
        let truth: Vec<TruthMasks> = ops.iter().map(|&o| TruthMasks::of_op(o)).collect();
        let mut bits = vec![0u64; (input_rows + gates.len()) * WORDS];
        for w in &mut bits[..input_rows * WORDS] {
            *w = rng.random();
        }
        let mut slow = bits.clone();
        forward_reference(&gates, &ops, input_rows, &mut slow);
        for level in SimdLevel::available() {
            let mut fast = bits.clone();
            forward_at(level, &gates, &truth, input_rows, &mut fast);
            assert_eq!(fast, slow, "{level}");
        }
    }
}
