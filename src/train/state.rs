//! What a training run carries from one epoch to the next besides the model, so that a
//! run stopped after any epoch and resumed takes exactly the steps it would have taken.

use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::model::gates::NUM_OPS;
use crate::train::best::BestModel;
use crate::train::optimizer::AdamWState;
use crate::train::pool::PoolState;

/// The trainer's state after `epochs_done` epochs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainerState {
    pub epochs_done: usize,
    pub optimizer: AdamWState,
    /// Draws the batches (and async fire masks).
    pub data_rng: RngState,
    /// Draws the gate noise.
    pub noise_rng: RngState,
    /// The best model so far (none in checkpoints written before it was kept).
    #[serde(default)]
    pub best: Option<BestModel>,
    /// Which of the recipe's starts the checkpoint's model is.
    #[serde(default)]
    pub start: usize,
    /// The other starts, before the run chose among them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rivals: Vec<StartState>,
    /// The start the run went on with, once it chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<Choice>,
    /// The sample pool, when the recipe trains from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<PoolState>,
}

/// One of the starts besides the checkpoint's model: its logits (its wiring follows from
/// its seed) and what it carries from epoch to epoch, its own sample pool included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartState {
    pub start: usize,
    pub logits: Vec<[f32; NUM_OPS]>,
    pub optimizer: AdamWState,
    pub data_rng: RngState,
    pub noise_rng: RngState,
    pub best: Option<BestModel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<PoolState>,
}

/// A ChaCha8 generator's position: its seed, stream and the words it has given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RngState {
    pub seed: [u8; 32],
    pub stream: u64,
    pub word_pos: u128,
}

impl RngState {
    pub fn of(rng: &ChaCha8Rng) -> Self {
        RngState {
            seed: rng.get_seed(),
            stream: rng.get_stream(),
            word_pos: rng.get_word_pos(),
        }
    }

    pub fn to_rng(self) -> ChaCha8Rng {
        use rand::SeedableRng;
        let mut rng = ChaCha8Rng::from_seed(self.seed);
        rng.set_stream(self.stream);
        rng.set_word_pos(self.word_pos);
        rng
    }
}

/// Which start a run went on with, and when it chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    /// The start's index (0: the run's own seed).
    pub start: usize,
    /// The seed that wired and initialised it ([`start_seed`](crate::train::starts::start_seed)).
    pub seed: u64,
    /// The epoch after which the others were dropped.
    pub epoch: usize,
    /// Whether it was chosen for a perfect hard circuit (else for the lowest soft loss
    /// at the curriculum's end).
    pub perfect: bool,
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};

    use super::*;

    #[test]
    fn a_restored_generator_continues_where_it_stopped() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        rng.set_stream(2);
        let _: Vec<u32> = (0..13).map(|_| rng.random()).collect();
        let mut restored = RngState::of(&rng).to_rng();
        let next: Vec<u64> = (0..5).map(|_| rng.random()).collect();
        let again: Vec<u64> = (0..5).map(|_| restored.random()).collect();
        assert_eq!(next, again);
    }
}
