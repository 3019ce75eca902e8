//! AdamW with element-wise gradient clipping, as the reference notebook's optax chain.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::kernels::parameters::GATES_PER_JOB;
use crate::model::gates::NUM_OPS;

/// Hyperparameters of `docs/semantics.md` (the learning rate is per task).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamWConfig {
    pub learning_rate: f32,
    pub beta1: f32,
    pub beta2: f32,
    pub eps: f32,
    pub weight_decay: f32,
    /// Every gradient element is clipped to `[-clip, clip]` first.
    pub clip: f32,
}

impl AdamWConfig {
    pub fn reference(learning_rate: f32) -> Self {
        AdamWConfig {
            learning_rate,
            beta1: 0.9,
            beta2: 0.99,
            eps: 1e-8,
            weight_decay: 0.01,
            clip: 100.0,
        }
    }
}

pub struct AdamW {
    config: AdamWConfig,
    state: AdamWState,
}

/// What AdamW carries from step to step: the steps taken and both moments of every
/// parameter. A checkpoint saves it so that a resumed run takes the same steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdamWState {
    pub step: i32,
    pub m: Vec<[f32; NUM_OPS]>,
    pub v: Vec<[f32; NUM_OPS]>,
}

impl AdamW {
    pub fn new(config: AdamWConfig, params: usize) -> Self {
        AdamW {
            config,
            state: AdamWState {
                step: 0,
                m: vec![[0.0; NUM_OPS]; params],
                v: vec![[0.0; NUM_OPS]; params],
            },
        }
    }

    pub fn state(&self) -> &AdamWState {
        &self.state
    }

    /// Continues from a saved state, which must be for as many parameters.
    pub fn restore(&mut self, state: AdamWState) -> Result<(), AdamWState> {
        let len = self.state.m.len();
        if state.m.len() != len || state.v.len() != len || state.step < 0 {
            return Err(state);
        }
        self.state = state;
        Ok(())
    }

    /// The learning rate of the following steps (for schedules).
    pub fn set_learning_rate(&mut self, rate: f32) {
        self.config.learning_rate = rate;
    }

    /// One update: clip, moments, bias correction, decoupled decay.
    pub fn step(&mut self, params: &mut [[f32; NUM_OPS]], grads: &[[f32; NUM_OPS]]) {
        let AdamWConfig {
            learning_rate: lr,
            beta1,
            beta2,
            eps,
            weight_decay,
            clip,
        } = self.config;
        let state = &mut self.state;
        state.step += 1;
        let correction1 = 1.0 - beta1.powi(state.step);
        let correction2 = 1.0 - beta2.powi(state.step);
        // Each parameter's update is its own: blocks of rows are shared among threads.
        let rows = |w: &mut [[f32; NUM_OPS]],
                    g: &[[f32; NUM_OPS]],
                    m: &mut [[f32; NUM_OPS]],
                    v: &mut [[f32; NUM_OPS]]| {
            let rows = w.iter_mut().zip(g).zip(m.iter_mut().zip(v));
            for ((w, g), (m, v)) in rows {
                for i in 0..NUM_OPS {
                    let g = g[i].clamp(-clip, clip);
                    m[i] = beta1 * m[i] + (1.0 - beta1) * g;
                    v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
                    let m_hat = m[i] / correction1;
                    let v_hat = v[i] / correction2;
                    w[i] -= lr * (m_hat / (v_hat.sqrt() + eps) + weight_decay * w[i]);
                }
            }
        };
        params
            .par_chunks_mut(GATES_PER_JOB)
            .zip(grads.par_chunks(GATES_PER_JOB))
            .zip(state.m.par_chunks_mut(GATES_PER_JOB))
            .zip(state.v.par_chunks_mut(GATES_PER_JOB))
            .for_each(|(((w, g), m), v)| rows(w, g, m, v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_and_second_steps_match_hand_computation() {
        // Step 1, w = 1, g = 0.5: m = 0.05, v = 0.0025, m_hat = 0.5, v_hat = 0.25,
        // update = 0.05 * (0.5 / (0.5 + 1e-8) + 0.01 * 1) = 0.05 * 1.01 = 0.0505.
        let mut opt = AdamW::new(AdamWConfig::reference(0.05), 1);
        let mut w = [[1.0f32; NUM_OPS]];
        let mut g = [[0.5f32; NUM_OPS]];
        g[0][1] = 250.0; // clipped to 100: m_hat/sqrt(v_hat) = 100/100 = 1 as well.
        g[0][2] = -3.0; // sign flips: update = 0.05 * (-1 + 0.01) = -0.0495.
        opt.step(&mut w, &g);
        assert!((w[0][0] - (1.0 - 0.0505)).abs() < 1e-6, "{}", w[0][0]);
        assert!((w[0][1] - (1.0 - 0.0505)).abs() < 1e-6, "{}", w[0][1]);
        assert!((w[0][2] - (1.0 + 0.0495)).abs() < 1e-6, "{}", w[0][2]);
        // Step 2 with g = 0.5 again on element 0, w = 0.9495:
        // m = 0.9*0.05 + 0.05 = 0.095, v = 0.99*0.0025 + 0.0025 = 0.004975,
        // m_hat = 0.095/0.19 = 0.5, v_hat = 0.004975/0.0199 = 0.25, so again 0.5/0.5 = 1,
        // update = 0.05 * (1 + 0.01 * 0.9495) = 0.050474750.
        opt.step(&mut w, &[[0.5; NUM_OPS]]);
        assert!(
            (w[0][0] - (0.9495 - 0.05047475)).abs() < 1e-6,
            "{}",
            w[0][0]
        );
    }

    #[test]
    fn zero_gradient_still_decays_weights() {
        let mut opt = AdamW::new(AdamWConfig::reference(0.05), 1);
        let mut w = [[2.0f32; NUM_OPS]];
        opt.step(&mut w, &[[0.0; NUM_OPS]]);
        // m_hat = 0, so only decay: 2 - 0.05 * 0.01 * 2 = 1.999.
        assert!((w[0][5] - 1.999).abs() < 1e-6);
    }
}
