//! A profile's coverage of a workload: the share of its samples in functions that no
//! training run executed, or only runs that stand for other workloads did.

use crate::results::coverage::{Coverage, ProfileRuns};
use crate::results::samples::FunctionSamples;

/// Where `samples` (of the benchmark workload `workload`) fall against `profile`.
pub fn coverage(workload: &str, samples: &FunctionSamples, profile: &ProfileRuns) -> Coverage {
    let own: Vec<_> = profile
        .runs
        .iter()
        .filter(|r| r.represents.iter().any(|w| w == workload))
        .collect();
    let total = samples.total();
    let (mut outside, mut unprofiled, mut elsewhere) = (0, 0, 0);
    for (f, &n) in &samples.by_function {
        if f.starts_with('[') {
            outside += n;
        } else if !profile.runs.iter().any(|r| r.functions.contains(f)) {
            unprofiled += n;
        } else if !own.iter().any(|r| r.functions.contains(f)) {
            elsewhere += n;
        }
    }
    let share = |n: u64| {
        if total == 0 {
            0.0
        } else {
            n as f64 / total as f64
        }
    };
    Coverage {
        workload: workload.to_string(),
        samples: total,
        outside: share(outside),
        unprofiled: share(unprofiled),
        elsewhere: share(elsewhere),
        represented_by: own.iter().map(|r| r.name.clone()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::coverage::ProfileRun;

    fn run(name: &str, represents: &[&str], functions: &[&str]) -> ProfileRun {
        ProfileRun {
            name: name.into(),
            represents: represents.iter().map(|s| s.to_string()).collect(),
            functions: functions.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// By hand: 100 samples; 10 in libm, 20 in `cold` (no run), 30 in `paper_only` (a run
    /// for another workload), 40 in `shared` (this workload's run too).
    #[test]
    fn samples_split_by_who_executed_their_function() {
        let profile = ProfileRuns {
            runs: vec![
                run("cb-default", &["cb-default"], &["shared"]),
                run("cb-paper", &["other"], &["shared", "paper_only"]),
            ],
        };
        let samples = FunctionSamples {
            runs: 1,
            by_function: [
                ("[libm] exp", 10),
                ("cold", 20),
                ("paper_only", 30),
                ("shared", 40),
            ]
            .iter()
            .map(|(f, n)| (f.to_string(), *n))
            .collect(),
        };
        let c = coverage("cb-default", &samples, &profile);
        assert_eq!(
            (c.samples, c.outside, c.unprofiled, c.elsewhere),
            (100, 0.1, 0.2, 0.3)
        );
        assert_eq!(c.represented_by, ["cb-default"]);
        assert!((c.represented() - 40.0 / 90.0).abs() < 1e-12);
        assert!(c.is_poor());
        // A workload no run stands for has every profiled sample "elsewhere".
        let other = coverage("nobody", &samples, &profile);
        assert_eq!(other.elsewhere, 0.7);
        assert_eq!(other.represented(), 0.0);
    }
}
