//! Bad files and unwritable outputs: each command stops with one line that names the file
//! and the problem, before any work, and leaves no output behind.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

/// Runs `logicars` in `dir`; returns its stderr after it failed.
fn fails_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::cargo_bin("logicars")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "one line for {args:?}: {stderr}");
    stderr
}

/// A freshly initialised small checkerboard model, as its JSON value.
fn model_json(dir: &Path) -> Value {
    let (config, _) = logicars::tasks::preset(logicars::model::task::TaskKind::Checkerboard, true);
    let m = logicars::model::network::Model::new(
        config,
        &mut <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1),
    )
    .unwrap();
    let path = dir.join("m.json");
    logicars::io::model_file::save(&m, &path).unwrap();
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The commands that read a model file, each with an output that must not appear.
const READERS: [&[&str]; 4] = [
    &["eval"],
    &["analyze", "--svg", "svg"],
    &["export", "--format", "verilog", "--out", "x.v"],
    &["render", "--out", "r.gif"],
];

/// Every command that reads the model file fails with `expected` on `file`.
fn every_reader_fails(dir: &Path, file: &str, expected: &str) {
    for reader in READERS {
        let args = [reader, &["--model", file]].concat();
        assert_eq!(fails_in(dir, &args), expected, "{args:?}");
    }
    for out in ["svg", "x.v", "r.gif"] {
        assert!(!dir.join(out).exists(), "{out} was written");
    }
}

#[test]
fn model_files_with_huge_sizes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = model_json(d);
    let cases = [
        ("kernels", 1u64 << 62, "kernels must be at most 1024"),
        ("width", 1 << 63, "width must be at most 65536"),
        ("height", 100_000, "height must be at most 65536"),
        ("steps", u64::MAX, "steps must be at most 1048576"),
    ];
    for (key, value, limit) in cases {
        let mut m = good.clone();
        m["config"][key] = value.into();
        let file = format!("{key}.json");
        std::fs::write(d.join(&file), serde_json::to_vec(&m).unwrap()).unwrap();
        let expected = format!("Error: model file {file}: at config: {limit}, got {value}\n");
        every_reader_fails(d, &file, &expected);
    }
}

#[test]
fn model_files_with_trailing_data_or_a_missing_key_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = model_json(d);
    let text = serde_json::to_string(&good).unwrap();
    let column = text.len() + 1;
    std::fs::write(d.join("trailing.json"), format!("{text}garbage")).unwrap();
    every_reader_fails(
        d,
        "trailing.json",
        &format!(
            "Error: model file trailing.json: at (end): data after the JSON value (trailing \
             characters at line 1 column {column})\n"
        ),
    );
    let mut m = good;
    m["config"].as_object_mut().unwrap().remove("fire_rate");
    std::fs::write(d.join("missing.json"), serde_json::to_vec(&m).unwrap()).unwrap();
    let stderr = fails_in(d, &["eval", "--model", "missing.json"]);
    assert!(
        stderr.starts_with("Error: model file missing.json: at config: missing field `fire_rate`"),
        "{stderr}"
    );
    let stderr = fails_in(d, &["eval", "--model", "nope.json"]);
    assert_eq!(
        stderr, "Error: cannot read model file nope.json: No such file or directory (os error 2)\n",
        "the cause is printed once"
    );
}

/// A PNG file made of `chunks` (type, data), each with its right checksum.
fn png(chunks: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in chunks {
        bytes.extend((data.len() as u32).to_be_bytes());
        let start = bytes.len();
        bytes.extend(*kind);
        bytes.extend(data);
        bytes.extend(crc32(&bytes[start..]).to_be_bytes());
    }
    bytes
}

/// The CRC-32 that PNG chunks carry (ISO 3309, bit by bit).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// An IHDR chunk for an 8-bit RGB image of `side` x `side` pixels.
fn ihdr(side: u32) -> (&'static [u8; 4], Vec<u8>) {
    let mut data = side.to_be_bytes().to_vec();
    data.extend(side.to_be_bytes());
    data.extend([8, 2, 0, 0, 0]);
    (b"IHDR", data)
}

