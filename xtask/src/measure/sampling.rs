//! Where a run spends its time: the run under `perf record -e cpu-clock` (software
//! sampling, which works without hardware counters), read back with `perf script` as
//! samples per function.

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::measure::compute_time::invocation;
use crate::measure::runner::{run_checked, Invocation, Runner};
use crate::measure::Contestant;
use crate::results::measured::Plan;
use crate::results::samples::{FunctionSamples, SAMPLES_PER_S};
use crate::support::symbols::demangle;
use crate::support::text::tail;
use crate::workloads::{Workload, WorkloadSet};

/// `inv` run under `perf record`, its samples written to `data`.
pub fn under_perf(perf: &Path, inv: &Invocation, data: &Path) -> Invocation {
    let mut args = vec![
        "record".to_string(),
        "-e".into(),
        "cpu-clock".into(),
        "-F".into(),
        SAMPLES_PER_S.to_string(),
        "-q".into(),
        "-o".into(),
        data.display().to_string(),
        "--".into(),
        inv.program.display().to_string(),
    ];
    args.extend(inv.args.iter().cloned());
    Invocation {
        program: perf.to_path_buf(),
        args,
        ..inv.clone()
    }
}

/// One run of a contestant on a workload under perf, read back as samples per function.
pub fn sample_once(
    runner: &mut dyn Runner,
    perf: &Path,
    c: &Contestant,
    workload: &Workload,
    plan: &Plan,
    scratch: &Path,
) -> Result<FunctionSamples> {
    let data = scratch.join("perf.data");
    let inv = under_perf(perf, &invocation(c, workload, plan, scratch), &data);
    let what = format!(
        "workload '{}' of variant {} under perf",
        workload.name, c.variant
    );
    run_checked(runner, &inv, &what)
        .context("is perf allowed here? (try: sysctl kernel.perf_event_paranoid=1)")?;
    read(perf, &data)
}

/// `samples[workload][variant]`: `rounds` rounds of every workload, every variant once a
/// round in the rotating order the timed rounds use. Untimed: perf's own work would blur
/// the times.
pub fn sample_all(
    runner: &mut dyn Runner,
    perf: &Path,
    contestants: &[Contestant],
    set: &WorkloadSet,
    plan: &Plan,
    rounds: usize,
    scratch: &Path,
) -> Result<Vec<Vec<FunctionSamples>>> {
    set.workloads
        .iter()
        .map(|w| {
            let mut samples = vec![FunctionSamples::default(); contestants.len()];
            for round in 0..rounds {
                eprintln!(
                    "[sample] {} round {}/{rounds} under perf",
                    w.name,
                    round + 1
                );
                for k in 0..contestants.len() {
                    let v = (round + k) % contestants.len();
                    let s = sample_once(runner, perf, &contestants[v], w, plan, scratch)?;
                    samples[v].absorb(s);
                }
            }
            Ok(samples)
        })
        .collect()
}

/// The plan of runs that are sampled and not timed: on every core this process may use.
pub fn unpinned() -> Plan {
    Plan {
        min_rounds: 1,
        max_rounds: 1,
        warmup: 0,
        precision: 1.0,
        budget_s: f64::INFINITY,
        cpus: crate::measure::runner::allowed_cpus(),
    }
}

/// Runs `perf script` on a recording.
pub fn read(perf: &Path, data: &Path) -> Result<FunctionSamples> {
    let out = duct::cmd(
        perf,
        [
            "script",
            "-i",
            &data.display().to_string(),
            "-F",
            "ip,sym,dso",
            "--no-demangle",
        ],
    )
    .stdout_capture()
    .stderr_capture()
    .unchecked()
    .run()
    .with_context(|| format!("running {} script", perf.display()))?;
    if !out.status.success() {
        bail!(
            "perf script -i {} failed:\n{}",
            data.display(),
            tail(&String::from_utf8_lossy(&out.stderr), 10)
        );
    }
    Ok(parse_script(&String::from_utf8_lossy(&out.stdout)))
}

/// Samples per function from `perf script -F ip,sym,dso --no-demangle`: one sample a
/// line, `ADDRESS SYMBOL (DSO)`. The kernel's samples are one `[kernel]`; a shared
/// library's are `[lib] symbol`, named by the library file's stem.
pub fn parse_script(text: &str) -> FunctionSamples {
    let mut samples = FunctionSamples {
        runs: 1,
        ..Default::default()
    };
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let rest = line.split_once(' ').map_or("", |(_, rest)| rest).trim();
        let (symbol, dso) = match rest.rsplit_once(" (") {
            Some((symbol, dso)) => (symbol.trim(), dso.trim_end_matches(')')),
            None => (rest, ""),
        };
        *samples
            .by_function
            .entry(function_name(symbol, dso))
            .or_default() += 1;
    }
    samples
}

