//! Interleaved, adaptive measurement: for each workload, round after round, every variant
//! once (the order rotating), until every speedup over the baseline is known to the
//! precision asked for, or the time budget is spent. Every workload first gets its
//! minimum of rounds; after that each round goes to the workload whose widest interval
//! is widest, so the budget is spent where the uncertainty is. A measurement can go on
//! from the rounds of an earlier one ([`measure`]'s `earlier`), so that precision a budget could
//! not reach in one stretch can be reached in several.

use std::path::Path;

use anyhow::Result;

use crate::analysis::stats::paired_speedup;
use crate::measure::agreement::check_same_results;
use crate::measure::compute_time::run_once;
use crate::measure::runner::Runner;
use crate::measure::Contestant;
use crate::results::measured::{metric_of, times, Measured, Metric, Plan, Samples, Stop};
use crate::workloads::{Workload, WorkloadSet};

/// Measures every workload; the first contestant is the baseline. Fails if any run fails
/// or if variants print different results for the same workload. It goes on from the
/// timed rounds of an earlier measurement of the same builds (`earlier[workload][variant]`,
/// whole rounds; empty: none), which count towards the minimum, the maximum and the
/// intervals; the budget is this stretch's. After each round past every workload's
/// minimum, `checkpoint` sees every workload's runs so far (to save them).
pub fn measure(
    runner: &mut dyn Runner,
    contestants: &[Contestant],
    set: &WorkloadSet,
    plan: &Plan,
    earlier: &[Vec<Samples>],
    checkpoint: &mut dyn FnMut(&[&[Samples]]) -> Result<()>,
    scratch: &Path,
) -> Result<Vec<Measured>> {
    let (mut states, mut spent) = (Vec::new(), 0.0);
    for (i, workload) in set.workloads.iter().enumerate() {
        let state = match earlier.get(i) {
            Some(samples) => State::carried_over(samples.clone()),
            None => State::new(contestants.len()),
        };
        let (state, seconds) = start(runner, contestants, workload, plan, state, scratch)?;
        states.push(state);
        spent += seconds;
    }
    loop {
        let widths: Vec<f64> = states.iter().map(State::widest).collect();
        let open = (0..states.len()).filter(|&i| {
            let s = &states[i];
            widths[i] > plan.precision && s.rounds < plan.max_rounds
        });
        let Some(next) = open.max_by(|&a, &b| widths[a].total_cmp(&widths[b])) else {
            break;
        };
        if spent >= plan.budget_s {
            break;
        }
        let workload = &set.workloads[next];
        spent += states[next].round(runner, contestants, workload, plan, scratch)?;
        eprintln!(
            "[measure] {} round {}: widest interval ±{:.2}% ({:.0} of {:.0} s)",
            workload.name,
            states[next].rounds,
            100.0 * states[next].widest(),
            spent,
            plan.budget_s
        );
        let so_far: Vec<&[Samples]> = states.iter().map(|s| s.samples.as_slice()).collect();
        checkpoint(&so_far)?;
    }
    set.workloads
        .iter()
        .zip(states)
        .map(|(workload, state)| {
            check_same_results(&workload.name, contestants, &state.samples)?;
            let stop = stop_after(
                state.rounds,
                plan,
                spent,
                plan.budget_s,
                &state.half_widths(),
            )
            .unwrap_or(Stop::Budget);
            Ok(Measured {
                metric: metric_of(&state.samples),
                samples: state.samples,
                stop,
            })
        })
        .collect()
}

/// A workload's warm-up rounds and the timed rounds it lacks of its minimum; returns the
/// state and the seconds they took.
fn start(
    runner: &mut dyn Runner,
    contestants: &[Contestant],
    workload: &Workload,
    plan: &Plan,
    mut state: State,
    scratch: &Path,
) -> Result<(State, f64)> {
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
    while state.rounds < plan.min_rounds {
        spent += state.round(runner, contestants, workload, plan, scratch)?;
    }
    Ok((state, spent))
}

/// One workload's timed rounds so far.
struct State {
    samples: Vec<Samples>,
    rounds: usize,
}

impl State {
    fn new(contestants: usize) -> Self {
        State {
            samples: vec![Samples::default(); contestants],
            rounds: 0,
        }
    }

    /// The rounds of an earlier measurement (every variant the same number of runs).
    fn carried_over(samples: Vec<Samples>) -> Self {
        let rounds = samples.first().map_or(0, |s| s.runs.len());
        debug_assert!(samples.iter().all(|s| s.runs.len() == rounds));
        State { samples, rounds }
    }

    /// Runs one timed round, every variant once in the rotating order; returns its
    /// seconds.
    fn round(
        &mut self,
        runner: &mut dyn Runner,
        contestants: &[Contestant],
        workload: &Workload,
        plan: &Plan,
        scratch: &Path,
    ) -> Result<f64> {
        let n = contestants.len();
        let mut spent = 0.0;
        for k in 0..n {
            let v = (self.rounds + k) % n;
            let m = run_once(runner, &contestants[v], workload, plan, scratch)?;
            spent += m.wall_s;
            self.samples[v].runs.push(m);
        }
        self.rounds += 1;
        Ok(spent)
    }

    fn half_widths(&self) -> Vec<f64> {
        half_widths(&self.samples, metric_of(&self.samples))
    }

