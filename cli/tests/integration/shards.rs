//! A sweep cut into shards (`--shard I/N`) and merged gives what one machine gives; a
//! shard finishes what a killed one left; what does not belong is refused, by name.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::shards::{logicars, merge, rows, sweep, tables, PLAN};
use logicars::kernels::simd::{SimdLevel, SIMD_VAR};

/// The reference: the plan swept on one machine.
fn local() -> (tempfile::TempDir, [String; 4]) {
    let dir = tempfile::tempdir().unwrap();
    sweep(dir.path(), &[]);
    let t = tables(dir.path());
    (dir, t)
}

#[test]
fn shards_and_a_merge_give_the_tables_of_one_machine() {
    let (_local, expected) = local();
    assert_eq!(expected[0].lines().count(), 8, "header and 7 runs");
    // Shards run on different thread counts and instruction sets, as on a cluster's
    // mixed nodes (AVX-512 and AVX2 ones); the rows must not care. The baseline level,
    // about twenty times slower, is left to the one-machine test of every level
    // (`cli::every_instruction_set_gives_the_same_log`) unless it is all there is.
    let levels: Vec<SimdLevel> = SimdLevel::available().collect();
    let (baseline, vector) = levels.split_last().expect("the baseline is always there");
    for n in [1, 2, 3, 7] {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..n {
            let shard = format!("{i}/{n}");
            let threads = if i % 2 == 0 { "1" } else { "2" };
            let level = match vector.len() {
                0 => baseline,
                count => &vector[i % count],
            };
            let out = logicars()
                .arg("sweep")
                .args(PLAN)
                .args(["--shard", &shard, "--threads", threads, "--out"])
                .arg(dir.path())
                .env(SIMD_VAR, level.name())
                .assert()
                .success();
            let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
            assert!(err.contains(&format!("shard {shard} done")), "{err}");
        }
        assert!(
            !dir.path().join("runs.csv").exists(),
            "only merge writes tables"
        );
        let (code, err) = merge(&[dir.path()]);
        assert_eq!(code, 0, "{err}");
        let merged = tables(dir.path());
        for (name, (a, b)) in ["runs.csv", "sweep.json", "summary.txt", "sweep.svg"]
            .iter()
            .zip(expected.iter().zip(&merged))
        {
            assert_eq!(a, b, "{name} of {n} shards");
        }
    }
}

#[test]
fn a_shard_run_again_gives_the_same_rows_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    sweep(dir.path(), &["--shard", "1/3", "--save-models"]);
    let first = rows(dir.path());
    assert_eq!(first.len(), 2, "plan entries 1 and 4 of 7");
    // The kept model of each run is beside its row with its log, and `eval` reads it.
    let model = dir.path().join("runs/epochs=50-seed4.model.json");
    assert!(dir.path().join("runs/epochs=50-seed4.metrics.csv").exists());
    let eval = logicars()
        .args(["eval", "--model"])
        .arg(&model)
        .assert()
        .success();
    let eval = String::from_utf8(eval.get_output().stdout.clone()).unwrap();
    assert!(eval.contains("hard_loss="), "{eval}");
    let err = sweep(dir.path(), &["--shard", "1/3", "--threads", "1"]);
    assert!(err.contains("2 already done"), "{err}");
    assert!(!err.contains("seed 1:"), "no run again: {err}");
    assert_eq!(rows(dir.path()), first);
}

#[test]
fn a_shard_killed_mid_run_finishes_when_run_again() {
    let (_local, expected) = local();
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(crate::common::shards::program())
        .arg("sweep")
        .args(PLAN)
        .args(["--threads", "1", "--shard", "0/1", "--out"])
        .arg(dir.path())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while count_rows(dir.path()) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no row appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done = count_rows(dir.path());
    assert!(done < 7, "killed before the end: {done} rows");
    let err = sweep(dir.path(), &["--shard", "0/1"]);
    assert!(err.contains(&format!("{done} already done")), "{err}");
    let (code, err) = merge(&[dir.path()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(tables(dir.path()), expected);
}

fn count_rows(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("runs")).map_or(0, |entries| {
        entries
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                let name = name.to_string_lossy();
                name.ends_with(".json") && !name.starts_with('.')
            })
            .count()
    })
}

