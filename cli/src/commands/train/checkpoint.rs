//! A running session's checkpoint: written now and then, and when a signal stops it.

use anyhow::Result;
use logicars::io::checkpoint_file::{self, Checkpoint, RunOutputs};
use logicars::io::model_file;
use logicars::train::{EpochMetrics, ExactWatch, Keep, Trainer};

/// Writes the checkpoint, then the model to keep so far, each whole or not at all.
pub fn save_checkpoint(
    trainer: &Trainer,
    history: &[EpochMetrics],
    outputs: &RunOutputs,
    keep: Keep,
    exact_watch: ExactWatch,
) -> Result<()> {
    let checkpoint = Checkpoint {
        model: trainer.model.clone(),
        settings: trainer.settings().clone(),
        state: trainer.state(),
        history: history.to_vec(),
        outputs: outputs.clone(),
        exact_watch,
    };
    checkpoint_file::save(&checkpoint, &checkpoint_file::path_beside(&outputs.model))?;
    let model = trainer.kept_model(keep);
    model_file::save_trained(&model, Some(trainer.settings()), &outputs.model)?;
    Ok(())
}
