//! Runs a saved model from given initial grids and scores it against the task's target.

use crate::circuit::Circuit;
use crate::geometry::Geometry;
use crate::grid::Grids;
use crate::kernels::soft::TILE;
use crate::model::Model;
use crate::parameters::{hard_truth, SoftParams};
use crate::rollout::hard::HardRollout;
use crate::rollout::masks::FireMasks;
use crate::rollout::soft::{ActivationMemory, SoftRollout};
use crate::train::loss::{hard_errors, soft_loss};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvalMetrics {
    pub soft_loss: f64,
    pub hard_loss: f64,
    pub accuracy: f64,
}

/// Soft and hard rollouts of `steps` steps from `init` (any grid size), scored against
/// the target the model's task defines. Async models use `masks` for both rollouts.
pub fn evaluate(
    model: &Model,
    init: &Grids,
    steps: usize,
    masks: Option<&FireMasks>,
) -> EvalMetrics {
    let config = &model.config;
    let target = config.task.target(config, init, steps);
    let circuit = Circuit::compile(model);

    let geometry = Geometry::new(init.batch, init.height, init.width, config.periodic, TILE);
    let mut soft = SoftRollout::new(
        geometry,
        &circuit,
        steps,
        model.gate_count(),
        ActivationMemory::Recompute,
    );
    soft.set_initial(init);
    soft.forward(
        &circuit,
        &SoftParams::from_logits(&model.logits).coefs,
        masks,
    );
    let mut grads = vec![0.0; soft.final_state().len()];
    let soft_loss = soft_loss(
        soft.final_state(),
        config.channels,
        &config.target_channels,
        &target,
        &mut grads,
    );

    let mut hard = HardRollout::new(
        init.batch,
        init.height,
        init.width,
        config.periodic,
        &circuit,
    );
    hard.set_state(init);
    hard.run(&circuit, &hard_truth(&model.logits), masks, steps);
    let (wrong, accuracy) = hard_errors(&hard, &config.target_channels, &target);
    EvalMetrics {
        soft_loss,
        hard_loss: wrong as f64,
        accuracy,
    }
}
