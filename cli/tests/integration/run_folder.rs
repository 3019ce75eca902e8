//! A run's folder belongs to one run, as a user meets it: a second run that wants a
//! folder a running run holds is refused naming the holder; a finished or stopped run is
//! never written over without `--overwrite`; SIGKILL of the holder frees the folder; the
//! default folder numbers a second run with other settings; a sweep's shard, or a whole sweep, runs once at a
//! time.

use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;

use crate::common::signal;

/// A long run of the reduced checkerboard (4 steps, so an epoch is quick in a debug
/// build), which the tests stop themselves.
fn long_run(seed: u64, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "train",
        "checkerboard",
        "--small",
        "--steps",
        "4",
        "--epochs",
        "100000",
        "--full",
        "--no-artefacts",
        "--threads",
        "1",
        "--checkpoint-every",
        "5",
        "--seed",
    ]
    .map(String::from)
    .into();
    args.push(seed.to_string());
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

fn logicars() -> Command {
    Command::cargo_bin("logicars").unwrap()
}

fn spawn(args: &[String], model: Option<&Path>) -> Child {
    let mut cmd = Process::new(assert_cmd::cargo::cargo_bin!("logicars"));
    cmd.args(args);
    if let Some(model) = model {
        cmd.arg("--save").arg(model);
    }
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits until `file` exists and `ready` holds of its text.
fn wait_for(file: &Path, ready: impl Fn(&str) -> bool) {
    let start = Instant::now();
    while !std::fs::read_to_string(file).is_ok_and(|t| ready(&t)) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{} never came",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A refused command's stderr.
fn refused(cmd: &mut Command) -> String {
    let out = cmd.assert().failure();
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

fn record(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap()
}

fn trained_seed(model: &Path) -> serde_json::Value {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(model).unwrap()).unwrap();
    json["training"]["seed"].clone()
}

#[test]
fn a_second_run_and_a_resume_are_refused_while_a_run_holds_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let model = run.join("model.json");
    let mut first = spawn(&long_run(1, &[]), Some(&model));
    let pid = format!("process {} (`logicars train", first.id());
    wait_for(&run.join("model.checkpoint.json"), |_| true);
    let second = refused(logicars().args(long_run(2, &[])).arg("--save").arg(&model));
    assert!(
        second.starts_with(&format!("Error: {} is in use by {pid}", run.display())),
        "{second}"
    );
    assert!(second.contains("--save"), "names a way on: {second}");
    let resume = refused(logicars().args(["train", "--resume"]).arg(&run));
    assert!(resume.contains(&format!("is in use by {pid}")), "{resume}");
    assert!(resume.contains("cannot be resumed while"), "{resume}");
    let overwrite = refused(
        logicars()
            .args(long_run(2, &["--overwrite"]))
            .arg("--save")
            .arg(&model),
    );
    assert!(
        overwrite.contains("is in use by"),
        "even --overwrite: {overwrite}"
    );
    signal(&first, "-TERM");
    assert_eq!(first.wait().unwrap().code(), Some(143));
    assert_eq!(
        record(&run)["run"]["settings"]["seed"],
        1,
        "the first run's record"
    );
    assert_eq!(trained_seed(&model), 1, "the first run's model");
    assert!(run.join("model.checkpoint.json").is_file());
}

#[test]
fn sigkill_of_the_holder_frees_the_folder_for_its_resume() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let model = run.join("model.json");
    let mut first = spawn(&long_run(3, &[]), Some(&model));
    wait_for(&run.join("model.checkpoint.json"), |_| true);
    signal(&first, "-KILL");
    assert_eq!(first.wait().unwrap().code(), None);
    let resume = [
        "train",
        "--resume",
        &run.to_string_lossy(),
        "--checkpoint-every",
        "5",
    ]
    .map(String::from);
    let checkpoint = run.join("model.checkpoint.json");
    let killed_at = std::fs::read(&checkpoint).unwrap();
    let mut resumed = spawn(&resume, None);
    let pid = format!("process {} ", resumed.id());
    wait_for(&run.join("run.lock"), |t| t.starts_with(&pid));
    // Its next checkpoint: it trains.
    wait_for(&checkpoint, |_| {
        std::fs::read(&checkpoint).unwrap() != killed_at
    });
    signal(&resumed, "-TERM");
    assert_eq!(
        resumed.wait().unwrap().code(),
        Some(143),
        "it trained, then stopped"
    );
    assert_eq!(record(&run)["run"]["settings"]["seed"], 3);
}

