//! A run's folder belongs to one run. The folder of a run's model file holds its log,
//! pictures and checkpoint beside the model; a run holds the folder for its life
//! ([`LOCK`], see [`crate::io::folder_lock`]) and writes down what it is ([`RECORD`]), so
//! that a later run can tell what the folder holds before it writes a byte there.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::io::atomic::write_atomically;
use crate::io::folder_lock::{self, FolderLock, LockError};
use crate::model::config::{ModelConfig, TrainSettings};
use crate::train::Keep;

/// The lock file a running run holds in its folder.
pub const LOCK: &str = "run.lock";
/// The record of the run a folder holds.
pub const RECORD: &str = "run.json";
/// The log a run writes in its folder unless told otherwise.
const LOG: &str = "metrics.csv";

#[derive(Debug, Error)]
pub enum RunFolderError {
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("cannot read the run record {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the run record {} is not one this build reads ({message})", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("cannot write the run record {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What makes two runs the same run: the same model, settings and stopping rule give the
/// same files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunIdentity {
    pub config: ModelConfig,
    pub settings: TrainSettings,
    pub keep: Keep,
    /// Whether the run trains every epoch once exact (`--full`).
    pub full: bool,
}

/// How a recorded run ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ended {
    /// When, in UTC.
    pub at: String,
    /// Whether its kept model was exact.
    pub exact: bool,
}

/// What a run writes of itself into its folder when it starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The command that started it.
    pub command: String,
    /// When it started, in UTC.
    pub started: String,
    /// Set when its attempts are over and its model saved.
    #[serde(default)]
    pub ended: Option<Ended>,
    pub run: RunIdentity,
}

impl RunIdentity {
    /// The run of `config` and `settings`, keeping `keep`, every epoch when `full`.
    pub fn new(config: &ModelConfig, settings: &TrainSettings, keep: Keep, full: bool) -> Self {
        RunIdentity {
            config: config.clone(),
            settings: settings.clone(),
            keep,
            full,
        }
    }
}

impl RunRecord {
    /// The record of `run`, started now by this process.
    pub fn starting(run: RunIdentity) -> Self {
        RunRecord {
            command: std::env::args().collect::<Vec<_>>().join(" "),
            started: folder_lock::now(),
            ended: None,
            run,
        }
    }

    /// One line on the run: task, seed and when.
    pub fn describe(&self) -> String {
        let settings = &self.run.settings;
        let mut text = format!(
            "{}, seed {}, started {}",
            self.run.config.task.name(),
            settings.seed,
            self.started
        );
        if let Some(ended) = &self.ended {
            let exact = if ended.exact { "exact" } else { "not exact" };
            text.push_str(&format!(", finished {} ({exact})", ended.at));
        }
        text
    }

    /// Writes the record into `folder`, whole or not at all.
    pub fn write(&self, folder: &Path) -> Result<(), RunFolderError> {
        let path = folder.join(RECORD);
        let json = serde_json::to_string_pretty(self).expect("a record serializes") + "\n";
        write_atomically(&path, json.as_bytes())
            .map_err(|source| RunFolderError::Write { path, source })
    }

    /// The record in `folder`, when there is one.
    pub fn read(folder: &Path) -> Result<Option<Self>, RunFolderError> {
        let path = folder.join(RECORD);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(RunFolderError::Read { path, source }),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| RunFolderError::Invalid {
                path,
                message: e.to_string(),
            })
    }

    /// Marks the run in `folder` ended now, its kept model exact or not.
    pub fn mark_ended(folder: &Path, exact: bool) -> Result<(), RunFolderError> {
        if let Some(mut record) = Self::read(folder)? {
            record.ended = Some(Ended {
                at: folder_lock::now(),
                exact,
            });
            record.write(folder)?;
        }
        Ok(())
    }
}

/// What a folder holds, seen by a run that would write there.
#[derive(Debug, Clone, PartialEq)]
pub enum FolderState {
    /// No run: a missing or empty folder, or files no run writes.
    Free,
    /// A process holds it now.
    Running { holder: String },
    /// A recorded run, stopped (its checkpoint `checkpoint` is there) or not.
    Recorded {
        record: Box<RunRecord>,
        checkpoint: Option<PathBuf>,
    },
    /// Files a run writes, with no record of the run (written by an older build, or by
    /// hand): the first of them.
    Unrecorded { file: PathBuf },
}

impl FolderState {
    /// What `folder` holds; `model` is the model file the run that asks would write,
    /// which counts as a run's file even when it is not named like one.
    pub fn of(folder: &Path, model: &Path) -> Result<Self, RunFolderError> {
        match folder_lock::holder(folder, LOCK)? {
            Some(holder) => Ok(FolderState::Running { holder }),
            None => Self::of_held(folder, model),
        }
    }

    /// [`Self::of`] for the process that holds the folder, which is not another run.
    pub fn of_held(folder: &Path, model: &Path) -> Result<Self, RunFolderError> {
        let checkpoint = checkpoints_in(folder).into_iter().next();
        if let Some(record) = RunRecord::read(folder)? {
            return Ok(FolderState::Recorded {
                record: Box::new(record),
                checkpoint,
            });
        }
        let run_files = [
            Some(model.to_path_buf()),
            checkpoint,
            Some(folder.join(LOG)),
        ];
        Ok(
            match run_files.into_iter().flatten().find(|f| f.is_file()) {
                Some(file) => FolderState::Unrecorded { file },
                None => FolderState::Free,
            },
        )
    }

