//! Interleaved measurement: for each workload, round after round, every variant once.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use crate::report::summary::Samples;
use crate::runner::{run_checked, Invocation, Runner};
use crate::workloads::WorkloadSet;

/// A variant and the binary that runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Contestant {
    pub variant: String,
    pub binary: PathBuf,
}

/// `samples[workload][variant]`. Warm-up rounds run but are not kept. Fails if any
/// run fails or if variants print different results for the same workload.
pub fn measure(
    runner: &mut dyn Runner,
    contestants: &[Contestant],
    set: &WorkloadSet,
    runs: usize,
    warmup: usize,
    scratch: &Path,
) -> Result<Vec<Vec<Samples>>> {
    let mut all = Vec::new();
    for workload in &set.workloads {
        let mut samples = vec![Samples::default(); contestants.len()];
        for round in 0..warmup + runs {
            eprintln!(
                "[measure] {} round {}/{}{}",
                workload.name,
                round + 1,
                warmup + runs,
                if round < warmup { " (warm-up)" } else { "" }
            );
            for (c, s) in contestants.iter().zip(&mut samples) {
                let inv = Invocation {
                    program: c.binary.clone(),
                    args: workload.args_in(scratch),
                    cwd: scratch.to_path_buf(),
                    env: vec![],
                };
                let m = run_checked(
                    runner,
                    &inv,
                    &format!("workload '{}' of variant {}", workload.name, c.variant),
                )?;
                if round >= warmup {
                    s.runs.push(m);
                }
            }
        }
        check_same_results(&workload.name, contestants, &samples)?;
        all.push(samples);
    }
    Ok(all)
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
    use crate::runner::Measurement;

    /// Records the order of runs and answers with scripted times and outputs.
    struct MockRunner {
        calls: Vec<String>,
        output_of: fn(&str) -> String,
    }

    impl Runner for MockRunner {
        fn run(&mut self, inv: &Invocation) -> Result<Measurement> {
            let variant = inv
                .program
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            self.calls.push(format!("{variant}:{}", inv.args[0]));
            let n = self.calls.len() as f64;
            Ok(Measurement {
                wall_s: if variant == "fast" { 1.0 } else { 2.0 } + n * 1e-3,
                user_s: 1.0,
                system_s: 0.1,
                max_rss_kb: 1000,
                exit_code: 0,
                stdout: (self.output_of)(&variant),
                stderr: String::new(),
            })
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

    #[test]
    fn runs_are_interleaved_and_warmups_dropped() {
        let mut runner = MockRunner {
            calls: vec![],
            output_of: |v| format!("acc=1\nwall time:    {v} s\n"),
        };
        let samples =
            measure(&mut runner, &contestants(), &set(), 2, 1, Path::new("/tmp")).unwrap();
        assert_eq!(
            runner.calls[..6],
            ["slow:one", "fast:one", "slow:one", "fast:one", "slow:one", "fast:one"]
        );
        assert_eq!(runner.calls.len(), 12);
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[0][1].runs.len(), 2, "the warm-up round is not kept");
        assert!(samples[0][1].runs[0].wall_s < samples[0][0].runs[0].wall_s);
    }

    #[test]
    fn different_results_fail_the_report() {
        let mut runner = MockRunner {
            calls: vec![],
            output_of: |v| {
                if v == "fast" {
                    "acc=0.9\n".into()
                } else {
                    "acc=1\n".into()
                }
            },
        };
        let err =
            measure(&mut runner, &contestants(), &set(), 1, 0, Path::new("/tmp")).unwrap_err();
        assert!(err.to_string().contains("gives other results"), "{err}");
    }
}
