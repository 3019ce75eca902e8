//! Checkpoints, signals and resume, as a user meets them: a run stopped by SIGINT or
//! SIGTERM and resumed ends with the same files as a run that was never stopped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process};
use std::time::{Duration, Instant};

use assert_cmd::Command;

/// A short checkerboard run (4 steps, so an epoch is quick even in a debug build).
const RUN: [&str; 8] = [
    "train",
    "checkerboard",
    "--small",
    "--steps",
    "4",
    "--no-artefacts",
    "--threads",
    "1",
];

/// The reduced checkerboard's seed 10: solved at epoch 211, its kept model found exact at
/// 331 of 400.
const SEED_10: [&str; 8] = [
    "train",
    "checkerboard",
    "--small",
    "--seed",
    "10",
    "--no-artefacts",
    "--threads",
    "1",
];

fn logicars() -> Command {
    Command::cargo_bin("logicars").unwrap()
}

fn spawn(run: &[&str], model: &Path, epochs: usize) -> Child {
    Process::new(assert_cmd::cargo::cargo_bin!("logicars"))
        .args(run)
        .args(["--checkpoint-every", "7"])
        .args(["--epochs", &epochs.to_string(), "--save"])
        .arg(model)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Rows of the log (without its header) once it exists.
fn logged_epochs(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |t| t.lines().count().saturating_sub(1))
}

/// Starts `run` and sends `signal` once the log has `after` epochs; returns the exit code
/// (none when killed) and stderr.
fn interrupt(
    run: &[&str],
    model: &Path,
    epochs: usize,
    after: usize,
    signal: &str,
) -> (Option<i32>, String) {
    let child = spawn(run, model, epochs);
    let log = model.with_file_name("metrics.csv");
    let start = Instant::now();
    while logged_epochs(&log) < after {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the run never logged"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    crate::common::signal(&child, signal);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), stderr)
}

/// The run's files, by name, with their bytes; not the folder's record and lock, which
/// say when and by which process the run was started and differ by design.
fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !["run.json", "run.lock"].contains(&file_name(p).as_str()))
        .map(|p| (file_name(&p), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// `train --resume run` succeeds and leaves the files of `reference`.
fn resumes_to(run: &Path, reference: &[(String, Vec<u8>)], what: &str) {
    logicars()
        .args(["train", "--resume"])
        .arg(run)
        .assert()
        .success();
    assert!(files_of(run) == reference, "{what}: files differ");
}

fn reference_run(run: &[&str], dir: &Path, epochs: usize) -> PathBuf {
    let model = dir.join("reference/model.json");
    logicars()
        .args(run)
        .args(["--epochs", &epochs.to_string(), "--save"])
        .arg(&model)
        .assert()
        .success();
    model
}

#[test]
fn a_run_stopped_by_a_signal_resumes_to_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let epochs = 400;
    let reference = files_of(reference_run(&RUN, dir.path(), epochs).parent().unwrap());
    let names: Vec<&str> = reference.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["metrics.csv", "model.json"], "nothing else is left");
    let stops = [
        (1, "-INT", Some(130)),
        (30, "-TERM", Some(143)),
        (100, "-INT", Some(130)),
        (60, "-KILL", None),
    ];
    for (after, signal, code) in stops {
        let model = dir.path().join(format!("stopped-{after}/model.json"));
        let (got, stderr) = interrupt(&RUN, &model, epochs, after, signal);
        assert_eq!(got, code, "{signal}: {stderr}");
        let run = model.parent().unwrap();
        let done = logged_epochs(&model.with_file_name("metrics.csv"));
        assert!(
            (after..epochs).contains(&done),
            "stopped after epoch {done}"
        );
        if code.is_some() {
            assert!(
                stderr.contains("resume with: logicars train --resume"),
                "{stderr}"
            );
        }
        logicars::io::model_file::load(&model).expect("the model so far loads");
        if code.is_none() {
            // What a kill inside a write leaves (the kill above may or may not have).
            std::fs::write(run.join(".model.json.AbC123.partial"), "{\"format\"").unwrap();
        }
        assert!(run.join("model.checkpoint.json").exists());
        resumes_to(run, &reference, &format!("{signal} after {done}"));
    }
}

