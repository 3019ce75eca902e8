//! The pipeline for real: `pgo`, `bolt --with-pgo` and `report --runs 2` on the tiny
//! workload set `profiles/e2e.toml`. Needs LLVM 22's llvm-profdata and BOLT
//! (`cargo xtask setup`), and several minutes, so it is ignored by a plain
//! `cargo test`; CI runs it with `cargo test -p xtask --test e2e -- --ignored`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn xtask(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "xtask {args:?} failed:\n{stderr}");
    String::from_utf8(out.stdout).unwrap()
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

#[test]
#[ignore = "needs llvm-profdata-22 and bolt-22 and takes minutes; CI runs it with --ignored"]
fn pgo_bolt_and_report_on_a_tiny_workload_set() {
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
    let stdout = xtask(&[
        "report",
        "--runs",
        "2",
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
        out_dir.path().to_str().unwrap(),
    ]);
    assert!(stdout.contains("pgo-bolt"), "{stdout}");

    // The optimized binaries compute exactly what release computes.
    let release =
        root().join("target/xtask/build/release/x86_64-unknown-linux-gnu/release/logicars");
    let scratch = tempfile::tempdir().unwrap();
    let want = results_of(&release, scratch.path());
    assert!(want.contains("final:"), "{want}");
    assert_eq!(results_of(&pgo, scratch.path()), want);
    assert_eq!(results_of(&pgo_bolt, scratch.path()), want);
    check_tables(out_dir.path());
}

/// The tables parse: hyperfine's header, a row per variant with numbers.
fn check_tables(out_dir: &std::path::Path) {
    let md = std::fs::read_to_string(out_dir.join("e2e.md")).unwrap();
    assert!(
        md.contains("| Command | Mean [s] | Min [s] | Max [s] | Relative |"),
        "{md}"
    );
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
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("e2e.json")).unwrap()).unwrap();
    let results = json["workloads"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for r in results {
        assert_eq!(r["times"].as_array().unwrap().len(), 2);
        assert_eq!(r["exit_codes"], serde_json::json!([0, 0]));
    }
}
