//! Several starts: a recipe can train a few models, each wired and initialised from its
//! own seed, side by side through its curriculum, and go on with the one that leads.
//!
//! Whether a checkerboard run leaves the plateau where every output is 0.5 in time is
//! set by its wiring and initial parameters, and it shows by the curriculum's end, while
//! epochs are still cheap: an 8x8 curriculum epoch of the reference checkerboard costs a
//! quarter of one at its 16x16 size.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::model::config::TrainSettings;
use crate::model::gates::NUM_OPS;
use crate::model::network::Model;
use crate::train::best::BestModel;
use crate::train::error::TrainError;
use crate::train::objective::Metrics;
use crate::train::optimizer::{AdamW, AdamWConfig, AdamWState};
use crate::train::state::RngState;

/// The seed of start `index` of a run seeded `seed`: the run's own for start 0, so that a
/// run of one start is the run as it always was; the others are drawn from a stream of
/// their own, so that the starts of nearby seeds do not overlap.
pub fn start_seed(seed: u64, index: usize) -> u64 {
    if index == 0 {
        return seed;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(3);
    (1..index).for_each(|_| {
        rng.next_u64();
    });
    rng.next_u64()
}

/// The start that leads after an epoch, of `(start, metrics)` pairs: the first start
/// whose hard circuit was perfect, else the one with the lowest soft loss (of equals the
/// first start).
pub fn leader(metrics: &[(usize, Metrics)]) -> Option<usize> {
    let perfect = metrics
        .iter()
        .filter(|(_, m)| m.hard_loss == 0.0)
        .map(|&(start, _)| start)
        .min();
    perfect.or_else(|| {
        metrics
            .iter()
            .min_by(|(a, x), (b, y)| x.soft_loss.total_cmp(&y.soft_loss).then(a.cmp(b)))
            .map(|&(start, _)| start)
    })
}

/// What one start carries from epoch to epoch besides its model.
pub(crate) struct Progress {
    /// The start's index ([`start_seed`]).
    pub start: usize,
    pub optimizer: AdamW,
    /// Draws the batches (and async fire masks).
    pub data_rng: ChaCha8Rng,
    /// Draws the gate noise of each epoch, apart from the data so that noise leaves the
    /// batches as they were.
    pub noise_rng: ChaCha8Rng,
    /// The logits before the last optimizer step, to roll back a step that diverged.
    pub previous_logits: Vec<[f32; NUM_OPS]>,
    /// The parameters that scored best so far.
    pub best: Option<BestModel>,
}

impl Progress {
    /// A fresh start of `model` for the run with `settings`, its generators seeded from
    /// the start's seed.
    pub fn fresh(start: usize, model: &Model, settings: &TrainSettings) -> Self {
        let seed = start_seed(settings.attempt_seed(), start);
        let rng_on = |stream| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(stream);
            rng
        };
        let optimizer = AdamWConfig {
            weight_decay: settings.recipe.weight_decay,
            eps: settings.recipe.epsilon,
            ..AdamWConfig::reference(settings.learning_rate)
        };
        Progress {
            start,
            optimizer: AdamW::new(optimizer, model.gate_count()),
            data_rng: rng_on(1),
            noise_rng: rng_on(2),
            previous_logits: model.logits.clone(),
            best: None,
        }
    }

    /// Restores the saved optimizer, generators and best model into a fresh start.
    pub fn restore(
        &mut self,
        optimizer: AdamWState,
        data_rng: RngState,
        noise_rng: RngState,
        best: Option<BestModel>,
    ) -> Result<(), TrainError> {
        let gates = self.previous_logits.len();
        let saved = optimizer.m.len();
        self.optimizer
            .restore(optimizer)
            .map_err(|_| TrainError::StateMismatch { saved, gates })?;
        self.data_rng = data_rng.to_rng();
        self.noise_rng = noise_rng.to_rng();
        self.best = best;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics(soft_loss: f64, hard_loss: f64) -> Metrics {
        Metrics {
            soft_loss,
            hard_loss,
            accuracy: 0.0,
        }
    }

    #[test]
    fn start_zero_is_the_runs_own_seed_and_the_others_differ() {
        assert_eq!(start_seed(42, 0), 42);
        let seeds: Vec<u64> = (0..4).map(|i| start_seed(42, i)).collect();
        let mut distinct = seeds.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 4, "{seeds:?}");
        assert_ne!(start_seed(42, 1), start_seed(43, 1));
        assert_eq!(start_seed(42, 2), start_seed(42, 2));
    }

    #[test]
    fn a_perfect_start_leads_else_the_lowest_soft_loss() {
        let lowest_soft = [(0, metrics(3.0, 5.0)), (1, metrics(1.0, 9.0))];
        assert_eq!(leader(&lowest_soft), Some(1));
        let perfect = [
            (0, metrics(3.0, 5.0)),
            (2, metrics(2.0, 0.0)),
            (1, metrics(1.0, 0.0)),
        ];
        assert_eq!(leader(&perfect), Some(1), "the first perfect start");
        let equal = [(2, metrics(1.0, 4.0)), (1, metrics(1.0, 3.0))];
        assert_eq!(
            leader(&equal),
            Some(1),
            "of equal soft losses the first start"
        );
        assert_eq!(leader(&[]), None);
    }
}
