//! What a sweep is, written once into its folder: the plan every shard runs a part of,
//! and the `sweep_id` that tells this sweep's files from another's.
//!
//! The contract with a cluster's scheduler is the one of Slurm job arrays and Kubernetes
//! Indexed Jobs: N numbered pieces of work, piece I runs the plan entries k with
//! k mod N = I, in a fixed order (settings outermost, then seeds).

use std::path::{Path, PathBuf};

use super::digest::json_digest;
use super::error::StoreError;
use super::plan::{self, Shard};
use crate::io::atomic::write_new_atomically;
use crate::io::pattern_image::png_bytes;
use crate::model::pattern::PatternTarget;

/// The manifest's file name in a sweep's folder.
pub const MANIFEST: &str = "manifest.json";

/// The version of the manifest's and the rows' layout; part of the `sweep_id`. 2: each
/// row carries its checksum.
pub const FORMAT: u32 = 2;

/// One sweep's plan and identity, as `DIR/manifest.json` holds it (the plan's fields
/// side by side with the id).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// A hash of the format and the plan: two folders belong to one sweep when their ids
    /// agree.
    pub sweep_id: String,
    pub format: u32,
    #[serde(flatten)]
    pub sweep: Sweep,
}

/// What a sweep runs, and how it is cut.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sweep {
    /// The task's name, as the command line spells it.
    pub task: String,
    /// The reduced preset (`--small`).
    pub small: bool,
    /// Runs go on after their kept model is exact (`--full`).
    pub full: bool,
    pub seeds: Vec<u64>,
    /// The `--set` values the settings were made from, in order.
    pub sets: Vec<String>,
    /// The settings' labels, in plan order.
    pub settings: Vec<String>,
    /// How many shards the plan is cut into.
    pub shards: usize,
    /// The version of the `logicars` that writes the rows: another version may train
    /// differently, so its rows are another sweep's.
    pub version: String,
    /// The target image every run grows (`--target`, the `pattern` task), as bits: a
    /// sweep of another image is another sweep. Its folder keeps it as [`TARGET`] too,
    /// which the shards read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<PatternTarget>,
}

/// The file in a sweep's folder that holds its `--target` image, as shards read it.
pub const TARGET: &str = "target.png";

impl Manifest {
    pub fn new(sweep: Sweep) -> Self {
        Manifest {
            sweep_id: sweep_id(FORMAT, &sweep),
            format: FORMAT,
            sweep,
        }
    }

    /// Every `(setting, seed)` run, in plan order.
    pub fn plan(&self) -> Vec<(usize, u64)> {
        plan::entries(self.sweep.settings.len(), &self.sweep.seeds)
    }

    /// The runs of shard `index`: plan entries k with k mod shards = index.
    pub fn shard(&self, index: usize) -> Vec<(usize, u64)> {
        let shard = Shard::new(index, self.sweep.shards).expect("index < shards");
        plan::shard(&self.plan(), shard)
    }

    /// Writes the manifest into `dir` unless one is there, without ever replacing one
    /// (shards that start at once agree on the first); then requires that the manifest
    /// in `dir` is this one.
    /// A sweep of a `--target` also keeps its image there ([`TARGET`]).
    pub fn create_or_check(&self, dir: &Path) -> Result<(), StoreError> {
        let path = dir.join(MANIFEST);
        let json = serde_json::to_vec_pretty(self).expect("a manifest serializes");
        match write_new_atomically(&path, &json) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                self.same_sweep(&Manifest::read(dir)?, dir)?;
            }
            Err(source) => return Err(StoreError::Io { path, source }),
        }
        let Some(target) = &self.sweep.target else {
            return Ok(());
        };
        let path = dir.join(TARGET);
        match write_new_atomically(&path, &png_bytes(target)) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                Err(StoreError::Io { path, source: e })
            }
            _ => Ok(()),
        }
    }

    /// The manifest of the sweep in `dir`.
    pub fn read(dir: &Path) -> Result<Manifest, StoreError> {
        let path = dir.join(MANIFEST);
        let text = std::fs::read(&path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => StoreError::NoManifest(dir.to_path_buf()),
            _ => StoreError::Io {
                path: path.clone(),
                source,
            },
        })?;
        let manifest: Manifest =
            serde_json::from_slice(&text).map_err(|source| StoreError::BadManifest {
                path: path.clone(),
                reason: source.to_string(),
            })?;
        if manifest.sweep_id != sweep_id(manifest.format, &manifest.sweep) {
            return Err(StoreError::BadManifest {
                path,
                reason: "its sweep_id is not the hash of its plan (edited by hand?)".into(),
            });
        }
        Ok(manifest)
    }

    /// Refuses `other` (found in `dir`) unless it is this sweep, naming what differs.
    pub fn same_sweep(&self, other: &Manifest, dir: &Path) -> Result<(), StoreError> {
        if self.sweep_id == other.sweep_id {
            return Ok(());
        }
        Err(StoreError::ForeignSweep {
            dir: dir.to_path_buf(),
            found: other.sweep_id.clone(),
            expected: self.sweep_id.clone(),
            differs: self.differences(other).join(", "),
        })
    }

    /// The names of the fields in which `other` differs.
    fn differences(&self, other: &Manifest) -> Vec<&'static str> {
        let (a, b) = (&self.sweep, &other.sweep);
        let checks = [
            ("format", self.format != other.format),
            ("task", a.task != b.task),
            ("--small", a.small != b.small),
            ("--full", a.full != b.full),
            ("seeds", a.seeds != b.seeds),
            ("settings", a.sets != b.sets),
            ("shards", a.shards != b.shards),
            ("version", a.version != b.version),
            ("--target", a.target != b.target),
        ];
        checks.into_iter().filter(|c| c.1).map(|c| c.0).collect()
    }

    /// The file of run `(setting, seed)`'s row in `dir`.
    pub fn row_path(&self, dir: &Path, setting: usize, seed: u64) -> PathBuf {
        dir.join("runs").join(format!(
            "{}-seed{seed}.json",
            file_safe(&self.sweep.settings[setting])
        ))
    }

    /// The file of run `(setting, seed)`'s kept model in `dir` (`--save-models`).
    pub fn model_path(&self, dir: &Path, setting: usize, seed: u64) -> PathBuf {
        dir.join("runs").join(format!(
            "{}-seed{seed}.model.json",
            file_safe(&self.sweep.settings[setting])
        ))
    }

    /// The file of run `(setting, seed)`'s per-epoch log in `dir`, every attempt's
    /// (`--save-models`).
    pub fn log_path(&self, dir: &Path, setting: usize, seed: u64) -> PathBuf {
        dir.join("runs").join(format!(
            "{}-seed{seed}.metrics.csv",
            file_safe(&self.sweep.settings[setting])
        ))
    }
}

