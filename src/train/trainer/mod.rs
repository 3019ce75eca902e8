//! One epoch = one optimizer step on a fresh batch; the loop runs epochs and reports.

use std::ops::ControlFlow;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::automaton::grid::Grids;
use crate::automaton::masks::FireMasks;
use crate::automaton::soft::ActivationMemory;
use crate::error::ConfigError;
use crate::kernels::parameters::Forward;
use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::gates::NUM_OPS;
use crate::model::network::Model;
use crate::model::parametrization::Parametrization;
use crate::tasks;
use crate::train::best::{BestModel, Keep};
use crate::train::error::TrainError;
use crate::train::objective::{CompiledWiring, Gradient, Metrics, Objective};
use crate::train::starts::{self, Progress, Rival};
use crate::train::state::{Choice, RngState, TrainerState};

/// What one epoch measured (before its optimizer step).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EpochMetrics {
    pub epoch: usize,
    pub metrics: Metrics,
}

/// The outcome of a whole run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrainSummary {
    pub epochs: usize,
    pub last: Option<EpochMetrics>,
    /// The first epoch whose hard loss was 0.
    pub first_perfect_epoch: Option<usize>,
}

impl TrainSummary {
    /// The summary of a run's epochs, in order.
    pub fn of<'a>(history: impl IntoIterator<Item = &'a EpochMetrics>) -> Self {
        let mut summary = TrainSummary::default();
        history.into_iter().for_each(|m| summary.record(m));
        summary
    }

    /// Adds the next epoch.
    pub fn record(&mut self, m: &EpochMetrics) {
        if m.metrics.hard_loss == 0.0 && self.first_perfect_epoch.is_none() {
            self.first_perfect_epoch = Some(m.epoch);
        }
        self.epochs = m.epoch;
        self.last = Some(*m);
    }
}

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
    /// The smaller grids of the recipe's curriculum, when it has one.
    curriculum: Option<Curriculum>,
    /// Initial grids of every epoch, when replaying a run instead of drawing them.
    given_batches: Option<Vec<Grids>>,
    /// The last epoch that completed.
    epochs_done: usize,
    /// The recipe's other starts, until the run chooses among them; the model is the
    /// one that led after the last epoch.
    rivals: Vec<Rival>,
    /// The start the run went on with, once it chose.
    chosen: Option<Choice>,
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
        let mut trainer = Self::one_start(model, settings, memory);
        if trainer.curriculum.is_some() {
            let (config, settings) = (&trainer.model.config, &trainer.settings);
            trainer.rivals = (1..settings.recipe.starts)
                .map(|start| rival(start, config, settings))
                .collect();
        }
        trainer
    }

    /// The trainer of `model` as start 0, without the recipe's other starts.
    fn one_start(model: Model, settings: TrainSettings, memory: ActivationMemory) -> Self {
        let objective = new_objective(&model, &model.config, &settings, memory);
        let curriculum = settings
            .curriculum_config(&model.config)
            .map(|config| Curriculum {
                objective: new_objective(&model, &config, &settings, memory),
                config,
            });
        Trainer {
            progress: Progress::fresh(0, &model, &settings),
            objective,
            settings,
            noise: Vec::new(),
            hard_gates: Vec::new(),
            curriculum,
            given_batches: None,
            epochs_done: 0,
            rivals: Vec::new(),
            chosen: None,
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
        let mut trainer = Self::one_start(model, settings, ActivationMemory::default());
        trainer.progress.start = state.start;
        trainer
            .progress
            .restore(state.optimizer, state.data_rng, state.noise_rng, state.best)?;
        for saved in state.rivals {
            let (config, settings) = (&trainer.model.config, &trainer.settings);
            let mut rival = rival(saved.start, config, settings);
            rival.restore(saved)?;
            trainer.rivals.push(rival);
        }
        trainer.epochs_done = state.epochs_done;
        trainer.chosen = state.chosen;
        Ok(trainer)
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
            rivals: self.rivals.iter().map(Rival::state).collect(),
            chosen: self.chosen,
        }
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
        self.given_batches = Some(batches);
        Ok(self)
    }

    /// The settings the run was started with.
    pub fn settings(&self) -> &TrainSettings {
        &self.settings
    }

    /// This epoch's initial grids: the given batch, or a fresh draw.
    fn initial_grids(&mut self, epoch: usize) -> Result<Grids, TrainError> {
        match &self.given_batches {
            Some(batches) => batches.get(epoch - 1).cloned().ok_or(TrainError::NoBatch {
                epoch,
                given: batches.len(),
            }),
            None => {
                let config = &self.model.config;
                let batch = self.settings.batch;
                Ok(tasks::training_init(
                    config,
                    batch,
                    &mut self.progress.data_rng,
                ))
            }
        }
    }

    /// This epoch's noise on every gate's parameters, when the recipe asks for it.
    fn draw_gate_noise(&mut self) {
        let scale = self.settings.recipe.gate_noise;
        if scale == 0.0 {
            return;
        }
        let parametrization = self.model.config.parametrization;
        let rng = &mut self.progress.noise_rng;
        self.noise.clear();
        self.noise
            .extend((0..self.model.gate_count()).map(|_| parametrization.noise(scale, &mut *rng)));
    }

    /// This epoch's gates that run their hard op, when the recipe asks for some: each
    /// gate on its own with the recipe's probability, from the noise stream (after the
    /// gate noise), so the batches stay as they were.
    fn draw_hard_gates(&mut self) {
        let share = self.settings.recipe.hard_gates;
        if share == 0.0 {
            return;
        }
        let rng = &mut self.progress.noise_rng;
        self.hard_gates.clear();
        self.hard_gates
            .extend((0..self.model.gate_count()).map(|_| rng.random_bool(f64::from(share))));
    }

    /// Draws a batch, measures soft and hard loss, and takes one optimizer step.
    /// On a non-finite loss, or a step that makes logits non-finite, the model is left
    /// as it was.
    ///
    /// In the recipe's curriculum the soft loss and the gradient come from a batch of
    /// the curriculum's smaller grids, drawn after the task's own batch, on which the
    /// hard circuit is scored: the hard loss and accuracy are always at the task's size.
    pub fn epoch(&mut self, epoch: usize) -> Result<EpochMetrics, TrainError> {
        let metrics = if self.rivals.is_empty() {
            self.start_epoch(epoch)?
        } else {
            self.epoch_of_starts(epoch)?
        };
        Ok(EpochMetrics { epoch, metrics })
    }

    /// [`Self::epoch`] of the model's own start.
    fn start_epoch(&mut self, epoch: usize) -> Result<Metrics, TrainError> {
        let init = self.initial_grids(epoch)?;
        let config = &self.model.config;
        let target = tasks::target(config, &init, config.steps);
        let masks = tasks::fire_masks(config, &init, config.steps, &mut self.progress.data_rng);
        let s = &self.settings;
        let forward = match s.recipe.hardness(epoch, s.epochs) {
            0.0 => Forward::Soft,
            hardness => Forward::StraightThrough(hardness),
        };
        let sharpness = s.recipe.sharpness(epoch, s.epochs);
        let small =
            s.recipe.curriculum_side(epoch, s.epochs).is_some() && self.curriculum.is_some();
        if !small {
            // Its buffers are not needed again; freeing them keeps the peak memory of a
            // run that of its larger objective.
            self.curriculum = None;
        }
        self.draw_gate_noise();
        self.draw_hard_gates();
        let metrics = if small {
            self.run_curriculum(forward, sharpness, &init, &target, masks.as_ref())
        } else {
            let objective = &mut self.objective;
            prepare(objective, forward, sharpness, &self.noise, &self.hard_gates);
            objective.run(
                &self.model,
                &init,
                &target,
                masks.as_ref(),
                Gradient::Compute,
            )
        };
        if !metrics.soft_loss.is_finite() {
            let loss = metrics.soft_loss;
            return Err(TrainError::NonFinite { epoch, loss });
        }
        self.step(epoch, small)?;
        // The step kept the parameters that this epoch scored in `previous_logits`.
        let p = &mut self.progress;
        BestModel::offer(&mut p.best, epoch, metrics.hard_loss, &p.previous_logits);
        self.epochs_done = epoch;
        Ok(metrics)
    }

    /// Runs `epoch` for every start; the one that leads ([`starts::leader`]) becomes the
    /// model, and the run chooses it when it is perfect or the curriculum ends. A start
    /// that fails is dropped while others remain.
    fn epoch_of_starts(&mut self, epoch: usize) -> Result<Metrics, TrainError> {
        let mut rivals = std::mem::take(&mut self.rivals);
        let own = (self.progress.start, self.start_epoch(epoch));
        let mut results = vec![own];
        for rival in &mut rivals {
            self.swap(rival);
            results.push((self.progress.start, self.start_epoch(epoch)));
            self.swap(rival);
        }
        let scored: Vec<(usize, Metrics)> = results
            .iter()
            .filter_map(|(start, r)| r.as_ref().ok().map(|m| (*start, *m)))
            .collect();
        let Some(lead) = starts::leader(&scored) else {
            let (_, own) = results.swap_remove(0);
            return own;
        };
        if let Some(i) = rivals.iter().position(|r| r.progress.start == lead) {
            self.swap(&mut rivals[i]);
        }
        let ok = |start: usize| scored.iter().any(|&(s, _)| s == start);
        rivals.retain(|r| ok(r.progress.start));
        let metrics = scored.iter().find(|&&(s, _)| s == lead).map(|&(_, m)| m);
        let metrics = metrics.expect("the leader was scored");
        let s = &self.settings;
        let curriculum_ends = s.recipe.curriculum_side(epoch + 1, s.epochs).is_none();
        let perfect = metrics.hard_loss == 0.0;
        if perfect || curriculum_ends || rivals.is_empty() {
            self.chosen = Some(Choice {
                start: lead,
                seed: starts::start_seed(s.seed, lead),
                epoch,
                perfect,
            });
        } else {
            self.rivals = rivals;
        }
        Ok(metrics)
    }

    /// Exchanges the model, its progress and the wiring the objectives run with a
    /// rival's.
    fn swap(&mut self, rival: &mut Rival) {
        std::mem::swap(&mut self.model, &mut rival.model);
        std::mem::swap(&mut self.progress, &mut rival.progress);
        let [task_size, small] = &mut rival.wirings;
        self.objective.swap_wiring(task_size);
        if let Some(curriculum) = &mut self.curriculum {
            curriculum.objective.swap_wiring(small);
        }
    }

    /// The soft loss and gradient of a batch of the curriculum's smaller grids, drawn
    /// after the task's batch, with the hard loss and accuracy on the task's batch.
    fn run_curriculum(
        &mut self,
        forward: Forward,
        sharpness: f32,
        init: &Grids,
        target: &Grids,
        masks: Option<&FireMasks>,
    ) -> Metrics {
        let curriculum = self.curriculum.as_mut().expect("a curriculum epoch");
        let config = &curriculum.config;
        let data_rng = &mut self.progress.data_rng;
        let small_init = tasks::training_init(config, self.settings.batch, data_rng);
        let small_target = tasks::target(config, &small_init, config.steps);
        let small_masks = tasks::fire_masks(config, &small_init, config.steps, data_rng);
        let objective = &mut curriculum.objective;
        prepare(objective, forward, sharpness, &self.noise, &self.hard_gates);
        let model = &self.model;
        let soft_loss =
            objective.soft_gradient(model, &small_init, &small_target, small_masks.as_ref());
        let (hard_loss, accuracy) = self.objective.hard_score(model, init, target, masks);
        Metrics {
            soft_loss,
            hard_loss,
            accuracy,
        }
    }

    /// The optimizer step on the gradient of this epoch's objective (the curriculum's
    /// when `small`), with the recipe's discreteness penalty; a step that makes logits
    /// non-finite is undone.
    fn step(&mut self, epoch: usize, small: bool) -> Result<(), TrainError> {
        let objective = match self.curriculum.as_mut().filter(|_| small) {
            Some(curriculum) => &mut curriculum.objective,
            None => &mut self.objective,
        };
        let recipe = &self.settings.recipe;
        let parametrization = self.model.config.parametrization;
        let grads = objective.logit_grads_mut();
        add_discreteness_penalty(
            recipe.discreteness,
            parametrization,
            &self.model.logits,
            grads,
        );
        let p = &mut self.progress;
        p.previous_logits.copy_from_slice(&self.model.logits);
        let s = &self.settings;
        let rate = s.recipe.learning_rate(s.learning_rate, epoch, s.epochs);
        p.optimizer.set_learning_rate(rate);
        p.optimizer
            .step(&mut self.model.logits, objective.logit_grads());
        if self.model.logits.iter().flatten().any(|l| !l.is_finite()) {
            self.model.logits.copy_from_slice(&p.previous_logits);
            return Err(TrainError::NonFiniteParameters { epoch });
        }
        Ok(())
    }
}

