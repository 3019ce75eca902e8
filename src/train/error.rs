//! Why a training run stopped, or could not start: below every part of training, so
//! that each can report it.

/// What went wrong in a training run; each says what to do next where there is a choice.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(
        "soft loss became {loss} at epoch {epoch}{}; stopped (the model before this epoch is \
         kept)",
        overflow_note(.overflow)
    )]
    NonFinite {
        epoch: usize,
        loss: f64,
        /// Where the soft rollout overflowed, when a state it kept did.
        overflow: Option<Overflow>,
    },
    #[error(
        "the optimizer step of epoch {epoch} made logits non-finite (learning rate too high?); \
         stopped (the model before this step is kept)"
    )]
    NonFiniteParameters { epoch: usize },
    #[error(
        "the saved state does not fit this model: its optimizer holds {saved} gates, the \
         model has {gates}"
    )]
    StateMismatch { saved: usize, gates: usize },
    #[error(
        "given batches cannot replay a run whose recipe trains on smaller grids first \
         (a curriculum); use --recipe paper, or --curriculum-share 0 --starts 1"
    )]
    BatchesWithCurriculum,
    #[error("given batches fix every epoch's grids; a sample pool draws them (use --pool 0)")]
    BatchesWithPool,
    #[error(
        "given batches are the task's grids; a finish trains on larger ones once the batch \
         is right (use --finish-size 0)"
    )]
    BatchesWithFinish,
    #[error("the checkpoint's sample pool does not fit the run's --pool of {pool} states")]
    PoolCheckpoint { pool: usize },
    #[error("epoch {epoch} has no given batch: the batch file holds {given} batches")]
    NoBatch { epoch: usize, given: usize },
    #[error(
        "given batches are {got}, the run needs {batch} grid(s) of {height}x{width}x{channels}"
    )]
    BatchShape {
        got: String,
        batch: usize,
        height: usize,
        width: usize,
        channels: usize,
    },
}

/// The step of a soft rollout whose state first held a value that is not finite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow {
    pub step: usize,
    pub steps: usize,
}

/// What [`TrainError::NonFinite`] adds when it knows where the rollout overflowed.
fn overflow_note(overflow: &Option<Overflow>) -> String {
    overflow.map_or_else(String::new, |o| {
        format!(
            ": the soft rollout overflowed at step {} of {} (rounding takes a soft state \
             just outside [0, 1] and a long rollout can amplify it; --unit-states true \
             clamps the states to [0, 1], or a shorter rollout may avoid it)",
            o.step, o.steps
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A NaN loss says where the rollout overflowed when a kept state did, and only then.
    #[test]
    fn a_nan_loss_names_the_step_that_overflowed() {
        let at = |overflow| {
            let loss = f64::NAN;
            TrainError::NonFinite {
                epoch: 7,
                loss,
                overflow,
            }
            .to_string()
        };
        assert_eq!(
            at(None),
            "soft loss became NaN at epoch 7; stopped (the model before this epoch is kept)"
        );
        let named = at(Some(Overflow {
            step: 22,
            steps: 24,
        }));
        assert!(
            named.starts_with(
                "soft loss became NaN at epoch 7: the soft rollout overflowed at step 22 of 24 ("
            ),
            "{named}"
        );
        assert!(
            named.ends_with("; stopped (the model before this epoch is kept)"),
            "{named}"
        );
    }
}
