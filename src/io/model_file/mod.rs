//! The model file: versioned JSON that can carry any model of the reference notebook.
//!
//! Loading validates everything and names the first problem with its JSON path; saving
//! writes a temporary file beside the target and renames it, so a crash never leaves a
//! half-written model.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{ConfigError, ModelFileError};
use crate::io::json::{check_header, invalid, parse, Invalid};
use crate::model::config::{ModelConfig, TrainSettings, PATCH};
use crate::model::gates::NUM_OPS;
use crate::model::network::{Layer, Model};
use crate::model::wiring::Wires;

pub const FORMAT: &str = "logicars-model";
pub const VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ModelFile {
    format: String,
    version: u32,
    config: ModelConfig,
    /// How the model was trained (recipe, epochs, seed...), when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) training: Option<TrainSettings>,
    /// The seed a later attempt trained from (`attempt_seed(training.seed,
    /// training.attempt)`), written for a reader that wants it without computing it;
    /// absent for attempt 1, whose seed is `training.seed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    attempt_seed: Option<u64>,
    perceive: Vec<PerceiveLayer>,
    update: Vec<UpdateLayer>,
}

/// The layers of a model file without its header: parameters to start from.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamsFile {
    perceive: Vec<PerceiveLayer>,
    update: Vec<UpdateLayer>,
}

/// Wires shared by all kernels; logits `[kernel][gate][p]`, p = 16 (softmax) or 4
/// (input-wise).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PerceiveLayer {
    a: Vec<u32>,
    b: Vec<u32>,
    logits: Vec<Vec<Vec<f32>>>,
}

/// Logits `[gate][p]`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateLayer {
    a: Vec<u32>,
    b: Vec<u32>,
    logits: Vec<Vec<f32>>,
}

/// Writes `model` to `path` atomically (creating parent folders).
pub fn save(model: &Model, path: &Path) -> Result<(), ModelFileError> {
    save_trained(model, None, path)
}

/// Writes `model` and how it was trained to `path`, as [`save`].
pub fn save_trained(
    model: &Model,
    training: Option<&TrainSettings>,
    path: &Path,
) -> Result<(), ModelFileError> {
    let write_err = |source| ModelFileError::Write {
        path: path.to_path_buf(),
        source,
    };
    let json = to_json(model, training);
    crate::io::atomic::write_atomically(path, json.as_bytes()).map_err(write_err)?;
    Ok(())
}

/// Reads and validates a model file.
pub fn load(path: &Path) -> Result<Model, ModelFileError> {
    read(path, from_json)
}

/// Reads and validates a model file, with how it was trained when it says so: what
/// [`save_trained`] needs to write the same file again.
pub fn load_trained(path: &Path) -> Result<(Model, Option<TrainSettings>), ModelFileError> {
    read(path, trained_from_json)
}

/// Reads initial parameters for a model of `config`: a JSON object with the `perceive`
/// and `update` layers of a model file (wires and logits) and nothing else, e.g. exported
/// from another implementation to replay its run, or a whole model file of the same
/// layers, to train a model on. Checked like a model file.
pub fn load_params(path: &Path, config: &ModelConfig) -> Result<Model, ModelFileError> {
    read(path, |text| params_from_json(text, config))
}

fn read<T>(
    path: &Path,
    parse: impl FnOnce(&str) -> Result<T, Invalid>,
) -> Result<T, ModelFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| ModelFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text).map_err(|(json_path, message)| ModelFileError::Invalid {
        file: path.to_path_buf(),
        json_path,
        message,
    })
}

/// Parses and validates model JSON; errors are `(json path, message)`.
pub fn from_json(text: &str) -> Result<Model, (String, String)> {
    from_file(parse(text)?)
}

/// [`from_json`], with the training block when the file has one.
pub fn trained_from_json(text: &str) -> Result<(Model, Option<TrainSettings>), (String, String)> {
    let file: ModelFile = parse(text)?;
    let training = file.training.clone();
    Ok((from_file(file)?, training))
}

