//! A fixed report for exporter snapshots (insta). `INSTA_UPDATE=always cargo test -p
//! xtask` rewrites the snapshot files; review the diff before committing.

use crate::machine::Machine;
use crate::report::summary::{summary, workload_report, Report, Samples};
use crate::runner::Measurement;

fn run(wall_s: f64) -> Measurement {
    Measurement {
        wall_s,
        user_s: wall_s * 1.9,
        system_s: 0.01,
        max_rss_kb: 12_000,
        exit_code: 0,
        stdout: String::new(),
        stderr: String::new(),
    }
}

pub fn fixed_report() -> Report {
    let variants: Vec<String> = vec!["cargo-default".into(), "release".into(), "pgo".into()];
    let samples = |base: f64| -> Vec<Samples> {
        [1.0, 0.9, 0.8]
            .iter()
            .map(|f| Samples {
                runs: [0.0, 0.01, -0.01, 0.02]
                    .iter()
                    .map(|d| run(base * f + d))
                    .collect(),
            })
            .collect()
    };
    let workloads = vec![
        workload_report(
            "train",
            "logicars train checkerboard --epochs 60",
            &variants,
            0,
            &samples(1.5),
        ),
        workload_report(
            "eval",
            "logicars eval --model m.json",
            &variants,
            0,
            &samples(0.3),
        ),
    ];
    Report {
        name: "fixture".into(),
        workload_file: "profiles/benchmark.toml".into(),
        baseline: "cargo-default".into(),
        runs: 4,
        warmup: 1,
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
