//! Interleaved, adaptive measurement: for each workload, round after round, every variant
//! once (the order rotating), until every speedup over the baseline is known to the
//! precision asked for, or the time budget is spent.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use serde::Serialize;

use crate::builder::remove_stale;
use crate::runner::{run_checked, Invocation, Measurement, Runner};
use crate::stats::paired_speedup;
use crate::workloads::{Workload, WorkloadSet};

/// The environment variable through which `logicars` reports its compute time.
pub const COMPUTE_TIME_ENV: &str = "LOGICARS_COMPUTE_TIME";

/// Every timed run of one variant on one workload, one per round.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Samples {
    pub runs: Vec<Measurement>,
}

/// A variant and the binary that runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Contestant {
    pub variant: String,
    pub binary: PathBuf,
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

/// Measures every workload; the first contestant is the baseline. Fails if any run fails
/// or if variants print different results for the same workload.
pub fn measure(
    runner: &mut dyn Runner,
    contestants: &[Contestant],
    set: &WorkloadSet,
    plan: &Plan,
    scratch: &Path,
) -> Result<Vec<Measured>> {
    let mut all = Vec::new();
    let mut spent = 0.0;
    for (i, workload) in set.workloads.iter().enumerate() {
        let share = (plan.budget_s - spent).max(0.0) / (set.workloads.len() - i) as f64;
        let measured = measure_workload(runner, contestants, workload, plan, share, scratch)?;
        spent += measured
            .samples
            .iter()
            .flat_map(|s| &s.runs)
            .map(|m| m.wall_s)
            .sum::<f64>();
        all.push(measured);
    }
    Ok(all)
}

fn measure_workload(
    runner: &mut dyn Runner,
    contestants: &[Contestant],
    workload: &Workload,
    plan: &Plan,
    share_s: f64,
    scratch: &Path,
) -> Result<Measured> {
    let mut samples = vec![Samples::default(); contestants.len()];
    let mut spent = 0.0;
    for round in 0..plan.warmup {
        eprintln!(
            "[measure] {} warm-up {}/{}",
            workload.name,
            round + 1,
            plan.warmup
        );
        for c in contestants {
            spent += run_once(runner, c, workload, plan, scratch)?.wall_s;
        }
    }
    let mut round = 0;
    let stop = loop {
        let n = contestants.len();
        for k in 0..n {
            let v = (round + k) % n;
            let m = run_once(runner, &contestants[v], workload, plan, scratch)?;
            spent += m.wall_s;
            samples[v].runs.push(m);
        }
        round += 1;
        let metric = metric_of(&samples);
        let widths = half_widths(&samples, metric);
        let widest = widths.iter().copied().fold(0.0, f64::max);
        eprintln!(
            "[measure] {} round {round}: widest interval ±{:.2}% ({:.0} of {:.0} s)",
            workload.name,
            100.0 * widest,
            spent,
            share_s
        );
        if let Some(stop) = stop_after(round, plan, spent, share_s, &widths) {
            break stop;
        }
    };
    check_same_results(&workload.name, contestants, &samples)?;
    Ok(Measured {
        metric: metric_of(&samples),
        samples,
        stop,
    })
}

/// Whether to stop after `rounds` timed rounds that took `spent` of `share` seconds,
/// given each variant's interval half-width (`f64::INFINITY` while unknown).
pub fn stop_after(
    rounds: usize,
    plan: &Plan,
    spent: f64,
    share: f64,
    half_widths: &[f64],
) -> Option<Stop> {
    if rounds < plan.min_rounds {
        return None;
    }
    if half_widths.iter().all(|&w| w <= plan.precision) {
        Some(Stop::Precise)
    } else if rounds >= plan.max_rounds {
        Some(Stop::MaxRounds)
    } else if spent >= share {
        Some(Stop::Budget)
    } else {
        None
    }
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

/// The relative half-width of each non-baseline variant's speedup interval.
fn half_widths(samples: &[Samples], metric: Metric) -> Vec<f64> {
    let base = times(&samples[0], metric);
    samples[1..]
        .iter()
        .map(|s| paired_speedup(&times(s, metric), &base).map_or(f64::INFINITY, |p| p.half_width))
        .collect()
}

/// One run of one variant, pinned, with the program asked to report its compute time.
fn run_once(
    runner: &mut dyn Runner,
    c: &Contestant,
    workload: &Workload,
    plan: &Plan,
    scratch: &Path,
) -> Result<Measurement> {
    let report = scratch.join("compute-time.json");
    remove_stale(&report)?;
    let inv = Invocation {
        program: c.binary.clone(),
        args: workload.args_in(scratch),
        cwd: scratch.to_path_buf(),
        env: vec![(COMPUTE_TIME_ENV.into(), report.display().to_string())],
        cpus: plan.cpus.clone(),
    };
    let what = format!("workload '{}' of variant {}", workload.name, c.variant);
    let mut m = run_checked(runner, &inv, &what)?;
    m.compute_s = read_compute_time(&report)?;
    Ok(m)
}

/// The `compute_s` of the record a run wrote, `None` if it wrote none.
fn read_compute_time(path: &Path) -> Result<Option<f64>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let record: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{}: not a compute-time record: {e}", path.display()))?;
    match record["compute_s"].as_f64() {
        Some(s) if s.is_finite() && s >= 0.0 => Ok(Some(s)),
        _ => bail!("{}: no valid compute_s in {text}", path.display()),
    }
}

