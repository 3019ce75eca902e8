//! One file per run of a sweep (`DIR/runs/<setting>-seed<S>.json`), written whole the
//! moment the run ends: what makes a sweep resumable and mergeable.
//!
//! A row has two parts. Its result is deterministic (the same seed gives the same row on
//! any machine, thread count and SIMD level), so two rows of one run must agree; its
//! provenance (wall time, host, SIMD level, threads) says where it ran and is never
//! compared. A checksum of the run and its result, written with them, tells a row changed
//! after it was written (by hand, or by a shared file system's fault) from a good one.

use std::path::Path;

use crate::io::atomic::write_atomically;
use crate::train::{GateSearch, Metrics};

use super::digest::json_digest;
use super::error::StoreError;
use super::manifest::Manifest;
use super::Outcome;

/// A run's row as its file holds it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Row {
    pub sweep_id: String,
    /// The setting's label.
    pub setting: String,
    pub seed: u64,
    pub result: RunResult,
    /// [`Row::checksum_of`] the fields above, as written.
    pub checksum: String,
    pub provenance: Provenance,
}

/// What a run's row file says of the run.
#[derive(Debug)]
pub enum RowState {
    /// No row yet.
    Missing,
    Done(Box<Row>),
    /// A file that is not the run's row as it was written (unreadable, or its checksum does
    /// not match): the run must be made again.
    Damaged(StoreError),
}

/// The deterministic part of a row: [`Outcome`] without its wall time.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunResult {
    /// Attempts the run made (absent: one).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub attempts: usize,
    /// The attempt whose model the run keeps (absent: the first).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub attempt: usize,
    /// Epochs of the attempts before the kept one (absent: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub epochs_before: usize,
    pub exact: bool,
    pub exact_at: Option<usize>,
    pub solved_at: Option<usize>,
    pub epochs: usize,
    /// The last epoch's metrics; a number that is not finite is written as null.
    pub last: Option<LastMetrics>,
    pub fresh_accuracy: Option<f64>,
    /// For a task that grows a pattern: whether the kept model grows it and holds it
    /// (absent for other tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grows: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holds: Option<bool>,
    /// And whether it regrows it after damage (absent in rows written before it was
    /// measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regrows: Option<bool>,
    pub error: Option<String>,
    /// What the recipe's gate search did to the kept model, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<GateSearch>,
}

/// [`Metrics`] in a form JSON can hold when a diverged run's loss is NaN.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LastMetrics {
    pub soft_loss: Option<f64>,
    pub hard_loss: Option<f64>,
    pub accuracy: Option<f64>,
}

