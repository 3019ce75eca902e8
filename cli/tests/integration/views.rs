//! What a user sees: pictures, plots, analysis and checks from the command line.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use image::AnimationDecoder;

fn logicars() -> Command {
    Command::cargo_bin("logicars").unwrap()
}

/// Runs `logicars train <args> --save <dir>/<name>/model.json`; returns the model path.
fn train(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
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
fn one_papers_epoch(dir: &Path, task: &str, extra: &[&str]) -> PathBuf {
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
fn pattern_loss_goes_down_on_the_shipped_target() {
    let dir = tempfile::tempdir().unwrap();
    let model = train(
        dir.path(),
        "p",
        &[
            "pattern",
            "--small",
            "--epochs",
            "160",
            "--recipe",
            "paper",
            "--no-artefacts",
        ],
    );
    let log = std::fs::read_to_string(model.with_file_name("metrics.csv")).unwrap();
    let soft: Vec<f64> = log
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(soft.len(), 160);
    let (first, last) = (soft[0], soft[159]);
    assert!(last < 0.8 * first, "soft loss {first} -> {last}");
    // The saved model carries its target: eval and check need nothing else.
    logicars()
        .args(["eval", "--model"])
        .arg(&model)
        .assert()
        .success();
}

#[test]
fn pattern_from_a_png() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("t.png");
    let mut img = image::RgbImage::from_pixel(10, 6, image::Rgb([255, 255, 255]));
    img.put_pixel(4, 3, image::Rgb([0, 0, 0]));
    img.put_pixel(5, 3, image::Rgb([0, 0, 0]));
    img.save(&png).unwrap();
    let model = dir.path().join("m/model.json");
    logicars()
        .args([
            "train",
            "pattern",
            "--small",
            "--epochs",
            "3",
            "--channels",
            "8",
            "--periodic",
            "false",
            "--target",
        ])
        .arg(&png)
        .arg("--save")
        .arg(&model)
        .assert()
        .success();
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    // The image's centre cell is (3, 5): its two dark pixels reach 1 cell, so 1 + 2 spare
    // steps on a grid of 2x3+2, the image centred in it.
    assert_eq!(saved["config"]["steps"], 3);
    assert_eq!(saved["config"]["height"], 8);
    assert_eq!(saved["config"]["width"], 8);
    assert_eq!(saved["config"]["channels"], 8);
    assert_eq!(saved["config"]["periodic"], false);
}

#[test]
fn a_users_image_goes_through_the_papers_path_for_lizard_and_colored_g() {
    let dir = tempfile::tempdir().unwrap();
    // 40x40: a transparent background, an opaque yellow square at (10..30, 10..30).
    let png = dir.path().join("t.png");
    let img = image::RgbaImage::from_fn(40, 40, |x, y| {
        let inside = (10..30).contains(&x) && (10..30).contains(&y);
        image::Rgba(if inside {
            [250, 220, 0, 255]
        } else {
            [0, 0, 0, 0]
        })
    });
    img.save(&png).unwrap();
    let target = |task: &str| {
        let model = one_papers_epoch(dir.path(), task, &["--target", png.to_str().unwrap()]);
        let saved: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
        saved["config"].clone()
    };
    // The lizard's path (on the paper's recipe, which keeps the image's grid): shrunk to
    // 20x20, one channel on where R, G or B > 0.26.
    let lizard = target("lizard");
    assert_eq!(
        (lizard["height"].as_u64(), lizard["width"].as_u64()),
        (Some(20), Some(20))
    );
    let bits = lizard["pattern"]["bits"].as_array().unwrap();
    assert_eq!(bits.len(), 400);
    assert_eq!(bits[10 * 20 + 10], 1, "inside the square");
    assert_eq!(bits[2 * 20 + 2], 0, "the transparent corner");
    // The coloured G's path: shrunk to 16x16, yellow sets channels 0 and 1.
    let g = target("colored-g");
    assert_eq!(
        (g["height"].as_u64(), g["width"].as_u64()),
        (Some(16), Some(16))
    );
    assert_eq!(g["target_channels"], serde_json::json!([0, 1, 2]));
    let bits = g["pattern"]["bits"].as_array().unwrap();
    assert_eq!(bits[(8 * 16 + 8) * 3..(8 * 16 + 9) * 3], [1, 1, 0]);
    assert_eq!(bits[..3], [0, 0, 0]);
}

#[test]
fn bad_pattern_targets_are_refused_before_any_output() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("t.png");
    let mut img = image::RgbImage::from_pixel(4, 4, image::Rgb([255, 255, 255]));
    img.put_pixel(1, 1, image::Rgb([0, 0, 0]));
    img.save(&png).unwrap();
    let junk = dir.path().join("junk.png");
    std::fs::write(&junk, b"no image").unwrap();
    let fail = |args: &[&str], needle: &str| {
        let out = logicars()
            .args(args)
            .arg("--save")
            .arg(dir.path().join("x/m.json"))
            .assert()
            .failure();
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    };
    fail(
        &["train", "pattern", "--target", junk.to_str().unwrap()],
        "cannot read target image",
    );
    fail(
        &["train", "checkerboard", "--target", png.to_str().unwrap()],
        "are for the growing tasks (pattern, lizard, colored-g)",
    );
    fail(
        &[
            "train",
            "lizard",
            "--rgb",
            "--target",
            png.to_str().unwrap(),
        ],
        "--rgb is for the pattern task; lizard reads its target its own way",
    );
    fail(
        &["train", "pattern", "--rgb"],
        "--rgb needs a colour --target image",
    );
    fail(
        &[
            "train",
            "pattern",
            "--rgb",
            "--channels",
            "2",
            "--target",
            png.to_str().unwrap(),
        ],
        "needs at least 3 channels",
    );
    assert!(
        !dir.path().join("x").exists(),
        "nothing written after bad input"
    );
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
