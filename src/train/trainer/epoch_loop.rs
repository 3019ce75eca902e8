//! The one epoch loop: every run, a training session's or a sweep's, goes through [`run`],
//! which runs the trainer's remaining epochs and lets an observer report and stop.

use std::ops::ControlFlow;

use crate::model::config::TrainSettings;
use crate::model::network::Model;
use crate::train::error::TrainError;
use crate::train::objective::Metrics;
use crate::train::trainer::Trainer;

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
