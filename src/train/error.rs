//! Why a training run stopped, or could not start: below every part of training, so
//! that each can report it.

/// What went wrong in a training run; each says what to do next where there is a choice.
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