#[test]
fn a_finished_run_is_not_written_over_without_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let model = run.join("model.json");
    let gol = |seed: &str| {
        let mut cmd = logicars();
        cmd.args(["train", "gol", "--small", "--epochs", "5", "--threads", "1"])
            .args(["--no-artefacts", "--seed", seed, "--save"])
            .arg(&model);
        cmd
    };
    gol("0").assert().success();
    let bytes = std::fs::read(&model).unwrap();
    let other = refused(&mut gol("1"));
    assert!(
        other.contains(&format!(
            "{} holds a finished run: gol, seed 0, started 20",
            run.display()
        )),
        "{other}"
    );
    assert!(
        other.contains("--save") && other.contains("--overwrite"),
        "{other}"
    );
    assert!(
        !other.contains("--resume"),
        "a finished run is not resumed: {other}"
    );
    let again = gol("0").assert().success();
    let said = String::from_utf8_lossy(&again.get_output().stderr).into_owned();
    assert!(
        said.contains("already holds this run (gol, seed 0"),
        "{said}"
    );
    assert!(said.contains("nothing to train"), "{said}");
    assert_eq!(
        std::fs::read(&model).unwrap(),
        bytes,
        "the finished run stays as it was"
    );
    gol("1").arg("--overwrite").assert().success();
    assert_eq!(trained_seed(&model), 1);
    assert_eq!(record(&run)["run"]["settings"]["seed"], 1);
}

#[test]
fn a_stopped_run_is_resumed_not_started_again() {
    let dir = tempfile::tempdir().unwrap();
    let stopped = dir.path().join("stopped");
    let mut long = spawn(&long_run(4, &[]), Some(&stopped.join("model.json")));
    wait_for(&stopped.join("model.checkpoint.json"), |_| true);
    signal(&long, "-INT");
    assert_eq!(long.wait().unwrap().code(), Some(130));
    let same = refused(
        logicars()
            .args(long_run(4, &[]))
            .arg("--save")
            .arg(stopped.join("model.json")),
    );
    assert!(
        same.contains("holds a stopped run: checkerboard, seed 4"),
        "{same}"
    );
    assert!(
        same.contains(&format!("logicars train --resume {}", stopped.display())),
        "{same}"
    );
}

#[test]
fn the_default_folder_numbers_a_run_with_other_settings() {
    let dir = tempfile::tempdir().unwrap();
    let gol = |epochs: &str| {
        let mut cmd = logicars();
        cmd.current_dir(dir.path())
            .args(["train", "gol", "--small", "--seed", "7", "--threads", "1"])
            .args(["--no-artefacts", "--epochs", epochs]);
        cmd
    };
    let folder = |name: &str| -> PathBuf { dir.path().join("runs").join(name) };
    gol("5").assert().success();
    assert!(folder("gol-small-seed7/model.json").is_file());
    let second = gol("6").assert().success();
    let said = String::from_utf8_lossy(&second.get_output().stderr).into_owned();
    assert!(
        said.contains("holds another run; this one goes to") && said.contains("gol-small-seed7-2"),
        "{said}"
    );
    assert_eq!(
        record(&folder("gol-small-seed7-2"))["run"]["settings"]["epochs"],
        6
    );
    let third = gol("6").assert().success();
    let said = String::from_utf8_lossy(&third.get_output().stderr).into_owned();
    assert!(
        said.contains("gol-small-seed7-2 already holds this run"),
        "the same run is found in its numbered folder: {said}"
    );
    assert!(!folder("gol-small-seed7-3").exists());
}

#[test]
fn a_shard_or_a_sweep_that_is_running_is_not_run_twice() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = |out: &Path, extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = ["sweep", "checkerboard", "--small", "--seeds", "0..1"]
            .map(String::from)
            .into();
        args.extend(["--set", "epochs=100000", "--set", "steps=4", "--full"].map(String::from));
        args.extend(["--threads", "1", "--out"].map(String::from));
        args.push(out.to_string_lossy().into_owned());
        args.extend(extra.iter().map(|a| a.to_string()));
        args
    };
    // A whole sweep and a shard of it cannot share a folder (the count of shards is
    // part of the sweep's id); the same piece twice is what the locks refuse.
    for (name, piece) in [("shards", &["--shard", "0/2"][..]), ("whole", &[][..])] {
        let out = dir.path().join(name);
        let mut first = spawn(&sweep(&out, piece), None);
        let pid = format!("process {} ", first.id());
        let lock = if piece.is_empty() {
            "sweep.lock"
        } else {
            "shard-0-of-2.lock"
        };
        wait_for(&out.join(lock), |t| t.starts_with(&pid));
        let twice = refused(logicars().args(sweep(&out, piece)));
        assert!(
            twice.contains(&format!("is in use by {pid}")) && twice.contains("same runs"),
            "{name}: {twice}"
        );
        signal(&first, "-KILL");
        first.wait().unwrap();
    }
}
