//! What the kernels need from the gate parameters, derived once per optimizer step.

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
        params.update(logits, Forward::Soft);
        params
    }

    /// Recomputes soft states and coefficients from new parameters.
    pub fn update(&mut self, logits: &[[f32; NUM_OPS]], forward: Forward) {
        let relaxation = &self.relaxation;
        let pairs = self.states.iter_mut().zip(&mut self.coefs);
        for (l, (s, c)) in logits.iter().zip(pairs) {
            (*s, *c) = match forward {
                Forward::Soft => relaxation.coefficients(l),
                Forward::StraightThrough(hardness) => {
                    relaxation.straight_through_coefficients(l, hardness)
                }
            };
        }
    }

    /// Maps coefficient gradients to parameter gradients.
    pub fn logit_grads(&self, coef_grads: &[[f64; 4]], out: &mut [[f32; NUM_OPS]]) {
        for ((s, dc), o) in self.states.iter().zip(coef_grads).zip(out) {
            *o = self.relaxation.gradient(s, dc);
        }
    }
}

/// Every gate's hard op as truth masks for the bit-sliced kernel.
pub fn hard_truth(parametrization: Parametrization, logits: &[[f32; NUM_OPS]]) -> Vec<TruthMasks> {
    logits
        .iter()
        .map(|l| TruthMasks::of_op(parametrization.hard_op(l)))
        .collect()
}
