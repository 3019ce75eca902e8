//! Scoring a model's hard circuit: roll it out and count the target bits it gets wrong.

use crate::automaton::grid::Grids;
use crate::automaton::hard_run::HardRun;
use crate::automaton::masks::FireMasks;
use crate::evaluate::loss::hard_errors;
use crate::model::circuit::Circuit;
use crate::model::network::Model;
use crate::tasks;

/// Rolls `run` out for `steps` steps from `init`, calling `after_step(t)` after each, and
/// returns the wrong bits of `target_channels` against `target`, and the accuracy.
pub fn score(
    run: &mut HardRun,
    init: &Grids,
    target: &Grids,
    target_channels: &[usize],
    masks: Option<&FireMasks>,
    steps: usize,
    mut after_step: impl FnMut(usize),
) -> (f64, f64) {
    run.set_state(init);
    for t in 0..steps {
        run.step(masks, t);
        after_step(t);
    }
    let (wrong, accuracy) = hard_errors(run.rollout(), target_channels, target);
    (wrong as f64, accuracy)
}

/// Hard rollouts of one model on batches of one shape, compiled once: an evaluation
/// without the soft loss builds no soft rollout, nor any of its buffers.
pub struct HardEvaluator<'m> {
    model: &'m Model,
    run: HardRun,
    steps: usize,
}

impl<'m> HardEvaluator<'m> {
    /// For batches of `batch` grids of `height x width`, rolled out for `steps` steps.
    pub fn new(model: &'m Model, batch: usize, shape: (usize, usize), steps: usize) -> Self {
        HardEvaluator {
            model,
            run: HardRun::new(model, batch, shape),
            steps,
        }
    }

    /// The model's compiled wiring.
    pub fn circuit(&self) -> &Circuit {
        self.run.circuit()
    }

    /// The wrong target bits and the accuracy of a rollout from `init` against the
    /// task's target, calling `after_step(t)` after each step.
    pub fn score(
        &mut self,
        init: &Grids,
        masks: Option<&FireMasks>,
        after_step: impl FnMut(usize),
    ) -> (f64, f64) {
        let config = &self.model.config;
        let target = tasks::target(config, init, self.steps);
        let channels = &config.target_channels;
        score(
            &mut self.run,
            init,
            &target,
            channels,
            masks,
            self.steps,
            after_step,
        )
    }
}