/// Where and how a row was made; never compared.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Provenance {
    pub wall_s: f64,
    /// Of `wall_s`, the gate search's seconds, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_s: Option<f64>,
    pub host: String,
    pub simd: String,
    pub threads: usize,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl Row {
    /// The row of `outcome`, a run of `manifest`'s sweep.
    pub fn new(manifest: &Manifest, outcome: &Outcome, host: String, threads: usize) -> Row {
        let last = outcome.last.map(|m| LastMetrics {
            soft_loss: finite(m.soft_loss),
            hard_loss: finite(m.hard_loss),
            accuracy: finite(m.accuracy),
        });
        let mut row = Row {
            sweep_id: manifest.sweep_id.clone(),
            setting: manifest.sweep.settings[outcome.setting].clone(),
            seed: outcome.seed,
            checksum: String::new(),
            result: RunResult {
                attempts: outcome.attempts,
                attempt: outcome.attempt,
                epochs_before: outcome.epochs_before,
                exact: outcome.exact,
                exact_at: outcome.exact_at,
                solved_at: outcome.solved_at,
                epochs: outcome.epochs,
                last,
                fresh_accuracy: outcome.fresh_accuracy,
                grows: outcome.grows,
                holds: outcome.holds,
                regrows: outcome.regrows,
                error: outcome.error.clone(),
                search: outcome.search,
            },
            provenance: Provenance {
                wall_s: outcome.wall_s,
                search_s: outcome.search_s,
                host,
                simd: crate::kernels::simd::SimdLevel::active().name().to_string(),
                threads,
            },
        };
        row.checksum = row.checksum_of();
        row
    }

    /// The checksum of the row's run and result: 16 bytes of their SHA-256, in hex.
    pub fn checksum_of(&self) -> String {
        json_digest(
            &(&self.sweep_id, &self.setting, self.seed, &self.result),
            16,
        )
    }

    /// The run's outcome again, as setting number `setting` of its sweep.
    pub fn outcome(&self, setting: usize) -> Outcome {
        let r = &self.result;
        let last = r.last.map(|m| Metrics {
            soft_loss: m.soft_loss.unwrap_or(f64::NAN),
            hard_loss: m.hard_loss.unwrap_or(f64::NAN),
            accuracy: m.accuracy.unwrap_or(f64::NAN),
        });
        Outcome {
            setting,
            seed: self.seed,
            attempts: r.attempts,
            attempt: r.attempt,
            epochs_before: r.epochs_before,
            solved_at: r.solved_at,
            exact_at: r.exact_at,
            epochs: r.epochs,
            last,
            fresh_accuracy: r.fresh_accuracy,
            exact: r.exact,
            grows: r.grows,
            holds: r.holds,
            regrows: r.regrows,
            wall_s: self.provenance.wall_s,
            search_s: self.provenance.search_s,
            error: r.error.clone(),
            search: r.search,
        }
    }

    /// Writes the row to `path` whole (a temporary file and a rename).
    pub fn write(&self, path: &Path) -> Result<(), StoreError> {
        let json = serde_json::to_vec_pretty(self).expect("a row serializes");
        write_atomically(path, &json).map_err(|source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The row in `path`, refused when it is not a row or its checksum does not match.
    pub fn read(path: &Path) -> Result<Row, StoreError> {
        let bytes = std::fs::read(path).map_err(|source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let row: Row = serde_json::from_slice(&bytes).map_err(|e| StoreError::BadRow {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        if row.checksum != row.checksum_of() {
            return Err(StoreError::Damaged {
                path: path.to_path_buf(),
            });
        }
        Ok(row)
    }

    /// What the row file of run `(setting, seed)` of `manifest`'s sweep in `dir` holds: a
    /// shard skips a done run and runs a missing or damaged one.
    pub fn state(manifest: &Manifest, dir: &Path, setting: usize, seed: u64) -> RowState {
        let path = manifest.row_path(dir, setting, seed);
        if !path.exists() {
            return RowState::Missing;
        }
        let row = match Row::read(&path) {
            Ok(row) => row,
            Err(e) => return RowState::Damaged(e),
        };
        let ours = row.sweep_id == manifest.sweep_id
            && row.setting == manifest.sweep.settings[setting]
            && row.seed == seed;
        match ours {
            true => RowState::Done(Box::new(row)),
            false => RowState::Damaged(StoreError::NotThisRun { path }),
        }
    }

    /// The row of run `(setting, seed)` when it is done.
    pub fn done(manifest: &Manifest, dir: &Path, setting: usize, seed: u64) -> Option<Row> {
        match Row::state(manifest, dir, setting, seed) {
            RowState::Done(row) => Some(*row),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::manifest::Sweep;
    use super::*;

    fn manifest() -> Manifest {
        Manifest::new(Sweep {
            task: "gol".into(),
            small: false,
            full: false,
            seeds: vec![3, 4],
            sets: vec![],
            settings: vec!["preset".into()],
            shards: 1,
            version: "0.1.0".into(),
            target: None,
        })
    }

    fn outcome(soft_loss: f64) -> Outcome {
        Outcome {
            setting: 0,
            seed: 4,
            attempts: 3,
            attempt: 2,
            epochs_before: 5,
            solved_at: Some(7),
            exact_at: None,
            epochs: 9,
            last: Some(Metrics {
                soft_loss,
                hard_loss: 2.0,
                accuracy: 0.5,
            }),
            fresh_accuracy: Some(0.25),
            exact: false,
            grows: None,
            holds: None,
            regrows: None,
            wall_s: 1.5,
            search_s: Some(0.5),
            error: None,
            search: Some(GateSearch {
                wrong_before: 3,
                wrong_after: 1,
                changed: 1,
                rewired: 1,
                tried: 40,
            }),
        }
    }

    #[test]
    fn a_row_gives_back_its_outcome_through_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let m = manifest();
        let row = Row::new(&m, &outcome(0.1 + 0.2), "node".into(), 2);
        let path = m.row_path(dir.path(), 0, 4);
        row.write(&path).unwrap();
        let read = Row::read(&path).unwrap();
        assert_eq!(read, row);
        assert_eq!(read.outcome(0), outcome(0.1 + 0.2));
        assert_eq!(Row::done(&m, dir.path(), 0, 4), Some(row));
        assert_eq!(Row::done(&m, dir.path(), 0, 3), None);
    }

    /// A run of one attempt without a gate search writes no `search` or attempt keys, as
    /// rows did before searches and attempts were recorded, and such a row reads back
    /// without them.
    #[test]
    fn a_row_without_a_search_has_no_search_key() {
        let dir = tempfile::tempdir().unwrap();
        let m = manifest();
        let unsearched = Outcome {
            search: None,
            search_s: None,
            attempts: 1,
            attempt: 1,
            epochs_before: 0,
            ..outcome(0.5)
        };
        let path = m.row_path(dir.path(), 0, 4);
        Row::new(&m, &unsearched, "node".into(), 1)
            .write(&path)
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("search"), "{text}");
        assert!(
            !text.contains("attempt") && !text.contains("before"),
            "{text}"
        );
        assert_eq!(Row::read(&path).unwrap().outcome(0), unsearched);
    }

    #[test]
    fn a_loss_that_is_not_a_number_survives_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let m = manifest();
        let path = m.row_path(dir.path(), 0, 4);
        Row::new(&m, &outcome(f64::NAN), "node".into(), 1)
            .write(&path)
            .unwrap();
        let back = Row::read(&path).unwrap().outcome(0);
        assert!(back.last.unwrap().soft_loss.is_nan());
        assert_eq!(back.last.unwrap().hard_loss, 2.0);
    }

    #[test]
    fn a_truncated_row_is_not_done() {
        let dir = tempfile::tempdir().unwrap();
        let m = manifest();
        let path = m.row_path(dir.path(), 0, 4);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{\"sweep_id\": ").unwrap();
        assert_eq!(Row::done(&m, dir.path(), 0, 4), None);
        assert!(matches!(Row::read(&path), Err(StoreError::BadRow { .. })));
    }
}
