//! How a gate's parameters choose its function, softly while training and hard after.
//!
//! Two parametrizations share the kernels, which only see each gate's four coefficients
//! `c0 + c1 a + c2 b + c3 ab`:
//! - `softmax` (the paper's): 16 logits, one per op; the soft gate is the softmax-weighted
//!   mix of the ops, the hard gate the argmax op.
//! - `input-wise`: 4 logits, one per input pair (a, b) = 00, 01, 10, 11; the soft gate
//!   outputs `t_ab = sigmoid(z_ab)` at each corner and interpolates between them, the hard
//!   gate is the truth table `z_ab > 0`. Every gradient reaches every parameter through
//!   one sigmoid, with no competition between 16 ops.
//!
//! Parameters are stored as 16 numbers per gate either way; input-wise uses the first 4.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::model::gates::{
    coefficient_table, hard_op as argmax_op, logit_gradient, soft_coefficients, softmax, NUM_OPS,
    OPS, PASS_A, PASS_THROUGH_INIT,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Parametrization {
    /// 16 logits per gate, softmax over the ops (the paper's).
    #[default]
    Softmax,
    /// 4 logits per gate, a sigmoid per input pair.
    InputWise,
}

/// Index of `t_ab` in an input-wise gate's parameters: `2a + b`.
const fn corner(a: usize, b: usize) -> usize {
    2 * a + b
}

impl Parametrization {
    pub const ALL: [Parametrization; 2] = [Parametrization::Softmax, Parametrization::InputWise];