/// The smaller grids that a recipe's curriculum trains on first, and their objective.
struct Curriculum {
    config: ModelConfig,
    objective: Objective,
}

/// Sets how the next soft rollout of `objective` runs this epoch.
fn prepare(
    objective: &mut Objective,
    forward: Forward,
    sharpness: f32,
    noise: &[[f32; NUM_OPS]],
    hard_gates: &[bool],
) {
    objective.set_forward(forward);
    objective.set_sharpness(sharpness);
    objective.set_noise(noise);
    objective.set_hard_gates(hard_gates);
}

/// Adds `lambda * D` per gate to the gradient (nothing when lambda is 0).
fn add_discreteness_penalty(
    lambda: f32,
    parametrization: Parametrization,
    logits: &[[f32; NUM_OPS]],
    grads: &mut [[f32; NUM_OPS]],
) {
    if lambda == 0.0 {
        return;
    }
    for (g, params) in grads.iter_mut().zip(logits) {
        let (_, penalty) = parametrization.discreteness(params);
        for (g, p) in g.iter_mut().zip(penalty) {
            *g += lambda * p;
        }
    }
}

/// A model of `config` wired from the seed and initialised as the recipe says (whose
/// parametrization replaces the config's); the settings are checked against the task.
pub fn fresh_model(
    mut config: ModelConfig,
    settings: &TrainSettings,
) -> Result<Model, ConfigError> {
    settings.validate(&config)?;
    config.parametrization = settings.recipe.parametrization;
    seeded_model(config, settings, settings.seed)
}

