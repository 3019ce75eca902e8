//! `logicars sweep`: many runs, one table, files to keep.

use assert_cmd::Command;

/// Sweeps the small checkerboard over `seeds` with 200 epochs and `set` into `dir`;
/// returns its summary row and the row's columns.
fn summary_row(dir: &std::path::Path, seeds: &str, set: &str) -> (String, Vec<String>) {
    let out = Command::cargo_bin("logicars")
        .unwrap()
        .args(["sweep", "checkerboard", "--small", "--seeds", seeds])
        .args(["--set", "epochs=200", "--set", set, "--out"])
        .arg(dir)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let label = format!("epochs=200 {set}");
    let summary = stdout
        .lines()
        .find(|l| l.starts_with(&label) && l.contains('%'))
        .unwrap_or_else(|| panic!("{stdout}"))
        .to_string();
    let columns = summary.split_whitespace().map(String::from).collect();
    (summary, columns)
}

#[test]
fn a_sweep_counts_exact_runs_per_setting() {
    let dir = tempfile::tempdir().unwrap();
    // Seed 25 solves the small checkerboard at epoch 181, and its kept model is exact
    // then; seed 0 is neither within 200 epochs.
    let (summary, columns) = summary_row(dir.path(), "25,0", "recipe=paper");
    assert_eq!(
        columns[2..8],
        ["1/2", "9-91%", "1/2", "9-91%", "1/2", "181"],
        "exact, its interval, per attempt (one each), its interval, solved, median epoch: \
         {summary}"
    );
    let runs = std::fs::read_to_string(dir.path().join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 3, "header and two runs: {runs}");
    assert!(
        runs.contains(",0,false,1,1,,,200,"),
        "seed 0 ran all 200 epochs, neither exact nor solved: {runs}"
    );
    assert!(
        runs.contains(",25,true,1,1,181,181,181,"),
        "seed 25 stopped when its kept model was exact: {runs}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("sweep.json")).unwrap()).unwrap();
    assert_eq!(json["settings"][0]["exact"], 1);
    assert_eq!(json["settings"][0]["solved"], 1);
    assert_eq!(json["settings"][0]["median_exact_epoch"], 181.0);
    assert_eq!(json["runs"].as_array().unwrap().len(), 2);
    // Runs are listed per setting in seed order, whichever finished first.
    assert_eq!(json["runs"][0]["seed"], 0);
    assert_eq!(json["runs"][1]["seed"], 25);
    assert_eq!(json["runs"][1]["solved_at"], 181);
    let svg = std::fs::read_to_string(dir.path().join("sweep.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    assert_eq!(json["runs"][1]["fresh_accuracy"], 1.0);
    assert_eq!(json["runs"][0]["exact"], false);
    let wrong = eval_of_small_seed_25(dir.path(), 181);
    assert_eq!(
        wrong,
        [0.0, 0.0],
        "eval agrees that the kept model is exact"
    );
}

/// A run makes the recipe's attempts until one is exact; the summary gives the rate per
/// run and per attempt. The reduced checkerboard in 200 epochs: seed 0 is exact at its
/// second attempt (311 epochs in all), seed 1 at none of three (600 epochs, the second's
/// model kept), seed 6 at its first (191 epochs).
#[test]
fn a_sweep_counts_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let (summary, columns) = summary_row(dir.path(), "0,1,6", "attempts=3");
    assert_eq!(
        columns[2..8],
        ["2/3", "21-94%", "2/6", "10-70%", "2/3", "251"],
        "exact, per attempt, solved, median epochs until exact: {summary}"
    );
    let runs = std::fs::read_to_string(dir.path().join("runs.csv")).unwrap();
    assert!(runs.contains(",0,true,2,2,"), "{runs}");
    assert!(runs.contains(",1,false,3,2,"), "{runs}");
    assert!(runs.contains(",311,"), "{runs}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("sweep.json")).unwrap()).unwrap();
    let setting = &json["settings"][0];
    assert_eq!(setting["attempts"], 6);
    assert!(setting["time_to_exact_median_s"].as_f64().unwrap() > 0.0);
    assert!(
        setting["time_to_exact_p90_s"].is_null(),
        "one run in three has none"
    );
    assert_eq!(json["runs"][0]["epochs"], 311);
    assert_eq!(json["runs"][1]["epochs"], 600);
}

/// The wrong bits `eval` reports on the exact check's probes (`--seed 99 --batch 16`, and
/// four 32x32 grids for 48 steps: 4x the side and the steps) for the model `train` keeps from seed 25 of the small
/// checkerboard after `epochs` epochs (as a sweep run that stops there keeps).
fn eval_of_small_seed_25(dir: &std::path::Path, epochs: usize) -> [f64; 2] {
    let model = dir.join("seed25/model.json");
    Command::cargo_bin("logicars")
        .unwrap()
        .args([
            "train",
            "checkerboard",
            "--small",
            "--seed",
            "25",
            "--recipe",
            "paper",
        ])
        .args(["--epochs", &epochs.to_string(), "--no-artefacts", "--save"])
        .arg(&model)
        .assert()
        .success();
    let probes: [&[&str]; 2] = [
        &["--seed", "99", "--batch", "16"],
        &[
            "--seed", "99", "--batch", "4", "--size", "64x64", "--steps", "80",
        ],
    ];
    probes.map(|flags| {
        let eval = Command::cargo_bin("logicars")
            .unwrap()
            .arg("eval")
            .args(flags)
            .arg("--model")
            .arg(&model)
            .assert()
            .success();
        let eval = String::from_utf8(eval.get_output().stdout.clone()).unwrap();
        let (_, wrong) = eval.split_once("hard_loss=").expect(&eval);
        wrong.split(',').next().unwrap().parse().unwrap()
    })
}

#[test]
fn a_bad_setting_is_refused_before_any_run() {
    let out = Command::cargo_bin("logicars")
        .unwrap()
        .args(["sweep", "gol", "--set", "lr=fast"])
        .assert()
        .failure();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("--set lr=fast: lr=fast: expected a number"),
        "{stderr}"
    );
}

#[test]
fn an_output_folder_that_is_a_file_is_refused_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("taken");
    std::fs::write(&file, "x").unwrap();
    let out = Command::cargo_bin("logicars")
        .unwrap()
        .args([
            "sweep",
            "checkerboard",
            "--small",
            "--seeds",
            "0..1",
            "--out",
        ])
        .arg(&file)
        .assert()
        .failure();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    let expected = format!(
        "Error: --out {} is a file; the sweep writes a folder\n",
        file.display()
    );
    assert!(stderr.ends_with(&expected), "{stderr}");
    assert!(!stderr.contains("seed 0:"), "no run started: {stderr}");
}

/// Runs `logicars` with `args`; returns its stderr after it failed.
fn fails(args: &[&str]) -> String {
    let out = Command::cargo_bin("logicars")
        .unwrap()
        .current_dir(std::env::temp_dir())
        .args(args)
        .assert()
        .failure();
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

/// A setting out of range is refused before any run, with the line `train` gives for the
/// same value as a flag.
#[test]
fn a_setting_out_of_range_is_refused_as_train_refuses_it() {
    let cases = [
        ("batch=0", "--batch=0", "batch must be at least 1, got 0"),
        (
            "lr=-1",
            "--lr=-1",
            "lr must be a finite number above 0, got -1",
        ),
        (
            "hard-gates=2",
            "--hard-gates=2",
            "hard-gates must be a share of the gates from 0 to 1, got 2",
        ),
        (
            "gate-noise=-0.5",
            "--gate-noise=-0.5",
            "gate-noise must be a finite number from 0, got -0.5",
        ),
    ];
    for (set, flag, line) in cases {
        let train = fails(&["train", "checkerboard", "--small", flag]);
        assert_eq!(train, format!("Error: {line}\n"));
        let sweep = fails(&[
            "sweep",
            "checkerboard",
            "--small",
            "--seeds",
            "0..1",
            "--set",
            set,
        ]);
        assert!(
            sweep.ends_with(&format!("Error: setting {set}: {line}\n")),
            "{sweep}"
        );
        assert!(
            !sweep.contains("panicked") && !sweep.contains("seed 0:"),
            "{sweep}"
        );
    }
}

/// Every setting is checked before the first run starts, not only the first setting.
#[test]
fn a_bad_setting_among_good_ones_stops_the_whole_sweep() {
    let stderr = fails(&[
        "sweep",
        "checkerboard",
        "--small",
        "--seeds",
        "0..1",
        "--set",
        "epochs=1",
        "--set",
        "batch=1,0",
    ]);
    assert!(
        stderr.ends_with("Error: setting epochs=1 batch=0: batch must be at least 1, got 0\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("seed 0:"), "no run started: {stderr}");
}

#[test]
fn a_sweep_of_too_many_runs_is_refused_at_once() {
    let stderr = fails(&["sweep", "gol", "--seeds", "0..100000000"]);
    assert_eq!(
        stderr,
        "Error: a sweep may start at most 10000 runs; this one would start 100000000 \
         (1 setting(s) x 100000000 seed(s)): split it into smaller sweeps\n"
    );
    let stderr = fails(&[
        "sweep",
        "gol",
        "--seeds",
        "0..5000",
        "--set",
        "lr=0.1,0.2,0.3",
    ]);
    assert!(
        stderr.contains("would start 15000 (3 setting(s) x 5000 seed(s))"),
        "{stderr}"
    );
}

/// A sweep of the pattern task grows a `--target` image: its bits are part of the sweep's
/// identity, its folder keeps the image for its shards, and another image is another
/// sweep.
#[test]
fn a_pattern_sweep_grows_its_target_and_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let image = |name: &str, on: &[(u32, u32)]| {
        let mut img = image::GrayImage::from_pixel(8, 8, image::Luma([255]));
        for &(row, col) in on {
            img.put_pixel(col, row, image::Luma([0]));
        }
        let path = d.join(name);
        img.save(&path).unwrap();
        path
    };
    let (a, b) = (
        image("a.png", &[(4, 4), (3, 4)]),
        image("b.png", &[(4, 4), (2, 2)]),
    );
    let sweep = |target: &std::path::Path| {
        let mut command = Command::cargo_bin("logicars").unwrap();
        command
            .args(["sweep", "pattern", "--small", "--seeds", "0"])
            .args(["--set", "epochs=2", "--set", "attempts=1", "--target"])
            .arg(target)
            .arg("--out")
            .arg(d.join("s"));
        command.assert()
    };
    sweep(&a).success();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("s/manifest.json")).unwrap()).unwrap();
    let target = &manifest["target"];
    assert_eq!(
        (&target["height"], &target["width"]),
        (&8.into(), &8.into())
    );
    let kept = std::fs::read(d.join("s/target.png")).unwrap();
    let spec =
        logicars::tasks::target_images::image_spec(logicars::model::task::TaskKind::Pattern, false)
            .unwrap();
    let read = logicars::tasks::target_images::target_from_image(&kept, spec).unwrap();
    assert_eq!(
        serde_json::to_value(&read).unwrap(),
        *target,
        "the kept image is the target"
    );
    let runs = std::fs::read_to_string(d.join("s/runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 2, "{runs}");
    let out = sweep(&b).code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("it differs in --target"), "{stderr}");
}

/// `--save-models` keeps each run's model and its log, every epoch of every attempt, beside
/// its row; the rows alone are read back as the sweep's.
#[test]
fn saved_runs_keep_their_model_and_every_attempts_log() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut img = image::GrayImage::from_pixel(8, 8, image::Luma([255]));
    img.put_pixel(4, 3, image::Luma([0]));
    img.put_pixel(2, 2, image::Luma([0]));
    img.save(d.join("t.png")).unwrap();
    Command::cargo_bin("logicars")
        .unwrap()
        .args([
            "sweep",
            "pattern",
            "--small",
            "--seeds",
            "0",
            "--save-models",
        ])
        .args([
            "--set",
            "epochs=4",
            "--set",
            "attempts=2",
            "--set",
            "give-up=1",
        ])
        .arg("--target")
        .arg(d.join("t.png"))
        .arg("--out")
        .arg(d.join("s"))
        .assert()
        .success();
    let stem = d.join("s/runs/epochs=4_attempts=2_give-up=1-seed0");
    let log = std::fs::read_to_string(stem.with_extension("metrics.csv")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines[0], "attempt,epoch,soft_loss,hard_loss,accuracy");
    // The first attempt gives up when the hold begins (a third of the run: epoch 2 of 4),
    // the last runs all 4.
    let epochs: Vec<(&str, &str)> = lines[1..]
        .iter()
        .map(|l| {
            let mut cells = l.split(',');
            (cells.next().unwrap(), cells.next().unwrap())
        })
        .collect();
    let expected = [("1", "1"), ("2", "1"), ("2", "2"), ("2", "3"), ("2", "4")];
    assert_eq!(epochs, expected, "{log}");
    assert!(stem.with_extension("model.json").exists());
    let runs = std::fs::read_to_string(d.join("s/runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 2, "header and the one run: {runs}");
}

#[test]
fn a_target_is_for_pattern_sweeps_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("logicars")
        .unwrap()
        .args(["sweep", "gol", "--small", "--seeds", "0", "--target"])
        .arg(dir.path().join("a.png"))
        .arg("--out")
        .arg(dir.path().join("g"))
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(
        stderr,
        "Error: --target is for sweeps of the pattern task\n"
    );
}