    pub fn name(self) -> &'static str {
        match self {
            Parametrization::Softmax => "softmax",
            Parametrization::InputWise => "input-wise",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Parameters a gate uses (of the 16 stored).
    pub fn params_per_gate(self) -> usize {
        match self {
            Parametrization::Softmax => NUM_OPS,
            Parametrization::InputWise => 4,
        }
    }

    /// The pass-through strength of the paper's initialisation for this parametrization.
    pub fn default_pass_through(self) -> f32 {
        match self {
            Parametrization::Softmax => PASS_THROUGH_INIT,
            Parametrization::InputWise => 3.0,
        }
    }

    /// A fresh gate that passes its first input through, with `strength`.
    pub fn pass_through(self, strength: f32) -> [f32; NUM_OPS] {
        self.starting_as(PASS_A, strength)
    }

    /// A fresh gate that leans to op `op` with `strength`: that op's logit (softmax), or
    /// `±strength` on each corner of its truth table (input-wise).
    pub fn starting_as(self, op: usize, strength: f32) -> [f32; NUM_OPS] {
        let mut params = [0.0; NUM_OPS];
        match self {
            Parametrization::Softmax => params[op] = strength,
            Parametrization::InputWise => {
                for a in 0..2 {
                    for b in 0..2 {
                        let on = OPS[op].truth[corner(a, b)];
                        params[corner(a, b)] = if on { strength } else { -strength };
                    }
                }
            }
        }
        params
    }

    /// The hard op: the argmax logit (first on ties), or the op whose truth table is
    /// `z_ab > 0`.
    pub fn hard_op(self, params: &[f32; NUM_OPS]) -> usize {
        match self {
            Parametrization::Softmax => argmax_op(params),
            Parametrization::InputWise => {
                let truth: [bool; 4] = std::array::from_fn(|i| params[i] > 0.0);
                OPS.iter()
                    .position(|op| op.truth == truth)
                    .expect("the 16 ops are every truth table")
            }
        }
    }
}

impl Parametrization {
    /// How far a gate is from discrete, `D`, and its gradient on the parameters: the
    /// input-wise `D = sum_ab t_ab (1 - t_ab)`, the softmax `D = 1 - sum_i p_i^2`. Both are 0
    /// exactly when the soft gate is one op. A recipe may add `lambda * D` per gate to the
    /// loss to close the gap between the soft and the hard circuit.
    pub fn discreteness(self, params: &[f32; NUM_OPS]) -> (f64, [f32; NUM_OPS]) {
        let mut grad = [0.0; NUM_OPS];
        match self {
            Parametrization::Softmax => {
                let p = softmax(params);
                let squares: f64 = p.iter().map(|x| x * x).sum();
                for i in 0..NUM_OPS {
                    grad[i] = (-2.0 * p[i] * (p[i] - squares)) as f32;
                }
                (1.0 - squares, grad)
            }
            Parametrization::InputWise => {
                let mut d = 0.0;
                for i in 0..4 {
                    let t = 1.0 / (1.0 + (-f64::from(params[i])).exp());
                    d += t * (1.0 - t);
                    grad[i] = ((1.0 - 2.0 * t) * t * (1.0 - t)) as f32;
                }
                (d, grad)
            }
        }
    }
}

impl Parametrization {
    /// Noise of `scale` for one gate's parameters, such that at scale 1 the hard op of the
    /// perturbed parameters is a sample of the soft gate: standard Gumbel noise on each
    /// softmax logit (the argmax then picks op `i` with probability `p_i`), standard
    /// logistic noise on each input-wise corner (`z_ab + noise > 0` with probability
    /// `t_ab`). Unused parameters get none.
    pub fn noise(self, scale: f32, rng: &mut impl Rng) -> [f32; NUM_OPS] {
        let mut noise = [0.0; NUM_OPS];
        for n in &mut noise[..self.params_per_gate()] {
            let u = open_unit(rng);
            let sample = match self {
                Parametrization::Softmax => -(-u.ln()).ln(),
                Parametrization::InputWise => (u / (1.0 - u)).ln(),
            };
            *n = scale * sample as f32;
        }
        noise
    }
}

/// A uniform draw from the open interval (0, 1), so that its logarithms are finite.
fn open_unit(rng: &mut impl Rng) -> f64 {
    ((rng.random::<u64>() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

/// A gate's soft state between the parameters and the coefficients, kept for the
/// backward pass: the 16 op probabilities (softmax) or the 4 corner outputs (input-wise).
pub type SoftState = [f64; NUM_OPS];

/// Computes one gate's soft state and coefficients (in f64, rounded to f32 once).
pub struct Relaxation {
    parametrization: Parametrization,
    table: [[f64; 4]; NUM_OPS],
}

impl Relaxation {
    pub fn new(parametrization: Parametrization) -> Self {
        Relaxation {
            parametrization,
            table: coefficient_table(),
        }
    }

    /// The soft state and the coefficients of a gate with `params`.
    pub fn coefficients(&self, params: &[f32; NUM_OPS]) -> (SoftState, [f32; 4]) {
        match self.parametrization {
            Parametrization::Softmax => {
                let probs = softmax(params);
                (probs, soft_coefficients(&probs, &self.table))
            }
            Parametrization::InputWise => {
                let mut state = [0.0; NUM_OPS];
                for i in 0..4 {
                    state[i] = 1.0 / (1.0 + (-f64::from(params[i])).exp());
                }
                let t = |a, b| state[corner(a, b)];
                let c = [
                    t(0, 0),
                    t(1, 0) - t(0, 0),
                    t(0, 1) - t(0, 0),
                    t(1, 1) - t(1, 0) - t(0, 1) + t(0, 0),
                ];
                (state, c.map(|v| v as f32))
            }
        }
    }

    /// The soft state of a gate with `params` and coefficients moved a share `hardness`
    /// of the way from the soft gate's to its hard op's: the forward of a
    /// straight-through step (hardness 1 computes the hard circuit), while
    /// [`gradient`](Self::gradient) still maps through the soft state.
    pub fn straight_through_coefficients(
        &self,
        params: &[f32; NUM_OPS],
        hardness: f32,
    ) -> (SoftState, [f32; 4]) {
        let (state, soft) = self.coefficients(params);
        let hard = OPS[self.parametrization.hard_op(params)].coefficients();
        let blend = std::array::from_fn(|k| soft[k] + hardness * (hard[k] - soft[k]));
        (state, if hardness == 1.0 { hard } else { blend })
    }

    /// Maps a gradient on the four coefficients back to the parameters.
    pub fn gradient(&self, state: &SoftState, coef_grad: &[f64; 4]) -> [f32; NUM_OPS] {
        match self.parametrization {
            Parametrization::Softmax => logit_gradient(state, coef_grad, &self.table),
            Parametrization::InputWise => {
                let [d0, d1, d2, d3] = *coef_grad;
                // dL/dt_ab from c0 = t00, c1 = t10 - t00, c2 = t01 - t00,
                // c3 = t11 - t10 - t01 + t00.
                let mut dt = [0.0; 4];
                dt[corner(0, 0)] = d0 - d1 - d2 + d3;
                dt[corner(0, 1)] = d2 - d3;
                dt[corner(1, 0)] = d1 - d3;
                dt[corner(1, 1)] = d3;
                let mut out = [0.0; NUM_OPS];
                for i in 0..4 {
                    out[i] = (dt[i] * state[i] * (1.0 - state[i])) as f32;
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gates::PASS_A;

    #[test]
    fn input_wise_hard_op_is_the_thresholded_truth_table() {
        let p = Parametrization::InputWise;
        for (i, op) in OPS.iter().enumerate() {
            let mut params = [0.0; NUM_OPS];
            for (c, &on) in op.truth.iter().enumerate() {
                params[c] = if on { 0.5 } else { -0.5 };
            }
            assert_eq!(p.hard_op(&params), i, "{}", op.name);
        }
        assert_eq!(p.hard_op(&p.pass_through(3.0)), PASS_A);
        let softmax = Parametrization::Softmax;
        assert_eq!(softmax.hard_op(&softmax.pass_through(10.0)), PASS_A);
    }

    #[test]
    fn saturated_input_wise_gates_compute_their_op() {
        let relax = Relaxation::new(Parametrization::InputWise);
        for op in &OPS {
            let mut params = [0.0; NUM_OPS];
            for (c, &on) in op.truth.iter().enumerate() {
                params[c] = if on { 40.0 } else { -40.0 };
            }
            let (_, c) = relax.coefficients(&params);
            let close = c
                .iter()
                .zip(op.coefficients())
                .all(|(x, y)| (x - y).abs() < 1e-6);
            assert!(close, "{}: {c:?}", op.name);
        }
    }

    #[test]
    fn discreteness_gradient_matches_finite_differences() {
        let params: [f32; NUM_OPS] = std::array::from_fn(|i| (i as f32 * 0.7).sin() * 2.0);
        for p in Parametrization::ALL {
            let (_, grad) = p.discreteness(&params);
            for i in 0..NUM_OPS {
                let h = 1e-2;
                let (mut up, mut down) = (params, params);
                up[i] += h;
                down[i] -= h;
                let numeric =
                    (p.discreteness(&up).0 - p.discreteness(&down).0) / (2.0 * f64::from(h));
                assert!(
                    (numeric - f64::from(grad[i])).abs() < 1e-4,
                    "{} param {i}: numeric {numeric}, analytic {}",
                    p.name(),
                    grad[i]
                );
            }
        }
        let one_op = Parametrization::InputWise.pass_through(40.0);
        assert!(Parametrization::InputWise.discreteness(&one_op).0 < 1e-12);
    }

    /// How often each op is the hard op of the parameters plus noise of scale 1.
    fn sampled_ops(p: Parametrization, params: &[f32; NUM_OPS], draws: usize) -> Vec<f64> {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut counts = vec![0.0; NUM_OPS];
        for _ in 0..draws {
            let noise = p.noise(1.0, &mut rng);
            let noisy = std::array::from_fn(|i| params[i] + noise[i]);
            counts[p.hard_op(&noisy)] += 1.0 / draws as f64;
        }
        counts
    }

    #[test]
    fn noise_samples_the_soft_gate() {
        let params: [f32; NUM_OPS] = std::array::from_fn(|i| (i as f32 * 1.3).sin());
        let expected = softmax(&params);
        let sampled = sampled_ops(Parametrization::Softmax, &params, 40_000);
        for (op, (s, e)) in sampled.iter().zip(&expected).enumerate() {
            assert!((s - e).abs() < 0.01, "op {op}: sampled {s}, softmax {e}");
        }
        // Input-wise: corner ab is on with probability t_ab, independently.
        use rand::SeedableRng;
        let input_wise = Parametrization::InputWise;
        let (t, _) = Relaxation::new(input_wise).coefficients(&params);
        let sampled = sampled_ops(input_wise, &params, 40_000);
        for (op, s) in sampled.iter().enumerate() {
            let truth = OPS[op].truth;
            let e: f64 = (0..4)
                .map(|i| if truth[i] { t[i] } else { 1.0 - t[i] })
                .product();
            assert!((s - e).abs() < 0.01, "op {op}: sampled {s}, expected {e}");
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let noise = input_wise.noise(1.0, &mut rng);
        assert!(noise[4..].iter().all(|&n| n == 0.0), "unused parameters");
    }

    #[test]
    fn input_wise_gradient_matches_finite_differences() {
        let relax = Relaxation::new(Parametrization::InputWise);
        let params: [f32; NUM_OPS] =
            std::array::from_fn(|i| if i < 4 { [0.3, -1.2, 0.8, 2.0][i] } else { 0.0 });
        let dc = [0.7, -0.4, 1.1, 0.25];
        // A loss linear in the coefficients: L = dc . c.
        let loss = |p: &[f32; NUM_OPS]| -> f64 {
            let (_, c) = relax.coefficients(p);
            c.iter().zip(&dc).map(|(&c, d)| f64::from(c) * d).sum()
        };
        let (state, _) = relax.coefficients(&params);
        let grad = relax.gradient(&state, &dc);
        for i in 0..4 {
            let h = 1e-2;
            let (mut up, mut down) = (params, params);
            up[i] += h;
            down[i] -= h;
            let numeric = (loss(&up) - loss(&down)) / (2.0 * f64::from(h));
            assert!(
                (numeric - f64::from(grad[i])).abs() < 1e-4,
                "param {i}: numeric {numeric}, analytic {}",
                grad[i]
            );
        }
        assert!(
            grad[4..].iter().all(|&g| g == 0.0),
            "unused parameters stay at 0"
        );
    }
}
