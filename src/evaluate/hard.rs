//! Scoring a model's hard circuit: roll it out and count the target bits it gets wrong.

use crate::automaton::grid::Grids;
use crate::automaton::hard_run::HardRun;
use crate::automaton::masks::FireMasks;
use crate::evaluate::loss::hard_errors;
use crate::model::circuit::Circuit;
use crate::model::network::Model;
use crate::tasks;

/// How long a hard rollout runs, and how many of its last states are scored: the states
/// whose soft loss training sums (the last step's alone, unless the recipe's loss steps
/// or hold steps ask for more), so that a hard loss of 0 means every one of them right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scoring {
    pub steps: usize,
    /// At least 1, at most `steps` (or 1 for a rollout of no steps).
    pub last_states: usize,
}

impl Scoring {
    /// The state after the last step alone.
    pub fn last(steps: usize) -> Self {
        Scoring {
            steps,
            last_states: 1,
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
    let Scoring { steps, last_states } = scoring;
    let states = last_states.clamp(1, steps.max(1));
    let (mut wrong, mut right_share) = (0, 0.0);
    run.set_state(init);
    for t in 0..steps {
        run.step(masks, t);
        after_step(t);
        if t + states >= steps && t + 1 < steps {
            let (w, a) = hard_errors(run.rollout(), target_channels, target);
            wrong += w;
            right_share += a;
        }
    }
    let (w, a) = hard_errors(run.rollout(), target_channels, target);
    (
        (wrong + w) as f64,
        (right_share + a) / states as f64,
    )
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

    /// Scoring the last K states counts the wrong bits that K rollouts, each scored at its
    /// own last state, count together; the accuracy is theirs on average.
    #[test]
    fn the_last_states_score_as_the_rollouts_that_end_at_each() {
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
        let each: Vec<(f64, f64)> = (4..=6).map(|s| at(Scoring::last(s))).collect();
        assert!(each.iter().any(|&(wrong, _)| wrong > 0.0), "{each:?}");
        let (wrong, accuracy) = at(Scoring {
            steps: 6,
            last_states: 3,
        });
        assert_eq!(wrong, each.iter().map(|e| e.0).sum::<f64>());
        let mean = each.iter().map(|e| e.1).sum::<f64>() / 3.0;
        assert!((accuracy - mean).abs() < 1e-12, "{accuracy} vs {mean}");
        // More states than steps score them all; one state is the last step's.
        let all = at(Scoring {
            steps: 6,
            last_states: 99,
        });
        let every: f64 = (1..=6).map(|s| at(Scoring::last(s)).0).sum();
        assert_eq!(all.0, every);
        assert_eq!(at(Scoring { steps: 6, last_states: 1 }), each[2]);
    }
}
