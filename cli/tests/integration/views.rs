//! What a user sees: pictures, plots, analysis and checks from the command line.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use image::AnimationDecoder;

use crate::common::{logicars, one_papers_epoch, train};

/// Trains the small checkerboard briefly.
fn trained(dir: &Path, extra: &[&str]) -> PathBuf {
    train(
        dir,
        "run",
        &[&["checkerboard", "--small", "--epochs", "20"], extra].concat(),
    )
}

fn gif_frames(path: &Path) -> Vec<image::Frame> {
    let bytes = std::fs::read(path).unwrap();
    let decoder = image::codecs::gif::GifDecoder::new(Cursor::new(bytes)).unwrap();
    decoder.into_frames().collect::<Result<_, _>>().unwrap()
}

#[test]
fn training_writes_a_loss_plot_and_a_rollout_gif() {
    let dir = tempfile::tempdir().unwrap();
    let model = trained(dir.path(), &[]);
    let svg = std::fs::read_to_string(model.with_file_name("loss.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("soft loss") && svg.contains("hard loss"));
    let frames = gif_frames(&model.with_file_name("rollout.gif"));
    assert_eq!(
        frames.len(),
        12 + 1,
        "the initial grid and one frame per step"
    );
    assert_eq!(frames[0].buffer().dimensions(), (8 * 8, 8 * 8));
}

#[test]
fn no_artefacts_means_none() {
    let dir = tempfile::tempdir().unwrap();
    let model = trained(dir.path(), &["--no-artefacts"]);
    assert!(!model.with_file_name("loss.svg").exists());
    assert!(!model.with_file_name("rollout.gif").exists());
}

#[test]
fn render_gif_and_png_have_the_expected_frames_and_size() {
    let dir = tempfile::tempdir().unwrap();
    let model = trained(dir.path(), &["--no-artefacts"]);
    let gif = dir.path().join("r.gif");
    logicars()
        .args([
            "render", "--size", "20x30", "--steps", "7", "--scale", "3", "--damage", "4x4@2..5",
            "--model",
        ])
        .arg(&model)
        .arg("--out")
        .arg(&gif)
        .assert()
        .success();
    let frames = gif_frames(&gif);
    assert_eq!(frames.len(), 8);
    assert_eq!(frames[0].buffer().dimensions(), (30 * 3, 20 * 3));
    // Damage zeroes the centred 4x4 block after step 2: white pixels there (channel 0 = 0).
    let px = frames[2].buffer().get_pixel(15 * 3, 10 * 3).0;
    assert_eq!(px[..3], [255, 255, 255]);

    let png = dir.path().join("r.png");
    logicars()
        .args([
            "render", "--steps", "4", "--scale", "2", "--view", "rgb", "--model",
        ])
        .arg(&model)
        .arg("--out")
        .arg(&png)
        .assert()
        .success();
    let img = image::open(&png).unwrap();
    assert_eq!((img.width(), img.height()), (5 * 16 + 4 * 2, 16));
}

fn fails_with(args: &[&str], model: &Path, needle: &str) {
    let out = logicars()
        .args(args)
        .arg("--model")
        .arg(model)
        .assert()
        .failure();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_render_input_is_a_clear_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let model = trained(dir.path(), &["--no-artefacts"]);
    let out = dir.path().join("x.gif");
    let out_s = out.to_str().unwrap();
    fails_with(
        &["render", "--damage", "12x12@0..3", "--out", out_s],
        &model,
        "does not fit in the 8x8 grid",
    );
    fails_with(
        &["render", "--damage", "2x2", "--out", out_s],
        &model,
        "expected RxC@STEP..STEP",
    );
    fails_with(
        &["render", "--out", "x.bmp"],
        &model,
        "must end in .gif or .png",
    );
    assert!(!out.exists());
    // A one-channel model has no RGB view.
    let gol = train(
        dir.path(),
        "gol",
        &["gol", "--small", "--epochs", "2", "--no-artefacts"],
    );
    fails_with(
        &["render", "--view", "rgb", "--out", out_s],
        &gol,
        "needs 3 channels",
    );
}

#[test]
fn analyze_and_check_report_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let model = trained(dir.path(), &["--no-artefacts"]);
    let out = logicars()
        .args(["analyze", "--json", "--svg"])
        .arg(dir.path())
        .arg("--model")
        .arg(&model)
        .assert()
        .success();
    let a: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(a["perception"]["gates"], 4 * 14);
    assert!(a["pruned_cell_gates"].as_u64().unwrap() <= a["cell_gates"].as_u64().unwrap());
    let svg = std::fs::read_to_string(dir.path().join("gates-update.svg")).unwrap();
    assert!(svg.starts_with("<svg"));

    let out = logicars()
        .args(["check", "--json", "--robustness-steps", "30", "--model"])
        .arg(&model)
        .assert()
        .success();
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let tests: Vec<&str> = rows.iter().map(|r| r["test"].as_str().unwrap()).collect();
    assert_eq!(
        tests,
        [
            "training size",
            "4x grid, 4x steps",
            "healing",
            "robustness (sync model run async)"
        ]
    );
    assert_eq!(rows[1]["grid"], "32x32");
    assert_eq!(rows[1]["steps"], 48);
    // The paper's healing block is 20x20, zeroed for the first half of the steps (a
    // model that heals to the other phase of the pattern gets that said after it).
    let note = rows[2]["note"].as_str().unwrap();
    assert!(
        note.starts_with("20x20 block zeroed after steps 1..=24"),
        "{note}"
    );
    assert_eq!(rows[3]["steps"], 30);
    assert!(rows
        .iter()
        .all(|r| r["model"] == model.display().to_string()));
    for r in rows {
        let acc = r["accuracy"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&acc));
    }
}

