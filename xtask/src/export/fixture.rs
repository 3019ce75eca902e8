//! A fixed report for exporter snapshots (insta). `INSTA_UPDATE=always cargo test -p
//! xtask` rewrites the snapshot files; review the diff before committing.

use crate::analysis::attribution::{attribute, Instructions};
use crate::analysis::coverage::coverage;
use crate::analysis::summary::{summary, workload_report, Entrants};
use crate::machine::Machine;
use crate::results::counts::Counts;
use crate::results::coverage::{ProfileRun, ProfileRuns};
use crate::results::measured::{Measured, Measurement, Metric, Plan, Samples, Stop};
use crate::results::report::{Report, Settings, WorkloadReport};
use crate::results::samples::{FunctionInstructions, FunctionSamples};

fn run(wall_s: f64) -> Measurement {
    Measurement {
        wall_s,
        user_s: wall_s * 1.9,
        system_s: 0.01,
        max_rss_kb: 12_000,
        exit_code: 0,
        stdout: String::new(),
        stderr: String::new(),
        compute_s: Some(wall_s - 0.05),
    }
}

/// Three variants, two workloads, four rounds with fixed noise.
pub fn fixed_report() -> Report {
    let variants: Vec<String> = vec!["release".into(), "cargo-default".into(), "pgo".into()];
    let workloads = vec![
        fixed_workload(&variants, "train", "train checkerboard --epochs 60", 1.5),
        fixed_workload(&variants, "eval", "eval --model m.json", 0.3),
    ];
    let plan = Plan {
        min_rounds: 4,
        max_rounds: 100,
        warmup: 1,
        precision: 0.02,
        budget_s: 600.0,
        cpus: vec![0, 1],
    };
    Report {
        name: "fixture".into(),
        settings: Settings {
            workload_file: "profiles/benchmark.toml".into(),
            baseline: "release".into(),
            sample_rounds: 0,
            plan,
            earlier_stretches: Vec::new(),
        },
        machine: Machine {
            cpu: "Test CPU".into(),
            cores: 2,
            simd: "AVX2".into(),
            rustc: "rustc 1.95.0".into(),
            llvm_major: 22,
            commit: "abc1234".into(),
            date: "2026-11-22 00:00 UTC".into(),
        },
        summary: summary(&variants, &workloads),
        workloads,
    }
}

/// Variant i runs `base * [1.0, 1.1, 0.9][i]` seconds, give or take 2%.
fn fixed_workload(variants: &[String], name: &str, args: &str, base: f64) -> WorkloadReport {
    let measured = Measured {
        samples: [1.0, 1.1, 0.9]
            .iter()
            .map(|f| Samples {
                runs: [0.0, 0.01, -0.01, 0.02]
                    .iter()
                    .map(|d| run(base * f + d * f))
                    .collect(),
            })
            .collect(),
        metric: Metric::Compute,
        stop: Stop::Precise,
    };
    let commands: Vec<String> = variants
        .iter()
        .map(|v| format!("target/optimized/logicars-{v} {args}"))
        .collect();
    let counts: Vec<Option<Counts>> = (0..3u64)
        .map(|i| {
            Some(Counts {
                instructions: 1_000_000 - 10_000 * i,
                d1_misses: 2_000 + i,
                ll_misses: 300,
            })
        })
        .collect();
    let entrants = Entrants {
        variants,
        commands: &commands,
        counts: &counts,
    };
    let mut report = workload_report(name, &format!("logicars {args}"), &entrants, &measured);
    let ir = FunctionInstructions::from([(SOFT.replace("avx512", "avx2"), 600_000)]);
    report.moved = (1..variants.len())
        .map(|i| {
            let counted = Instructions {
                baseline: Some(&ir),
                variant: None,
            };
            attribute(&variants[i], &sampled(0), &sampled(i as u64), counted, 3)
        })
        .collect();
    report.coverage = Some(coverage(name, &sampled(0), &profile_runs()));
    report
}

const SOFT: &str = "logicars::kernels::soft::forward_at::avx512";

/// Two runs' samples: the soft kernel grows by 40 samples for each step of `more`.
fn sampled(more: u64) -> FunctionSamples {
    FunctionSamples {
        runs: 2,
        by_function: [
            (SOFT, 600 + 40 * more),
            ("logicars::kernels::hard::forward_at::avx512", 300),
            ("[libm] __ieee754_exp_fma", 100),
        ]
        .iter()
        .map(|(f, n)| (f.to_string(), *n))
        .collect(),
    }
}

/// A profile whose run for `train` executed the soft kernel only.
fn profile_runs() -> ProfileRuns {
    ProfileRuns {
        runs: vec![ProfileRun {
            name: "train-short".into(),
            represents: vec!["train".into()],
            functions: [SOFT.to_string()].into(),
        }],
    }
}

/// Compares `actual` with the insta snapshot `tests/snapshots/<name>.snap`
/// (`INSTA_UPDATE=always cargo test -p xtask` rewrites it; review the diff).
pub fn check_snapshot(name: &str, actual: &str) {
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(name, actual);
    });
}
