//! The checkpoint file: a model file together with the trainer's state, the metrics so
//! far and where the run writes, so that `train --resume` continues the run exactly.
//!
//! One file, written atomically: a run killed at any moment leaves the previous
//! checkpoint or the new one, never a mix.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::CheckpointError;
use crate::io::json::{check_header, invalid, parse, Invalid};
use crate::io::model_file::{self, ModelFile};
use crate::model::config::TrainSettings;
use crate::model::network::Model;
use crate::train::{AttemptRecord, EpochMetrics, ExactWatch, Keep, TrainerState};

pub const FORMAT: &str = "logicars-checkpoint";
pub const VERSION: u32 = 1;

/// Where a run writes, what it reads besides the model and how it ends, as the run started
/// with them: a resumed run goes on with all of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunOutputs {
    pub model: PathBuf,
    pub log: PathBuf,
    /// Folder of the loss plot and rollout GIF (none: not written).
    pub artefacts: Option<PathBuf>,
    /// The given batches the run trains on (none: drawn from the seed).
    pub batches: Option<PathBuf>,
    /// A progress line every this many epochs.
    pub log_interval: usize,
    /// Which model the run keeps (`--keep`; absent in older checkpoints: the best).
    #[serde(default)]
    pub keep: Keep,
    /// Whether the run trains every epoch even once its kept model is exact (`--full`).
    #[serde(default)]
    pub full: bool,
}

impl RunOutputs {
    /// Whether the run stops at the first epoch whose kept model is exact: a run that
    /// keeps its best model and was not asked for every epoch.
    pub fn until_exact(&self) -> bool {
        self.keep == Keep::Best && !self.full
    }
}

/// A run after some epochs.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    pub model: Model,
    pub settings: TrainSettings,
    pub state: TrainerState,
    /// Every epoch's metrics so far, in order.
    pub history: Vec<EpochMetrics>,
    pub outputs: RunOutputs,
    /// When the run's kept model was checked for exactness (a run that stops once exact).
    pub exact_watch: ExactWatch,
    /// The run's finished attempts, in order, before the one training now.
    pub attempts: Vec<AttemptRecord>,
    /// The model the best of them keeps, when there were any.
    pub kept: Option<Model>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckpointFile {
    format: String,
    version: u32,
    model: ModelFile,
    state: TrainerState,
    history: Vec<EpochMetrics>,
    outputs: RunOutputs,
    /// Absent from checkpoints written before runs stopped once exact.
    #[serde(default)]
    exact_watch: ExactWatch,
    /// Absent from checkpoints of a run's first attempt and from those written before
    /// runs made attempts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    attempts: Vec<AttemptRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kept: Option<ModelFile>,
}

/// The checkpoint of the model saved at `model`: `model.json` -> `model.checkpoint.json`.
pub fn path_beside(model: &Path) -> PathBuf {
    let stem = model.file_stem().unwrap_or_default().to_string_lossy();
    model.with_file_name(format!("{stem}.checkpoint.json"))
}

/// Writes `checkpoint` to `path` atomically (creating parent folders).
pub fn save(checkpoint: &Checkpoint, path: &Path) -> Result<(), CheckpointError> {
    let write_err = |source| CheckpointError::Write {
        path: path.to_path_buf(),
        source,
    };
    let file = CheckpointFile {
        format: FORMAT.into(),
        version: VERSION,
        model: model_file::to_file(&checkpoint.model, Some(&checkpoint.settings)),
        state: checkpoint.state.clone(),
        history: checkpoint.history.clone(),
        outputs: checkpoint.outputs.clone(),
        exact_watch: checkpoint.exact_watch,
        attempts: checkpoint.attempts.clone(),
        kept: checkpoint
            .kept
            .as_ref()
            .map(|m| model_file::to_file(m, None)),
    };
    let json = serde_json::to_vec(&file).map_err(|e| write_err(e.into()))?;
    crate::io::atomic::write_atomically(path, &json).map_err(write_err)
}

/// Reads and validates a checkpoint.
pub fn load(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let text = std::fs::read_to_string(path).map_err(|source| CheckpointError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    from_json(&text).map_err(|(json_path, message)| CheckpointError::Invalid {
        file: path.to_path_buf(),
        json_path,
        message,
    })
}

/// Parses and validates checkpoint JSON; errors are `(json path, message)`.
pub fn from_json(text: &str) -> Result<Checkpoint, Invalid> {
    let file: CheckpointFile = parse(text)?;
    check_header((&file.format, file.version), (FORMAT, VERSION))?;
    let settings = file.model.training.clone().ok_or_else(|| {
        invalid(
            "model.training",
            "a checkpoint's model must say how it is trained",
        )
    })?;
    let model = model_file::from_file(file.model)
        .map_err(|(path, message)| (format!("model.{path}"), message))?;
    check_progress(&file.state, &file.history, settings.epochs)?;
    if file.exact_watch.latest_epoch() > file.history.len() {
        let message = format!(
            "names epoch {}, after the {} epochs done",
            file.exact_watch.latest_epoch(),
            file.history.len()
        );
        return Err(invalid("exact_watch", message));
    }
    check_attempts(&file.attempts, file.kept.is_some(), &settings)?;
    let kept = file
        .kept
        .map(model_file::from_file)
        .transpose()
        .map_err(|(path, message)| (format!("kept.{path}"), message))?;
    Ok(Checkpoint {
        model,
        settings,
        state: file.state,
        history: file.history,
        outputs: file.outputs,
        exact_watch: file.exact_watch,
        attempts: file.attempts,
        kept,
    })
}

/// The finished attempts are the ones before the training one, in order, none exact
/// (the run would have ended), and a kept model comes with them.
fn check_attempts(
    attempts: &[AttemptRecord],
    kept: bool,
    settings: &TrainSettings,
) -> Result<(), Invalid> {
    if attempts.len() >= settings.attempt || kept == attempts.is_empty() {
        let message = format!(
            "{} attempts before attempt {}, with {} kept model",
            attempts.len(),
            settings.attempt,
            if kept { "a" } else { "no" }
        );
        return Err(invalid("attempts", message));
    }
    let first = settings.attempt - attempts.len();
    match attempts
        .iter()
        .enumerate()
        .find(|(i, r)| r.attempt != first + i || r.exact)
    {
        Some((i, r)) => Err(invalid(
            format!("attempts[{i}]"),
            format!(
                "attempt {} (exact: {}) where attempt {} that was not exact belongs",
                r.attempt,
                r.exact,
                first + i
            ),
        )),
        None => Ok(()),
    }
}

/// The history holds epochs 1..=done in order, and done is within the run.
fn check_progress(
    state: &TrainerState,
    history: &[EpochMetrics],
    epochs: usize,
) -> Result<(), Invalid> {
    let done = state.epochs_done;
    if done > epochs {
        let message = format!("{done} epochs done of a run of {epochs}");
        return Err(invalid("state.epochs_done", message));
    }
    if history.len() != done {
        let message = format!("{} epochs of metrics for {done} epochs done", history.len());
        return Err(invalid("history", message));
    }
    match history.iter().enumerate().find(|(i, m)| m.epoch != i + 1) {
        Some((i, m)) => Err(invalid(
            format!("history[{i}].epoch"),
            format!("expected epoch {}, found {}", i + 1, m.epoch),
        )),
        None => Ok(()),
    }
}