/// The model file of `model` (trained with `training`, when given) as JSON text: the
/// bytes [`save_trained`] writes.
pub fn to_json(model: &Model, training: Option<&TrainSettings>) -> String {
    serde_json::to_string(&to_file(model, training)).expect("a model serializes")
}

/// Parses and validates parameters (see [`load_params`]) for a model of `config`.
pub fn params_from_json(text: &str, config: &ModelConfig) -> Result<Model, (String, String)> {
    if is_model_file(text) {
        let model = from_json(text)?;
        check_same_layers(&model.config, config)?;
        return Ok(Model {
            config: config.clone(),
            ..model
        });
    }
    let params: ParamsFile = parse(text)?;
    from_file(ModelFile {
        format: FORMAT.into(),
        version: VERSION,
        config: config.clone(),
        training: None,
        attempt_seed: None,
        perceive: params.perceive,
        update: params.update,
    })
}

/// Whether `text` is a whole model file (it names its format) rather than bare layers.
fn is_model_file(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|value| value.get("format").is_some())
}

/// A model file's layers fit a run of `config` when every field that shapes the
/// parameters is the same; the grid, the steps and the task may differ.
fn check_same_layers(file: &ModelConfig, config: &ModelConfig) -> Result<(), Invalid> {
    type Shown = fn(&ModelConfig) -> String;
    let fields: [(&str, Shown); 5] = [
        ("channels", |c| c.channels.to_string()),
        ("kernels", |c| c.kernels.to_string()),
        ("perception_layers", |c| {
            format!("{:?}", c.perception_layers)
        }),
        ("update_layers", |c| format!("{:?}", c.update_layers)),
        ("parametrization", |c| c.parametrization.name().to_string()),
    ];
    for (field, show) in fields {
        let (theirs, ours) = (show(file), show(config));
        if theirs != ours {
            let message = format!("the model file has {theirs}, this run {ours}");
            return Err(invalid(format!("config.{field}"), message));
        }
    }
    Ok(())
}

pub(crate) fn to_file(model: &Model, training: Option<&TrainSettings>) -> ModelFile {
    let kernels = model.config.kernels;
    let used = model.config.parametrization.params_per_gate();
    let perceive = model
        .perceive
        .iter()
        .map(|layer| PerceiveLayer {
            a: layer.wires.a.clone(),
            b: layer.wires.b.clone(),
            logits: (0..kernels)
                .map(|k| {
                    let first = layer.first_gate + k * layer.width();
                    model.logits[first..first + layer.width()]
                        .iter()
                        .map(|l| l[..used].to_vec())
                        .collect()
                })
                .collect(),
        })
        .collect();
    let update = model
        .update
        .iter()
        .map(|layer| UpdateLayer {
            a: layer.wires.a.clone(),
            b: layer.wires.b.clone(),
            logits: model.logits[layer.first_gate..layer.first_gate + layer.width()]
                .iter()
                .map(|l| l[..used].to_vec())
                .collect(),
        })
        .collect();
    ModelFile {
        format: FORMAT.into(),
        version: VERSION,
        config: model.config.clone(),
        training: training.cloned(),
        attempt_seed: training
            .filter(|t| t.attempt > 1)
            .map(TrainSettings::attempt_seed),
        perceive,
        update,
    }
}

