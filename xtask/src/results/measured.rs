//! The raw results of a measurement: each run's times, grouped by variant and workload,
//! and how the measurement was planned and why it stopped.

use serde::Serialize;

/// What one run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    pub wall_s: f64,
    pub user_s: f64,
    pub system_s: f64,
    pub max_rss_kb: u64,
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The time the program says it computed (`LOGICARS_COMPUTE_TIME`), if it said.
    pub compute_s: Option<f64>,
}

/// Every timed run of one variant on one workload, one per round.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Samples {
    pub runs: Vec<Measurement>,
}

/// How long to measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// Timed rounds at least (two or more: a spread needs two).
    pub min_rounds: usize,
    /// Timed rounds at most, per workload.
    pub max_rounds: usize,
    /// Untimed rounds before them.
    pub warmup: usize,
    /// Stop once every speedup's 95% interval is within this relative half-width.
    pub precision: f64,
    /// Seconds of runs the whole measurement may take; each workload gets an even share
    /// of what is left when it starts.
    pub budget_s: f64,
    /// Cores every run is pinned to (empty: not pinned).
    pub cpus: Vec<usize>,
}

/// Which time the speedups compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// The program's own compute time (epochs or rollouts, no start-up or I/O).
    Compute,
    /// The whole process, for programs that do not report their compute time.
    Wall,
}

/// Why a workload's measurement stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// Every interval reached the precision.
    Precise,
    /// Its share of the budget was spent first.
    Budget,
    /// `max_rounds` were run first.
    MaxRounds,
}

/// One workload's runs: `samples[variant]`, the time compared, why it stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub samples: Vec<Samples>,
    pub metric: Metric,
    pub stop: Stop,
}

/// The compute time when every run reported one, the wall time otherwise.
pub fn metric_of(samples: &[Samples]) -> Metric {
    let all_report = samples
        .iter()
        .flat_map(|s| &s.runs)
        .all(|m| m.compute_s.is_some());
    if all_report {
        Metric::Compute
    } else {
        Metric::Wall
    }
}

/// The times a metric compares, one per timed round.
pub fn times(samples: &Samples, metric: Metric) -> Vec<f64> {
    samples
        .runs
        .iter()
        .map(|m| match metric {
            Metric::Compute => m.compute_s.unwrap_or(m.wall_s),
            Metric::Wall => m.wall_s,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_compute_records_the_wall_time_is_compared() {
        let mut s = vec![Samples::default()];
        let run = |compute_s| Measurement {
            wall_s: 2.0,
            user_s: 0.0,
            system_s: 0.0,
            max_rss_kb: 0,
            exit_code: 0,
            stdout: String::new(),
            stderr: String::new(),
            compute_s,
        };
        s[0].runs = vec![run(Some(1.0)), run(None)];
        assert_eq!(metric_of(&s), Metric::Wall);
        assert_eq!(times(&s[0], Metric::Wall), [2.0, 2.0]);
        s[0].runs[1].compute_s = Some(1.5);
        assert_eq!(metric_of(&s), Metric::Compute);
        assert_eq!(times(&s[0], Metric::Compute), [1.0, 1.5]);
    }
}
