//! `train rule`: a rule named in B/S notation, or the rule of recorded frames; rule
//! strings and recordings that cannot be learned from are refused with one line.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use npyz::WriterBuilder;

/// One step of the Life-like rule `birth`/`survive` (neighbour counts) on a torus.
fn life_like_step(grid: &[u8], side: usize, birth: &[usize], survive: &[usize]) -> Vec<u8> {
    let at = |r: usize, c: usize| grid[(r % side) * side + c % side] as usize;
    (0..side * side)
        .map(|i| {
            let (r, c) = (i / side + side, i % side + side);
            let around: usize = (0..9)
                .filter(|&k| k != 4)
                .map(|k| at(r + k / 3 - 1, c + k % 3 - 1))
                .sum();
            let rule = if at(r, c) == 1 { survive } else { birth };
            u8::from(rule.contains(&around))
        })
        .collect()
}

/// `frames` frames of HighLife (B36/S23) on a `side x side` torus from a fixed soup.
fn highlife(side: usize, frames: usize) -> Vec<u8> {
    let mut grid: Vec<u8> = (0..side * side)
        .map(|i| u8::from((i * 7919 + i / 7) % 9 < 4))
        .collect();
    let mut out = Vec::new();
    for _ in 0..frames {
        out.extend_from_slice(&grid);
        grid = life_like_step(&grid, side, &[3, 6], &[2, 3]);
    }
    out
}

/// Writes `values` as a uint8 `.npy` of `shape` into `dir`.
fn npy(dir: &Path, name: &str, shape: &[u64], values: &[u8]) -> PathBuf {
    let path = dir.join(name);
    let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(file)
        .begin_nd()
        .unwrap();
    writer.extend(values.iter().copied()).unwrap();
    writer.finish().unwrap();
    path
}

fn train(dir: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("logicars")
        .unwrap()
        .current_dir(dir)
        .args(["train", "rule", "--threads", "2", "--no-artefacts"])
        .args(["--checkpoint-every", "off", "--save", "m/model.json"])
        .args(args)
        .assert()
}

fn stderr(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

#[test]
fn the_rule_of_a_recording_is_learned_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let path = npy(d, "highlife.npy", &[100, 48, 48], &highlife(48, 100));
    let out = train(d, &["--frames", path.to_str().unwrap()]).success();
    let first = stderr(&out).lines().next().unwrap().to_string();
    assert!(
        first.contains("2 states; the grid wraps")
            && first.contains("80 transitions to learn from show 512 of the 512"),
        "{first}"
    );
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains(", exact"), "{stdout}");
    assert!(
        stdout.contains("rule:         the circuit is B36/S23 on all 512"),
        "{stdout}"
    );
    let model: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("m/model.json")).unwrap()).unwrap();
    assert_eq!(model["config"]["observed"]["matches"], "B36/S23");
    assert_eq!(
        model["config"]["observed"]["table"].as_str().unwrap().len(),
        512
    );
}

#[test]
fn a_named_rule_is_learned_exact_on_every_neighbourhood() {
    let dir = tempfile::tempdir().unwrap();
    // The full preset: the reduced one learns 3-state rules on few seeds.
    let out = train(dir.path(), &["--rule", "brians-brain"]).success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("of all 19683 inputs right, exact"),
        "{stdout}"
    );
}

#[test]
fn rules_that_cannot_be_learned_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: [(&[&str], &str); 3] = [
        (&["--rule", "B9/S23"], "cannot read the rule \"B9/S23\""),
        (&["--rule", "B2/S/C7"], "has 7 states; at most 4"),
        (
            &["--rule", "life", "--frames", "x.npy"],
            "cannot be used with",
        ),
    ];
    for (args, says) in cases {
        let err = stderr(&train(d, args).failure());
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let err = stderr(
        &Command::cargo_bin("logicars")
            .unwrap()
            .current_dir(d)
            .args(["train", "gol", "--rule", "B3/S23", "--no-artefacts"])
            .assert()
            .failure(),
    );
    assert!(err.contains("a gol model carries no rule"), "{err}");
}

#[test]
fn recordings_that_cannot_be_learned_from_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A cell that stays on alone, then goes off alone: one neighbourhood, two answers.
    let mut flips = vec![0u8; 4 * 9];
    for t in 0..3 {
        flips[t * 9 + 4] = 1;
    }
    let mut five_states = highlife(8, 4);
    five_states[3] = 4;
    let cases = [
        (
            npy(d, "flat.npy", &[4, 16], &[1; 64]),
            "must be an array of shape (T, H, W)",
        ),
        (
            npy(d, "flips.npy", &[4, 3, 3], &flips),
            "not deterministic: 1 neighbourhood(s)",
        ),
        (
            npy(d, "five.npy", &[4, 8, 8], &five_states),
            "state 4: at most 4 states",
        ),
        (
            npy(d, "short.npy", &[2, 8, 8], &highlife(8, 2)),
            "2 frame(s)",
        ),
        (
            npy(d, "empty.npy", &[4, 8, 8], &[0; 256]),
            "no cell is ever on",
        ),
    ];
    for (path, says) in cases {
        let err = stderr(&train(d, &["--frames", path.to_str().unwrap()]).failure());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{}: {err}", path.display());
    }
}
