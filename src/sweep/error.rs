//! What can go wrong with a sweep's files: each error names the file or the run.

use std::path::PathBuf;

/// A sweep folder, manifest or row that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} has no manifest.json: it is not a sweep's folder (or no shard has started)", .0.display())]
    NoManifest(PathBuf),
    #[error("{}: not a sweep manifest: {reason}", path.display())]
    BadManifest { path: PathBuf, reason: String },
    #[error(
        "{} holds another sweep (id {found}, this one is {expected}; it differs in {differs}): \
         use another --out, or delete the folder to start again",
        dir.display()
    )]
    ForeignSweep {
        dir: PathBuf,
        found: String,
        expected: String,
        differs: String,
    },
    #[error("{}: not a run's row: {reason}", path.display())]
    BadRow { path: PathBuf, reason: String },
    #[error(
        "{}: damaged: its checksum does not match its run and result (changed after it was \
         written)",
        path.display()
    )]
    Damaged { path: PathBuf },
    #[error("{}: holds the row of another run than its name says", path.display())]
    NotThisRun { path: PathBuf },
    #[error("{}: a row of another sweep (id {found}, this one is {expected})", path.display())]
    ForeignRow {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("{}: setting '{setting}' seed {seed} is not in this sweep's plan", path.display())]
    NotInPlan {
        path: PathBuf,
        setting: String,
        seed: u64,
    },
    #[error(
        "determinism error: setting '{setting}' seed {seed} has two different rows, {} and {} \
         (a run must give the same row on any machine, thread count and SIMD level)",
        first.display(),
        second.display()
    )]
    Differ {
        setting: String,
        seed: u64,
        first: PathBuf,
        second: PathBuf,
    },
}

impl StoreError {
    /// Whether running the shard again cannot help: the folder or the plan is wrong,
    /// not the machine (exit code 2, which a scheduler should not retry).
    pub fn is_configuration(&self) -> bool {
        !matches!(self, StoreError::Io { .. })
    }
}
