//! A running session's checkpoint: written now and then, and when a signal stops it.

use anyhow::Result;
use logicars::io::checkpoint_file::{self, Checkpoint, RunOutputs};
use logicars::io::model_file;
use logicars::model::network::Model;
use logicars::train::{AttemptRecord, EpochMetrics, ExactWatch, Keep, Trainer};

/// What a checkpoint keeps of a session besides its trainer.
pub struct Saved<'a> {
    /// The metrics of the attempt's epochs so far.
    pub history: &'a [EpochMetrics],
    pub outputs: &'a RunOutputs,
    /// When the attempt's kept model was checked for exactness.
    pub watch: ExactWatch,
    /// The run's finished attempts, and the model the best of them keeps.
    pub attempts: &'a [AttemptRecord],
    pub kept: Option<&'a Model>,
}

impl<'a> Saved<'a> {
    pub fn of(
        history: &'a [EpochMetrics],
        outputs: &'a RunOutputs,
        watch: ExactWatch,
        attempts: &'a [AttemptRecord],
        kept: Option<&'a Model>,
    ) -> Self {
        Saved {
            history,
            outputs,
            watch,
            attempts,
            kept,
        }
    }
}

/// Writes the checkpoint, then the model to keep so far, each whole or not at all: the
/// best earlier attempt's (its fresh check is known), else this attempt's.
pub fn save_checkpoint(trainer: &Trainer, saved: &Saved, keep: Keep) -> Result<()> {
    let checkpoint = Checkpoint {
        model: trainer.model.clone(),
        settings: trainer.settings().clone(),
        state: trainer.state(),
        history: saved.history.to_vec(),
        outputs: saved.outputs.clone(),
        exact_watch: saved.watch,
        attempts: saved.attempts.to_vec(),
        kept: saved.kept.cloned(),
    };
    checkpoint_file::save(
        &checkpoint,
        &checkpoint_file::path_beside(&saved.outputs.model),
    )?;
    let settings = trainer.settings();
    match (saved.kept, logicars::train::best_attempt(saved.attempts)) {
        (Some(model), Some(best)) => {
            let attempt = saved.attempts[best].attempt;
            let settings = settings.for_attempt(attempt);
            model_file::save_trained(model, Some(&settings), &saved.outputs.model)?;
        }
        _ => {
            let model = trainer.kept_model(keep);
            model_file::save_trained(&model, Some(settings), &saved.outputs.model)?;
        }
    }
    Ok(())
}
