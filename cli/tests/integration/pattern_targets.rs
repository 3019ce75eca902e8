//! A user's own target image: trained for the pattern, the lizard and the coloured G from
//! a PNG, and refused with one line when it cannot be a target.

use crate::common::{logicars, one_papers_epoch, train};

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
