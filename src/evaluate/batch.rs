//! How well a model does on one batch of any grid size: its hard circuit and, when asked,
//! its soft gates, scored against the target its task defines.

use crate::automaton::grid::Grids;
use crate::automaton::masks::FireMasks;
use crate::evaluate::hard::HardEvaluator;
use crate::evaluate::soft::soft_loss_of;
use crate::model::network::Model;
use crate::tasks;

/// Whether [`evaluate`] also runs the soft rollout (which costs more than the hard one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SoftLoss {
    Skip,
    Compute,
}

/// Which rollout a step belongs to, for progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rollout {
    Soft,
    Hard,
}

/// How well a model does on one batch, from [`evaluate`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Evaluation {
    /// The sum of squared errors of the target channels at the last step, soft gates,
    /// when it was asked for.
    pub soft_loss: Option<f64>,
    /// Wrong target bits at the last step, hard gates.
    pub hard_loss: f64,
    /// Share of target bits the hard rollout gets right.
    pub accuracy: f64,
}

/// Hard (and, when asked, soft) rollouts of `steps` steps from `init` (any grid size),
/// scored against the target the model's task defines; memory does not grow with the
/// steps. Async models use `masks` for both rollouts. `after_step` sees each step done,
/// of the soft rollout first.
pub fn evaluate(
    model: &Model,
    init: &Grids,
    steps: usize,
    masks: Option<&FireMasks>,
    soft: SoftLoss,
    mut after_step: impl FnMut(Rollout, usize),
) -> Evaluation {
    let shape = (init.height, init.width);
    let mut hard = HardEvaluator::new(model, init.batch, shape, steps);
    let soft_loss = (soft == SoftLoss::Compute).then(|| {
        let target = tasks::target(&model.config, init, steps);
        let mut observe = |t| after_step(Rollout::Soft, t);
        soft_loss_of(
            model,
            hard.circuit(),
            (init, &target),
            steps,
            masks,
            &mut observe,
        )
    });
    let (hard_loss, accuracy) = hard.score(init, masks, |t| after_step(Rollout::Hard, t));
    Evaluation {
        soft_loss,
        hard_loss,
        accuracy,
    }
}
