//! The report: each workload's statistics by variant, the summary over workloads, how it
//! was measured and on which machine. Serialized as is into the report's JSON.

use serde::Serialize;

use crate::machine::Machine;
use crate::results::counts::Counts;
use crate::results::coverage::Coverage;
use crate::results::measured::{Metric, Plan, Stop};
use crate::results::samples::Moved;

/// One variant on one workload: hyperfine's JSON fields first (wall time of the whole
/// process, `command` the command line), then ours.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantStats {
    pub command: String,
    pub mean: f64,
    pub stddev: Option<f64>,
    pub median: f64,
    pub user: f64,
    pub system: f64,
    pub min: f64,
    pub max: f64,
    pub times: Vec<f64>,
    pub exit_codes: Vec<i32>,
    pub workload: String,
    pub variant: String,
    pub max_rss_kb: u64,
    /// Runs whose wall time is an outlier by hyperfine's rule.
    pub outliers: usize,
    /// The program's own compute times, one per round, when it reported them.
    pub compute_times: Option<Vec<f64>>,
    /// Median of the compared time (compute or wall) and its bootstrap 95% interval.
    pub metric_median: f64,
    pub metric_median_ci95: (f64, f64),
    /// Baseline time over this time, paired by round (above 1 is faster).
    pub speedup: f64,
    pub speedup_ci95: (f64, f64),
    /// The smallest speedup these rounds would detect (see
    /// [`crate::analysis::stats::PairedSpeedup`]); `None` for the baseline.
    pub detectable: Option<f64>,
    /// Instructions and simulated cache misses of the workload's short form.
    pub counts: Option<Counts>,
}

impl VariantStats {
    /// The relative half-width of the speedup's interval (its larger side).
    pub fn speedup_half_width(&self) -> f64 {
        (self.speedup_ci95.1 / self.speedup - 1.0).max(1.0 - self.speedup_ci95.0 / self.speedup)
    }

    /// The times `metric` compares, one per round.
    pub fn metric_times(&self, metric: Metric) -> &[f64] {
        match metric {
            Metric::Compute => self.compute_times.as_deref().unwrap_or(&self.times),
            Metric::Wall => &self.times,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkloadReport {
    pub name: String,
    /// The workload's `logicars` command line.
    pub command: String,
    /// The time the speedups compare.
    pub metric: Metric,
    pub rounds: usize,
    pub stop: Stop,
    pub results: Vec<VariantStats>,
    /// Where the time moved for each variant but the baseline (empty when not sampled).
    pub moved: Vec<Moved>,
    /// How well the PGO profile represents this workload (when a PGO build is compared
    /// and its profile's runs are known).
    pub coverage: Option<Coverage>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummaryRow {
    pub variant: String,
    /// Geometric mean over workloads of the speedups.
    pub geomean_speedup: f64,
    pub speedups: Vec<f64>,
}

/// How the report measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Settings {
    pub workload_file: String,
    pub baseline: String,
    /// Rounds of every variant under `perf record` (0: where the time moved not shown).
    pub sample_rounds: usize,
    #[serde(flatten)]
    pub plan: Plan,
    /// When earlier stretches' rounds were resumed (`report --resume`), when each began.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub earlier_stretches: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub name: String,
    pub settings: Settings,
    pub machine: Machine,
    pub workloads: Vec<WorkloadReport>,
    pub summary: Vec<SummaryRow>,
}
