//! Turns raw measurements into the numbers a report shows. No I/O here.

use crate::analysis::stats::{self, paired_speedup};
use crate::results::counts::Counts;
use crate::results::measured::{times, Measured, Samples};
use crate::results::report::{SummaryRow, VariantStats, WorkloadReport};

/// Resamples of the bootstrap interval of a median.
const BOOTSTRAP_RESAMPLES: usize = 2000;

/// One workload's variants: names, command lines and instruction counts, by variant.
pub struct Entrants<'a> {
    pub variants: &'a [String],
    pub commands: &'a [String],
    pub counts: &'a [Option<Counts>],
}

/// Statistics of each variant's runs, relative to the first variant (the baseline).
pub fn workload_report(
    name: &str,
    command: &str,
    entrants: &Entrants,
    measured: &Measured,
) -> WorkloadReport {
    let metric = measured.metric;
    let base = times(&measured.samples[0], metric);
    let results = measured
        .samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let t = times(s, metric);
            let paired = (i > 0).then(|| paired_speedup(&t, &base)).flatten();
            let mut stats = wall_stats(name, s);
            stats.variant.clone_from(&entrants.variants[i]);
            stats.command.clone_from(&entrants.commands[i]);
            stats.metric_median = stats::median(&t);
            stats.metric_median_ci95 =
                stats::bootstrap_median_ci(&t, BOOTSTRAP_RESAMPLES, i as u64);
            stats.speedup = paired.map_or(1.0, |p| p.speedup);
            stats.speedup_ci95 = paired.map_or((1.0, 1.0), |p| p.ci95);
            stats.detectable = paired.map(|p| p.detectable);
            stats.counts = entrants.counts[i];
            stats
        })
        .collect();
    WorkloadReport {
        name: name.into(),
        command: command.into(),
        metric,
        rounds: base.len(),
        stop: measured.stop,
        results,
        moved: Vec::new(),
        coverage: None,
    }
}

/// hyperfine's statistics of the wall times; the comparison fields are filled by the caller.
fn wall_stats(workload: &str, s: &Samples) -> VariantStats {
    let t: Vec<f64> = s.runs.iter().map(|m| m.wall_s).collect();
    let user: Vec<f64> = s.runs.iter().map(|m| m.user_s).collect();
    let system: Vec<f64> = s.runs.iter().map(|m| m.system_s).collect();
    let compute: Option<Vec<f64>> = s.runs.iter().map(|m| m.compute_s).collect();
    VariantStats {
        command: String::new(),
        mean: stats::mean(&t),
        stddev: stats::stddev(&t),
        median: stats::median(&t),
        user: stats::mean(&user),
        system: stats::mean(&system),
        min: stats::min(&t),
        max: stats::max(&t),
        exit_codes: s.runs.iter().map(|m| m.exit_code).collect(),
        workload: workload.into(),
        variant: String::new(),
        max_rss_kb: s.runs.iter().map(|m| m.max_rss_kb).max().unwrap_or(0),
        outliers: stats::outliers(&t),
        compute_times: compute,
        metric_median: 0.0,
        metric_median_ci95: (0.0, 0.0),
        speedup: 1.0,
        speedup_ci95: (1.0, 1.0),
        detectable: None,
        counts: None,
        times: t,
    }
}

/// One row per variant: its speedups and their geometric mean.
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
