//! A model: wires of every layer and the 16 logits of every gate.
//!
//! All logits live in one flat vector (the optimizer's parameter vector). Perception
//! layer `l` stores kernel `k`, gate `g` at `perceive[l].first_gate + k * width + g`;
//! update layer `l` stores gate `g` at `update[l].first_gate + g`.

use rand::Rng;

use crate::error::ConfigError;
use crate::model::config::{ModelConfig, PATCH};
use crate::model::gates::{NUM_OPS, XOR};
use crate::model::wiring::{Wires, WiringScheme};

/// One layer's wires and where its logits start in [`Model::logits`].
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub wires: Wires,
    pub first_gate: usize,
}

impl Layer {
    pub fn width(&self) -> usize {
        self.wires.len()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub config: ModelConfig,
    pub perceive: Vec<Layer>,
    pub update: Vec<Layer>,
    pub logits: Vec<[f32; NUM_OPS]>,
}

impl Model {
    /// A fresh model: `first_kernel` then `unique` wiring, pass-through logits.
    pub fn new(config: ModelConfig, rng: &mut impl Rng) -> Result<Self, ConfigError> {
        Self::with_wiring(config, WiringScheme::Unique, rng)
    }

    /// A fresh model whose layers after the first use `scheme`.
    pub fn with_wiring(
        config: ModelConfig,
        scheme: WiringScheme,
        rng: &mut impl Rng,
    ) -> Result<Self, ConfigError> {
        config.validate()?;
        let mut gates = 0;
        let mut perceive = Vec::new();
        let mut inputs = PATCH;
        for (l, &width) in config.perception_layers.iter().enumerate() {
            let layer_scheme = if l == 0 {
                WiringScheme::FirstKernel
            } else {
                scheme
            };
            let wires =
                layer_scheme
                    .wire(inputs, width, rng)
                    .map_err(|cause| ConfigError::Layer {
                        layer: format!("perception layer {l}"),
                        cause,
                    })?;
            perceive.push(Layer {
                wires,
                first_gate: gates,
            });
            gates += width * config.kernels;
            inputs = width;
        }
        let mut update = Vec::new();
        let mut inputs = config.update_inputs();
        for (l, &width) in config.update_layers.iter().enumerate() {
            let wires = scheme
                .wire(inputs, width, rng)
                .map_err(|cause| ConfigError::Layer {
                    layer: format!("update layer {l}"),
                    cause,
                })?;
            update.push(Layer {
                wires,
                first_gate: gates,
            });
            gates += width;
            inputs = width;
        }
        let init = config
            .parametrization
            .pass_through(config.parametrization.default_pass_through());
        Ok(Model {
            logits: vec![init; gates],
            config,
            perceive,
            update,
        })
    }

    pub fn gate_count(&self) -> usize {
        self.logits.len()
    }

    /// Re-initialises every gate to pass its first input through with `strength`.
    pub fn set_pass_through(&mut self, strength: f32) {
        let init = self.config.parametrization.pass_through(strength);
        self.logits.fill(init);
    }

    /// Makes every gate of the first `kernels` perception kernels lean to XOR with
    /// `strength`. With the paper's perception (8 gates each pairing a neighbour with the
    /// centre, then 4, 2, 1) such a kernel computes the parity of its 8 pairs: the centre
    /// cancels out and what is left is the parity of the neighbours, the lowest bit of
    /// their count.
    pub fn start_parity_kernels(&mut self, kernels: usize, strength: f32) {
        let init = self.config.parametrization.starting_as(XOR, strength);
        for l in 0..self.perceive.len() {
            for k in 0..kernels.min(self.config.kernels) {
                for g in 0..self.perceive[l].width() {
                    let gate = self.perceive_gate(l, k, g);
                    self.logits[gate] = init;
                }
            }
        }
    }

    /// The hard op of gate `g` (an index into [`crate::model::gates::OPS`]).
    pub fn hard_op(&self, g: usize) -> usize {
        self.config.parametrization.hard_op(&self.logits[g])
    }

    /// Logits index of gate `g` of kernel `k` in perception layer `l`.
    pub fn perceive_gate(&self, l: usize, k: usize, g: usize) -> usize {
        let layer = &self.perceive[l];
        layer.first_gate + k * layer.width() + g
    }

    /// Logits index of gate `g` in update layer `l`.
    pub fn update_gate(&self, l: usize, g: usize) -> usize {
        self.update[l].first_gate + g
    }

    /// The update layer that logits index `gate` is in, and its place there; `None` for
    /// a perception gate.
    pub fn update_place(&self, gate: usize) -> Option<(usize, usize)> {
        let l = self
            .update
            .iter()
            .rposition(|layer| layer.first_gate <= gate)?;
        let i = gate - self.update[l].first_gate;
        (i < self.update[l].width()).then_some((l, i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::task::TaskKind;
    use crate::tasks::preset;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn reference_model_layout() {
        let (config, _) = preset(TaskKind::Checkerboard, false);
        let model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
        assert_eq!(model.gate_count(), 3040);
        assert_eq!(model.perceive.len(), 3);
        assert_eq!(model.update.len(), 16);
        assert_eq!(model.update[0].width(), 256);
        assert_eq!(model.perceive_gate(1, 2, 3), 16 * 8 + 2 * 4 + 3);
        assert_eq!(model.update_gate(15, 7), 3039);
        // The first update layer reads all 264 inputs.
        let w = &model.update[0].wires;
        assert!(w.a.iter().chain(&w.b).all(|&i| i < 264));
        assert_eq!(*w.a.iter().chain(&w.b).max().unwrap(), 263);
    }

    #[test]
    fn narrow_unique_layer_is_an_error_naming_the_layer() {
        let (mut config, _) = preset(TaskKind::Checkerboard, true);
        config.update_layers = vec![16, 8];
        let err = Model::new(config, &mut ChaCha8Rng::seed_from_u64(0))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("update layer 0") && err.contains("2*out >= in"),
            "{err}"
        );
    }
}