    /// The widest interval's relative half-width (0 with only the baseline).
    fn widest(&self) -> f64 {
        self.half_widths().into_iter().fold(0.0, f64::max)
    }
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

/// The relative half-width of each non-baseline variant's speedup interval.
fn half_widths(samples: &[Samples], metric: Metric) -> Vec<f64> {
    let base = times(&samples[0], metric);
    samples[1..]
        .iter()
        .map(|s| paired_speedup(&times(s, metric), &base).map_or(f64::INFINITY, |p| p.half_width))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::measure::runner::Invocation;
    use crate::results::measured::Measurement;

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

    /// [`measure`] of the two mock variants on [`set`], with no checkpoint.
    fn measure_quietly(
        runner: &mut dyn Runner,
        plan: &Plan,
        earlier: &[Vec<Samples>],
        scratch: &Path,
    ) -> Result<Vec<Measured>> {
        measure(
            runner,
            &contestants(),
            &set(),
            plan,
            earlier,
            &mut |_| Ok(()),
            scratch,
        )
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
        let measured = measure_quietly(&mut r, &plan(2, 2, 1), &[], dir.path()).unwrap();
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

    /// Rounds carried over from an earlier stretch count towards the minimum and are
    /// kept in front of the new ones; the rotation goes on where it stopped.
    #[test]
    fn earlier_rounds_count_and_the_new_ones_follow_them() {
        let mut first = runner(vec![0.0]);
        let dir = tempfile::tempdir().unwrap();
        let earlier = measure_quietly(&mut first, &plan(2, 2, 0), &[], dir.path()).unwrap();
        let earlier: Vec<Vec<Samples>> = earlier.into_iter().map(|m| m.samples).collect();

        let mut second = runner(vec![0.5]);
        let measured = measure_quietly(&mut second, &plan(3, 3, 0), &earlier, dir.path()).unwrap();
        assert_eq!(
            second.calls,
            ["slow:one", "fast:one", "slow:two", "fast:two"],
            "one round each to reach the minimum of 3, in the third round's order"
        );
        let slow = &measured[0].samples[0].runs;
        assert_eq!(slow.len(), 3);
        assert_eq!(
            slow[..2],
            earlier[0][0].runs[..],
            "the earlier rounds come first"
        );
        assert_eq!(slow[2].wall_s, 3.0, "then this stretch's");
    }

    #[test]
    fn noisy_rounds_run_until_the_round_limit() {
        let mut r = runner(vec![0.0, 0.3, -0.2, 0.1]);
        let dir = tempfile::tempdir().unwrap();
        // The two runs of a pair get different noise: the speedups of the rounds
        // alternate between 1.54 and 1.45 (or the inverse order), too wide for +-2%.
        let measured = measure_quietly(&mut r, &plan(2, 7, 0), &[], dir.path()).unwrap();
        assert_eq!(measured[0].stop, Stop::MaxRounds);
        assert_eq!(measured[0].samples[0].runs.len(), 7);
    }

    /// A quiet workload stops at its minimum; the rounds left go to the noisy one.
    #[test]
    fn extra_rounds_go_to_the_widest_interval() {
        // Noise only on the runs of workload w2 (argument "two").
        let mut r = MockRunner {
            calls: vec![],
            output_of: |v| format!("acc=1\nwall time:    {v} s\n"),
            noise: vec![0.0],
        };
        struct Noisy<'a>(&'a mut MockRunner);
        impl Runner for Noisy<'_> {
            fn run(&mut self, inv: &Invocation) -> Result<Measurement> {
                let noisy = inv.args[0] == "two";
                let call = self.0.calls.len();
                self.0.noise = if noisy {
                    vec![[0.0, 0.3, -0.2, 0.1][call % 4]]
                } else {
                    vec![0.0]
                };
                self.0.run(inv)
            }
        }
        let dir = tempfile::tempdir().unwrap();
        // The checkpoints see both workloads' runs after each of w2's extra rounds.
        let mut seen = Vec::new();
        let measured = measure(
            &mut Noisy(&mut r),
            &contestants(),
            &set(),
            &plan(3, 9, 0),
            &[],
            &mut |so_far| {
                seen.push(so_far.iter().map(|s| s[1].runs.len()).collect::<Vec<_>>());
                Ok(())
            },
            dir.path(),
        )
        .unwrap();
        let expected: Vec<Vec<usize>> = (4..=9).map(|w2| vec![3, w2]).collect();
        assert_eq!(seen, expected);
        assert_eq!(measured[0].stop, Stop::Precise);
        assert_eq!(measured[0].samples[0].runs.len(), 3, "w1 keeps its minimum");
        assert_eq!(measured[1].stop, Stop::MaxRounds);
        assert_eq!(measured[1].samples[0].runs.len(), 9, "w2 gets the rest");
        let w2_after_w1 = r.calls[6..].iter().all(|c| c.ends_with(":two"));
        assert!(w2_after_w1, "{:?}", r.calls);
    }

    #[test]
    fn a_spent_budget_stops_every_open_workload() {
        let mut r = runner(vec![0.0, 0.3, -0.2, 0.1]);
        let dir = tempfile::tempdir().unwrap();
        let tight = Plan {
            budget_s: 1.0,
            ..plan(2, 50, 0)
        };
        let measured = measure_quietly(&mut r, &tight, &[], dir.path()).unwrap();
        assert!(measured.iter().all(|m| m.stop == Stop::Budget));
        assert!(measured.iter().all(|m| m.samples[0].runs.len() == 2));
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
        let err = measure_quietly(&mut r, &plan(2, 2, 0), &[], dir.path()).unwrap_err();
        assert!(err.to_string().contains("gives other results"), "{err}");
    }
}
