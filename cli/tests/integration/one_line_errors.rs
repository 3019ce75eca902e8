//! Input the command cannot use (missing files, values out of range, flags that contradict
//! each other, a task a flag does not fit): one line that says what is wrong, and no work.

use std::path::Path;

use crate::common::{logicars, train_small};

fn fails_with(args: &[&str], needle: &str) {
    let out = logicars().args(args).assert().failure();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains(needle),
        "stderr for {args:?} should mention {needle:?}: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `train checkerboard` with each case's flags stops with one line holding its text, and
/// writes nothing.
fn train_refuses(cases: &[(&[&str], &str)]) {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("m.json");
    let save = save.to_str().unwrap();
    for (args, needle) in cases {
        fails_with(
            &[&["train", "checkerboard"], *args, &["--save", save]].concat(),
            needle,
        );
    }
    assert!(!Path::new(save).exists(), "nothing written");
}

/// A file a run reads that is not there stops it with one line naming the file.
#[test]
fn a_missing_input_file_is_a_one_line_error() {
    train_refuses(&[
        (
            &["--batches", "/nonexistent/b.bits"],
            "cannot read batch file /nonexistent/b.bits",
        ),
        (
            &["--recipe", "paper", "--init-params", "/nonexistent/p.json"],
            "cannot read model file /nonexistent/p.json",
        ),
    ]);
}

/// A run's attempts are checked before any work: at least one, and one only where the
/// parameters are given.
#[test]
fn attempts_are_checked_before_training() {
    train_refuses(&[
        (
            &["--init-params", "/nonexistent/p.json"],
            "--init-params gives the parameters of one attempt, and the run may make 3: add \
             --attempts 1",
        ),
        (&["--attempts", "0"], "attempts must be at least 1, got 0"),
        (&["--attempt", "0"], "attempt must be at least 1, got 0"),
    ]);
}

/// The default checkerboard recipe chooses among 4 starts at its curriculum's end.
#[test]
fn starts_without_a_curriculum_are_a_one_line_error() {
    fails_with(
        &["train", "checkerboard", "--curriculum-share", "0"],
        "4 starts need a time to choose among them: set --starts-share (a share of the run), \
         or a curriculum",
    );
    fails_with(
        &["train", "checkerboard", "--starts", "0"],
        "starts must be at least 1, got 0",
    );
}

#[test]
fn bad_input_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("m.json");
    let save = save.to_str().unwrap();
    let bad_training = [
        (
            &["checkerboard", "--epochs", "0"][..],
            "epochs must be at least 1, got 0",
        ),
        (
            &["checkerboard", "--batch", "0"],
            "batch must be at least 1, got 0",
        ),
        (
            &["checkerboard", "--steps", "0"],
            "steps must be at least 1",
        ),
        (&["gol", "--threads", "0"], "--threads must be at least 1"),
        (
            &["checkerboard", "--lr", "-1"],
            "lr must be a finite number above 0, got -1",
        ),
        (
            &["pattern", "--channels", "0"],
            "--channels: channels must be 1..=128, got 0",
        ),
        (
            &["checkerboard", "--update-layers", "64x0,8"],
            "'0' in '64x0,8' is not a whole number above 0",
        ),
        (
            &["checkerboard", "--update-layers", "64x2,16"],
            "the last update layer must have one gate per channel (8), got 16",
        ),
    ];
    for (args, needle) in bad_training {
        fails_with(&[&["train"], args, &["--save", save]].concat(), needle);
    }
    fails_with(&["train", "sudoku"], "invalid value 'sudoku'");
    assert!(
        !Path::new(save).exists(),
        "no partial output after bad input"
    );
    assert!(!dir.path().join("metrics.csv").exists());

    fails_with(
        &["eval", "--model", "/nonexistent/m.json"],
        "cannot read model file",
    );
    std::fs::write(dir.path().join("bad.json"), "{\"format\": \"x\"}").unwrap();
    fails_with(
        &[
            "eval",
            "--model",
            dir.path().join("bad.json").to_str().unwrap(),
        ],
        "model file",
    );
    fails_with(
        &["eval", "--model", save, "--size", "0x4"],
        "the grid must not be empty",
    );
}

#[test]
fn eval_rejects_grids_with_the_wrong_channels() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _) = train_small(dir.path(), 1, 3);
    let init = dir.path().join("init.json");
    std::fs::write(&init, "[[[[0, 1]]]]").unwrap();
    let model = dir.path().join("t1/model.json");
    fails_with(
        &[
            "eval",
            "--model",
            model.to_str().unwrap(),
            "--init",
            init.to_str().unwrap(),
        ],
        "the model has 8 channels",
    );
}

/// A task whose rollouts start from random grids refuses a gate search before training,
/// and so does any task `--rewire-layers` without a search.
#[test]
fn a_gate_search_is_refused_where_it_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = logicars()
        .args(["train", "checkerboard", "--small", "--search-circuits", "1"])
        .args(["--no-artefacts", "--save"])
        .arg(dir.path().join("board/model.json"))
        .assert()
        .failure();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("--search-circuits is for the growing tasks"),
        "{stderr}"
    );

    let save = dir.path().join("rewire/model.json");
    let save = save.to_str().unwrap();
    let args = [
        "train",
        "lizard",
        "--small",
        "--recipe",
        "paper",
        "--rewire-layers",
        "1",
    ];
    fails_with(
        &[&args[..], &["--no-artefacts", "--save", save]].concat(),
        "without --search-circuits there is no search",
    );
}
