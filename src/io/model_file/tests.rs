//! Round trips and error paths of the model file.
use super::*;
use crate::model::task::TaskKind;
use crate::tasks::preset;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::model::parametrization::Parametrization;
use crate::model::recipe::{Recipe, RecipeName};

/// A small softmax model (all 16 logits of a gate are stored) with random logits.
fn small_model() -> Model {
    let (mut config, _) = preset(TaskKind::Checkerboard, true);
    config.parametrization = Parametrization::Softmax;
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut model = Model::new(config, &mut rng).unwrap();
    for l in model.logits.iter_mut().flatten() {
        *l = rng.random_range(-3.0..3.0);
    }
    model
}

#[test]
fn json_round_trip_is_exact() {
    let model = small_model();
    let json = serde_json::to_string(&to_file(&model, None)).unwrap();
    assert_eq!(from_json(&json).unwrap(), model);
}

#[test]
fn input_wise_models_store_four_logits_per_gate() {
    let (mut config, mut settings) = preset(TaskKind::Checkerboard, true);
    config.parametrization = Parametrization::InputWise;
    settings.recipe = Recipe::named(RecipeName::InputWise, config.task, (8, 8));
    let mut model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(5)).unwrap();
    model.logits[7][2] = -1.25;
    let file = to_file(&model, Some(&settings));
    assert_eq!(file.update[0].logits[0].len(), 4);
    let json = serde_json::to_string(&file).unwrap();
    assert!(json.contains(r#""recipe":{"name":"input-wise""#), "{json}");
    assert_eq!(from_json(&json).unwrap(), model);
}

fn error_of(edit: impl Fn(&mut serde_json::Value)) -> (String, String) {
    let mut value = serde_json::to_value(to_file(&small_model(), None)).unwrap();
    edit(&mut value);
    from_json(&value.to_string()).unwrap_err()
}

#[test]
fn problems_are_reported_with_their_json_path() {
    let (path, msg) = error_of(|v| v["update"][2]["a"][5] = 9999.into());
    assert_eq!(path, "update[2].a[5]");
    assert!(msg.contains("out of range"), "{msg}");

    let (path, _) = error_of(|v| v["perceive"][1]["logits"][3][0][7] = "x".into());
    assert_eq!(path, "perceive[1].logits[3][0][7]");

    let (path, msg) = error_of(|v| {
        v["update"][0]["logits"][4].as_array_mut().unwrap().pop();
    });
    assert_eq!(path, "update[0].logits[4]");
    assert!(msg.contains("16 logits"), "{msg}");

    let (path, _) = error_of(|v| v["version"] = 7.into());
    assert_eq!(path, "version");

    let (path, msg) = error_of(|v| v["config"]["channels"] = 200.into());
    assert_eq!(path, "config");
    assert!(msg.contains("channels"), "{msg}");

    let (path, _) = error_of(|v| {
        v["perceive"].as_array_mut().unwrap().pop();
    });
    assert_eq!(path, "perceive");

    let (path, msg) = error_of(|v| v["config"]["colour"] = 1.into());
    assert_eq!(path, "config.colour");
    assert!(msg.contains("unknown field"), "{msg}");

    let (path, msg) = error_of(|v| {
        v["config"].as_object_mut().unwrap().remove("fire_rate");
    });
    assert_eq!(path, "config");
    assert!(msg.starts_with("missing field `fire_rate`"), "{msg}");

    let (path, msg) = error_of(|v| v["config"]["kernels"] = (1u64 << 62).into());
    assert_eq!(path, "config");
    assert_eq!(msg, "kernels must be at most 1024, got 4611686018427387904");

    let (path, msg) = error_of(|v| v["config"]["steps"] = u64::MAX.into());
    assert_eq!(
        (path.as_str(), msg.as_str()),
        (
            "config",
            "steps must be at most 1048576, got 18446744073709551615"
        )
    );
}

#[test]
fn data_after_the_model_is_refused() {
    let json = serde_json::to_string(&to_file(&small_model(), None)).unwrap();
    for tail in ["garbage", "\0", "{}", json.as_str()] {
        let (path, msg) = from_json(&format!("{json}{tail}")).unwrap_err();
        assert_eq!(path, "(end)", "{tail}");
        assert!(msg.starts_with("data after the JSON value"), "{msg}");
    }
    assert!(
        from_json(&format!("{json}\n")).is_ok(),
        "a final newline is fine"
    );
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    assert!(from_json("").is_err());
    assert!(from_json("[1, 2]").is_err());
    assert!(from_json("{\"format\": \"logicars-model\"}").is_err());
}

#[test]
fn save_is_atomic_and_loads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/model.json");
    let model = small_model();
    save(&model, &path).unwrap();
    assert_eq!(load(&path).unwrap(), model);
    let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
}

/// The model of a later attempt records its attempt and the seed that attempt trained
/// from; a seed that is not that attempt's is refused. Attempt 1 records neither.
#[test]
fn a_later_attempt_records_its_seed() {
    let model = small_model();
    let (_, settings) = preset(TaskKind::Checkerboard, true);
    let first = serde_json::to_string(&to_file(&model, Some(&settings))).unwrap();
    assert!(
        !first.contains("attempt_seed") && !first.contains(r#""attempt":"#),
        "attempt 1: {first}"
    );
    let third = settings.for_attempt(3);
    let json = serde_json::to_string(&to_file(&model, Some(&third))).unwrap();
    let seed = crate::train::attempt_seed(settings.seed, 3);
    assert!(
        json.contains(&format!(r#""attempt_seed":{seed}"#)),
        "{json}"
    );
    assert!(json.contains(r#""attempt":3"#), "{json}");
    assert_eq!(from_json(&json).unwrap(), model);
    let wrong = json.replace(&format!(r#""attempt_seed":{seed}"#), r#""attempt_seed":7"#);
    let (path, message) = from_json(&wrong).unwrap_err();
    assert_eq!(path, "attempt_seed");
    assert_eq!(
        message,
        format!(
            "7 is not the seed of attempt 3 of seed {} ({seed})",
            settings.seed
        )
    );
}

/// A model, its model file's JSON and a copy of its config for a run to change.
fn model_file_and_run_config() -> (Model, String, ModelConfig) {
    let model = small_model();
    let json = to_json(&model, None);
    let config = model.config.clone();
    (model, json, config)
}

#[test]
fn a_model_file_gives_its_parameters_to_a_run_of_the_same_layers() {
    let (model, json, mut config) = model_file_and_run_config();
    config.steps += 12;
    config.height += 6;
    let started = params_from_json(&json, &config).unwrap();
    assert_eq!(started.config, config);
    assert_eq!(started.logits, model.logits);
    assert_eq!(started.update, model.update);
    assert_eq!(started.perceive, model.perceive);
}

#[test]
fn a_model_file_of_other_layers_is_refused_by_the_field_that_differs() {
    let (model, json, mut config) = model_file_and_run_config();
    config.kernels += 1;
    let (path, message) = params_from_json(&json, &config).unwrap_err();
    assert_eq!(path, "config.kernels");
    assert_eq!(
        message,
        format!(
            "the model file has {}, this run {}",
            model.config.kernels, config.kernels
        )
    );
}
