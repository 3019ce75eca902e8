//! Turns raw measurements into the numbers a report shows. No I/O here.

use serde::Serialize;

use crate::machine::Machine;
use crate::runner::Measurement;
use crate::stats;

/// Resamples of the bootstrap interval.
const BOOTSTRAP_RESAMPLES: usize = 2000;

/// Every timed run of one variant on one workload.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Samples {
    pub runs: Vec<Measurement>,
}

/// One variant on one workload, in hyperfine's JSON fields plus ours.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantStats {
    pub command: String,
    pub workload: String,
    pub variant: String,
    pub mean: f64,
    pub stddev: Option<f64>,
    pub median: f64,
    pub user: f64,
    pub system: f64,
    pub min: f64,
    pub max: f64,
    pub times: Vec<f64>,
    pub exit_codes: Vec<i32>,
    pub max_rss_kb: u64,
    pub outliers: usize,
    /// Mean time over the baseline's mean time (below 1 is faster).
    pub relative: f64,
    pub relative_stddev: Option<f64>,
    /// Baseline median over this median (above 1 is faster).
    pub speedup: f64,
    pub speedup_ci95: (f64, f64),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkloadReport {
    pub name: String,
    pub command: String,
    pub results: Vec<VariantStats>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummaryRow {
    pub variant: String,
    /// Geometric mean over workloads of the median speedups.
    pub geomean_speedup: f64,
    pub speedups: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub name: String,
    pub workload_file: String,
    pub baseline: String,
    pub runs: usize,
    pub warmup: usize,
    pub machine: Machine,
    pub workloads: Vec<WorkloadReport>,
    pub summary: Vec<SummaryRow>,
}

/// Statistics of `samples[v]` for each variant `v`, relative to `variants[baseline]`.
pub fn workload_report(
    name: &str,
    command: &str,
    variants: &[String],
    baseline: usize,
    samples: &[Samples],
) -> WorkloadReport {
    let times = |s: &Samples| s.runs.iter().map(|m| m.wall_s).collect::<Vec<_>>();
    let base = times(&samples[baseline]);
    let (base_mean, base_sd) = (stats::mean(&base), stats::stddev(&base));
    let results = variants
        .iter()
        .zip(samples)
        .enumerate()
        .map(|(i, (variant, s))| {
            let t = times(s);
            let (mean, sd) = (stats::mean(&t), stats::stddev(&t));
            let (relative, relative_sd) = match (sd, base_sd) {
                // The baseline against itself is exactly 1, as hyperfine shows it.
                _ if i == baseline => (1.0, None),
                (Some(a), Some(b)) => {
                    let (r, d) = stats::relative(mean, a, base_mean, b);
                    (r, Some(d))
                }
                _ => (mean / base_mean, None),
            };
            let user: Vec<f64> = s.runs.iter().map(|m| m.user_s).collect();
            let system: Vec<f64> = s.runs.iter().map(|m| m.system_s).collect();
            VariantStats {
                command: variant.clone(),
                workload: name.into(),
                variant: variant.clone(),
                mean,
                stddev: sd,
                median: stats::median(&t),
                user: stats::mean(&user),
                system: stats::mean(&system),
                min: stats::min(&t),
                max: stats::max(&t),
                max_rss_kb: s.runs.iter().map(|m| m.max_rss_kb).max().unwrap_or(0),
                exit_codes: s.runs.iter().map(|m| m.exit_code).collect(),
                outliers: stats::outliers(&t),
                relative,
                relative_stddev: relative_sd,
                speedup: stats::median(&base) / stats::median(&t),
                speedup_ci95: stats::bootstrap_speedup_ci(&t, &base, BOOTSTRAP_RESAMPLES, i as u64),
                times: t,
            }
        })
        .collect();
    WorkloadReport {
        name: name.into(),
        command: command.into(),
        results,
    }
}

/// One row per variant: its median speedups and their geometric mean.
pub fn summary(variants: &[String], workloads: &[WorkloadReport]) -> Vec<SummaryRow> {
    variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let speedups: Vec<f64> = workloads.iter().map(|w| w.results[i].speedup).collect();
            SummaryRow {
                variant: v.clone(),
                geomean_speedup: stats::geometric_mean(&speedups),
                speedups,
            }
        })
        .collect()
}
