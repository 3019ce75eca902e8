//! Scoring a model's hard circuit: roll it out and count the target bits it gets wrong.

use crate::automaton::frames::{hard_last_frame, Damage};
use crate::automaton::grid::Grids;
use crate::automaton::hard_run::HardRun;
use crate::automaton::masks::FireMasks;
use crate::evaluate::loss::{hard_errors, wrong_bits};
use crate::model::circuit::Circuit;
use crate::model::network::Model;
use crate::tasks;

/// How long a hard rollout runs, and which of its states are scored: the last one, and
/// with hold steps also the state at the task's step, so that a hard loss of 0 is the
/// target right where the exact check looks (the task's step and the end of the hold).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scoring {
    pub steps: usize,
    /// A step before the last whose state is scored too.
    pub also_at: Option<usize>,
}

impl Scoring {
    /// The state after the last step alone.
    pub fn last(steps: usize) -> Self {
        Scoring {
            steps,
            also_at: None,
        }
    }
}

/// Rolls `run` out from `init` as `scoring` says, calling `after_step(t)` after each step,
/// and returns the wrong bits of `target_channels` against `target` summed over the
/// scored states, and the share of their bits right.
pub fn score(
    run: &mut HardRun,
    init: &Grids,
    target: &Grids,
    target_channels: &[usize],
    masks: Option<&FireMasks>,
    scoring: Scoring,
    mut after_step: impl FnMut(usize),
) -> (f64, f64) {
    let also_at = scoring.also_at.filter(|&s| s < scoring.steps);
    let (mut wrong, mut right_share, mut states) = (0, 0.0, 1.0);
    run.set_state(init);
    for t in 0..scoring.steps {
        if also_at == Some(t) {
            let (w, a) = hard_errors(run.rollout(), target_channels, target);
            (wrong, right_share, states) = (w, a, 2.0);
        }
        run.step(masks, t);
        after_step(t);
    }
    let (w, a) = hard_errors(run.rollout(), target_channels, target);
    ((wrong + w) as f64, (right_share + a) / states)
}

/// The wrong target bits and the share right after `steps` steps from `init`, with
/// `damage`'s block zeroed after the steps it names: how a pattern is scored for
/// regrowth (`logicars eval --damage`, the fresh check's *regrows*).
pub fn score_damaged(
    model: &Model,
    init: &Grids,
    steps: usize,
    masks: Option<&FireMasks>,
    damage: &Damage,
    after_step: impl FnMut(usize),
) -> (f64, f64) {
    let c = &model.config;
    let last = hard_last_frame(model, init, steps, masks, Some(damage), after_step);
    let target = tasks::target(c, init, steps);
    let channels = last.channels;
    let bit = |channel, lane| last.values[lane * channels + channel] >= 0.5;
    let (wrong, right) = wrong_bits(&c.target_channels, &target, bit);
    (wrong as f64, right)
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
            Scoring::last(self.steps),
            after_step,
        )
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::model::task::TaskKind;
    use crate::tasks::preset;

    /// Scoring also an earlier step counts the wrong bits that two rollouts, one ending
    /// at each scored step, count together; the accuracy is theirs on average.
    #[test]
    fn an_earlier_step_scores_as_the_rollout_that_ends_there() {
        let (config, _) = preset(TaskKind::Checkerboard, true);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut model = Model::new(config, &mut rng).unwrap();
        for (i, gate) in model.logits.iter_mut().enumerate() {
            gate[(i * 7) % gate.len()] += 20.0;
        }
        let (init, _) = tasks::eval_batch(&model.config, 3, (8, 8), 6, &mut rng);
        let target = tasks::target(&model.config, &init, 6);
        let channels = model.config.target_channels.clone();
        let mut run = HardRun::new(&model, 3, (8, 8));
        run.set_ops(&model);
        let mut at = |scoring| score(&mut run, &init, &target, &channels, None, scoring, |_| {});
        let (early, late) = (at(Scoring::last(2)), at(Scoring::last(6)));
        assert!(early.0 > 0.0 && late.0 > 0.0, "{early:?} {late:?}");
        let both = at(Scoring {
            steps: 6,
            also_at: Some(2),
        });
        assert_eq!(both.0, early.0 + late.0);
        assert!(
            (both.1 - (early.1 + late.1) / 2.0).abs() < 1e-12,
            "{both:?}"
        );
        // A step at or past the end adds nothing: the last state is scored once.
        for also in [6, 9] {
            let scoring = Scoring {
                steps: 6,
                also_at: Some(also),
            };
            assert_eq!(at(scoring), late);
        }
    }
}
