//! Watching a run for the first epoch whose kept model is exact, so that the run can end
//! there. A run that goes on past that epoch keeps the latest of its best-scoring models,
//! which can be a different one that is right on its batch and wrong on fresh inputs; a
//! `train` and a sweep both stop at the first exact one, so they keep the same model.

use serde::{Deserialize, Serialize};

use crate::evaluate::all_boards_right;
use crate::evaluate::fresh::is_exact;
use crate::train::best::Keep;
use crate::train::trainer::{EpochMetrics, Trainer};

/// Epochs between two exactness checks of a run's kept model: a check of the
/// checkerboard rolls four 64x64 grids out for 80 steps, several epochs' work.
pub const EXACT_CHECK_GAP: usize = 20;

/// When a run was first solved and first exact, and when its kept model was last checked.
/// A checkpoint carries it, so that a resumed run checks at the epochs the run that was
/// never stopped checks at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExactWatch {
    solved_at: Option<usize>,
    exact_at: Option<usize>,
    checked_at: Option<usize>,
}

impl ExactWatch {
    /// Looks at the epoch `m` that `trainer` has just scored. Only an epoch whose hard
    /// circuit got its batch right is checked: first whether the task is solved (its
    /// batch right; for Game of Life every board), then whether the kept model is exact,
    /// at most every [`EXACT_CHECK_GAP`] epochs. Returns true at the epoch it is first
    /// found exact.
    pub fn observe(&mut self, trainer: &Trainer, m: &EpochMetrics) -> bool {
        if m.metrics.hard_loss != 0.0 || self.exact_at.is_some() {
            return false;
        }
        let due = self
            .checked_at
            .is_none_or(|at| m.epoch >= at.saturating_add(EXACT_CHECK_GAP));
        if self.solved_at.is_some() && !due {
            return false;
        }
        // The parameters this epoch scored (the kept ones), not those after its step.
        let kept = trainer.kept_model(Keep::Best);
        if self.solved_at.is_none() && all_boards_right(&kept) {
            self.solved_at = Some(m.epoch);
        }
        if self.solved_at.is_none() {
            return false;
        }
        self.checked_at = Some(m.epoch);
        if is_exact(&kept) {
            self.exact_at = Some(m.epoch);
        }
        self.exact_at.is_some()
    }

    /// The first epoch that solved the task (its batch right).
    pub fn solved_at(&self) -> Option<usize> {
        self.solved_at
    }

    /// The first epoch whose kept model was found exact.
    pub fn exact_at(&self) -> Option<usize> {
        self.exact_at
    }

    /// The latest epoch the watch names (0: none), which a checkpoint's history must hold.
    pub fn latest_epoch(&self) -> usize {
        [self.solved_at, self.exact_at, self.checked_at]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(0)
    }
}