fn function_name(symbol: &str, dso: &str) -> String {
    let library = Path::new(dso)
        .file_name()
        .map(|f| f.to_string_lossy())
        .unwrap_or_default();
    let symbol = if symbol.is_empty() {
        "[unknown]"
    } else {
        symbol
    };
    if dso.starts_with("[kernel") {
        "[kernel]".to_string()
    } else if library.contains(".so") {
        let stem = library.split(".so").next().unwrap_or(&library);
        format!("[{stem}] {symbol}")
    } else {
        demangle(symbol)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real recording: `perf script` of a short Game of Life training.
    const SCRIPT: &str = include_str!("../../tests/fixtures/perf-script.txt");

    #[test]
    fn a_recorded_script_reads_as_samples_per_function() {
        let s = parse_script(SCRIPT);
        assert_eq!(s.runs, 1);
        assert_eq!(s.total(), 55, "one sample a line");
        assert_eq!(s.of("logicars::kernels::soft::backward_at::avx512"), 15);
        assert_eq!(s.of("[libm] __ieee754_exp_fma"), 5);
        // Two instantiations of one generic function are one name without their hash.
        assert_eq!(
            s.of("rayon::iter::plumbing::bridge_producer_consumer::helper"),
            7
        );
        assert_eq!(s.of("[kernel]"), 5);
        assert_eq!(s.of("[libc] _int_free"), 1);
    }

    #[test]
    fn unknown_symbols_and_odd_lines_are_still_counted() {
        let s = parse_script(
            "  7f00 [unknown] (/tmp/x/logicars)\n\n  7f01 foo (/usr/lib/libfoo.so.1)\n 12\n",
        );
        assert_eq!(s.of("[unknown]"), 2);
        assert_eq!(s.of("[libfoo] foo"), 1);
        assert_eq!(s.total(), 3);
    }

    #[test]
    fn a_run_goes_under_perf_with_its_environment_and_cores() {
        let inv = Invocation {
            program: "/bin/logicars".into(),
            args: vec!["train".into()],
            cwd: "/tmp".into(),
            env: vec![("A".into(), "1".into())],
            cpus: vec![0, 1],
        };
        let wrapped = under_perf(Path::new("/usr/bin/perf"), &inv, Path::new("/tmp/p.data"));
        assert_eq!(wrapped.program, Path::new("/usr/bin/perf"));
        assert_eq!(
            wrapped.args.join(" "),
            "record -e cpu-clock -F 999 -q -o /tmp/p.data -- /bin/logicars train"
        );
        assert_eq!((wrapped.env, wrapped.cpus), (inv.env, inv.cpus));
    }

    /// perf for real: a busy shell loop is sampled, mostly in the shell.
    #[test]
    #[ignore = "needs perf (cargo xtask setup); CI runs it with --ignored"]
    fn samples_a_real_run() {
        let perf = which::which("perf").expect("perf is installed");
        let dir = tempfile::tempdir().unwrap();
        let inv = Invocation {
            program: "/bin/sh".into(),
            args: vec![
                "-c".into(),
                "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done".into(),
            ],
            cwd: dir.path().into(),
            env: vec![],
            cpus: vec![],
        };
        let data = dir.path().join("perf.data");
        let m = crate::measure::runner::ProcessRunner
            .run(&under_perf(&perf, &inv, &data))
            .unwrap();
        assert_eq!(m.exit_code, 0, "{}", m.stderr);
        let s = read(&perf, &data).unwrap();
        let cpu_ms = (m.user_s + m.system_s) * 1000.0;
        // At 999 samples a second of CPU; a virtual machine's perf drops some when its
        // host is busy (369 samples for 748 ms once, beside a test suite's last steps),
        // so the floor is a quarter: what it catches is a sampling that does not work.
        assert!(
            s.total() as f64 > 0.25 * cpu_ms && (s.total() as f64) < 1.5 * cpu_ms + 20.0,
            "{} samples for {cpu_ms:.0} ms of CPU: {s:?}",
            s.total()
        );
        let top = s.by_function.iter().max_by_key(|(_, n)| **n).unwrap().0;
        assert!(!top.starts_with("[kernel]"), "{top}");
    }
}
