//! What a run starts from: its model wired and initialised from the seed, the recipe's
//! other starts, and the objectives they train on.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::automaton::soft::ActivationMemory;
use crate::error::ConfigError;
use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::network::Model;
use crate::train::objective::Objective;
use crate::train::starts;

/// The smaller grids that a recipe's curriculum trains on first, and their objective.
pub(super) struct Curriculum {
    pub config: ModelConfig,
    pub objective: Objective,
}

/// A model of `config` wired from the seed and initialised as the recipe says (whose
/// parametrization replaces the config's); the settings are checked against the task.
pub fn fresh_model(
    mut config: ModelConfig,
    settings: &TrainSettings,
) -> Result<Model, ConfigError> {
    crate::tasks::knobs::validate(&config, settings)?;
    config.parametrization = settings.recipe.parametrization;
    seeded_model(config, settings, settings.attempt_seed())
}

/// A model of `config` wired and initialised from `seed` with the recipe's pass-through.
fn seeded_model(
    config: ModelConfig,
    settings: &TrainSettings,
    seed: u64,
) -> Result<Model, ConfigError> {
    let mut model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(seed))?;
    model.set_pass_through(settings.recipe.pass_through);
    model.start_parity_kernels(settings.recipe.parity_kernels, settings.recipe.pass_through);
    Ok(model)
}

/// The model of start `start` of the run, fresh: of the run's `config`, wired and
/// initialised from the start's own seed.
pub(super) fn start_model(start: usize, config: &ModelConfig, settings: &TrainSettings) -> Model {
    let seed = starts::start_seed(settings.attempt_seed(), start);
    seeded_model(config.clone(), settings, seed)
        .expect("the run's model was built from this config")
}

/// The objective of `model` (compiled to its wiring) on the grids of `config`, its
/// rollout running the recipe's hold steps when `hold`.
pub(super) fn new_objective(
    model: &Model,
    config: &ModelConfig,
    settings: &TrainSettings,
    memory: ActivationMemory,
    hold: bool,
) -> Objective {
    let shape = (config.height, config.width);
    let steps = settings.rollout_steps(config, hold);
    let mut objective = Objective::new(model, settings.batch, shape, steps, memory);
    objective.set_loss_steps(settings.loss_states(hold));
    objective.set_stillness(settings.recipe.stillness);
    objective.set_on_weight(settings.recipe.on_weight);
    objective.keep_states_in_unit(settings.recipe.unit_states);
    let holding = hold && settings.recipe.hold_steps > 0;
    objective.score_hard_also_at(holding.then_some(config.steps));
    objective
}