/// What a run printed, less its timing line.
pub fn results_of(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|l| !l.starts_with("wall time:"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_same_results(
    workload: &str,
    contestants: &[Contestant],
    samples: &[Samples],
) -> Result<()> {
    let reference = results_of(&samples[0].runs[0].stdout);
    for (c, s) in contestants.iter().zip(samples) {
        for m in &s.runs {
            let got = results_of(&m.stdout);
            if got != reference {
                bail!(
                    "variant {} gives other results than {} on workload '{workload}'; no report written.\n--- {} ---\n{}\n--- {} ---\n{}",
                    c.variant,
                    contestants[0].variant,
                    contestants[0].variant,
                    reference,
                    c.variant,
                    got
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the order of runs, answers with scripted times and outputs, and writes a
    /// compute-time record like `logicars` does.
    struct MockRunner {
        calls: Vec<String>,
        output_of: fn(&str) -> String,
        /// Relative noise of the k-th run: `noise[k % len]`.
        noise: Vec<f64>,
    }

    impl Runner for MockRunner {
        fn run(&mut self, inv: &Invocation) -> Result<Measurement> {
            let variant = inv.program.file_name().unwrap().to_string_lossy();
            self.calls.push(format!("{variant}:{}", inv.args[0]));
            let call = self.calls.len() - 1;
            let jitter = 1.0 + self.noise[call % self.noise.len()];
            let wall = if variant == "fast" { 1.0 } else { 2.0 } * jitter;
            let record = &inv.env[0].1;
            let json = format!("{{\"compute_s\": {}}}", wall * 0.9);
            std::fs::write(record, json).unwrap();
            Ok(Measurement {
                wall_s: wall,
                user_s: 1.0,
                system_s: 0.1,
                max_rss_kb: 1000,
                exit_code: 0,
                stdout: (self.output_of)(&variant),
                stderr: String::new(),
                compute_s: None,
            })
        }
    }

    fn runner(noise: Vec<f64>) -> MockRunner {
        MockRunner {
            calls: vec![],
            output_of: |v| format!("acc=1\nwall time:    {v} s\n"),
            noise,
        }
    }

    fn set() -> WorkloadSet {
        WorkloadSet::parse(
            Path::new("t.toml"),
            "[[workload]]\nname = \"w1\"\nargs = [\"one\"]\n[[workload]]\nname = \"w2\"\nargs = [\"two\"]\n",
        )
        .unwrap()
    }

    fn contestants() -> Vec<Contestant> {
        ["slow", "fast"]
            .iter()
            .map(|v| Contestant {
                variant: v.to_string(),
                binary: PathBuf::from(v),
            })
            .collect()
    }

    fn plan(min_rounds: usize, max_rounds: usize, warmup: usize) -> Plan {
        Plan {
            min_rounds,
            max_rounds,
            warmup,
            precision: 0.02,
            budget_s: 1e9,
            cpus: vec![],
        }
    }

    #[test]
    fn rounds_rotate_their_order_and_warmups_are_dropped() {
        let mut r = runner(vec![0.0]);
        let dir = tempfile::tempdir().unwrap();
        let measured = measure(&mut r, &contestants(), &set(), &plan(2, 2, 1), dir.path()).unwrap();
        assert_eq!(
            r.calls[..6],
            ["slow:one", "fast:one", "slow:one", "fast:one", "fast:one", "slow:one"]
        );
        assert_eq!(r.calls.len(), 12);
        assert_eq!(measured.len(), 2);
        let m = &measured[0];
        assert_eq!(m.samples[1].runs.len(), 2, "the warm-up round is not kept");
        assert_eq!(m.metric, Metric::Compute);
        assert_eq!(m.samples[1].runs[0].compute_s, Some(0.9));
        assert_eq!(m.stop, Stop::Precise, "no noise: the interval has no width");
    }

    #[test]
    fn noisy_rounds_run_until_the_round_limit() {
        let mut r = runner(vec![0.0, 0.3, -0.2, 0.1]);
        let dir = tempfile::tempdir().unwrap();
        // The two runs of a pair get different noise: the speedups of the rounds
        // alternate between 1.54 and 1.45 (or the inverse order), too wide for +-2%.
        let measured = measure(&mut r, &contestants(), &set(), &plan(2, 7, 0), dir.path()).unwrap();
        assert_eq!(measured[0].stop, Stop::MaxRounds);
        assert_eq!(measured[0].samples[0].runs.len(), 7);
    }

    #[test]
    fn the_stopping_rule_by_hand() {
        let p = Plan {
            precision: 0.02,
            ..plan(3, 10, 0)
        };
        // Too few rounds: go on even when precise.
        assert_eq!(stop_after(2, &p, 0.0, 100.0, &[0.001]), None);
        assert_eq!(
            stop_after(3, &p, 0.0, 100.0, &[0.02, 0.019]),
            Some(Stop::Precise)
        );
        assert_eq!(stop_after(3, &p, 50.0, 100.0, &[0.021]), None);
        assert_eq!(
            stop_after(3, &p, 100.0, 100.0, &[0.021]),
            Some(Stop::Budget)
        );
        assert_eq!(
            stop_after(10, &p, 0.0, 100.0, &[f64::INFINITY]),
            Some(Stop::MaxRounds)
        );
    }

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

    #[test]
    fn different_results_fail_the_report() {
        let mut r = MockRunner {
            output_of: |v| {
                if v == "fast" {
                    "acc=0.9\n".into()
                } else {
                    "acc=1\n".into()
                }
            },
            ..runner(vec![0.0])
        };
        let dir = tempfile::tempdir().unwrap();
        let err = measure(&mut r, &contestants(), &set(), &plan(2, 2, 0), dir.path()).unwrap_err();
        assert!(err.to_string().contains("gives other results"), "{err}");
    }
}
