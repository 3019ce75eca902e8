//! The trainer: a model and everything its run carries from epoch to epoch. Its parts:
//! `setup` builds a run's models and objectives, `epoch` runs one epoch (one optimizer
//! step on a fresh batch), and [`epoch_loop`] runs the epochs and reports.

mod epoch;
pub mod epoch_loop;
mod setup;

use crate::automaton::grid::Grids;
use crate::automaton::soft::ActivationMemory;
use crate::error::ConfigError;
use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::gates::NUM_OPS;
use crate::model::network::Model;
use crate::train::best::{BestModel, Keep};
use crate::train::error::TrainError;
use crate::train::objective::Objective;
use crate::train::pool::{self, PoolState, SamplePool};
use crate::train::starts::Progress;
use crate::train::state::{Choice, RngState, StartState, TrainerState};

pub use epoch_loop::{run, train, EpochMetrics, TrainSummary};
pub use setup::fresh_model;
use setup::{new_objective, start_model, Curriculum};

/// Everything one training run reuses from epoch to epoch. The soft forward and backward
/// allocate nothing; each epoch builds only its batch (grids, targets, fire masks) and the
/// hard op table (about 100 KB for the reference model).
pub struct Trainer {
    pub model: Model,
    settings: TrainSettings,
    objective: Objective,
    /// What the model's start carries from epoch to epoch: optimizer, generators, best.
    progress: Progress,
    noise: Vec<[f32; NUM_OPS]>,
    /// This epoch's gates that run their hard op in the soft rollout.
    hard_gates: Vec<bool>,
    /// The other grids of the recipe's curriculum while it lasts, or of its finish once
    /// that has begun.
    curriculum: Option<Curriculum>,
    /// The first epoch this trainer ran on the finish's grids, which `curriculum` then
    /// holds ([`Self::enter_finish`]).
    finishing: Option<usize>,
    /// Initial grids of every epoch, when replaying a run instead of drawing them.
    given_batches: Option<Vec<Grids>>,
    /// The last epoch that completed.
    epochs_done: usize,
    /// The recipe's other starts, each a trainer of its own (its model, progress and
    /// objectives), until the run chooses among them; this trainer's start is the one
    /// that led after the last epoch.
    rivals: Vec<Trainer>,
    /// The start the run went on with, once it chose.
    chosen: Option<Choice>,
    /// Whether the objectives run the recipe's hold steps (from its hold share on).
    holding: bool,
    /// How activations are kept, for objectives built later (the hold phase's).
    memory: ActivationMemory,
    /// The states batches are drawn from, when the recipe has a sample pool.
    pool: Option<SamplePool>,
}

impl Trainer {
    /// A fresh model of `config` wired and initialised from the seed, as the recipe says
    /// (its parametrization replaces the config's), ready to train.
    pub fn from_seed(config: ModelConfig, settings: TrainSettings) -> Result<Self, ConfigError> {
        Ok(Self::new(fresh_model(config, &settings)?, settings))
    }

    pub fn new(model: Model, settings: TrainSettings) -> Self {
        Self::with_memory(model, settings, ActivationMemory::default())
    }

    pub fn with_memory(model: Model, settings: TrainSettings, memory: ActivationMemory) -> Self {
        let mut trainer = Self::one_start(0, model, settings, memory);
        if trainer.settings.recipe.starts_can_be_chosen() {
            trainer.rivals = (1..trainer.settings.recipe.starts)
                .map(|start| trainer.rival(start))
                .collect();
        }
        trainer
    }

    /// Start `start` of this trainer's run, fresh: its model wired and initialised from
    /// the start's own seed, with objectives of its own so that the starts' epochs can
    /// run side by side.
    fn rival(&self, start: usize) -> Trainer {
        let model = start_model(start, &self.model.config, &self.settings);
        Self::one_start(start, model, self.settings.clone(), self.memory)
    }

    /// The trainer of `model` as start `start`, without the recipe's other starts.
    fn one_start(
        start: usize,
        model: Model,
        settings: TrainSettings,
        memory: ActivationMemory,
    ) -> Self {
        let holding = settings.recipe.holds_at(1, settings.epochs);
        let objective = new_objective(&model, &model.config, &settings, memory, holding);
        let curriculum = settings
            .curriculum_config(&model.config)
            .map(|config| Curriculum {
                objective: new_objective(&model, &config, &settings, memory, holding),
                config,
            });
        let pool_seed = || pool::seed_state(&pool::pool_config(&model.config, &settings));
        let pool =
            (settings.recipe.pool > 0).then(|| SamplePool::new(settings.recipe.pool, &pool_seed()));
        Trainer {
            pool,
            progress: Progress::fresh(start, &model, &settings),
            objective,
            settings,
            noise: Vec::new(),
            hard_gates: Vec::new(),
            curriculum,
            finishing: None,
            given_batches: None,
            epochs_done: 0,
            rivals: Vec::new(),
            chosen: None,
            holding,
            memory,
            model,
        }
    }

