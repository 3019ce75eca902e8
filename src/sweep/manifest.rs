//! What a sweep is, written once into its folder: the plan every shard runs a part of,
//! and the `sweep_id` that tells this sweep's files from another's.
//!
//! The contract with a cluster's scheduler is the one of Slurm job arrays and Kubernetes
//! Indexed Jobs: N numbered pieces of work, piece I runs the plan entries k with
//! k mod N = I, in a fixed order (settings outermost, then seeds).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::error::StoreError;
use super::plan;

/// The manifest's file name in a sweep's folder.
pub const MANIFEST: &str = "manifest.json";

/// The version of the manifest's and the rows' layout; part of the `sweep_id`.
pub const FORMAT: u32 = 1;

/// One sweep's plan and identity, as `DIR/manifest.json` holds it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// A hash of every other field: two folders belong to one sweep when their ids agree.
    pub sweep_id: String,
    pub format: u32,
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
}

/// What a manifest is made from; [`Manifest::new`] adds the id.
#[derive(Debug, Clone)]
pub struct Sweep {
    pub task: String,
    pub small: bool,
    pub full: bool,
    pub seeds: Vec<u64>,
    pub sets: Vec<String>,
    pub settings: Vec<String>,
    pub shards: usize,
    pub version: String,
}

impl Manifest {
    pub fn new(sweep: Sweep) -> Self {
        let mut manifest = Manifest {
            sweep_id: String::new(),
            format: FORMAT,
            task: sweep.task,
            small: sweep.small,
            full: sweep.full,
            seeds: sweep.seeds,
            sets: sweep.sets,
            settings: sweep.settings,
            shards: sweep.shards,
            version: sweep.version,
        };
        manifest.sweep_id = manifest.hash();
        manifest
    }

    /// The first 16 hex digits of the SHA-256 of the manifest's JSON without its id.
    fn hash(&self) -> String {
        let without_id = Manifest {
            sweep_id: String::new(),
            ..self.clone()
        };
        let json = serde_json::to_vec(&without_id).expect("a manifest serializes");
        let digest = Sha256::digest(&json);
        digest[..8].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Every `(setting, seed)` run, in plan order.
    pub fn plan(&self) -> Vec<(usize, u64)> {
        plan::entries(self.settings.len(), &self.seeds)
    }

    /// The runs of shard `index`: plan entries k with k mod shards = index.
    pub fn shard(&self, index: usize) -> Vec<(usize, u64)> {
        plan::shard(
            &self.plan(),
            Shard::new(index, self.shards).expect("index < shards"),
        )
    }

    /// The shard that runs `(setting, seed)`, if that run is in the plan.
    pub fn shard_of(&self, setting: usize, seed: u64) -> Option<usize> {
        let k = self.plan().iter().position(|&r| r == (setting, seed))?;
        Some(k % self.shards)
    }

    /// Writes the manifest into `dir` unless one is there, without ever replacing one (a
    /// hard link, which fails when the name exists: shards that start at once agree on
    /// the first); then requires that the manifest in `dir` is this one.
    pub fn create_or_check(&self, dir: &Path) -> Result<(), StoreError> {
        let path = dir.join(MANIFEST);
        let io = |source| StoreError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".manifest.")
            .suffix(".partial")
            .tempfile_in(dir)
            .map_err(io)?;
        serde_json::to_writer_pretty(tmp.as_file_mut(), self).expect("a manifest serializes");
        tmp.as_file().sync_all().map_err(io)?;
        match tmp.persist_noclobber(&path) {
            Ok(_) => Ok(()),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
                let found = Manifest::read(dir)?;
                self.same_sweep(&found, dir)
            }
            Err(e) => Err(io(e.error)),
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
        if manifest.sweep_id != manifest.hash() {
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
        let checks = [
            ("format", self.format != other.format),
            ("task", self.task != other.task),
            ("--small", self.small != other.small),
            ("--full", self.full != other.full),
            ("seeds", self.seeds != other.seeds),
            ("settings", self.sets != other.sets),
            ("shards", self.shards != other.shards),
            ("version", self.version != other.version),
        ];
        checks.into_iter().filter(|c| c.1).map(|c| c.0).collect()
    }

    /// The file of run `(setting, seed)`'s row in `dir`.
    pub fn row_path(&self, dir: &Path, setting: usize, seed: u64) -> PathBuf {
        dir.join("runs").join(format!(
            "{}-seed{seed}.json",
            file_safe(&self.settings[setting])
        ))
    }

    /// The file of run `(setting, seed)`'s kept model in `dir` (`--save-models`).
    pub fn model_path(&self, dir: &Path, setting: usize, seed: u64) -> PathBuf {
        dir.join("runs").join(format!(
            "{}-seed{seed}.model.json",
            file_safe(&self.settings[setting])
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

/// Piece `index` of `count` (0-based, as `SLURM_ARRAY_TASK_ID` and `JOB_COMPLETION_INDEX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub fn new(index: usize, count: usize) -> Result<Self, String> {
        if count == 0 {
            return Err("the number of shards must be at least 1".into());
        }
        if index >= count {
            return Err(format!(
                "shard {index} does not exist in {count} shard(s) (they count from 0 to {})",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// The whole plan as one piece: a sweep on one machine.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `I/N`, e.g. `3/8`.
    fn from_str(text: &str) -> Result<Self, String> {
        let (index, count) = text
            .split_once('/')
            .ok_or_else(|| format!("'{text}': expected INDEX/COUNT, e.g. 0/4"))?;
        let number = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{s}' in '{text}' is not a whole number"))
        };
        Shard::new(number(index)?, number(count)?)
    }
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
        })
    }

    #[test]
    fn shards_take_every_nth_entry_of_the_plan() {
        let m = manifest(4);
        assert_eq!(m.plan().len(), 6);
        assert_eq!(m.shard(0), [(0, 0), (1, 1)]);
        assert_eq!(m.shard(1), [(0, 1), (1, 2)]);
        assert_eq!(m.shard(3), [(1, 0)]);
        assert_eq!(m.shard_of(1, 0), Some(3));
        assert_eq!(m.shard_of(1, 9), None);
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
    fn shards_parse_as_index_over_count() {
        assert_eq!("2/7".parse(), Ok(Shard { index: 2, count: 7 }));
        assert!("7/7".parse::<Shard>().unwrap_err().contains("0 to 6"));
        assert!("1/0".parse::<Shard>().is_err());
        assert!("1".parse::<Shard>().unwrap_err().contains("INDEX/COUNT"));
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
