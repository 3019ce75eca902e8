//! The rows of one sweep from one or more folders (the shards' outputs), checked: what
//! `sweep merge` tabulates and `sweep status` counts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::error::StoreError;
use super::manifest::Manifest;
use super::rows::Row;
use super::Outcome;

/// Every row found, one per run, and the runs of the plan that have none.
#[derive(Debug, Clone, PartialEq)]
pub struct Gathered {
    pub manifest: Manifest,
    /// The outcomes found, in plan order.
    pub outcomes: Vec<Outcome>,
    /// The `(setting, seed)` runs without a good row, in plan order (the damaged ones
    /// too).
    pub missing: Vec<(usize, u64)>,
    /// The row files of the plan's runs that are damaged, in the order found.
    pub damaged: Vec<DamagedRow>,
}

/// A run's row file that cannot be used: unreadable, or changed after it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct DamagedRow {
    pub run: (usize, u64),
    pub path: PathBuf,
    /// What is wrong with it, naming the file.
    pub why: String,
}

/// The rows of the sweep in `dirs` (the first one's manifest is the sweep). Refuses a
/// folder of another sweep, a row of another sweep or not in the plan, and two rows of
/// one run whose results differ; the same row found twice counts once. A run's row file
/// that is damaged is listed, not refused, so that `status` can say how to make it again.
pub fn gather(dirs: &[PathBuf]) -> Result<Gathered, StoreError> {
    let first = dirs.first().expect("at least one folder");
    let manifest = Manifest::read(first)?;
    let mut found: BTreeMap<(usize, u64), (Row, PathBuf)> = BTreeMap::new();
    let mut damaged = Vec::new();
    for dir in dirs {
        manifest.same_sweep(&Manifest::read(dir)?, dir)?;
        for path in row_files(dir)? {
            let row = match Row::read(&path) {
                Ok(row) => row,
                Err(e @ (StoreError::Damaged { .. } | StoreError::BadRow { .. })) => {
                    let run = manifest
                        .plan()
                        .into_iter()
                        .find(|&(s, seed)| manifest.row_path(dir, s, seed) == path);
                    let Some(run) = run else {
                        return Err(e);
                    };
                    let why = e.to_string();
                    damaged.push(DamagedRow { run, path, why });
                    continue;
                }
                Err(e) => return Err(e),
            };
            let run = run_of(&manifest, &row, &path)?;
            match found.get(&run) {
                Some((kept, kept_path)) if kept.result != row.result => {
                    return Err(StoreError::Differ {
                        setting: row.setting,
                        seed: row.seed,
                        first: kept_path.clone(),
                        second: path,
                    });
                }
                Some(_) => {}
                None => {
                    found.insert(run, (row, path));
                }
            }
        }
    }
    let mut outcomes = Vec::new();
    let mut missing = Vec::new();
    for (setting, seed) in manifest.plan() {
        match found.get(&(setting, seed)) {
            Some((row, _)) => outcomes.push(row.outcome(setting)),
            None => missing.push((setting, seed)),
        }
    }
    Ok(Gathered {
        manifest,
        outcomes,
        missing,
        damaged,
    })
}

/// Which run of `manifest`'s plan `row` (read from `path`) is.
fn run_of(manifest: &Manifest, row: &Row, path: &Path) -> Result<(usize, u64), StoreError> {
    if row.sweep_id != manifest.sweep_id {
        return Err(StoreError::ForeignRow {
            path: path.to_path_buf(),
            found: row.sweep_id.clone(),
            expected: manifest.sweep_id.clone(),
        });
    }
    let setting = manifest
        .sweep
        .settings
        .iter()
        .position(|s| *s == row.setting);
    match setting {
        Some(s) if manifest.sweep.seeds.contains(&row.seed) => Ok((s, row.seed)),
        _ => Err(StoreError::NotInPlan {
            path: path.to_path_buf(),
            setting: row.setting.clone(),
            seed: row.seed,
        }),
    }
}