/// A model of `config` wired and initialised from `seed` with the recipe's pass-through.
fn seeded_model(
    config: ModelConfig,
    settings: &TrainSettings,
    seed: u64,
) -> Result<Model, ConfigError> {
    let mut model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(seed))?;
    model.set_pass_through(settings.recipe.pass_through);
    Ok(model)
}

/// Start `start` of the run, fresh: its model of the run's `config` wired and
/// initialised from the start's own seed.
fn rival(start: usize, config: &ModelConfig, settings: &TrainSettings) -> Rival {
    let seed = starts::start_seed(settings.seed, start);
    let model = seeded_model(config.clone(), settings, seed)
        .expect("the run's model was built from this config");
    let wiring = CompiledWiring::of(&model);
    Rival {
        progress: Progress::fresh(start, &model, settings),
        wirings: [wiring.clone(), wiring],
        model,
    }
}

/// The objective of `model` (compiled to its wiring) on the grids of `config`.
fn new_objective(
    model: &Model,
    config: &ModelConfig,
    settings: &TrainSettings,
    memory: ActivationMemory,
) -> Objective {
    let shape = (config.height, config.width);
    let mut objective = Objective::new(model, settings.batch, shape, config.steps, memory);
    objective.set_loss_steps(settings.recipe.loss_steps);
    objective
}