pub(crate) fn from_file(file: ModelFile) -> Result<Model, Invalid> {
    check_header((&file.format, file.version), (FORMAT, VERSION))?;
    let config = file.config;
    check_settings(&config, file.training.as_ref())?;
    check_attempt_seed(file.training.as_ref(), file.attempt_seed)?;
    check_len(
        "perceive",
        file.perceive.len(),
        config.perception_layers.len(),
    )?;
    check_len("update", file.update.len(), config.update_layers.len())?;

    let used = config.parametrization.params_per_gate();
    let mut logits: Vec<[f32; NUM_OPS]> = Vec::with_capacity(config.gate_count());
    let mut perceive = Vec::new();
    let mut inputs = PATCH;
    for (l, (layer, &width)) in file
        .perceive
        .iter()
        .zip(&config.perception_layers)
        .enumerate()
    {
        let at = format!("perceive[{l}]");
        let wires = check_wires(&at, &layer.a, &layer.b, width, inputs)?;
        check_len(&format!("{at}.logits"), layer.logits.len(), config.kernels)?;
        let first_gate = logits.len();
        for (k, kernel) in layer.logits.iter().enumerate() {
            read_logits(
                &format!("{at}.logits[{k}]"),
                kernel,
                (width, used),
                &mut logits,
            )?;
        }
        perceive.push(Layer { wires, first_gate });
        inputs = width;
    }
    let mut update = Vec::new();
    let mut inputs = config.update_inputs();
    for (l, (layer, &width)) in file.update.iter().zip(&config.update_layers).enumerate() {
        let at = format!("update[{l}]");
        let wires = check_wires(&at, &layer.a, &layer.b, width, inputs)?;
        let first_gate = logits.len();
        read_logits(
            &format!("{at}.logits"),
            &layer.logits,
            (width, used),
            &mut logits,
        )?;
        update.push(Layer { wires, first_gate });
        inputs = width;
    }
    Ok(Model {
        config,
        perceive,
        update,
        logits,
    })
}

/// The config, and the training block when there is one, checked as a new run's are.
fn check_settings(config: &ModelConfig, training: Option<&TrainSettings>) -> Result<(), Invalid> {
    let config_error = |e: ConfigError| invalid("config", e.to_string());
    config.validate().map_err(config_error)?;
    match training {
        Some(t) => {
            crate::tasks::knobs::validate(config, t).map_err(|e| invalid("training", e.to_string()))
        }
        None => Ok(()),
    }
}

/// A recorded attempt seed is the one its attempt trained from.
fn check_attempt_seed(training: Option<&TrainSettings>, seed: Option<u64>) -> Result<(), Invalid> {
    let (Some(t), Some(seed)) = (training, seed) else {
        return Ok(());
    };
    match t.attempt_seed() {
        expected if expected == seed && t.attempt > 1 => Ok(()),
        expected => Err(invalid(
            "attempt_seed",
            format!(
                "{seed} is not the seed of attempt {} of seed {} ({expected})",
                t.attempt, t.seed
            ),
        )),
    }
}

fn check_len(path: &str, found: usize, expected: usize) -> Result<(), Invalid> {
    if found == expected {
        Ok(())
    } else {
        Err(invalid(
            path,
            format!("expected {expected} entries (from config), found {found}"),
        ))
    }
}

fn check_wires(
    at: &str,
    a: &[u32],
    b: &[u32],
    width: usize,
    inputs: usize,
) -> Result<Wires, Invalid> {
    check_len(&format!("{at}.a"), a.len(), width)?;
    check_len(&format!("{at}.b"), b.len(), width)?;
    for (name, wires) in [("a", a), ("b", b)] {
        if let Some(i) = wires.iter().position(|&w| w as usize >= inputs) {
            return Err(invalid(
                format!("{at}.{name}[{i}]"),
                format!(
                    "wire {} is out of range: the layer has {inputs} inputs",
                    wires[i]
                ),
            ));
        }
    }
    Ok(Wires {
        a: a.to_vec(),
        b: b.to_vec(),
    })
}

/// Reads `width` gates of `used` parameters each (the rest of the 16 stay 0).
fn read_logits(
    at: &str,
    gates: &[Vec<f32>],
    (width, used): (usize, usize),
    out: &mut Vec<[f32; NUM_OPS]>,
) -> Result<(), Invalid> {
    check_len(at, gates.len(), width)?;
    for (g, values) in gates.iter().enumerate() {
        let gate_at = format!("{at}[{g}]");
        if values.len() != used {
            let found = values.len();
            return Err(invalid(
                &gate_at,
                format!("expected {used} logits, found {found}"),
            ));
        }
        let mut row = [0.0; NUM_OPS];
        row[..used].copy_from_slice(values);
        if let Some(i) = row.iter().position(|v| !v.is_finite()) {
            return Err(invalid(
                format!("{gate_at}[{i}]"),
                "logit is not a finite number",
            ));
        }
        out.push(row);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