/// The row files in `dir/runs`, sorted: every `.json` but the saved models and the
/// hidden temporary files of writes under way.
fn row_files(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let runs = dir.join("runs");
    let entries = match std::fs::read_dir(&runs) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(StoreError::Io { path: runs, source }),
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|source| StoreError::Io {
                path: runs.clone(),
                source,
            })?
            .path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.ends_with(".json") && !name.ends_with(".model.json") && !name.starts_with('.') {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::super::manifest::Sweep;
    use super::*;

    fn manifest(seeds: Vec<u64>) -> Manifest {
        Manifest::new(Sweep {
            task: "checkerboard".into(),
            small: true,
            full: false,
            seeds,
            sets: vec!["lr=0.1,0.2".into()],
            settings: vec!["lr=0.1".into(), "lr=0.2".into()],
            shards: 2,
            version: "0.1.0".into(),
            target: None,
        })
    }

    fn outcome(setting: usize, seed: u64, epochs: usize) -> Outcome {
        Outcome {
            setting,
            seed,
            attempts: 1,
            attempt: 1,
            epochs_before: 0,
            solved_at: None,
            exact_at: None,
            epochs,
            last: None,
            fresh_accuracy: None,
            exact: false,
            grows: None,
            holds: None,
            regrows: None,
            wall_s: seed as f64,
            search_s: None,
            error: None,
            search: None,
        }
    }

    fn write(m: &Manifest, dir: &Path, o: &Outcome) {
        m.create_or_check(dir).unwrap();
        Row::new(m, o, "host".into(), 1)
            .write(&m.row_path(dir, o.setting, o.seed))
            .unwrap();
    }

    #[test]
    fn rows_from_several_folders_make_one_sweep_and_name_the_missing() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let m = manifest(vec![5, 6]);
        write(&m, a.path(), &outcome(0, 5, 10));
        write(&m, b.path(), &outcome(1, 6, 12));
        // The same run in both folders, run on another host: counted once.
        write(&m, b.path(), &outcome(0, 5, 10));
        let g = gather(&[a.path().into(), b.path().into()]).unwrap();
        assert_eq!(g.outcomes, [outcome(0, 5, 10), outcome(1, 6, 12)]);
        assert_eq!(g.missing, [(0, 6), (1, 5)]);
    }

    #[test]
    fn two_different_rows_of_one_run_are_a_determinism_error() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let m = manifest(vec![5]);
        write(&m, a.path(), &outcome(0, 5, 10));
        write(&m, b.path(), &outcome(0, 5, 11));
        let err = gather(&[a.path().into(), b.path().into()]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("determinism error: setting 'lr=0.1' seed 5 has two different rows"),
            "{err}"
        );
    }

    #[test]
    fn rows_of_another_sweep_or_outside_the_plan_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let m = manifest(vec![5]);
        m.create_or_check(dir.path()).unwrap();
        let other = manifest(vec![5, 9]);
        let stray = m.row_path(dir.path(), 0, 9);
        Row::new(&other, &outcome(0, 9, 1), "h".into(), 1)
            .write(&stray)
            .unwrap();
        let err = gather(&[dir.path().into()]).unwrap_err();
        assert!(matches!(err, StoreError::ForeignRow { .. }), "{err}");
        let mut row = Row::new(&m, &outcome(0, 9, 1), "h".into(), 1);
        row.write(&stray).unwrap();
        let err = gather(&[dir.path().into()]).unwrap_err();
        assert!(err
            .to_string()
            .ends_with("setting 'lr=0.1' seed 9 is not in this sweep's plan"));
        row.seed = 5;
        row.write(&stray).unwrap();
        std::fs::remove_file(&stray).unwrap();
        let foreign = tempfile::tempdir().unwrap();
        other.create_or_check(foreign.path()).unwrap();
        let err = gather(&[dir.path().into(), foreign.path().into()]).unwrap_err();
        assert!(err.to_string().contains("differs in seeds"), "{err}");
    }
}
