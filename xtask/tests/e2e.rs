//! The pipeline for real: a failing workload stopped by the dry run, `pgo`, `bolt
//! --with-pgo`, two `report`s (the second reusing the binaries) and `compare` on the tiny
//! workload set `profiles/e2e.toml`, then `explain`. Needs LLVM 22's llvm-profdata and
//! BOLT, valgrind and perf (`cargo xtask setup`), and several minutes, so it is ignored by a plain `cargo test`;
//! CI runs it with `cargo test -p xtask -- --ignored`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Runs `cargo xtask`; returns its exit code, stdout and stderr.
fn xtask_run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

fn xtask(args: &[&str]) -> String {
    let (code, stdout, stderr) = xtask_run(args);
    assert_eq!(code, Some(0), "xtask {args:?} failed:\n{stderr}");
    stdout
}

/// What a binary prints for a short training run, less its timing line.
fn results_of(binary: &Path, scratch: &Path) -> String {
    let out = Command::new(binary)
        .args([
            "train",
            "checkerboard",
            "--small",
            "--epochs",
            "12",
            "--seed",
            "3",
            "--overwrite",
            "--save",
        ])
        .arg(scratch.join("m.json"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{} failed", binary.display());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("wall time:"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A workload that fails is found by the dry run, before any instrumented build.
fn a_failing_workload_stops_before_the_builds() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[[workload]]\nname = \"typo\"\nargs = [\"train\", \"checkerbored\"]\n",
    )
    .unwrap();
    let (code, _, stderr) = xtask_run(&["pgo", "--workloads", bad.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("dry run") && stderr.contains("'typo'"),
        "{stderr}"
    );
    assert!(!stderr.contains("[build] pgo-gen"), "{stderr}");
}

/// A report of `min..=max` rounds; `resume`: going on from the last one's rounds.
fn report(out_dir: &Path, (min, max): (&str, &str), resume: bool) -> String {
    let mut args = vec![
        "report",
        "--min-rounds",
        min,
        "--max-rounds",
        max,
        "--warmup",
        "0",
        "--variants",
        "release,pgo,pgo-bolt",
        "--baseline",
        "release",
        "--workloads",
        "profiles/e2e.toml",
        "--training",
        "profiles/e2e.toml",
        "--name",
        "e2e",
        "--out-dir",
        out_dir.to_str().unwrap(),
    ];
    if resume {
        args.push("--resume");
    }
    let (code, stdout, stderr) = xtask_run(&args);
    assert_eq!(code, Some(0), "report failed:\n{stderr}");
    assert!(stdout.contains("pgo-bolt"), "{stdout}");
    stderr
}

#[test]
#[ignore = "needs llvm-profdata-22, bolt-22 and valgrind and takes minutes; CI runs it with --ignored"]
fn pgo_bolt_report_and_compare_on_a_tiny_workload_set() {
    a_failing_workload_stops_before_the_builds();
    let pgo = PathBuf::from(xtask(&["pgo", "--workloads", "profiles/e2e.toml"]).trim());
    let pgo_bolt =
        PathBuf::from(xtask(&["bolt", "--with-pgo", "--workloads", "profiles/e2e.toml"]).trim());
    assert!(
        pgo.ends_with("target/optimized/logicars-pgo") && pgo.is_file(),
        "{}",
        pgo.display()
    );
    assert!(pgo_bolt.ends_with("target/optimized/logicars-pgo-bolt") && pgo_bolt.is_file());

    let out_dir = tempfile::tempdir().unwrap();
    let first = report(out_dir.path(), ("2", "3"), false);
    // Built from this tree with these workloads: reused, not rebuilt.
    assert!(
        first.contains("[reuse] ") && first.contains("logicars-pgo-bolt: built from this tree"),
        "{first}"
    );
    assert!(!first.contains("[rebuild]"), "{first}");
    let rounds_then = saved_rounds(out_dir.path());
    let second = report(out_dir.path(), ("4", "4"), true);
    check_resumed(out_dir.path(), rounds_then, &second);

    // The optimized binaries compute exactly what release computes.
    let release =
        root().join("target/xtask/build/release/x86_64-unknown-linux-gnu/release/logicars");
    let scratch = tempfile::tempdir().unwrap();
    let want = results_of(&release, scratch.path());
    assert!(want.contains("final:"), "{want}");
    assert_eq!(results_of(&pgo, scratch.path()), want);
    assert_eq!(results_of(&pgo_bolt, scratch.path()), want);
    check_tables(out_dir.path());
    check_attribution(out_dir.path());
    check_history(out_dir.path());
    check_explain();
}

/// Each workload's runs of the baseline in the saved rounds, and the stretches.
fn saved_rounds(out_dir: &Path) -> (Vec<usize>, usize) {
    let text = std::fs::read_to_string(out_dir.join("e2e/rounds.json")).unwrap();
    let saved: serde_json::Value = serde_json::from_str(&text).unwrap();
    let runs = saved["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["runs"][0].as_array().unwrap().len())
        .collect();
    (runs, saved["stretches"].as_array().unwrap().len())
}

/// The resumed report kept the first one's rounds and added up to 4, in a second stretch,
/// and reused the first one's counts and samples (its tables are checked after).
fn check_resumed(out_dir: &Path, (runs_then, stretches_then): (Vec<usize>, usize), log: &str) {
    assert_eq!(stretches_then, 1);
    assert!(
        runs_then.iter().all(|&r| (2..=3).contains(&r)),
        "{runs_then:?}"
    );
    let (runs_now, stretches_now) = saved_rounds(out_dir);
    assert_eq!((runs_now, stretches_now), (vec![4, 4], 2));
    let md = std::fs::read_to_string(out_dir.join("e2e.md")).unwrap();
    assert!(md.contains("measured in 2 stretches"), "{md}");
    assert!(
        log.contains("reusing the instruction counts") && log.contains("reusing the samples"),
        "{log}"
    );
    assert!(!log.contains("under cachegrind"), "{log}");
}

/// The report says where the time moved and how well the profile covers each workload.
fn check_attribution(out_dir: &Path) {
    let md = std::fs::read_to_string(out_dir.join("e2e.md")).unwrap();
    for section in [
        "## PGO profile coverage",
        "### small-train: where the time moved",
        "### small-eval: where the time moved",
        "| Function | Samples `release` | Samples `pgo` |",
    ] {
        assert!(md.contains(section), "no {section}:\n{md}");
    }
    let (_, section) = md.split_once("## PGO profile coverage").unwrap();
    let coverage = section
        .lines()
        .find(|l| l.starts_with("| small-train | "))
        .unwrap();
    assert!(coverage.ends_with("| small-train |"), "{coverage}");
    assert!(std::fs::read_to_string(out_dir.join("e2e.moved.svg"))
        .unwrap()
        .starts_with("<svg"));
}

/// `explain` prints both tables and the code of the function that moved most; on the
/// evaluation it first trains the model the evaluation reads.
fn check_explain() {
    for workload in ["small-train", "small-eval"] {
        let out = xtask(&[
            "explain",
            "pgo",
            workload,
            "--rounds",
            "1",
            "--code",
            "1",
            "--workloads",
            "profiles/e2e.toml",
            "--training",
            "profiles/e2e.toml",
        ]);
        for section in [
            "## By module",
            "## By function",
            "## Code of the functions that moved most",
            "- `release`: ",
            "- `pgo`: ",
        ] {
            assert!(out.contains(section), "{workload}: no {section}:\n{out}");
        }
    }
}

/// Two reports of 2 workloads x 3 variants; `compare` reads them.
fn check_history(out_dir: &Path) {
    let history = out_dir.join("history.csv");
    let text = std::fs::read_to_string(&history).unwrap();
    assert_eq!(text.lines().count(), 1 + 2 * 6, "{text}");
    let (code, stdout, stderr) = xtask_run(&[
        "compare",
        "--history",
        history.to_str().unwrap(),
        "--threshold",
        "10",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout.matches("small-train").count(), 3, "{stdout}");
}

/// The tables parse: hyperfine's header, a row per variant with numbers.
fn check_tables(out_dir: &std::path::Path) {
    let md = std::fs::read_to_string(out_dir.join("e2e.md")).unwrap();
    assert!(
        md.contains("| Command | Mean [s] | Min [s] | Max [s] |"),
        "{md}"
    );
    assert!(md.contains("| small-train | compute |"), "{md}");
    for variant in ["release", "pgo", "pgo-bolt"] {
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| `{variant}` | ")))
            .unwrap();
        let mean: f64 = row
            .split('|')
            .nth(2)
            .unwrap()
            .split('±')
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(mean > 0.0, "{row}");
    }
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out_dir.join(name)).unwrap()).unwrap()
    };
    // hyperfine's layout, one file per workload.
    let results = read("e2e/small-train.json")["results"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(results.len(), 3);
    for r in &results {
        // The second report went on from the first one's rounds up to four.
        let rounds = r["times"].as_array().unwrap().len();
        assert_eq!(rounds, 4, "{r}");
        assert!(
            r["command"]
                .as_str()
                .unwrap()
                .contains(" train checkerboard --small"),
            "{r}"
        );
        assert_eq!(r["compute_times"].as_array().unwrap().len(), rounds);
        assert!(
            r["counts"]["instructions"].as_u64().unwrap() > 1_000_000,
            "{r}"
        );
    }
    assert!(read("e2e/small-eval.json")["results"][0]["counts"].is_null());
    assert!(std::fs::read_to_string(out_dir.join("e2e.svg"))
        .unwrap()
        .starts_with("<svg"));
    assert!(out_dir.join("e2e/small-eval.csv").is_file());
}