#[test]
fn target_images_too_large_or_corrupt_are_refused_before_decoding() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 10000x10000 by its header; its pixel data is never read.
    std::fs::write(
        d.join("huge.png"),
        png(&[ihdr(10_000), (b"IDAT", vec![0; 16]), (b"IEND", vec![])]),
    )
    .unwrap();
    let train = |target: &str| {
        let args = ["train", "pattern", "--small", "--target", target];
        fails_in(d, &[&args[..], &["--save", "m.json"]].concat())
    };
    assert_eq!(
        train("huge.png"),
        "Error: cannot read target image huge.png: larger than 64x64 pixels, the largest target\n"
    );
    let mut flipped = png(&[ihdr(4), (b"IEND", vec![])]);
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    std::fs::write(d.join("flipped.png"), &flipped).unwrap();
    assert_eq!(
        train("flipped.png"),
        "Error: cannot read target image flipped.png: the IEND chunk fails its checksum\n"
    );
    std::fs::write(d.join("cut.png"), &flipped[..last - 1]).unwrap();
    assert_eq!(
        train("cut.png"),
        "Error: cannot read target image cut.png: the file ends inside its IEND chunk\n"
    );
    assert!(!d.join("m.json").exists());
}

/// A folder with a model `m.json` and a plain file `file`, where outputs below `file/`
/// cannot be created.
fn folder_with_a_file() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let model = serde_json::to_vec(&model_json(d)).unwrap();
    std::fs::write(d.join("m.json"), model).unwrap();
    std::fs::write(d.join("file"), "").unwrap();
    dir
}

/// Only the folder's own two files are there: the failed command wrote nothing.
fn nothing_written(d: &Path) {
    let mut left: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["file", "m.json"], "no output was written");
}

const NOT_A_FOLDER: &str = "file is a file, not a folder";

#[test]
fn unwritable_training_outputs_are_refused_before_training() {
    let dir = folder_with_a_file();
    let d = dir.path();
    // `train` resolves its paths before it checks them.
    let absolute = |p: &str| d.join(p).display().to_string();
    let not_a_folder = format!("{} is a file, not a folder", absolute("file"));
    let train = ["train", "checkerboard", "--small", "--epochs", "1"];
    let stderr = fails_in(d, &[&train[..], &["--save", "file/m.json"]].concat());
    assert_eq!(
        stderr,
        format!(
            "Error: the model (--save) cannot be written to {}: {not_a_folder}\n",
            absolute("file/m.json")
        )
    );
    let outputs = ["--save", "run/m.json", "--artefacts", "file/art"];
    let stderr = fails_in(d, &[&train[..], &outputs].concat());
    assert_eq!(
        stderr,
        format!(
            "Error: the loss plot (--artefacts) cannot be written to {}: {not_a_folder}\n",
            absolute("file/art/loss.svg")
        )
    );
    nothing_written(d);
}

#[test]
fn unwritable_outputs_of_other_commands_are_refused_before_their_work() {
    let dir = folder_with_a_file();
    let d = dir.path();
    let cases = [
        (
            &["analyze", "--model", "m.json", "--svg", "file"][..],
            "the gate histograms (--svg) cannot be written to file/gates-perception.svg",
        ),
        (
            &[
                "export", "--model", "m.json", "--format", "dot", "--out", "file/x.v",
            ],
            "the netlist (--out) cannot be written to file/x.v",
        ),
        (
            &["render", "--model", "m.json", "--out", "file/r.gif"],
            "the picture (--out) cannot be written to file/r.gif",
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(
            fails_in(d, args),
            format!("Error: {expected}: {NOT_A_FOLDER}\n")
        );
    }
    // The sweep says what it will run before it checks its folder.
    let sweep = ["sweep", "checkerboard", "--small", "--seeds", "1..2"];
    let out = Command::cargo_bin("logicars")
        .unwrap()
        .current_dir(d)
        .args(sweep)
        .args(["--out", "file/sweep"])
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.ends_with(&format!(
            "Error: the sweep's results (--out) cannot be written to file/sweep/runs.csv: \
             {NOT_A_FOLDER}\n"
        )),
        "{stderr}"
    );
    nothing_written(d);
}
