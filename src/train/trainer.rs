//! One epoch = one optimizer step on a fresh batch; the loop runs epochs and reports.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::circuit::Circuit;
use crate::config::TrainSettings;
use crate::gates::NUM_OPS;
use crate::geometry::Geometry;
use crate::grid::Grids;
use crate::kernels::soft::TILE;
use crate::model::Model;
use crate::parameters::{hard_truth, SoftParams};
use crate::rollout::hard::HardRollout;
use crate::rollout::masks::FireMasks;
use crate::rollout::soft::{ActivationMemory, SoftRollout};
use crate::train::loss::{hard_errors, soft_loss};
use crate::train::optimizer::{AdamW, AdamWConfig};

/// What one epoch measured (before its optimizer step).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpochMetrics {
    pub epoch: usize,
    pub soft_loss: f64,
    pub hard_loss: f64,
    pub accuracy: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(
        "soft loss became {loss} at epoch {epoch}; stopped (the model before this epoch is kept)"
    )]
    NonFinite { epoch: usize, loss: f64 },
    #[error(
        "the optimizer step of epoch {epoch} made logits non-finite (learning rate too high?); \
         stopped (the model before this step is kept)"
    )]
    NonFiniteParameters { epoch: usize },
}

/// The outcome of a whole run.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainSummary {
    pub epochs: usize,
    pub last: Option<EpochMetrics>,
    /// The first epoch whose hard loss was 0.
    pub first_perfect_epoch: Option<usize>,
}

/// Everything one training run reuses from epoch to epoch. The soft forward and backward
/// allocate nothing; each epoch builds only its batch (grids, targets, fire masks) and the
/// hard op table (about 100 KB for the reference model).
pub struct Trainer {
    pub model: Model,
    settings: TrainSettings,
    circuit: Circuit,
    params: SoftParams,
    soft: SoftRollout,
    hard: HardRollout,
    optimizer: AdamW,
    data_rng: ChaCha8Rng,
    final_grads: Vec<f32>,
    coef_grads: Vec<[f64; 4]>,
    logit_grads: Vec<[f32; NUM_OPS]>,
    /// The logits before the last optimizer step, to roll back a step that diverged.
    previous_logits: Vec<[f32; NUM_OPS]>,
}

impl Trainer {
    pub fn new(model: Model, settings: TrainSettings) -> Self {
        Self::with_memory(model, settings, ActivationMemory::default())
    }

    pub fn with_memory(model: Model, settings: TrainSettings, memory: ActivationMemory) -> Self {
        let config = &model.config;
        let circuit = Circuit::compile(&model);
        let geometry = Geometry::new(
            settings.batch,
            config.height,
            config.width,
            config.periodic,
            TILE,
        );
        let gates = model.gate_count();
        let soft = SoftRollout::new(geometry, &circuit, config.steps, gates, memory);
        let hard = HardRollout::new(
            settings.batch,
            config.height,
            config.width,
            config.periodic,
            &circuit,
        );
        let mut data_rng = ChaCha8Rng::seed_from_u64(settings.seed);
        data_rng.set_stream(1);
        Trainer {
            params: SoftParams::from_logits(&model.logits),
            optimizer: AdamW::new(AdamWConfig::reference(settings.learning_rate), gates),
            final_grads: vec![0.0; soft.final_state().len()],
            coef_grads: vec![[0.0; 4]; gates],
            logit_grads: vec![[0.0; NUM_OPS]; gates],
            previous_logits: model.logits.clone(),
            soft,
            hard,
            circuit,
            settings,
            data_rng,
            model,
        }
    }

