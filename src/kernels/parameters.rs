//! What the kernels need from the gate parameters, derived once per optimizer step.
//!
//! Each gate's values depend on its own parameters only, so gates are shared among the
//! threads in blocks of [`GATES_PER_JOB`]: the results are the same for any count.

use rayon::prelude::*;

use crate::kernels::hard::TruthMasks;
use crate::model::gates::NUM_OPS;
use crate::model::parametrization::{Parametrization, Relaxation, SoftState};

/// Which coefficients the soft rollout runs on.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Forward {
    /// The relaxed gates (the paper's training).
    #[default]
    Soft,
    /// Each gate moved this share (0 to 1) of the way to its hard op, with gradients
    /// taken through the relaxation (straight-through). At 1 the loss is the hard
    /// circuit's.
    StraightThrough(f32),
}

/// Gates per parallel job of the per-gate loops (here, in the optimizer, and the sum of
/// the tiles' coefficient gradients in `automaton::soft_tiles`): about a tenth of a
/// millisecond of work, so that a loop over a paper-sized model is a few jobs, enough
/// for the threads and few to schedule.
pub const GATES_PER_JOB: usize = 2048;

/// Soft state and coefficients of every gate.
pub struct SoftParams {
    relaxation: Relaxation,
    pub states: Vec<SoftState>,
    pub coefs: Vec<[f32; 4]>,
}

impl SoftParams {
    pub fn new(parametrization: Parametrization, gates: usize) -> Self {
        SoftParams {
            relaxation: Relaxation::new(parametrization),
            states: vec![[0.0; NUM_OPS]; gates],
            coefs: vec![[0.0; 4]; gates],
        }
    }

    pub fn from_logits(parametrization: Parametrization, logits: &[[f32; NUM_OPS]]) -> Self {
        let mut params = Self::new(parametrization, logits.len());
        params.update(logits, Forward::Soft, &[]);
        params
    }

    /// Recomputes soft states and coefficients from new parameters; the gates marked in
    /// `hard` (one flag per gate, or empty for none) run their hard op whatever `forward`
    /// says.
    pub fn update(&mut self, logits: &[[f32; NUM_OPS]], forward: Forward, hard: &[bool]) {
        let relaxation = &self.relaxation;
        let pairs = self.states.par_iter_mut().zip(&mut self.coefs);
        logits
            .par_iter()
            .zip(pairs)
            .enumerate()
            .with_min_len(GATES_PER_JOB)
            .for_each(|(gate, (l, (s, c)))| {
                let hardness = match forward {
                    _ if hard.get(gate) == Some(&true) => 1.0,
                    Forward::Soft => 0.0,
                    Forward::StraightThrough(hardness) => hardness,
                };
                (*s, *c) = if hardness == 0.0 {
                    relaxation.coefficients(l)
                } else {
                    relaxation.straight_through_coefficients(l, hardness)
                };
            });
    }

    /// Maps coefficient gradients to parameter gradients.
    pub fn logit_grads(&self, coef_grads: &[[f64; 4]], out: &mut [[f32; NUM_OPS]]) {
        self.states
            .par_iter()
            .zip(coef_grads)
            .zip(out)
            .with_min_len(GATES_PER_JOB)
            .for_each(|((s, dc), o)| *o = self.relaxation.gradient(s, dc));
    }
}

/// Every gate's hard op as truth masks for the bit-sliced kernel.
pub fn hard_truth(parametrization: Parametrization, logits: &[[f32; NUM_OPS]]) -> Vec<TruthMasks> {
    logits
        .par_iter()
        .with_min_len(GATES_PER_JOB)
        .map(|l| TruthMasks::of_op(parametrization.hard_op(l)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gates::OPS;

    /// Gates that are mid-way between ops, so soft and hard coefficients differ.
    fn undecided(parametrization: Parametrization, gates: usize) -> Vec<[f32; NUM_OPS]> {
        (0..gates)
            .map(|g| std::array::from_fn(|i| ((g * 7 + i * 3) as f32 * 0.37).sin()))
            .map(|mut l: [f32; NUM_OPS]| {
                l[..parametrization.params_per_gate()]
                    .iter_mut()
                    .for_each(|x| *x *= 2.0);
                l
            })
            .collect()
    }

    #[test]
    fn flagged_gates_run_their_hard_op_and_keep_the_soft_gradient() {
        for parametrization in Parametrization::ALL {
            let logits = undecided(parametrization, 6);
            let soft = SoftParams::from_logits(parametrization, &logits);
            let hard = [true, false, false, true, true, false];
            let mut mixed = SoftParams::new(parametrization, logits.len());
            mixed.update(&logits, Forward::Soft, &hard);
            for (g, l) in logits.iter().enumerate() {
                let op = OPS[parametrization.hard_op(l)].coefficients();
                let expected = if hard[g] { op } else { soft.coefs[g] };
                assert_eq!(
                    mixed.coefs[g],
                    expected,
                    "{} gate {g}",
                    parametrization.name()
                );
                assert_ne!(soft.coefs[g], op, "gate {g} must be undecided for the test");
                assert_eq!(mixed.states[g], soft.states[g], "the gradient maps as soft");
            }
            let mut none = SoftParams::new(parametrization, logits.len());
            none.update(&logits, Forward::Soft, &[]);
            assert_eq!(none.coefs, soft.coefs);
        }
    }
}
