//! Helpers that several test files share; each file uses a part of them.
#![allow(dead_code)]

pub mod shards;

/// Sends `signal` (`-INT`, `-TERM`, `-KILL`...) to `child` with `kill`.
pub fn signal(child: &std::process::Child, signal: &str) {
    let pid = child.id().to_string();
    let sent = std::process::Command::new("kill")
        .args([signal, &pid])
        .status()
        .unwrap();
    assert!(sent.success(), "kill {signal} {pid}");
}

/// The command under test.
pub fn logicars() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("logicars").unwrap()
}

/// A small checkerboard run of `epochs` on `threads` saved under `dir`: its stdout and log.
pub fn train_small(dir: &std::path::Path, threads: usize, epochs: usize) -> (String, String) {
    let model = dir.join(format!("t{threads}/model.json"));
    let out = logicars()
        .args([
            "train",
            "checkerboard",
            "--small",
            "--epochs",
            &epochs.to_string(),
        ])
        .args(["--threads", &threads.to_string(), "--save"])
        .arg(&model)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let log = std::fs::read_to_string(model.with_file_name("metrics.csv")).unwrap();
    (stdout, log)
}

/// Runs `logicars train <args> --save <dir>/<name>/model.json`; returns the model path.
pub fn train(dir: &std::path::Path, name: &str, args: &[&str]) -> std::path::PathBuf {
    let model = dir.join(name).join("model.json");
    logicars()
        .arg("train")
        .args(args)
        .arg("--save")
        .arg(&model)
        .assert()
        .success();
    model
}

/// One epoch of `task`'s small grid with the paper's recipe (its notebook geometry), saved
/// in `dir/task/`.
pub fn one_papers_epoch(dir: &std::path::Path, task: &str, extra: &[&str]) -> std::path::PathBuf {
    let args = [
        task,
        "--small",
        "--recipe",
        "paper",
        "--epochs",
        "1",
        "--no-artefacts",
    ];
    train(dir, task, &[&args[..], extra].concat())
}
