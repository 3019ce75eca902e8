//! `results/history.csv`: every report's figures, one row per variant and workload, so
//! today's build can be compared with last week's (`cargo xtask compare`).

use std::fs::OpenOptions;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::results::report::Report;
use crate::support::label::label;

/// One variant on one workload in one report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// When the report was measured (UTC, to the second).
    pub date: String,
    pub commit: String,
    /// CPU, cores and the kernels' SIMD level.
    pub machine: String,
    pub report: String,
    pub variant: String,
    pub workload: String,
    /// `compute` or `wall`.
    pub metric: String,
    pub median_s: f64,
    /// Bootstrap 95% interval of the median.
    pub median_low_s: f64,
    pub median_high_s: f64,
    /// Over the report's baseline, with its 95% interval.
    pub speedup: f64,
    pub speedup_low: f64,
    pub speedup_high: f64,
    pub instructions: Option<u64>,
}

/// The rows a report adds.
pub fn rows_of(report: &Report) -> Vec<Row> {
    let m = &report.machine;
    let machine = format!("{}, {} cores, {}", m.cpu, m.cores, m.simd);
    report
        .workloads
        .iter()
        .flat_map(|w| {
            w.results.iter().map(|r| Row {
                date: m.date.clone(),
                commit: m.commit.clone(),
                machine: machine.clone(),
                report: report.name.clone(),
                variant: r.variant.clone(),
                workload: w.name.clone(),
                metric: label(&w.metric),
                median_s: r.metric_median,
                median_low_s: r.metric_median_ci95.0,
                median_high_s: r.metric_median_ci95.1,
                speedup: r.speedup,
                speedup_low: r.speedup_ci95.0,
                speedup_high: r.speedup_ci95.1,
                instructions: r.counts.map(|c| c.instructions),
            })
        })
        .collect()
}

/// Every row of a history file (none if it does not exist).
pub fn load(path: &Path) -> Result<Vec<Row>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("reading {}", path.display()))?;
    reader
        .deserialize()
        .enumerate()
        .map(|(i, row)| row.with_context(|| format!("{}: row {}", path.display(), i + 2)))
        .collect()
}

/// Adds `rows` to the history at `path`: under a lock, the old rows (which must parse:
/// a damaged history is refused, not overwritten) and the new ones are written to a
/// temporary file that then replaces the old one. Readers see the old file or the new,
/// and concurrent reports both land.
pub fn append(path: &Path, rows: &[Row]) -> Result<()> {
    let _lock = Lock::take(&path.with_extension("csv.lock"))?;
    let mut all = load(path)?;
    all.extend_from_slice(rows);
    let mut out = csv::Writer::from_writer(Vec::new());
    for row in &all {
        out.serialize(row)?;
    }
    let bytes = out.into_inner().context("writing the history rows")?;
    logicars::io::atomic::write_atomically(path, &bytes)
        .with_context(|| format!("writing {}", path.display()))
}

/// An exclusive `flock` held while it lives.
struct Lock(std::fs::File);

impl Lock {
    fn take(path: &Path) -> Result<Lock> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        use std::os::fd::AsRawFd;
        // SAFETY: the descriptor is open for the whole call.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            bail!(
                "locking {}: {}",
                path.display(),
                std::io::Error::last_os_error()
            );
        }
        Ok(Lock(file))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: as in `take`; closing the file would release the lock anyway.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    pub fn row(date: &str, variant: &str, workload: &str, median_s: f64) -> Row {
        Row {
            date: date.into(),
            commit: format!("c{}", &date[..4]),
            machine: "Test CPU, 2 cores, AVX2".into(),
            report: "report".into(),
            variant: variant.into(),
            workload: workload.into(),
            metric: "compute".into(),
            median_s,
            median_low_s: median_s * 0.99,
            median_high_s: median_s * 1.01,
            speedup: 1.0,
            speedup_low: 1.0,
            speedup_high: 1.0,
            instructions: Some(1000),
        }
    }

    #[test]
    fn a_report_adds_a_row_per_variant_and_workload() {
        let rows = rows_of(&crate::export::fixture::fixed_report());
        assert_eq!(rows.len(), 6);
        assert_eq!(rows[1].variant, "cargo-default");
        assert_eq!(rows[1].workload, "train");
        assert_eq!(rows[1].metric, "compute");
        assert_eq!(rows[0].speedup, 1.0, "the baseline against itself");
    }

    #[test]
    fn appending_keeps_the_old_rows_and_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.csv");
        append(&path, &[row("2026-01-01", "release", "a", 1.0)]).unwrap();
        let second = [
            row("2026-02-01", "release", "a", 1.5),
            row("2026-02-01", "pgo", "a", 1.2),
        ];
        append(&path, &second).unwrap();
        let all = load(&path).unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0], row("2026-01-01", "release", "a", 1.0));
        assert_eq!(all[1..], second);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches("date,commit").count(), 1, "one header");
    }

    #[test]
    fn concurrent_appends_all_land() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.csv");
        std::thread::scope(|s| {
            for i in 0..8 {
                let path = &path;
                s.spawn(move || {
                    append(path, &[row("2026-01-01", "release", &format!("w{i}"), 1.0)]).unwrap()
                });
            }
        });
        let mut workloads: Vec<String> = load(&path)
            .unwrap()
            .into_iter()
            .map(|r| r.workload)
            .collect();
        workloads.sort();
        assert_eq!(
            workloads,
            (0..8).map(|i| format!("w{i}")).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_damaged_history_is_refused_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.csv");
        std::fs::write(&path, "date,commit\nnot,enough\n").unwrap();
        let e = format!(
            "{:#}",
            append(&path, &[row("2026-01-01", "release", "a", 1.0)]).unwrap_err()
        );
        assert!(e.contains("history.csv: row 2"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "date,commit\nnot,enough\n"
        );
    }
}
