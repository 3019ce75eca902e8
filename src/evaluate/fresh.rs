//! How a trained model does on inputs it did not train on. A training batch entirely right
//! does not pin a rule down (two grids of the checkerboard leave room for wrong rules), so
//! runs are also scored on every input the task has, where there are few enough (Game of
//! Life's 512 boards), or else on a fixed set of fresh grids.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::automaton::grid::Grids;
use crate::evaluate::hard::HardEvaluator;
use crate::model::network::Model;
use crate::tasks;

/// How many fresh grids score a model, and their seed: the grids of
/// `logicars eval --model M --seed 99 --batch 16`.
pub const FRESH_GRIDS: usize = 16;
pub const FRESH_SEED: u64 = 99;

/// What [`fresh_check`] measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FreshCheck {
    /// The grids scored.
    pub grids: usize,
    /// Whether they were every input the task has.
    pub every_input: bool,
    /// The share of target bits right.
    pub accuracy: f64,
}

impl FreshCheck {
    /// Every bit right.
    pub fn exact(&self) -> bool {
        self.accuracy == 1.0
    }
}

/// Scores `model` at its task's size and steps on every input the task has, where there
/// are few enough, or else on the [`FRESH_GRIDS`] grids of [`FRESH_SEED`].
pub fn fresh_check(model: &Model) -> FreshCheck {
    let c = &model.config;
    if let Some(init) = tasks::exhaustive_init(c) {
        return FreshCheck {
            grids: init.batch,
            every_input: true,
            accuracy: accuracy_on(model, &init),
        };
    }
    let mut rng = ChaCha8Rng::seed_from_u64(FRESH_SEED);
    let (init, masks) = tasks::eval_batch(c, FRESH_GRIDS, (c.height, c.width), c.steps, &mut rng);
    // A few grids at a time: the hard rollout's memory grows with the grids, and a
    // training run checks its model while it still holds its own buffers.
    let shape = (init.height, init.width);
    let mut hard = HardEvaluator::new(model, GRIDS_AT_ONCE, shape, c.steps);
    let masks = masks.map(|m| m.for_batch(GRIDS_AT_ONCE));
    let wrong: f64 = (0..FRESH_GRIDS)
        .step_by(GRIDS_AT_ONCE)
        .map(|first| {
            let grids = init.sub_batch(first, GRIDS_AT_ONCE);
            hard.score(&grids, masks.as_ref(), |_| {}).0
        })
        .sum();
    let bits = (FRESH_GRIDS * init.height * init.width * c.target_channels.len()) as f64;
    FreshCheck {
        grids: FRESH_GRIDS,
        every_input: false,
        accuracy: 1.0 - wrong / bits,
    }
}

/// Grids per rollout of [`fresh_check`]; they divide [`FRESH_GRIDS`].
const GRIDS_AT_ONCE: usize = 2;
const _: () = assert!(FRESH_GRIDS.is_multiple_of(GRIDS_AT_ONCE));

/// The share of target bits right over every input the task has, where there are few
/// enough to try them all (Game of Life's 512 boards); none for other tasks.
pub fn every_input_accuracy(model: &Model) -> Option<f64> {
    Some(accuracy_on(model, &tasks::exhaustive_init(&model.config)?))
}

/// Whether the model is right on every input the task has, where there are few enough
/// to try them all (Game of Life's 512 boards); true for other tasks.
pub fn all_boards_right(model: &Model) -> bool {
    every_input_accuracy(model).is_none_or(|accuracy| accuracy == 1.0)
}

/// The hard circuit's accuracy on `init` at the task's steps (a synchronous task).
fn accuracy_on(model: &Model, init: &Grids) -> f64 {
    let shape = (init.height, init.width);
    let steps = model.config.steps;
    HardEvaluator::new(model, init.batch, shape, steps)
        .score(init, None, |_| {})
        .1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::batch::{evaluate, SoftLoss};
    use crate::model::config::{ModelConfig, TrainSettings};
    use crate::model::task::TaskKind;
    use crate::tasks::preset;

    /// The model a run of the preset starts from (as training builds it).
    fn fresh_model(mut config: ModelConfig, settings: &TrainSettings) -> Result<Model, ()> {
        config.parametrization = settings.recipe.parametrization;
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
        let mut model = Model::new(config, &mut rng).map_err(|_| ())?;
        model.set_pass_through(settings.recipe.pass_through);
        Ok(model)
    }

    /// Checking a few grids at a time scores what one rollout of all of them scores.
    #[test]
    fn the_check_in_parts_equals_one_rollout_of_every_grid() {
        for task in [TaskKind::Checkerboard, TaskKind::CheckerboardAsync] {
            let (config, settings) = preset(task, true);
            let mut model = fresh_model(config, &settings).unwrap();
            // Mixed ops, so the grids are scored differently.
            for (i, gate) in model.logits.iter_mut().enumerate() {
                gate[i % gate.len()] += 20.0;
            }
            let c = &model.config;
            let mut rng = ChaCha8Rng::seed_from_u64(FRESH_SEED);
            let size = (c.height, c.width);
            let (init, masks) = tasks::eval_batch(c, FRESH_GRIDS, size, c.steps, &mut rng);
            let skip = SoftLoss::Skip;
            let whole = evaluate(&model, &init, c.steps, masks.as_ref(), skip, |_, _| {});
            let check = fresh_check(&model);
            assert!(!check.every_input);
            assert!(whole.accuracy > 0.0 && whole.accuracy < 1.0, "{task:?}");
            assert!(
                (check.accuracy - whole.accuracy).abs() < 1e-12,
                "{task:?}: {} against {}",
                check.accuracy,
                whole.accuracy
            );
        }
    }

    #[test]
    fn game_of_life_is_checked_on_every_board() {
        let (config, settings) = preset(TaskKind::Gol, true);
        let model = fresh_model(config, &settings).unwrap();
        let check = fresh_check(&model);
        assert!(check.every_input);
        assert_eq!(check.grids, 512);
    }
}
