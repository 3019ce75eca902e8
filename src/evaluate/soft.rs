//! Scoring a soft rollout: its loss against the task's targets, the same for training
//! (which goes on to the gradient) and for evaluation.

use crate::automaton::geometry::Geometry;
use crate::automaton::grid::Grids;
use crate::automaton::masks::FireMasks;
use crate::automaton::soft::{ActivationMemory, SoftRollout};
use crate::evaluate::loss::soft_loss;
use crate::kernels::parameters::{Forward, SoftParams};
use crate::kernels::soft::TILE;
use crate::kernels::subnormals::Flushing;
use crate::model::circuit::Circuit;
use crate::model::config::ModelConfig;
use crate::model::network::Model;
use crate::tasks;

/// What a soft rollout runs: a model's wiring, its gates' coefficients, and its task.
pub struct SoftScoring<'a> {
    pub config: &'a ModelConfig,
    pub circuit: &'a Circuit,
    pub coefs: &'a [[f32; 4]],
    /// Weight of the target's on bits in the loss ([`soft_loss`]; 1: the notebook's).
    pub on_weight: f32,
}

impl SoftScoring<'_> {
    /// Rolls `soft` out from `init` and sums the loss over the states after the last
    /// `loss_grads.len()` steps (`target` is the last step's), leaving the loss's gradient
    /// on each of those states in `loss_grads`. Without an observer of each step, each
    /// grid steps on its own ([`SoftRollout::forward`]).
    pub fn loss(
        &self,
        soft: &mut SoftRollout,
        init: &Grids,
        target: &Grids,
        masks: Option<&FireMasks>,
        after_step: Option<&mut dyn FnMut(usize)>,
        loss_grads: &mut [Vec<f32>],
    ) -> f64 {
        let (config, circuit, coefs) = (self.config, self.circuit, self.coefs);
        soft.set_initial(init);
        match after_step {
            None => soft.forward(circuit, coefs, masks),
            Some(observe) => soft.forward_observed(circuit, coefs, masks, observe),
        }
        let (channels, targets) = (config.channels, &config.target_channels);
        let mut loss = soft_loss(
            soft.final_state(),
            channels,
            targets,
            (target, self.on_weight),
            &mut loss_grads[0],
        );
        for (j, grads) in loss_grads.iter_mut().enumerate().skip(1) {
            let step = soft.steps() - j;
            let target = tasks::target(config, init, step);
            let target = (&target, self.on_weight);
            loss += soft_loss(soft.state(step), channels, targets, target, grads);
        }
        loss
    }
}

/// The soft loss of `model` (compiled to `circuit`) rolled out `steps` steps from `init`
/// against `target`, with its plain soft gates and the notebook's loss; only the latest
/// states are kept.
pub fn soft_loss_of(
    model: &Model,
    circuit: &Circuit,
    (init, target): (&Grids, &Grids),
    steps: usize,
    masks: Option<&FireMasks>,
    after_step: &mut dyn FnMut(usize),
) -> f64 {
    let _flushing = Flushing::begin();
    let config = &model.config;
    let geometry = Geometry::new(init.batch, init.height, init.width, config.periodic, TILE);
    let gates = model.gate_count();
    let memory = ActivationMemory::ForwardOnly;
    let mut soft = SoftRollout::new(geometry, circuit, steps, gates, memory);
    let mut params = SoftParams::new(config.parametrization, gates);
    params.update(&model.logits, Forward::Soft, &[]);
    let mut loss_grads = vec![vec![0.0; soft.final_state().len()]];
    let coefs = &params.coefs;
    let scoring = SoftScoring {
        config,
        circuit,
        coefs,
        on_weight: 1.0,
    };
    scoring.loss(
        &mut soft,
        init,
        target,
        masks,
        Some(after_step),
        &mut loss_grads,
    )
}
