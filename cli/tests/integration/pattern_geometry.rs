//! `train pattern` fits its steps and grid to the target image: it says what it chose in
//! its first line, takes steps that reach the target, and refuses those that cannot and
//! an image with nothing drawn, before any work.

use std::path::Path;

use assert_cmd::Command;
use image::{GrayImage, Luma};

/// A white `side x side` PNG in `dir` with the given pixels black (a pattern's "on").
fn image(dir: &Path, side: u32, on: &[(u32, u32)]) -> String {
    let mut img = GrayImage::from_pixel(side, side, Luma([255]));
    for &(row, col) in on {
        img.put_pixel(col, row, Luma([0]));
    }
    let path = dir.join(format!("t{side}-{}.png", on.len()));
    img.save(&path).unwrap();
    path.to_string_lossy().into_owned()
}

fn train(dir: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("logicars")
        .unwrap()
        .current_dir(dir)
        .args([
            "train",
            "pattern",
            "--small",
            "--epochs",
            "1",
            "--attempts",
            "1",
        ])
        .args(["--no-artefacts", "--checkpoint-every", "off"])
        .args(args)
        .assert()
}

#[test]
fn the_first_line_says_the_steps_and_grid_chosen_from_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 32x32, the seed at (16, 16): (1, 30) is 15 rows out, the reach; 15 + 8 steps, the
    // drawing asked for from step 15 on.
    let target = image(d, 32, &[(16, 16), (1, 30)]);
    let out = train(d, &["--target", &target, "--save", "a/model.json"]).success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(
        stderr.lines().next().unwrap(),
        "pattern: 23 steps (8 spare; the 16x15 drawing's farthest on cell is 15 cells from \
         the seed, asked for from step 15 on) on a 48x48 grid (2x23+2: growth never meets \
         itself across the border)"
    );
    let model: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("a/model.json")).unwrap()).unwrap();
    let config = &model["config"];
    assert_eq!(
        (&config["steps"], &config["height"], &config["width"]),
        (&23.into(), &48.into(), &48.into())
    );
    assert_eq!(model["training"]["recipe"]["loss_steps"], 9);
}

#[test]
fn steps_that_reach_the_target_are_taken_and_shorter_ones_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let target = image(d, 16, &[(8, 8), (0, 8)]); // 8 rows above the seed (8, 8)
    let out = train(
        d,
        &["--target", &target, "--steps", "7", "--save", "r/m.json"],
    )
    .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(
        stderr,
        "Error: --steps 7 cannot draw the target: its farthest on cell is 8 cells from the \
         seeded centre and a step reaches one cell further; use --steps 8 or more (or leave \
         --steps out to have them chosen)\n"
    );
    assert!(!d.join("r").exists(), "nothing was written");
    let out = train(
        d,
        &["--target", &target, "--steps", "8", "--save", "k/m.json"],
    )
    .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.starts_with("pattern: 8 steps (given; "), "{stderr}");
    assert!(stderr.contains("on a 18x18 grid"), "{stderr}");
    // A sweep refuses the same setting with the same words.
    let out = Command::cargo_bin("logicars")
        .unwrap()
        .current_dir(d)
        .args([
            "sweep", "pattern", "--small", "--seeds", "0", "--set", "steps=3",
        ])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("--steps 3 cannot draw the target") && stderr.contains("--steps 7"),
        "{stderr}"
    );
}

#[test]
fn an_image_with_nothing_drawn_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let blank = image(d, 16, &[]);
    let out = train(d, &["--target", &blank, "--save", "b/m.json"]).failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("has no pixel on"), "{stderr}");
    assert!(!d.join("b").exists());
}
