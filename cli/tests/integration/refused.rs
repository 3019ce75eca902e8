//! Values nobody would mean, as a new user types them: each is refused with one line and
//! exit code 2 before any work, and nothing is written (or, for `--shards`, cut with a
//! note); a sweep's row changed after it was written is refused by `merge` and shown by
//! `status`.

use std::path::Path;

use assert_cmd::Command;

fn logicars(dir: &Path) -> Command {
    let mut command = Command::cargo_bin("logicars").unwrap();
    command.current_dir(dir);
    command
}

/// Runs `args` in `dir`, requires exit code 2, and returns stderr.
fn refused(dir: &Path, args: &[&str]) -> String {
    let out = logicars(dir).args(args).assert().code(2);
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

/// The names of what `dir` holds.
/// `sweep` of two small Game of Life runs, emitted into `out` with `extra` after `--emit`.
fn emit<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "sweep", "gol", "--small", "--seeds", "0..2", "--out", out, "--emit",
    ];
    args.extend_from_slice(extra);
    args
}

fn contents(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_training_knob_out_of_its_range_is_refused_by_train_and_sweep_alike() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = [
        (
            &["--weight-decay", "nan"][..],
            "weight-decay must be a finite number from 0, got NaN",
        ),
        (
            &["--weight-decay", "inf"],
            "weight-decay must be a finite number from 0, got inf",
        ),
        (
            &["--weight-decay", "-5"],
            "weight-decay must be a finite number from 0, got -5",
        ),
        (
            &["--epsilon", "-1"],
            "epsilon must be a finite number above 0, got -1",
        ),
        (
            &["--epsilon", "0"],
            "epsilon must be a finite number above 0, got 0",
        ),
        (
            &["--pass-through", "nan"],
            "pass-through must be a finite number from 0, got NaN",
        ),
        (
            &["--gate-noise", "inf"],
            "gate-noise must be a finite number from 0, got inf",
        ),
        (
            &["--hard-gates", "1.5"],
            "hard-gates must be a share of the gates from 0 to 1, got 1.5",
        ),
    ];
    for (flag, line) in cases {
        let mut train = vec!["train", "checkerboard", "--small"];
        train.extend_from_slice(flag);
        assert_eq!(refused(d, &train), format!("Error: {line}\n"), "{flag:?}");
        let set = format!("{}={}", &flag[0][2..], flag[1]);
        let sweep = ["sweep", "checkerboard", "--small", "--set", &set];
        assert_eq!(
            refused(d, &sweep),
            format!("Error: setting {set}: {line}\n"),
            "{set}"
        );
    }
    let counts = [
        ("--threads", "Error: --threads must be at least 1\n"),
        (
            "--log-interval",
            "Error: --log-interval must be at least 1\n",
        ),
    ];
    for (flag, line) in counts {
        assert_eq!(refused(d, &["train", "checkerboard", flag, "0"]), line);
    }
    assert!(contents(d).is_empty(), "nothing written: {:?}", contents(d));
}

#[test]
fn a_model_files_training_block_out_of_range_is_refused_with_the_same_words() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let model = d.join("m.json");
    logicars(d)
        .args([
            "train",
            "gol",
            "--small",
            "--epochs",
            "2",
            "--no-artefacts",
            "--save",
        ])
        .arg(&model)
        .assert()
        .success();
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&model).unwrap()).unwrap();
    json["training"]["recipe"]["epsilon"] = serde_json::json!(-1.0);
    std::fs::write(&model, serde_json::to_vec(&json).unwrap()).unwrap();
    let out = logicars(d)
        .args(["eval", "--model", "m.json"])
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("epsilon must be a finite number above 0, got -1"),
        "{stderr}"
    );
}

#[test]
fn emitted_jobs_are_jobs_the_scheduler_takes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = logicars(d)
        .args(emit("many", &["slurm", "--shards", "100000"]))
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(
        stderr,
        "note: --shards 100000 is more than the sweep's 2 runs; using 2\n"
    );
    let script = std::fs::read_to_string(d.join("many/sweep.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-1\n"), "{script}");

    let cases: [(&[&str], &str); 5] = [
        (
            &["slurm", "--shards", "2", "--time", "garbage"],
            "--time \"garbage\" is not a Slurm time limit: one of MM, MM:SS, HH:MM:SS, D-HH, \
             D-HH:MM, D-HH:MM:SS or UNLIMITED",
        ),
        (
            &["slurm", "--shards", "2", "--partition", "a b"],
            "--partition \"a b\" is not a Slurm partition name: letters, digits, '_', '-' and \
             '.' (several partitions separated by ',')",
        ),
        (
            &["k8s", "--shards", "2", "--image", "x", "--time", "10"],
            "--time is for --emit slurm; a Kubernetes job has no such field",
        ),
        (
            &["k8s", "--shards", "2", "--image", "a b"],
            "--image \"a b\" is not a container image reference such as \
             registry.example/logicars:0.1.0 (no spaces)",
        ),
        (
            &[
                "k8s", "--shards", "2", "--image", "x", "--claim", "My_Claim",
            ],
            "--claim \"My_Claim\" is not a Kubernetes volume claim name: lower-case letters, \
             digits, '-' and '.', starting and ending with a letter or digit, at most 253 \
             characters",
        ),
    ];
    for (extra, line) in cases {
        assert_eq!(
            refused(d, &emit("refused", extra)),
            format!("Error: {line}\n"),
            "{extra:?}"
        );
    }
    assert_eq!(contents(d), ["many"], "nothing else written");
}

#[test]
fn a_row_changed_after_it_was_written_is_refused_by_merge_and_shown_by_status() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep = [
        "sweep",
        "gol",
        "--small",
        "--seeds",
        "0..2",
        "--set",
        "epochs=5",
        "--out",
        "s",
        "--threads",
        "1",
    ];
    logicars(d).args(sweep).assert().success();
    let row = d.join("s/runs/epochs=5-seed1.json");
    let text = std::fs::read_to_string(&row).unwrap();
    let changed = text.replacen("\"epochs\": 5,", "\"epochs\": 6,", 1);
    let changed = changed.replacen("\"epochs\": 10,", "\"epochs\": 11,", 1);
    assert_ne!(changed, text, "a number of the result changed");
    std::fs::write(&row, changed).unwrap();

    let stderr = refused(d, &["sweep", "merge", "s"]);
    assert_eq!(
        stderr,
        format!(
            "Error: {}: damaged: its checksum does not match its run and result (changed \
             after it was written); `logicars sweep status s` prints the command that makes \
             it again\n",
            Path::new("s/runs/epochs=5-seed1.json").display()
        )
    );
    let out = logicars(d)
        .args(["sweep", "status", "s"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("'epochs=5' seed 1 (damaged)"), "{stdout}");
    assert!(
        stdout.contains("s/runs/epochs=5-seed1.json: damaged"),
        "{stdout}"
    );
    assert!(stdout.contains("--shard 0/1"), "the command: {stdout}");

    // The shard run again makes the row anew, and the merge takes it.
    let out = logicars(d).args(sweep).assert().success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("seed1.json: damaged"), "{stderr}");
    logicars(d).args(["sweep", "merge", "s"]).assert().success();
    let deterministic = |text: &str| {
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        (json["result"].clone(), json["checksum"].clone())
    };
    let again = std::fs::read_to_string(&row).unwrap();
    assert_eq!(
        deterministic(&again),
        deterministic(&text),
        "the same row again"
    );
}