/// A run that stops once its kept model is exact, stopped by a signal after its first check
/// found the model not yet exact: resumed, it checks at the epochs the run never stopped
/// checks at (the checkpoint carries them), so it stops at the same epoch with the same
/// files. Seed 10 of the reduced checkerboard is solved at epoch 211 and found exact at
/// 331, six checks later.
#[test]
fn a_run_stopped_between_its_exactness_checks_stops_where_it_would_have() {
    let dir = tempfile::tempdir().unwrap();
    let epochs = 400;
    let reference = reference_run(&SEED_10, dir.path(), epochs);
    let stopped_at = logged_epochs(&reference.with_file_name("metrics.csv"));
    assert_eq!(stopped_at, 331, "the reference stops once exact");
    let reference = files_of(reference.parent().unwrap());

    let model = dir.path().join("stopped/model.json");
    let (code, stderr) = interrupt(&SEED_10, &model, epochs, 215, "-INT");
    assert_eq!(code, Some(130), "{stderr}");
    let run = model.parent().unwrap();
    let done = logged_epochs(&model.with_file_name("metrics.csv"));
    assert!(
        (215..stopped_at).contains(&done),
        "stopped after epoch {done}"
    );
    let checkpoint =
        logicars::io::checkpoint_file::load(&run.join("model.checkpoint.json")).unwrap();
    let watch = checkpoint.exact_watch;
    assert_eq!(watch.solved_at(), Some(211), "checked once, not exact");
    assert_eq!(watch.exact_at(), None);

    logicars()
        .args(["train", "--resume"])
        .arg(run)
        .assert()
        .success();
    assert_eq!(
        logged_epochs(&model.with_file_name("metrics.csv")),
        stopped_at
    );
    assert!(files_of(run) == reference, "after {done}: files differ");
}

/// Every run-level flag survives an interruption: `--full` (trains on past the epoch its
/// kept model is exact), `--keep last` (no stop once exact, the last parameters kept) and
/// `--log-interval` each given to a run stopped by SIGINT before it is exact, which is
/// then resumed with no flag but `--resume`: the same files as the run never stopped, and
/// the resumed run's progress lines at the interval. Seed 10 of the reduced checkerboard
/// is exact at epoch 331 of 400.
#[test]
fn a_resumed_run_keeps_every_run_level_flag() {
    let dir = tempfile::tempdir().unwrap();
    let epochs = 400;
    let cases: [(&str, &[&str], usize); 3] = [
        ("full", &["--full"], epochs),
        ("keep-last", &["--keep", "last"], epochs),
        ("log-interval", &["--log-interval", "7"], 331),
    ];
    for (name, flags, ends_at) in cases {
        let mut run = SEED_10.to_vec();
        run.extend_from_slice(flags);
        let reference = reference_run(&run, &dir.path().join(name), epochs);
        let logged = logged_epochs(&reference.with_file_name("metrics.csv"));
        assert_eq!(logged, ends_at, "{name}: the run never stopped");
        let reference = files_of(reference.parent().unwrap());

        let model = dir.path().join(format!("{name}-stopped/model.json"));
        let (code, stderr) = interrupt(&run, &model, epochs, 120, "-INT");
        assert_eq!(code, Some(130), "{name}: {stderr}");
        let run_dir = model.parent().unwrap();
        let out = logicars()
            .args(["train", "--resume"])
            .arg(run_dir)
            .assert()
            .success();
        assert!(files_of(run_dir) == reference, "{name}: files differ");
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        let progress: Vec<usize> = stderr
            .lines()
            .filter_map(|l| {
                l.split("Epoch")
                    .nth(1)?
                    .split(':')
                    .next()?
                    .trim()
                    .parse()
                    .ok()
            })
            .collect();
        assert!(!progress.is_empty(), "{name}: {stderr}");
        if name == "log-interval" {
            let off = progress.iter().filter(|&&e| e % 7 != 0 && e != ends_at);
            assert_eq!(off.count(), 0, "{name}: progress at {progress:?}");
        }
    }
}

/// A run of several attempts stopped in its second attempt (by SIGINT, or killed) and
/// resumed ends with the files of the run never stopped: the checkpoint carries the first
/// attempt's record and model. With 4 steps the reduced checkerboard is exact in none of
/// its three 60-epoch attempts.
#[test]
fn a_run_stopped_in_a_later_attempt_resumes_to_the_same_files() {
    let mut run = RUN.to_vec();
    run.extend(["--attempts", "3"]);
    let dir = tempfile::tempdir().unwrap();
    let epochs = 60;
    let reference = reference_run(&run, dir.path(), epochs);
    let rows = logged_epochs(&reference.with_file_name("metrics.csv"));
    assert_eq!(rows, 3 * epochs, "three attempts, none exact");
    let reference = files_of(reference.parent().unwrap());
    for (after, signal) in [(100, "-INT"), (130, "-KILL")] {
        let model = dir.path().join(format!("stopped-{after}/model.json"));
        let (_, stderr) = interrupt(&run, &model, epochs, after, signal);
        let run_dir = model.parent().unwrap();
        let checkpoint =
            logicars::io::checkpoint_file::load(&run_dir.join("model.checkpoint.json"))
                .unwrap_or_else(|e| panic!("{signal}: {e}\n{stderr}"));
        // A kill lands a few epochs late: in the second or the third attempt.
        let attempt = checkpoint.settings.attempt;
        assert!((2..=3).contains(&attempt), "{signal}: in attempt {attempt}");
        assert_eq!(checkpoint.attempts.len(), attempt - 1);
        resumes_to(run_dir, &reference, &format!("{signal} after {after}"));
    }
}