    /// Draws a batch, measures soft and hard loss, and takes one optimizer step.
    /// On a non-finite loss, or a step that makes logits non-finite, the model is left
    /// as it was.
    pub fn epoch(&mut self, epoch: usize) -> Result<EpochMetrics, TrainError> {
        let config = &self.model.config;
        let task = config.task;
        let init = task.training_init(config, self.settings.batch, &mut self.data_rng);
        let target = task.target(config, &init, config.steps);
        let masks = config.fire_rate.map(|rate| {
            FireMasks::draw(
                config.steps,
                self.soft.geometry().lanes,
                rate,
                &mut self.data_rng,
            )
        });

        self.params.update(&self.model.logits);
        self.soft.set_initial(&init);
        self.soft
            .forward(&self.circuit, &self.params.coefs, masks.as_ref());
        let loss = soft_loss(
            self.soft.final_state(),
            config.channels,
            &config.target_channels,
            &target,
            &mut self.final_grads,
        );
        let (hard_loss, accuracy) = self.hard_metrics(&init, &target, masks.as_ref());
        if !loss.is_finite() {
            return Err(TrainError::NonFinite { epoch, loss });
        }

        self.coef_grads.fill([0.0; 4]);
        self.soft.backward(
            &self.circuit,
            &self.params.coefs,
            &self.final_grads,
            masks.as_ref(),
            &mut self.coef_grads,
        );
        self.params
            .logit_grads(&self.coef_grads, &mut self.logit_grads);
        self.previous_logits.copy_from_slice(&self.model.logits);
        self.optimizer
            .step(&mut self.model.logits, &self.logit_grads);
        if self.model.logits.iter().flatten().any(|l| !l.is_finite()) {
            self.model.logits.copy_from_slice(&self.previous_logits);
            return Err(TrainError::NonFiniteParameters { epoch });
        }
        Ok(EpochMetrics {
            epoch,
            soft_loss: loss,
            hard_loss,
            accuracy,
        })
    }

    fn hard_metrics(
        &mut self,
        init: &Grids,
        target: &Grids,
        masks: Option<&FireMasks>,
    ) -> (f64, f64) {
        let config = &self.model.config;
        let truth = hard_truth(&self.model.logits);
        self.hard.set_state(init);
        self.hard.run(&self.circuit, &truth, masks, config.steps);
        let (wrong, accuracy) = hard_errors(&self.hard, &config.target_channels, target);
        (wrong as f64, accuracy)
    }
}

/// Trains for `settings.epochs` epochs, calling `observe` after each.
///
/// Returns the summary and the trainer (whose model is the last good one) even when a
/// non-finite loss stopped the run early, so the caller can save it.
pub fn train(
    model: Model,
    settings: TrainSettings,
    mut observe: impl FnMut(&EpochMetrics),
) -> (Trainer, TrainSummary, Option<TrainError>) {
    let epochs = settings.epochs;
    let mut trainer = Trainer::new(model, settings);
    let mut summary = TrainSummary {
        epochs: 0,
        last: None,
        first_perfect_epoch: None,
    };
    for epoch in 1..=epochs {
        match trainer.epoch(epoch) {
            Ok(metrics) => {
                if metrics.hard_loss == 0.0 && summary.first_perfect_epoch.is_none() {
                    summary.first_perfect_epoch = Some(epoch);
                }
                summary.epochs = epoch;
                summary.last = Some(metrics);
                observe(&metrics);
            }
            Err(e) => return (trainer, summary, Some(e)),
        }
    }
    (trainer, summary, None)
}

/// Soft loss of one rollout and its gradient on every logit: the whole training
/// computation for one batch, without the optimizer. Used by gradient checks.
pub fn loss_and_gradient(
    model: &Model,
    init: &Grids,
    target: &Grids,
    masks: Option<&FireMasks>,
    memory: ActivationMemory,
) -> (f64, Vec<[f32; NUM_OPS]>) {
    let config = &model.config;
    let circuit = Circuit::compile(model);
    let geometry = Geometry::new(init.batch, init.height, init.width, config.periodic, TILE);
    let params = SoftParams::from_logits(&model.logits);
    let mut soft = SoftRollout::new(geometry, &circuit, config.steps, model.gate_count(), memory);
    soft.set_initial(init);
    soft.forward(&circuit, &params.coefs, masks);
    let mut final_grads = vec![0.0; soft.final_state().len()];
    let loss = soft_loss(
        soft.final_state(),
        config.channels,
        &config.target_channels,
        target,
        &mut final_grads,
    );
    let mut coef_grads = vec![[0.0; 4]; model.gate_count()];
    soft.backward(
        &circuit,
        &params.coefs,
        &final_grads,
        masks,
        &mut coef_grads,
    );
    let mut logit_grads = vec![[0.0; NUM_OPS]; model.gate_count()];
    params.logit_grads(&coef_grads, &mut logit_grads);
    (loss, logit_grads)
}
