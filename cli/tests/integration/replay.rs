//! `train --init-params --batches`: a run fixed by files, not by the seed.

use std::path::Path;

use assert_cmd::Command;

fn logicars() -> Command {
    Command::cargo_bin("logicars").unwrap()
}

/// Trains the small checkerboard for 3 epochs; returns its metrics log.
fn train(dir: &Path, name: &str, extra: &[&str]) -> String {
    let model = dir.join(name).join("model.json");
    logicars()
        .args(["train", "checkerboard", "--small", "--epochs", "3"])
        .args(["--recipe", "paper", "--no-artefacts", "--save"])
        .arg(&model)
        .args(extra)
        .assert()
        .success();
    std::fs::read_to_string(model.with_file_name("metrics.csv")).unwrap()
}

#[test]
fn given_parameters_and_batches_fix_the_run_whatever_the_seed() {
    let dir = tempfile::tempdir().unwrap();
    let first = train(dir.path(), "source", &["--seed", "1"]);
    // The parameters of seed 1's trained model: its layers without the config.
    let saved: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("source/model.json")).unwrap(),
    )
    .unwrap();
    let params = serde_json::json!({"perceive": saved["perceive"], "update": saved["update"]});
    let params_path = dir.path().join("params.json");
    std::fs::write(&params_path, params.to_string()).unwrap();
    // Three epochs of 2 grids of 8x8x8 bits, 64 bytes per grid: an arbitrary pattern.
    let bits: Vec<u8> = (0..3 * 2 * 64u32).map(|i| (i * 37 % 251) as u8).collect();
    let bits_path = dir.path().join("batches.bits");
    std::fs::write(&bits_path, &bits).unwrap();

    let (p, b) = (params_path.to_str().unwrap(), bits_path.to_str().unwrap());
    let given = ["--init-params", p, "--batches", b];
    let a = train(dir.path(), "a", &[&given[..], &["--seed", "2"]].concat());
    let other_seed = train(dir.path(), "b", &[&given[..], &["--seed", "9"]].concat());
    assert_eq!(
        a, other_seed,
        "no wiring, logits or data came from the seed"
    );
    assert_ne!(a, first, "the run started from the given state");

    let fails = |recipe: &str, epochs: &str| {
        let out = logicars()
            .args(["train", "checkerboard", "--small", "--epochs", epochs])
            .args(["--recipe", recipe, "--batches", b, "--save"])
            .arg(dir.path().join("c/model.json"))
            .assert()
            .failure();
        String::from_utf8(out.get_output().stderr.clone()).unwrap()
    };
    let stderr = fails("paper", "4");
    assert!(
        stderr.contains("holds 3 batches, fewer than the 4 epochs"),
        "{stderr}"
    );
    let stderr = fails("converge", "3");
    assert!(
        stderr.contains("given batches cannot replay a run whose recipe trains on smaller grids"),
        "{stderr}"
    );
}
