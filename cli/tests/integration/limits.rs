//! Sizes too large for the machine stop before any work with one line that says what
//! they would need and what to change.

use assert_cmd::Command;

/// Runs `logicars` with a 1 GB memory limit; returns its stderr after it failed.
fn fails(args: &[&str]) -> String {
    let out = Command::cargo_bin("logicars")
        .unwrap()
        .env("LOGICARS_MEMORY_LIMIT", "1G")
        .current_dir(std::env::temp_dir())
        .args(args)
        .assert()
        .failure();
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

const RAISE: &str = "make it smaller, or raise the limit with LOGICARS_MEMORY_LIMIT (e.g. \
                     LOGICARS_MEMORY_LIMIT=64G)\n";

#[test]
fn training_too_large_for_memory_stops_at_once() {
    let got = fails(&[
        "train",
        "checkerboard",
        "--batch",
        "100000",
        "--save",
        "none/m.json",
    ]);
    let expected = format!(
        "Error: training with --batch 100000 on 16x16 grids for --steps 20 needs about \
         398.7 GB of memory, more than the limit of 1.0 GB from LOGICARS_MEMORY_LIMIT; {RAISE}"
    );
    assert_eq!(got, expected);
    let got = fails(&["train", "checkerboard", "--steps", "18446744073709551615"]);
    assert_eq!(
        got,
        "Error: steps must be at most 1048576, got 18446744073709551615\n"
    );
    assert!(
        !std::env::temp_dir().join("none").exists(),
        "nothing was written"
    );
}

#[test]
fn a_sample_pool_too_large_for_memory_stops_at_once() {
    let got = fails(&[
        "train",
        "pattern",
        "--pool",
        "1000000000000",
        "--save",
        "none/m.json",
    ]);
    let first = got.lines().nth(1).unwrap_or_default();
    assert!(
        first.starts_with(
            "Error: training with --batch 1 on 24x24 grids for --steps 11 and 11 --hold-steps \
             from a --pool of 1000000000000 states needs about 4.1 PB of memory"
        ),
        "{got}"
    );
    assert!(!std::env::temp_dir().join("none").exists());
}

#[test]
fn evaluation_too_large_for_memory_stops_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.json");
    let (config, _) = logicars::tasks::preset(logicars::model::task::TaskKind::Checkerboard, true);
    let m = logicars::model::network::Model::new(
        config,
        &mut <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1),
    );
    logicars::io::model_file::save(&m.unwrap(), &model).unwrap();
    let got = fails(&[
        "eval",
        "--model",
        model.to_str().unwrap(),
        "--size",
        "100000x100000",
    ]);
    let expected = format!(
        "Error: evaluating --batch 8 grids of --size 100000x100000 for --steps 12 needs about \
         30.8 TB of memory, more than the limit of 1.0 GB from LOGICARS_MEMORY_LIMIT; {RAISE}"
    );
    assert_eq!(got, expected);
    let model = model.to_str().unwrap();
    let got = fails(&[
        "render",
        "--model",
        model,
        "--steps",
        "100000000",
        "--out",
        "r.gif",
    ]);
    assert_eq!(
        got,
        "Error: --steps 100000000 would make more than 100000 frames, the most a GIF holds here\n"
    );
    let got = fails(&[
        "render",
        "--model",
        model,
        "--size",
        "60000x60000",
        "--out",
        "r.gif",
    ]);
    assert!(
        got.starts_with(
            "Error: rendering --size 60000x60000 for --steps 12 at --scale 8 needs about"
        ),
        "{got}"
    );
    assert!(!std::env::temp_dir().join("r.gif").exists());
    let got = fails(&["check", "--model", model, "--batch", "100000000"]);
    let expected = format!(
        "Error: checking --batch 100000000 grids of 32x32 for 48 steps needs about 29.3 TB \
         of memory, more than the limit of 1.0 GB from LOGICARS_MEMORY_LIMIT; {RAISE}"
    );
    assert_eq!(got, expected);
}

#[test]
fn a_bad_limit_or_thread_count_is_refused() {
    let out = Command::cargo_bin("logicars")
        .unwrap()
        .env("LOGICARS_MEMORY_LIMIT", "lots")
        .args([
            "train",
            "checkerboard",
            "--small",
            "--epochs",
            "1",
            "--save",
            "x/m.json",
        ])
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(
        stderr,
        "Error: LOGICARS_MEMORY_LIMIT=lots: expected bytes, e.g. 1000000, 512M or 64G\n"
    );
    let got = fails(&["train", "checkerboard", "--threads", "1000000"]);
    assert!(
        got.starts_with("Error: --threads 1000000 is more than 8 per core; this machine has"),
        "{got}"
    );
    assert_eq!(got.lines().count(), 1);
}

/// A small checkerboard model file, edited by `edit` as JSON.
fn model_file(dir: &std::path::Path, name: &str, edit: fn(&mut serde_json::Value)) -> String {
    use logicars::model::task::TaskKind;
    let (config, settings) = logicars::tasks::preset(TaskKind::Checkerboard, true);
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    let model = logicars::model::network::Model::new(config, &mut rng).unwrap();
    let path = dir.join(name);
    logicars::io::model_file::save_trained(&model, Some(&settings), &path).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut json);
    std::fs::write(&path, json.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

/// `eval --steps` is bounded as a model file's steps are, with the same line, before the
/// model is read.
#[test]
fn eval_steps_are_bounded_as_in_a_model_file() {
    let dir = tempfile::tempdir().unwrap();
    let line = "steps must be at most 1048576, got 1073741824\n";
    let too_long = model_file(dir.path(), "long.json", |m| {
        m["config"]["steps"] = 1_073_741_824u64.into();
    });
    let got = fails(&["eval", "--model", &too_long]);
    assert_eq!(
        got,
        format!("Error: model file {too_long}: at config: {line}")
    );
    let good = model_file(dir.path(), "good.json", |_| {});
    let got = fails(&["eval", "--model", &good, "--steps", "1073741824"]);
    assert_eq!(got, format!("Error: {line}"));
    let got = fails(&[
        "eval",
        "--model",
        "/nonexistent.json",
        "--steps",
        "1073741824",
    ]);
    assert_eq!(
        got,
        format!("Error: {line}"),
        "checked before the model is read"
    );
}

/// A model file's training block accepts the values the train flags accept.
#[test]
fn a_training_block_out_of_range_is_refused_as_train_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let zero_batch = model_file(dir.path(), "batch.json", |m| {
        m["training"]["batch"] = 0.into();
    });
    let got = fails(&["eval", "--model", &zero_batch]);
    assert_eq!(
        got,
        format!("Error: model file {zero_batch}: at training: batch must be at least 1, got 0\n")
    );
    let got = fails(&["train", "checkerboard", "--batch", "0"]);
    assert_eq!(got, "Error: batch must be at least 1, got 0\n");
}