/// A setting's label as part of a file name: spaces and path separators become `_`.
fn file_safe(label: &str) -> String {
    label
        .chars()
        .map(|c| match c {
            ' ' | '/' | '\\' | ':' => '_',
            c => c,
        })
        .collect()
}

/// The id of a sweep of `format`: the first 16 hex digits of the SHA-256 of its plan's
/// JSON.
fn sweep_id(format: u32, sweep: &Sweep) -> String {
    json_digest(&(format, sweep), 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(shards: usize) -> Manifest {
        Manifest::new(Sweep {
            task: "checkerboard".into(),
            small: true,
            full: false,
            seeds: vec![0, 1, 2],
            sets: vec!["lr=0.1,0.2".into()],
            settings: vec!["lr=0.1".into(), "lr=0.2".into()],
            shards,
            version: "0.1.0".into(),
            target: None,
        })
    }

    #[test]
    fn shards_take_every_nth_entry_of_the_plan() {
        let m = manifest(4);
        assert_eq!(m.plan().len(), 6);
        assert_eq!(m.shard(0), [(0, 0), (1, 1)]);
        assert_eq!(m.shard(1), [(0, 1), (1, 2)]);
        assert_eq!(m.shard(3), [(1, 0)]);
        let mut all: Vec<_> = (0..4).flat_map(|i| m.shard(i)).collect();
        all.sort();
        assert_eq!(all, m.plan());
    }

    #[test]
    fn the_id_changes_with_every_field_of_the_plan() {
        let m = manifest(4);
        assert_eq!(m.sweep_id.len(), 16);
        assert_eq!(m.sweep_id, manifest(4).sweep_id);
        assert_ne!(m.sweep_id, manifest(3).sweep_id);
        let other = Manifest::new(Sweep {
            task: "checkerboard".into(),
            small: true,
            full: false,
            seeds: vec![0, 1, 2],
            sets: vec!["lr=0.1,0.2".into()],
            settings: vec!["lr=0.1".into(), "lr=0.2".into()],
            shards: 4,
            version: "0.2.0".into(),
            target: None,
        });
        assert_ne!(m.sweep_id, other.sweep_id);
        assert_eq!(m.differences(&other), ["version"]);
    }

    #[test]
    fn a_folder_keeps_its_first_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let m = manifest(4);
        m.create_or_check(dir.path()).unwrap();
        m.create_or_check(dir.path()).unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap(), m);
        let err = manifest(2).create_or_check(dir.path()).unwrap_err();
        assert!(err.to_string().contains("differs in shards"), "{err}");
        assert_eq!(Manifest::read(dir.path()).unwrap(), m, "never replaced");
    }

    #[test]
    fn row_files_are_named_by_setting_and_seed() {
        let m = manifest(1);
        assert_eq!(
            m.row_path(Path::new("d"), 1, 7),
            Path::new("d/runs/lr=0.2-seed7.json")
        );
        assert_eq!(file_safe("recipe=paper lr=0.1"), "recipe=paper_lr=0.1");
    }
}