#[test]
fn check_of_an_async_model_adds_the_robustness_run() {
    let dir = tempfile::tempdir().unwrap();
    let model = train(
        dir.path(),
        "a",
        &[
            "checkerboard-async",
            "--small",
            "--epochs",
            "3",
            "--no-artefacts",
        ],
    );
    let sync = train(
        dir.path(),
        "s",
        &["checkerboard", "--small", "--epochs", "3", "--no-artefacts"],
    );
    let svg = dir.path().join("robustness.svg");
    let out = logicars()
        .args(["check", "--json", "--robustness-steps", "20", "--model"])
        .arg(&model)
        .arg("--model")
        .arg(&sync)
        .arg("--robustness-svg")
        .arg(&svg)
        .assert()
        .success();
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 8, "4 rows per model");
    assert_eq!(rows[3]["test"], "robustness (async)");
    assert_eq!(rows[3]["grid"], "64x64");
    assert_eq!(rows[3]["steps"], 20);
    assert_eq!(rows[3]["model"], model.display().to_string());
    assert_eq!(rows[7]["test"], "robustness (sync model run async)");
    assert_eq!(rows[7]["model"], sync.display().to_string());
    let svg = std::fs::read_to_string(&svg).unwrap();
    for (mode, path) in [("async", &model), ("sync", &sync)] {
        let label = format!("{mode}-trained ({})", path.display());
        assert!(svg.contains(&label), "{label}");
    }
    // One point per step on each curve.
    let points: Vec<usize> = svg
        .split("<polyline")
        .skip(1)
        .map(|p| {
            let points = p.split("points=\"").nth(1).unwrap();
            points.split('"').next().unwrap().split_whitespace().count()
        })
        .filter(|&n| n > 2)
        .collect();
    assert_eq!(points, [20, 20]);
}

#[test]
fn render_shows_the_target_of_a_growing_task() {
    let dir = tempfile::tempdir().unwrap();
    let model = one_papers_epoch(dir.path(), "lizard", &[]);
    let png = dir.path().join("target.png");
    logicars()
        .args(["render", "--show-target", "--scale", "1", "--model"])
        .arg(&model)
        .arg("--out")
        .arg(&png)
        .assert()
        .success();
    let img = image::open(&png).unwrap().to_rgb8();
    assert_eq!(img.dimensions(), (20, 20));
    // The lizard's head: row 1, columns 4 to 6 (the notebook's target,
    // tests/fixtures/notebook-lizard-seed23/target_20x20.txt).
    assert_eq!(img.get_pixel(4, 1).0, [0, 0, 0], "on is black");
    assert_eq!(img.get_pixel(3, 1).0, [255, 255, 255]);
    let on = img.pixels().filter(|p| p.0 == [0, 0, 0]).count();
    assert_eq!(on, 120);
}

/// Every probe line of a growing task's fresh check, the regrowth one with its damage
/// included, is what `logicars eval` prints with that line's flags.
#[test]
fn each_probe_of_a_grown_pattern_is_an_eval_command() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m/model.json");
    let out = logicars()
        .args([
            "train",
            "pattern",
            "--small",
            "--epochs",
            "20",
            "--no-artefacts",
        ])
        .args(["--attempts", "1", "--save"])
        .arg(&model)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let probes: Vec<(&str, &str)> = stdout
        .lines()
        .filter_map(|l| l.trim().split_once("% of eval "))
        .collect();
    let tags: Vec<&str> = probes
        .iter()
        .map(|(_, rest)| rest.rsplit(' ').next().unwrap())
        .collect();
    assert_eq!(
        tags,
        ["[grows]", "[grows]", "[holds]", "[holds]", "[regrows]"],
        "{stdout}"
    );
    assert!(probes[4].1.contains(" --damage "), "{stdout}");
    for (percent, rest) in probes {
        let flags: Vec<&str> = rest
            .split_whitespace()
            .filter(|w| !w.starts_with('['))
            .collect();
        let out = logicars()
            .args(["eval", "--model"])
            .arg(&model)
            .args(&flags)
            .assert()
            .success();
        let eval = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(
            eval.contains(&format!("acc={percent}%")),
            "{percent} {rest}: {eval}"
        );
    }
}