    /// Whether the folder holds `run`, finished, with no checkpoint.
    pub fn finished(&self, run: &RunIdentity) -> bool {
        matches!(self, FolderState::Recorded { record, checkpoint: None }
            if record.ended.is_some() && record.run == *run)
    }

    /// One line on what the folder holds (a free folder holds nothing to say).
    pub fn describe(&self) -> String {
        match self {
            FolderState::Free => "nothing of a run".into(),
            FolderState::Running { holder } => format!("a run of {holder}"),
            FolderState::Recorded { record, checkpoint } => {
                let how = match (&record.ended, checkpoint) {
                    (_, Some(_)) => "a stopped run",
                    (Some(_), None) => "a finished run",
                    (None, None) => "a run that ended before it saved (diverged or killed)",
                };
                format!("{how}: {}", record.describe())
            }
            FolderState::Unrecorded { file } => {
                let name = file.file_name().unwrap_or_default().to_string_lossy();
                format!("the files of an unrecorded run ({name})")
            }
        }
    }
}

/// The `*.checkpoint.json` files in `folder`, by name.
pub fn checkpoints_in(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| p.to_string_lossy().ends_with(".checkpoint.json"))
        .collect();
    found.sort();
    found
}

/// Takes a run's folder for this process (see [`FolderLock::exclusive`]).
pub fn take(folder: &Path) -> Result<FolderLock, RunFolderError> {
    Ok(FolderLock::exclusive(
        folder,
        LOCK,
        &folder_lock::this_process(),
    )?)
}

/// Fails when a running run holds `folder`: for writers other than runs (a model saved
/// from Python), which must not write into a running run's folder.
pub fn ensure_not_running(folder: &Path) -> Result<(), RunFolderError> {
    match folder_lock::holder(folder, LOCK)? {
        None => Ok(()),
        Some(holder) => Err(LockError::Held {
            folder: folder.to_path_buf(),
            holder,
        }
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::task::TaskKind;
    use crate::tasks::preset;

    fn identity(seed: u64) -> RunIdentity {
        let (config, mut settings) = preset(TaskKind::Gol, true);
        settings.seed = seed;
        RunIdentity {
            config,
            settings,
            keep: Keep::Best,
            full: false,
        }
    }

    #[test]
    fn a_folder_is_free_then_running_then_recorded_then_finished() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let model = run.join("model.json");
        assert_eq!(FolderState::of(&run, &model).unwrap(), FolderState::Free);
        let lock = take(&run).unwrap();
        let record = RunRecord::starting(identity(3));
        record.write(&run).unwrap();
        let state = FolderState::of(&run, &model).unwrap();
        assert!(
            matches!(&state, FolderState::Running { holder }
                if holder.starts_with(&format!("process {} ", std::process::id()))),
            "{state:?}"
        );
        assert!(ensure_not_running(&run).is_err());
        drop(lock);
        assert!(ensure_not_running(&run).is_ok());
        let state = FolderState::of(&run, &model).unwrap();
        assert!(!state.finished(&identity(3)), "not ended yet");
        let text = state.describe();
        assert!(
            text.starts_with("a run that ended before it saved (diverged or killed): gol, seed 3"),
            "{text}"
        );
        RunRecord::mark_ended(&run, true).unwrap();
        let state = FolderState::of(&run, &model).unwrap();
        assert!(state.finished(&identity(3)));
        assert!(!state.finished(&identity(4)), "another seed is another run");
        let text = state.describe();
        assert!(
            text.starts_with("a finished run: gol, seed 3, started 20"),
            "{text}"
        );
        assert!(text.ends_with("(exact)"), "{text}");
    }

    #[test]
    fn a_checkpoint_makes_a_recorded_run_stopped_and_files_without_record_count() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        let model = run.join("m.json");
        std::fs::write(run.join("notes.txt"), "mine").unwrap();
        assert_eq!(FolderState::of(run, &model).unwrap(), FolderState::Free);
        std::fs::write(run.join("old.checkpoint.json"), "{}").unwrap();
        let state = FolderState::of(run, &model).unwrap();
        assert_eq!(
            state,
            FolderState::Unrecorded {
                file: run.join("old.checkpoint.json")
            }
        );
        assert_eq!(
            state.describe(),
            "the files of an unrecorded run (old.checkpoint.json)"
        );
        RunRecord::starting(identity(5)).write(run).unwrap();
        RunRecord::mark_ended(run, false).unwrap();
        let state = FolderState::of(run, &model).unwrap();
        assert!(state.describe().starts_with("a stopped run: gol, seed 5"));
        assert!(
            !state.finished(&identity(5)),
            "a checkpoint can still be resumed"
        );
    }

    #[test]
    fn a_record_this_build_cannot_read_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(RECORD), "{\"command\": 3}").unwrap();
        let error = RunRecord::read(dir.path()).unwrap_err().to_string();
        assert!(
            error.contains("run.json is not one this build reads"),
            "{error}"
        );
    }
}