#[test]
fn a_folder_of_another_sweep_is_refused_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    sweep(dir.path(), &["--shard", "0/4"]);
    let out = logicars()
        .arg("sweep")
        .args(PLAN)
        .args(["--shard", "0/3", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    let expected = format!("Error: {} holds another sweep (id ", dir.path().display());
    assert!(err.starts_with(&expected), "{err}");
    assert!(err.contains("it differs in shards)"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_merge_with_a_missing_row_names_it_and_status_lists_exactly_the_missing() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3 {
        sweep(dir.path(), &["--shard", &format!("{i}/3")]);
    }
    for seed in [2, 5] {
        std::fs::remove_file(dir.path().join(format!("runs/epochs=50-seed{seed}.json"))).unwrap();
    }
    let (code, err) = merge(&[dir.path()]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "Error: 2 of the sweep's 7 runs have no row: 'epochs=50' seed 2, 'epochs=50' \
             seed 5; `logicars sweep status {}` says which shards to run again\n",
            dir.path().display()
        )
    );
    let out = logicars()
        .args(["sweep", "status"])
        .arg(dir.path())
        .assert()
        .success();
    let status = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = status.lines().collect();
    // Shard 0 runs entries 0, 3, 6; shard 1 entries 1, 4; shard 2 entries 2, 5.
    assert_eq!(
        lines[2].split_whitespace().collect::<Vec<_>>(),
        ["0", "3", "3", "-"]
    );
    assert_eq!(
        lines[3].split_whitespace().collect::<Vec<_>>(),
        ["1", "2", "2", "-"]
    );
    assert_eq!(
        lines[4].split_whitespace().collect::<Vec<_>>(),
        [
            "2",
            "0",
            "2",
            "'epochs=50'",
            "seed",
            "2,",
            "'epochs=50'",
            "seed",
            "5"
        ]
    );
    let rerun: Vec<&&str> = lines.iter().filter(|l| l.contains("--shard")).collect();
    assert_eq!(rerun.len(), 1, "{status}");
    assert!(rerun[0].ends_with("--shard 2/3"), "{status}");
    // The printed command runs the missing shard; the merge then succeeds.
    let words = shlex::split(rerun[0].trim()).unwrap();
    logicars().args(&words[1..]).assert().success();
    assert_eq!(merge(&[dir.path()]).0, 0);
}

#[test]
fn two_different_rows_of_one_run_are_a_determinism_error() {
    let a = tempfile::tempdir().unwrap();
    sweep(a.path(), &["--shard", "0/2"]);
    let b = tempfile::tempdir().unwrap();
    sweep(b.path(), &["--shard", "1/2"]);
    // Shard 0 also ran in b, and one of its numbers came out different there (a row whole
    // and checksummed as written, not one changed after).
    let row = "runs/epochs=50-seed0.json";
    let text = std::fs::read_to_string(a.path().join(row)).unwrap();
    let mut other = logicars::sweep::rows::Row::read(&a.path().join(row)).unwrap();
    other.result.epochs += 1;
    other.checksum = other.checksum_of();
    std::fs::write(b.path().join(row), serde_json::to_string(&other).unwrap()).unwrap();
    let (code, err) = merge(&[a.path(), b.path()]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "Error: determinism error: setting 'epochs=50' seed 0 has two different rows, \
             {} and {} (a run must give the same row on any machine, thread count and SIMD \
             level)\n",
            a.path().join(row).display(),
            b.path().join(row).display()
        )
    );
    // The same row in both folders (only its provenance differs) is counted once.
    let mut same: serde_json::Value = serde_json::from_str(&text).unwrap();
    same["provenance"]["host"] = "elsewhere".into();
    std::fs::write(b.path().join(row), same.to_string()).unwrap();
    assert_eq!(merge(&[a.path(), b.path()]).0, 0);
}

#[test]
fn a_row_of_another_sweep_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    sweep(dir.path(), &["--shard", "0/7"]);
    let other = tempfile::tempdir().unwrap();
    logicars()
        .args([
            "sweep",
            "checkerboard",
            "--small",
            "--seeds",
            "9",
            "--set",
            "epochs=50",
        ])
        .args(["--shard", "0/1", "--out"])
        .arg(other.path())
        .assert()
        .success();
    let stray = "runs/epochs=50-seed9.json";
    std::fs::copy(other.path().join(stray), dir.path().join(stray)).unwrap();
    let (code, err) = merge(&[dir.path()]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!(
            "Error: {}: a row of another sweep",
            dir.path().join(stray).display()
        )),
        "{err}"
    );
}
