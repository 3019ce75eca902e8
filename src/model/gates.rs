//! The 16 two-input Boolean functions: the one source of truth for gate semantics.
//!
//! Everything else (soft coefficients, hard bitwise evaluation, the softmax Jacobian
//! that maps coefficient gradients back to logits) derives from [`OPS`].

/// Number of two-input Boolean functions, and of logits per gate.
pub const NUM_OPS: usize = 16;

/// Index of the pass-through `A` op; initial logits favour it.
pub const PASS_A: usize = 3;
/// Index of the pass-through `B` op.
pub const PASS_B: usize = 5;
/// Index of the `XOR` op.
pub const XOR: usize = 6;
/// The logit a fresh gate gives the pass-through op (the rest are 0).
pub const PASS_THROUGH_INIT: f32 = 10.0;

/// One Boolean function of two bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    pub name: &'static str,
    /// Outputs for the inputs (a, b) = (0,0), (0,1), (1,0), (1,1).
    pub truth: [bool; 4],
}

const fn op(name: &'static str, f00: u8, f01: u8, f10: u8, f11: u8) -> Op {
    Op {
        name,
        truth: [f00 == 1, f01 == 1, f10 == 1, f11 == 1],
    }
}

/// The ops in the order fixed by the model file format (`docs/semantics.md`).
pub const OPS: [Op; NUM_OPS] = [
    op("FALSE", 0, 0, 0, 0),
    op("AND", 0, 0, 0, 1),
    op("A_AND_NOT_B", 0, 0, 1, 0),
    op("A", 0, 0, 1, 1),
    op("NOT_A_AND_B", 0, 1, 0, 0),
    op("B", 0, 1, 0, 1),
    op("XOR", 0, 1, 1, 0),
    op("OR", 0, 1, 1, 1),
    op("NOR", 1, 0, 0, 0),
    op("XNOR", 1, 0, 0, 1),
    op("NOT_B", 1, 0, 1, 0),
    op("A_OR_NOT_B", 1, 0, 1, 1),
    op("NOT_A", 1, 1, 0, 0),
    op("NOT_A_OR_B", 1, 1, 0, 1),
    op("NAND", 1, 1, 1, 0),
    op("TRUE", 1, 1, 1, 1),
];

impl Op {
    /// Multilinear coefficients `[k0, k1, k2, k3]` with
    /// `op(a, b) = k0 + k1*a + k2*b + k3*a*b`, exact at the four corners.
    pub fn coefficients(&self) -> [f32; 4] {
        let [f00, f01, f10, f11] = self.truth.map(|bit| if bit { 1.0f32 } else { 0.0 });
        [f00, f10 - f00, f01 - f00, f11 - f10 - f01 + f00]
    }

    /// The op's algebraic normal form `[c0, c1, c2, c3]` with
    /// `op(a, b) = c0 ^ (c1 & a) ^ (c2 & b) ^ (c3 & a & b)`: the coefficients above in
    /// arithmetic modulo 2.
    pub fn normal_form(&self) -> [bool; 4] {
        let [f00, f01, f10, f11] = self.truth;
        [f00, f00 ^ f10, f00 ^ f01, f00 ^ f01 ^ f10 ^ f11]
    }

    /// The truth table as 4 bits, the output for (a, b) at bit `2a + b`.
    pub fn truth_bits(&self) -> u8 {
        let outputs = self.truth.iter().enumerate();
        outputs.fold(0, |bits, (pair, &on)| bits | u8::from(on) << pair)
    }

    /// The op applied bitwise to 64 lanes at once.
    #[inline]
    pub fn eval_bits(&self, a: u64, b: u64) -> u64 {
        let [c0, c1, c2, c3] = self.normal_form().map(|bit| if bit { u64::MAX } else { 0 });
        c0 ^ (a & c1) ^ (b & c2) ^ (a & b & c3)
    }

    /// Whether the output depends on input `a` (some `b` makes flipping `a` matter).
    pub fn depends_on_a(&self) -> bool {
        let [f00, f01, f10, f11] = self.truth;
        f00 != f10 || f01 != f11
    }

    /// Whether the output depends on input `b`.
    pub fn depends_on_b(&self) -> bool {
        let [f00, f01, f10, f11] = self.truth;
        f00 != f01 || f10 != f11
    }

    /// True for the ops that merely forward one input (the paper does not count them).
    pub fn is_pass_through(index: usize) -> bool {
        index == PASS_A || index == PASS_B
    }
}

/// A soft gate's value `c0 + c1*a + c2*b + c3*a*b`, evaluated as
/// `(c0 + c2*b) + a*(c1 + c3*b)` with three fused multiply-adds. Every kernel calls this.
#[inline(always)]
pub fn soft_gate(c: &[f32; 4], a: f32, b: f32) -> f32 {
    a.mul_add(c[3].mul_add(b, c[1]), c[2].mul_add(b, c[0]))
}

