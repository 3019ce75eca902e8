//! The same seed gives the same log and model, bit for bit, for any thread count,
//! instruction set and recipe, as the command runs it.

use logicars::kernels::simd::{SimdLevel, SIMD_VAR};

use crate::common::{logicars, train_small};

#[test]
fn same_seed_gives_the_same_log_for_one_and_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let (_, one) = train_small(dir.path(), 1, 40);
    let (_, two) = train_small(dir.path(), 2, 40);
    assert_eq!(
        one.lines().count(),
        3 * 40 + 1,
        "header and one row per epoch of each of the three attempts (none exact)"
    );
    assert_eq!(one, two);
    let m1 = std::fs::read(dir.path().join("t1/model.json")).unwrap();
    let m2 = std::fs::read(dir.path().join("t2/model.json")).unwrap();
    assert_eq!(m1, m2, "the trained models are identical too");
}

/// The kernels of every instruction set this CPU runs (`LOGICARS_SIMD`) give the same
/// log and model, bit for bit.
#[test]
fn every_instruction_set_gives_the_same_log() {
    let dir = tempfile::tempdir().unwrap();
    let runs: Vec<(String, Vec<u8>)> = SimdLevel::available()
        .map(|level| {
            let model = dir.path().join(format!("{}/model.json", level.name()));
            logicars()
                .env(SIMD_VAR, level.name())
                .args(["train", "checkerboard", "--small", "--epochs", "25"])
                .args(["--threads", "2", "--save"])
                .arg(&model)
                .assert()
                .success();
            let log = std::fs::read_to_string(model.with_file_name("metrics.csv")).unwrap();
            (log, std::fs::read(&model).unwrap())
        })
        .collect();
    assert!(
        runs.len() >= 2,
        "at least one vector level and the baseline"
    );
    assert_eq!(
        runs[0].0.lines().count(),
        3 * 25 + 1,
        "three attempts, none exact"
    );
    for run in &runs[1..] {
        assert_eq!(run.0, runs[0].0);
        assert!(run.1 == runs[0].1, "the trained models are identical too");
    }
}

/// A grid that is one run of several tiles steps as phases shared by the threads (the
/// lizard's 30x30 torus: 15 tiles; the asynchronous checkerboard's 14x14 grid: 4 tiles,
/// its forward on the firing cells only): the same log and model for 1, 2 and 3 threads
/// and for every instruction set this CPU runs.
#[test]
fn one_grid_of_many_tiles_gives_the_same_log_for_any_threads_and_instruction_set() {
    let dir = tempfile::tempdir().unwrap();
    let tasks: [&[&str]; 2] = [
        &["lizard", "--small", "--epochs", "6"],
        &["checkerboard-async", "--epochs", "8"],
    ];
    for task in tasks {
        let run = |threads: usize, level: SimdLevel| {
            let model = dir
                .path()
                .join(format!("{}-{threads}-{}/m.json", task[0], level.name()));
            logicars()
                .env(SIMD_VAR, level.name())
                .arg("train")
                .args(task)
                .args(["--attempts", "1", "--no-artefacts", "--threads"])
                .arg(threads.to_string())
                .arg("--save")
                .arg(&model)
                .assert()
                .success();
            let log = std::fs::read_to_string(model.with_file_name("metrics.csv")).unwrap();
            (log, std::fs::read(&model).unwrap())
        };
        let first = run(1, SimdLevel::detect());
        assert_eq!(
            first.0.lines().count(),
            task[task.len() - 1].parse::<usize>().unwrap() + 1
        );
        for threads in [2, 3] {
            assert!(
                run(threads, SimdLevel::detect()) == first,
                "{task:?}, {threads} threads"
            );
        }
        for level in SimdLevel::available() {
            assert!(run(2, level) == first, "{task:?}, {}", level.name());
        }
    }
}

#[test]
fn an_instruction_set_the_cpu_lacks_is_an_error() {
    let unknown = logicars()
        .env(SIMD_VAR, "neon")
        .args(["presets"])
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&unknown.get_output().stderr).into_owned();
    assert!(
        stderr.starts_with("Error: LOGICARS_SIMD: unknown instruction set"),
        "{stderr}"
    );
    if SimdLevel::detect() < SimdLevel::Avx512 {
        let lacking = logicars()
            .env(SIMD_VAR, "avx512")
            .args(["presets"])
            .assert()
            .failure();
        let stderr = String::from_utf8_lossy(&lacking.get_output().stderr).into_owned();
        assert!(
            stderr.contains("this CPU cannot run AVX-512 kernels"),
            "{stderr}"
        );
    }
}

#[test]
fn every_recipe_gives_the_same_log_for_one_and_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let recipe = [
        "--recipe",
        "input-wise",
        "--weight-decay",
        "0.1",
        "--gate-noise",
        "0.5",
        "--sharpen",
        "4",
        "--straight-through",
        "0.5",
        "--hardening",
        "0.2",
        "--loss-steps",
        "3",
        "--discreteness",
        "0.1",
        "--hard-gates",
        "0.3",
        "--curriculum-size",
        "4",
        "--curriculum-share",
        "0.3",
        "--starts",
        "2",
        "--hold-steps",
        "3",
        "--hold-from",
        "0.2",
    ];
    let logs: Vec<String> = [1, 2]
        .iter()
        .map(|threads| {
            let model = dir.path().join(format!("t{threads}/model.json"));
            logicars()
                .args(["train", "checkerboard", "--small", "--epochs", "30"])
                .args(recipe)
                .args(["--threads", &threads.to_string(), "--save"])
                .arg(&model)
                .assert()
                .success();
            std::fs::read_to_string(model.with_file_name("metrics.csv")).unwrap()
        })
        .collect();
    assert_eq!(logs[0].lines().count(), 31, "{}", logs[0]);
    assert_eq!(logs[0], logs[1]);
    let model = std::fs::read_to_string(dir.path().join("t1/model.json")).unwrap();
    assert!(
        model.contains(r#""gate_noise":0.5"#)
            && model.contains(r#""sharpen":4.0"#)
            && model.contains(r#""hard_gates":0.3"#)
            && model.contains(r#""curriculum_size":4"#)
            && model.contains(r#""starts":2"#),
        "the recipe is recorded"
    );
}

/// Asynchronous training with fire masks drawn per grid of a batch of three: the same log
/// for any thread count, and another log than masks the grids share.
#[test]
fn masks_drawn_per_grid_give_the_same_log_for_one_and_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let log = |threads: usize, per_grid: &str| {
        let model = dir.path().join(format!("t{threads}{per_grid}/model.json"));
        logicars()
            .args(["train", "checkerboard-async", "--small", "--epochs", "20"])
            .args([
                "--batch",
                "3",
                "--per-grid-masks",
                per_grid,
                "--attempts",
                "1",
            ])
            .args(["--threads", &threads.to_string(), "--save"])
            .arg(&model)
            .assert()
            .success();
        std::fs::read_to_string(model.with_file_name("metrics.csv")).unwrap()
    };
    let per_grid = log(1, "true");
    assert_eq!(per_grid.lines().count(), 21, "{per_grid}");
    assert_eq!(per_grid, log(2, "true"));
    assert_ne!(per_grid, log(1, "false"));
}
