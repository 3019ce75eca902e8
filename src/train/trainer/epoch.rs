//! One epoch of a run: a fresh batch, its soft and hard scores, one optimizer step; with
//! several starts, their epochs run side by side and the one that leads goes on.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::automaton::grid::Grids;
use crate::automaton::masks::FireMasks;
use crate::kernels::parameters::Forward;
use crate::kernels::subnormals::Flushing;
use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::gates::NUM_OPS;
use crate::model::parametrization::Parametrization;
use crate::tasks;
use crate::train::best::BestModel;
use crate::train::error::TrainError;
use crate::train::objective::{Gradient, Metrics, Objective};
use crate::train::pool::{self, Drawn};
use crate::train::starts;
use crate::train::state::Choice;
use crate::train::trainer::setup;
use crate::train::trainer::{EpochMetrics, Trainer};

impl Trainer {
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
        let _flushing = Flushing::begin();
        let metrics = if self.rivals.is_empty() {
            self.start_epoch(epoch)?
        } else {
            self.epoch_of_starts(epoch)?
        };
        Ok(EpochMetrics { epoch, metrics })
    }

    /// [`Self::epoch`] of the model's own start.
    fn start_epoch(&mut self, epoch: usize) -> Result<Metrics, TrainError> {
        self.enter_hold_phase(epoch);
        let drawn = self.draw_from_pool(epoch);
        // A pool with a curriculum holds the curriculum's grids (it covers the whole run).
        let (init, pool_init) = match &drawn {
            Some(drawn) if self.curriculum.is_some() => {
                (self.initial_grids(epoch)?, Some(drawn.grids.clone()))
            }
            Some(drawn) => (drawn.grids.clone(), None),
            None => (self.initial_grids(epoch)?, None),
        };
        let config = &self.model.config;
        let target = tasks::target(config, &init, config.steps);
        let s = &self.settings;
        let masks = epoch_masks(s, self.holding, config, &init, &mut self.progress.data_rng);
        let forward = match s.recipe.hardness(epoch, s.epochs) {
            0.0 => Forward::Soft,
            hardness => Forward::StraightThrough(hardness),
        };
        let sharpness = s.recipe.sharpness(epoch, s.epochs);
        let small = self.on_other_grids(epoch);
        self.draw_gate_noise();
        self.draw_hard_gates();
        let metrics = if small {
            let task = (&init, &target, masks.as_ref());
            self.run_curriculum(forward, sharpness, task, pool_init)
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
            let objective = match &self.curriculum {
                Some(curriculum) if small => &curriculum.objective,
                _ => &self.objective,
            };
            let overflow = objective.overflow();
            return Err(TrainError::NonFinite {
                epoch,
                loss,
                overflow,
            });
        }
        let metrics = match drawn {
            Some(drawn) => self.return_to_pool(drawn, metrics),
            None if self.pool.is_some() => self.scored_from_the_seed(metrics),
            None => metrics,
        };
        self.step(epoch, small)?;
        // The step kept the parameters that this epoch scored in `previous_logits`.
        let p = &mut self.progress;
        BestModel::offer(&mut p.best, epoch, metrics.hard_loss, &p.previous_logits);
        self.epochs_done = epoch;
        Ok(metrics)
    }

    /// The epoch's batch from the sample pool, when the recipe has one and `epoch` is
    /// past its `pool_from`.
    fn draw_from_pool(&mut self, epoch: usize) -> Option<Drawn> {
        let s = &self.settings;
        if !s.recipe.pools_at(epoch, s.epochs) {
            return None;
        }
        let pool = self.pool.as_ref()?;
        let r = &self.settings.recipe;
        let sizes = (self.settings.batch, r.pool_reseed, r.pool_damage);
        let config = &pool::pool_config(&self.model.config, &self.settings);
        let seed = pool::seed_state(config);
        let target = tasks::target(config, &seed, config.steps);
        let wrong = |grids: &Grids, b| pool::wrong_bits(config, &target, grids, b);
        Some(pool.draw(sizes, &seed, wrong, &mut self.progress.data_rng))
    }

    /// Writes the hard circuit's states after the task's steps from the drawn batch back
    /// to the pool (the parameters this epoch scored), and gives the epoch the hard loss
    /// and accuracy of growing from the seed.
    fn return_to_pool(&mut self, drawn: Drawn, metrics: Metrics) -> Metrics {
        let finals = pool::hard_finals(&self.model, &drawn.grids);
        let pool = self.pool.as_mut().expect("drawn from the pool");
        pool.write_back(&drawn.slots, &finals);
        self.scored_from_the_seed(metrics)
    }

    /// `metrics` with the hard loss and accuracy of growing from the seed, which a pool
    /// run reports in every epoch, before its pool phase too, so that its kept model is
    /// chosen by one measure.
    fn scored_from_the_seed(&self, metrics: Metrics) -> Metrics {
        let (hard_loss, accuracy) = pool::seed_score(&self.model);
        Metrics {
            hard_loss,
            accuracy,
            ..metrics
        }
    }

    /// Runs `epoch` for every start, the starts side by side on the pool's threads (each
    /// has its own objectives, and its epoch gives the same bits on any thread); the one
    /// that leads ([`starts::leader`]) becomes this trainer's start, and the run chooses it
    /// when it is perfect or its time to choose has come
    /// ([`Recipe::chooses_start_after`](crate::model::recipe::Recipe::chooses_start_after)).
    /// A start that fails is dropped while others remain.
    fn epoch_of_starts(&mut self, epoch: usize) -> Result<Metrics, TrainError> {
        let mut rivals = std::mem::take(&mut self.rivals);
        let mut results: Vec<(usize, Result<Metrics, TrainError>)> = {
            let mut all: Vec<&mut Trainer> = vec![&mut *self];
            all.extend(rivals.iter_mut());
            all.into_par_iter()
                .map(|start| (start.progress.start, start.start_epoch(epoch)))
                .collect()
        };
        let scored: Vec<(usize, Metrics)> = results
            .iter()
            .filter_map(|(start, r)| r.as_ref().ok().map(|m| (*start, *m)))
            .collect();
        let Some(lead) = starts::leader(&scored) else {
            let (_, own) = results.swap_remove(0);
            return own;
        };
        if let Some(i) = rivals.iter().position(|r| r.progress.start == lead) {
            // Neither holds rivals or a choice before it: the starts trade places whole.
            std::mem::swap(self, &mut rivals[i]);
        }
        let ok = |start: usize| scored.iter().any(|&(s, _)| s == start);
        rivals.retain(|r| ok(r.progress.start));
        let metrics = scored.iter().find(|&&(s, _)| s == lead).map(|&(_, m)| m);
        let metrics = metrics.expect("the leader was scored");
        let s = &self.settings;
        let time_to_choose = s.recipe.chooses_start_after(epoch, s.epochs);
        let perfect = metrics.hard_loss == 0.0;
        if perfect || time_to_choose || rivals.is_empty() {
            self.chosen = Some(Choice {
                start: lead,
                seed: starts::start_seed(s.attempt_seed(), lead),
                epoch,
                perfect,
            });
        } else {
            self.rivals = rivals;
        }
        Ok(metrics)
    }

    /// From the recipe's hold share on, the objective rolls out the hold steps too (built
    /// once, when the phase starts or a resumed run is in it). The best model so far was
    /// scored without them, so the phase's first epoch starts the best afresh: the run
    /// keeps a model that holds the target.
    fn enter_hold_phase(&mut self, epoch: usize) {
        let s = &self.settings;
        if s.recipe.hold_steps > 0 && epoch == s.recipe.first_hold_epoch(s.epochs) {
            // Each start's, as each start's epoch runs.
            self.progress.best = None;
        }
        if !self.holding && s.recipe.holds_at(epoch, s.epochs) {
            let (model, memory) = (&self.model, self.memory);
            self.objective = setup::new_objective(model, &model.config, s, memory, true);
            if let Some(curriculum) = &mut self.curriculum {
                let config = &curriculum.config;
                curriculum.objective = setup::new_objective(model, config, s, memory, true);
            }
            self.holding = true;
        }
    }

    /// Whether this epoch trains on the recipe's finish: from the epoch after the kept
    /// model's batch was first right, on its larger grids (built once, when the finish
    /// starts or a resumed run is in it). The switch is read from the kept model, which a
    /// checkpoint carries, so a resumed run switches where the unbroken run did.
    fn enter_finish(&mut self, epoch: usize) -> bool {
        let solved = self
            .progress
            .best
            .as_ref()
            .is_some_and(|b| b.hard_loss == 0.0);
        if !self.settings.recipe.has_finish() || !solved {
            return false;
        }
        if self.finishing.is_none() {
            // The curriculum's grids, if any, are done with: freed before the finish's
            // are built, so the two are never held at once.
            self.curriculum = None;
            let (model, s, memory) = (&self.model, &self.settings, self.memory);
            let config = s
                .finish_config(&model.config)
                .expect("the recipe has a finish");
            let objective = setup::new_objective(model, &config, s, memory, self.holding);
            self.curriculum = Some(setup::Curriculum { config, objective });
            self.finishing = Some(epoch);
        }
        true
    }

    /// Whether `epoch` trains on the curriculum's or the finish's grids rather than the
    /// task's; past the curriculum, its objective is freed.
    fn on_other_grids(&mut self, epoch: usize) -> bool {
        let s = &self.settings;
        let in_curriculum = s.recipe.in_curriculum(epoch, s.epochs);
        let small = match in_curriculum {
            true => self.curriculum.is_some() && s.recipe.on_curriculum_grids(epoch),
            false => self.enter_finish(epoch),
        };
        if !small && !in_curriculum {
            // Its buffers are not needed again; freeing them keeps the peak memory of a
            // run that of its larger objective.
            self.curriculum = None;
        }
        small
    }

    /// The soft loss and gradient of a batch of the curriculum's smaller grids, drawn
    /// after the task's batch, with the hard loss and accuracy on the task's batch.
    ///
    /// `pool_init` is the batch drawn from a pool of the curriculum's grids, if any.
    fn run_curriculum(
        &mut self,
        forward: Forward,
        sharpness: f32,
        (init, target, masks): (&Grids, &Grids, Option<&FireMasks>),
        pool_init: Option<Grids>,
    ) -> Metrics {
        let curriculum = self.curriculum.as_mut().expect("a curriculum epoch");
        let config = &curriculum.config;
        let data_rng = &mut self.progress.data_rng;
        let small_init = pool_init
            .unwrap_or_else(|| tasks::training_init(config, self.settings.batch, data_rng));
        let small_target = tasks::target(config, &small_init, config.steps);
        let small_masks = epoch_masks(&self.settings, self.holding, config, &small_init, data_rng);
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

/// The fire masks of an epoch's rollout from `init` (async tasks): as many steps as the
/// rollout runs, holding or not, drawn as the recipe says.
fn epoch_masks(
    settings: &TrainSettings,
    holding: bool,
    config: &ModelConfig,
    init: &Grids,
    rng: &mut ChaCha8Rng,
) -> Option<FireMasks> {
    let steps = settings.rollout_steps(config, holding);
    tasks::fire_masks(config, init, steps, settings.recipe.per_grid_masks, rng)
}