/// The attempt a run keeps is trained alone by `--attempt K --attempts 1`: the same
/// parameters. Seed 0 of the reduced checkerboard in 200 epochs is exact at attempt 2.
#[test]
fn one_attempt_of_a_run_is_trained_alone() {
    let dir = tempfile::tempdir().unwrap();
    let base = [
        "train",
        "checkerboard",
        "--small",
        "--seed",
        "0",
        "--epochs",
        "200",
    ];
    let (whole, alone) = (
        dir.path().join("whole/model.json"),
        dir.path().join("alone/model.json"),
    );
    let out = logicars()
        .args(base)
        .args(["--no-artefacts", "--save"])
        .arg(&whole)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("attempt 2 exact") && stdout.contains("--attempt 2 --attempts 1"),
        "{stdout}"
    );
    logicars()
        .args(base)
        .args([
            "--attempt",
            "2",
            "--attempts",
            "1",
            "--no-artefacts",
            "--save",
        ])
        .arg(&alone)
        .assert()
        .success();
    let layers = |path: &Path| {
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        (
            json["perceive"].clone(),
            json["update"].clone(),
            json["training"]["attempt"].clone(),
        )
    };
    assert_eq!(layers(&whole), layers(&alone));
    assert_eq!(layers(&whole).2, 2, "the model file names its attempt");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&whole).unwrap()).unwrap();
    let seed = logicars::train::attempt_seed(0, 2);
    assert_eq!(json["attempt_seed"], seed, "and the seed it trained from");
    assert!(stdout.contains(&format!("(seed {seed}:")), "{stdout}");
}

#[test]
fn resume_takes_the_runs_own_settings() {
    for flag in [&["--epochs", "5"][..], &["--full"], &["--keep", "last"]] {
        let out = logicars()
            .args(["train", "--resume", "somewhere"])
            .args(flag)
            .assert()
            .failure();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains("cannot be used with"), "{flag:?}: {stderr}");
    }
}

#[test]
fn a_finished_run_has_nothing_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    let model = reference_run(&RUN, dir.path(), 2);
    let run = model.parent().unwrap();
    let out = logicars()
        .args(["train", "--resume"])
        .arg(run)
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let expected = format!(
        "Error: {} holds no checkpoint ({}): its run finished, or stopped before its first \
         checkpoint\n",
        run.display(),
        run.join("model.checkpoint.json").display()
    );
    assert_eq!(stderr, expected);
}

#[test]
fn outputs_are_checked_before_training() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("folder")).unwrap();
    let cases = [
        (
            vec!["--save", "m.json", "--log", "m.json"],
            "Error: the model (--save) and the log (--log) would both be written to",
        ),
        (
            vec!["--save", "folder"],
            "Error: the model (--save) would be written to",
        ),
        (
            vec!["--save", "r/model.json", "--log", "r/model.checkpoint.json"],
            "Error: the log (--log) and the checkpoint would both be written to",
        ),
    ];
    for (flags, expected) in cases {
        let out = logicars()
            .current_dir(d)
            .args(RUN)
            .args(["--epochs", "500"])
            .args(&flags)
            .assert()
            .failure();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.starts_with(expected), "{flags:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    }
    let mut left: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| file_name(&e.unwrap().path()))
        .collect();
    left.sort();
    assert_eq!(left, ["folder"], "no output file or folder was written");
}

#[test]
fn a_second_sigint_stops_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.json");
    // Epochs of about a second, so that both signals land inside the first one.
    let mut child = Process::new(assert_cmd::cargo::cargo_bin!("logicars"))
        .args(["train", "checkerboard", "--no-artefacts", "--threads", "1"])
        .args(["--batch", "64", "--epochs", "50", "--save"])
        .arg(&model)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let log = dir.path().join("metrics.csv");
    let start = Instant::now();
    while !log.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        assert!(start.elapsed() < Duration::from_secs(60), "no log");
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = child.id().to_string();
    for _ in 0..2 {
        let sent = Process::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(sent.success());
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_eq!(logged_epochs(&log), 0, "stopped inside the first epoch");
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| file_name(&e.unwrap().path()))
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["metrics.csv", "run.json", "run.lock"],
        "no model and no checkpoint"
    );
}
