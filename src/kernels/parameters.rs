//! What the kernels need from the logits, derived once per optimizer step.

use crate::kernels::hard::TruthMasks;
use crate::model::gates::{
    coefficient_table, hard_op, logit_gradient, soft_coefficients, softmax, NUM_OPS,
};

/// Softmax probabilities and soft coefficients of every gate.
pub struct SoftParams {
    table: [[f64; 4]; NUM_OPS],
    pub probs: Vec<[f64; NUM_OPS]>,
    pub coefs: Vec<[f32; 4]>,
}

impl SoftParams {
    pub fn new(gates: usize) -> Self {
        SoftParams {
            table: coefficient_table(),
            probs: vec![[0.0; NUM_OPS]; gates],
            coefs: vec![[0.0; 4]; gates],
        }
    }

    pub fn from_logits(logits: &[[f32; NUM_OPS]]) -> Self {
        let mut params = Self::new(logits.len());
        params.update(logits);
        params
    }

    /// Recomputes probabilities and coefficients from new logits.
    pub fn update(&mut self, logits: &[[f32; NUM_OPS]]) {
        for ((l, p), c) in logits.iter().zip(&mut self.probs).zip(&mut self.coefs) {
            *p = softmax(l);
            *c = soft_coefficients(p, &self.table);
        }
    }

    /// Maps coefficient gradients to logit gradients through the softmax Jacobian.
    pub fn logit_grads(&self, coef_grads: &[[f64; 4]], out: &mut [[f32; NUM_OPS]]) {
        for ((p, dc), o) in self.probs.iter().zip(coef_grads).zip(out) {
            *o = logit_gradient(p, dc, &self.table);
        }
    }
}

/// Every gate's argmax op as truth masks for the bit-sliced kernel.
pub fn hard_truth(logits: &[[f32; NUM_OPS]]) -> Vec<TruthMasks> {
    logits
        .iter()
        .map(|l| TruthMasks::of_op(hard_op(l)))
        .collect()
}