    /// Continues a run from `model` (the model after `state.epochs_done` epochs) and the
    /// state the trainer had then.
    pub fn resume(
        model: Model,
        settings: TrainSettings,
        state: TrainerState,
    ) -> Result<Self, TrainError> {
        let memory = ActivationMemory::default();
        let mut trainer = Self::one_start(state.start, model, settings, memory);
        trainer
            .progress
            .restore(state.optimizer, state.data_rng, state.noise_rng, state.best)?;
        trainer.restore_pool(state.pool)?;
        for saved in state.rivals {
            let mut rival = trainer.rival(saved.start);
            rival.restore_start(saved)?;
            trainer.rivals.push(rival);
        }
        trainer.epochs_done = state.epochs_done;
        trainer.chosen = state.chosen;
        Ok(trainer)
    }

    /// Puts a fresh rival (wired from its seed) where the checkpoint left its start.
    fn restore_start(&mut self, saved: StartState) -> Result<(), TrainError> {
        let gates = self.model.logits.len();
        if saved.logits.len() != gates {
            let saved = saved.logits.len();
            return Err(TrainError::StateMismatch { saved, gates });
        }
        self.model.logits = saved.logits;
        let p = &mut self.progress;
        p.previous_logits.clone_from(&self.model.logits);
        p.restore(saved.optimizer, saved.data_rng, saved.noise_rng, saved.best)?;
        self.restore_pool(saved.pool)
    }

    /// Puts the checkpoint's sample pool in place of the fresh one; a checkpoint must
    /// have one exactly when the recipe does.
    fn restore_pool(&mut self, saved: Option<PoolState>) -> Result<(), TrainError> {
        let size = self.settings.recipe.pool;
        self.pool = match saved {
            None if size == 0 => None,
            Some(saved) if size > 0 => {
                let config = pool::pool_config(&self.model.config, &self.settings);
                let seed = pool::seed_state(&config);
                let restored = SamplePool::restore(size, &seed, saved);
                Some(restored.ok_or(TrainError::PoolCheckpoint { pool: size })?)
            }
            _ => return Err(TrainError::PoolCheckpoint { pool: size }),
        };
        Ok(())
    }

    /// What a checkpoint needs besides the model to continue this run exactly.
    pub fn state(&self) -> TrainerState {
        let p = &self.progress;
        TrainerState {
            epochs_done: self.epochs_done,
            optimizer: p.optimizer.state().clone(),
            data_rng: RngState::of(&p.data_rng),
            noise_rng: RngState::of(&p.noise_rng),
            best: p.best.clone(),
            start: p.start,
            rivals: self.rivals.iter().map(Trainer::start_state).collect(),
            chosen: self.chosen,
            pool: self.pool.as_ref().map(SamplePool::state),
        }
    }

    /// What a checkpoint keeps of a rival: its logits (the wiring follows from its seed),
    /// its progress and its pool.
    fn start_state(&self) -> StartState {
        let p = &self.progress;
        StartState {
            start: p.start,
            logits: self.model.logits.clone(),
            optimizer: p.optimizer.state().clone(),
            data_rng: RngState::of(&p.data_rng),
            noise_rng: RngState::of(&p.noise_rng),
            best: p.best.clone(),
            pool: self.pool.as_ref().map(SamplePool::state),
        }
    }

    /// The first epoch this trainer ran on the recipe's finish (for a resumed run, the
    /// first since it resumed), once it has.
    pub fn finishing_from(&self) -> Option<usize> {
        self.finishing
    }

    /// The start the run went on with, once it chose among the recipe's starts.
    pub fn chosen(&self) -> Option<&Choice> {
        self.chosen.as_ref()
    }

    /// The parameters whose hard circuit did best on its training batch so far, and the
    /// epoch that scored them (none before the first epoch).
    pub fn best(&self) -> Option<&BestModel> {
        self.progress.best.as_ref()
    }

    /// The model to keep at the end of a run: the best so far, or the last.
    pub fn kept_model(&self, keep: Keep) -> Model {
        match (keep, &self.progress.best) {
            (Keep::Best, Some(best)) => Model {
                logits: best.logits.clone(),
                ..self.model.clone()
            },
            _ => self.model.clone(),
        }
    }

    /// The last epoch that completed (0 before the first).
    pub fn epochs_done(&self) -> usize {
        self.epochs_done
    }

    /// Trains on these initial grids, one batch per epoch in order, instead of drawing
    /// them (async fire masks are still drawn from the seed).
    pub fn with_batches(mut self, batches: Vec<Grids>) -> Result<Self, TrainError> {
        if self.curriculum.is_some() {
            return Err(TrainError::BatchesWithCurriculum);
        }
        if self.pool.is_some() {
            return Err(TrainError::BatchesWithPool);
        }
        if self.settings.recipe.has_finish() {
            return Err(TrainError::BatchesWithFinish);
        }
        let c = &self.model.config;
        let (batch, height, width, channels) = (self.settings.batch, c.height, c.width, c.channels);
        if let Some(b) = batches
            .iter()
            .find(|b| (b.batch, b.height, b.width, b.channels) != (batch, height, width, channels))
        {
            let got = format!(
                "{} grid(s) of {}x{}x{}",
                b.batch, b.height, b.width, b.channels
            );
            return Err(TrainError::BatchShape {
                got,
                batch,
                height,
                width,
                channels,
            });
        }
        // Every start trains on the given batches, as it would alone.
        for rival in &mut self.rivals {
            rival.given_batches = Some(batches.clone());
        }
        self.given_batches = Some(batches);
        Ok(self)
    }

    /// The settings the run was started with.
    pub fn settings(&self) -> &TrainSettings {
        &self.settings
    }
}