/// Gradients of a soft gate's output `g`-weighted on its inputs `(da, db)`:
/// `g*(c1 + c3*b)` and `g*(c2 + c3*a)`.
#[inline(always)]
pub fn soft_gate_input_grads(c: &[f32; 4], a: f32, b: f32, g: f32) -> (f32, f32) {
    (g * c[3].mul_add(b, c[1]), g * c[3].mul_add(a, c[2]))
}

/// Adds a soft gate's output-`g`-weighted gradient on its coefficients,
/// `g * [1, a, b, a*b]`, to the running sums `sums` (`g*a` is computed once).
#[inline(always)]
pub fn add_soft_gate_coef_grads(a: f32, b: f32, g: f32, sums: [f32; 4]) -> [f32; 4] {
    let ga = g * a;
    [
        sums[0] + g,
        sums[1] + ga,
        g.mul_add(b, sums[2]),
        ga.mul_add(b, sums[3]),
    ]
}

/// The table `K[i] = OPS[i].coefficients()`, computed once (in f64: its entries are the
/// integers -2..=2, and the sums over it are taken in f64).
pub fn coefficient_table() -> [[f64; 4]; NUM_OPS] {
    std::array::from_fn(|i| OPS[i].coefficients().map(f64::from))
}

/// Numerically stable softmax over the 16 logits, in f64.
///
/// The probabilities and the coefficients below are computed in f64 and rounded to f32
/// once: summed in f32, their rounding errors bias every soft gate slightly the same
/// way, and the bias adds up through hundreds of gate layers.
pub fn softmax(logits: &[f32; NUM_OPS]) -> [f64; NUM_OPS] {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps = logits.map(|l| (f64::from(l) - f64::from(max)).exp());
    let sum: f64 = exps.iter().sum();
    exps.map(|e| e / sum)
}

/// The soft gate's coefficients `c = sum_i p_i K[i]` for probabilities `p`, rounded to
/// f32 once.
pub fn soft_coefficients(probs: &[f64; NUM_OPS], table: &[[f64; 4]; NUM_OPS]) -> [f32; 4] {
    let mut c = [0.0f64; 4];
    for (p, k) in probs.iter().zip(table) {
        for j in 0..4 {
            c[j] += p * k[j];
        }
    }
    c.map(|v| v as f32)
}

/// Maps a gradient on the four coefficients back to the 16 logits through
/// `c = K^T softmax(logits)`: `dl_i = p_i (dp_i - sum_k p_k dp_k)` with `dp = K dc`.
/// Computed in f64, rounded to f32 once.
pub fn logit_gradient(
    probs: &[f64; NUM_OPS],
    coef_grad: &[f64; 4],
    table: &[[f64; 4]; NUM_OPS],
) -> [f32; NUM_OPS] {
    let dp: [f64; NUM_OPS] =
        std::array::from_fn(|i| (0..4).map(|j| table[i][j] * coef_grad[j]).sum::<f64>());
    let mean: f64 = probs.iter().zip(&dp).map(|(p, d)| p * d).sum();
    std::array::from_fn(|i| (probs[i] * (dp[i] - mean)) as f32)
}