/// Trains a fresh [`Trainer`] for `settings.epochs` epochs; see [`run`].
pub fn train(
    model: Model,
    settings: TrainSettings,
    mut observe: impl FnMut(&EpochMetrics),
) -> (Trainer, TrainSummary, Option<TrainError>) {
    run(Trainer::new(model, settings), |_, m| {
        observe(m);
        ControlFlow::Continue(())
    })
}

/// Runs the trainer's remaining epochs, calling `observe` after each; `observe` can stop
/// the run after any epoch ([`Trainer::epochs_done`] then says where).
///
/// Returns the summary of the epochs run here and the trainer (whose model is the last
/// good one) even when a non-finite loss stopped the run early, so the caller can save it.
pub fn run(
    mut trainer: Trainer,
    mut observe: impl FnMut(&Trainer, &EpochMetrics) -> ControlFlow<()>,
) -> (Trainer, TrainSummary, Option<TrainError>) {
    let mut summary = TrainSummary::default();
    for epoch in trainer.epochs_done + 1..=trainer.settings.epochs {
        match trainer.epoch(epoch) {
            Ok(metrics) => {
                summary.record(&metrics);
                if observe(&trainer, &metrics).is_break() {
                    break;
                }
            }
            Err(e) => return (trainer, summary, Some(e)),
        }
    }
    (trainer, summary, None)
}