/// The hard op of a gate: `argmax(logits)`, the first index on ties.
pub fn hard_op(logits: &[f32; NUM_OPS]) -> usize {
    let mut best = 0;
    for (i, &l) in logits.iter().enumerate() {
        if l > logits[best] {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::parametrization::Parametrization;

    /// The soft formulas exactly as `docs/semantics.md` writes them, typed in independently.
    fn reference_soft(i: usize, a: f32, b: f32) -> f32 {
        match i {
            0 => 0.0,
            1 => a * b,
            2 => a - a * b,
            3 => a,
            4 => b - a * b,
            5 => b,
            6 => a + b - 2.0 * a * b,
            7 => a + b - a * b,
            8 => 1.0 - (a + b - a * b),
            9 => 1.0 - (a + b - 2.0 * a * b),
            10 => 1.0 - b,
            11 => 1.0 - b + a * b,
            12 => 1.0 - a,
            13 => 1.0 - a + a * b,
            14 => 1.0 - a * b,
            15 => 1.0,
            _ => unreachable!(),
        }
    }

    fn bit_word(bit: bool) -> u64 {
        if bit {
            u64::MAX
        } else {
            0
        }
    }

    #[test]
    fn table_matches_bitwise_truth_tables() {
        // Rust's own bit operators are the independent oracle.
        let oracle: [fn(bool, bool) -> bool; NUM_OPS] = [
            |_, _| false,
            |a, b| a & b,
            |a, b| a & !b,
            |a, _| a,
            |a, b| !a & b,
            |_, b| b,
            |a, b| a ^ b,
            |a, b| a | b,
            |a, b| !(a | b),
            |a, b| !(a ^ b),
            |_, b| !b,
            |a, b| a | !b,
            |a, _| !a,
            |a, b| !a | b,
            |a, b| !(a & b),
            |_, _| true,
        ];
        for (i, op) in OPS.iter().enumerate() {
            for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
                let want = oracle[i](a, b);
                let [k0, k1, k2, k3] = op.coefficients();
                let (x, y) = (a as u8 as f32, b as u8 as f32);
                assert_eq!(
                    k0 + k1 * x + k2 * y + k3 * x * y,
                    want as u8 as f32,
                    "{}",
                    op.name
                );
                assert_eq!(
                    op.eval_bits(bit_word(a), bit_word(b)),
                    bit_word(want),
                    "{}",
                    op.name
                );
                let pair = 2 * usize::from(a) + usize::from(b);
                assert_eq!(op.truth_bits() >> pair & 1 == 1, want, "{}", op.name);
            }
        }
    }

    #[test]
    fn coefficients_match_reference_soft_values_inside_the_square() {
        for (i, op) in OPS.iter().enumerate() {
            let [k0, k1, k2, k3] = op.coefficients();
            for (a, b) in [(0.25, 0.5), (0.9, 0.1), (0.3, 0.7)] {
                let got = k0 + k1 * a + k2 * b + k3 * a * b;
                assert!((got - reference_soft(i, a, b)).abs() < 1e-6, "{}", op.name);
            }
        }
    }

    #[test]
    fn dependencies_by_hand() {
        let deps = |i: usize| (OPS[i].depends_on_a(), OPS[i].depends_on_b());
        assert_eq!(deps(0), (false, false)); // FALSE
        assert_eq!(deps(15), (false, false)); // TRUE
        assert_eq!(deps(3), (true, false)); // A
        assert_eq!(deps(12), (true, false)); // NOT A
        assert_eq!(deps(10), (false, true)); // NOT B
        assert_eq!(deps(6), (true, true)); // XOR
    }

    #[test]
    fn bitwise_eval_works_lane_by_lane() {
        let a = 0b1100u64;
        let b = 0b1010u64;
        assert_eq!(OPS[6].eval_bits(a, b) & 0b1111, 0b0110); // XOR
        assert_eq!(OPS[1].eval_bits(a, b) & 0b1111, 0b1000); // AND
        assert_eq!(OPS[13].eval_bits(a, b) & 0b1111, 0b1011); // NOT A OR B
    }

    #[test]
    fn initial_gate_is_almost_pass_through_a() {
        let init = Parametrization::Softmax.pass_through(PASS_THROUGH_INIT);
        let probs = softmax(&init);
        let c = soft_coefficients(&probs, &coefficient_table());
        // p_A = e^10 / (e^10 + 15); the rest share what is left.
        let p_a = 10f64.exp() / (10f64.exp() + 15.0);
        assert!((probs[PASS_A] - p_a).abs() < 1e-15);
        // c1 = sum_i p_i (f10 - f00)_i. Over all 16 ops f10 and f00 are each 1 eight
        // times, so the other 15 ops (q = (1 - p_A) / 15 each) sum to -(A's 1): c1 = p_A - q.
        let c1 = p_a - (1.0 - p_a) / 15.0;
        assert!((f64::from(c[1]) - c1).abs() < 1e-7, "{} vs {c1}", c[1]);
        assert_eq!(hard_op(&init), PASS_A);
    }

    #[test]
    fn hard_op_takes_first_index_on_ties() {
        let mut logits = [0.0; NUM_OPS];
        logits[4] = 2.0;
        logits[9] = 2.0;
        assert_eq!(hard_op(&logits), 4);
        assert_eq!(hard_op(&[0.0; NUM_OPS]), 0);
    }

    #[test]
    fn logit_gradient_matches_finite_differences() {
        let table = coefficient_table();
        let logits: [f32; NUM_OPS] = std::array::from_fn(|i| (i as f32 * 0.37).sin());
        let dc = [0.3f64, -1.2, 0.7, 2.0];
        let objective = |l: &[f32; NUM_OPS]| -> f64 {
            let c = soft_coefficients(&softmax(l), &table);
            (0..4).map(|j| f64::from(c[j]) * dc[j]).sum()
        };
        let analytic = logit_gradient(&softmax(&logits), &dc, &table);
        for i in 0..NUM_OPS {
            let h = 1e-2;
            let (mut up, mut down) = (logits, logits);
            up[i] += h;
            down[i] -= h;
            let numeric = (objective(&up) - objective(&down)) / (2.0 * h as f64);
            assert!((analytic[i] as f64 - numeric).abs() < 2e-3, "logit {i}");
        }
    }
}
