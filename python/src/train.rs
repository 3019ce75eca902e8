//! A training run started from Python: the preset with the caller's knobs, checked as the
//! command checks them, then attempt after attempt until one is exact, on the job's
//! thread.

use std::ops::ControlFlow;
use std::time::Instant;

use logicars::model::config::{ModelConfig, TrainSettings};
use logicars::tasks::{
    self, check_target_channels, pattern_geometry, preset, recording, set_channels, use_observed,
    use_target,
};
use logicars::train::attempts::{run_attempts, AttemptsRun};
use logicars::train::memory::{training_run_bytes, MemoryLimit, RolloutSize};
use numpy::{IntoPyArray, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{self, bad_value, internal};
use crate::grids;
use crate::job::{thread_pool, Done, Event, Job};
use crate::knobs::{overrides, task_named};
use crate::model;

/// A finished run, until Python takes it.
pub struct TrainDone {
    run: AttemptsRun,
    settings: TrainSettings,
    seconds: f64,
}

/// A checked run, and what its pattern's steps and grid were fitted to (`train`'s first
/// line), if it grows one from the centre.
type Configured = (ModelConfig, TrainSettings, Option<String>);

/// What shapes a model besides the knobs: a growing task's target image and channels, a
/// rule task's recorded frames, the update layers.
struct Shape<'py> {
    target: Option<PyReadonlyArrayDyn<'py, u8>>,
    frames: Option<PyReadonlyArrayDyn<'py, u8>>,
    channels: Option<usize>,
    update_layers: Option<Vec<usize>>,
}

/// The preset of `task` with the caller's changes, checked.
fn configure(
    task: &str,
    small: bool,
    seed: Option<u64>,
    knobs: &[(String, String)],
    shape: Shape<'_>,
) -> PyResult<Configured> {
    let Shape {
        target,
        frames,
        channels,
        update_layers,
    } = shape;
    let task = task_named(task)?;
    let (mut config, mut settings) = preset(task, small);
    settings.seed = seed.unwrap_or(settings.seed);
    let changes = overrides(knobs)?;
    for change in &changes {
        change.apply(&mut config, &mut settings);
    }
    if let Some(widths) = update_layers {
        config.update_layers = widths;
    }
    if let Some(target) = target {
        use_target(&mut config, grids::target(&target)?).map_err(bad_value)?;
    }
    if let Some(frames) = frames {
        let observed = recording::observe(&grids::recording(&frames)?).map_err(bad_value)?;
        use_observed(&mut config, observed.rule).map_err(bad_value)?;
    }
    if let Some(channels) = channels {
        if !task.grows_image() {
            return Err(bad_value(
                "channels is for the growing tasks (pattern, lizard, colored-g)",
            ));
        }
        set_channels(&mut config, channels).map_err(bad_value)?;
    }
    check_target_channels(&config).map_err(bad_value)?;
    let geometry =
        pattern_geometry::fit(&mut config, &mut settings, &changes).map_err(bad_value)?;
    config.validate().map_err(bad_value)?;
    tasks::knobs::validate(&config, &settings).map_err(bad_value)?;
    let size = RolloutSize::training(&config, &settings);
    let pool = match settings.recipe.pool {
        0 => String::new(),
        states => format!(" from a pool of {states} states"),
    };
    let what = format!(
        "training with batch {} on {}x{} grids for {} steps{pool}",
        size.batch, size.height, size.width, size.steps
    );
    let limit = MemoryLimit::from_env().map_err(errors::memory)?;
    limit
        .check(&what, training_run_bytes(&config, &settings))
        .map_err(errors::memory)?;
    Ok((config, settings, geometry.map(|g| g.to_string())))
}

/// Checks the run and starts it on its own thread; every epoch is reported, and a stop
/// asked for ends it after the epoch it is in (the best model so far kept).
#[pyfunction]
#[pyo3(signature = (task, seed=None, threads=None, small=false, knobs=Vec::new(), full=false, target=None, channels=None, update_layers=None, frames=None))]
#[allow(clippy::too_many_arguments)]
pub fn start_training(
    task: &str,
    seed: Option<u64>,
    threads: Option<usize>,
    small: bool,
    knobs: Vec<(String, String)>,
    full: bool,
    target: Option<PyReadonlyArrayDyn<'_, u8>>,
    channels: Option<usize>,
    update_layers: Option<Vec<usize>>,
    frames: Option<PyReadonlyArrayDyn<'_, u8>>,
) -> PyResult<(Job, Option<String>)> {
    let shape = Shape {
        target,
        frames,
        channels,
        update_layers,
    };
    let (config, settings, geometry) = configure(task, small, seed, &knobs, shape)?;
    let pool = thread_pool(threads)?;
    let job = Job::spawn(pool, move |reporter| {
        let start = Instant::now();
        let observe = |s: &TrainSettings, m: &logicars::train::EpochMetrics| {
            let e = &m.metrics;
            let event = Event::Epoch(
                s.attempt,
                m.epoch,
                s.epochs,
                e.soft_loss,
                e.hard_loss,
                e.accuracy,
            );
            match reporter.report(event) {
                true => ControlFlow::Break(()),
                false => ControlFlow::Continue(()),
            }
        };
        let run = run_attempts(&config, &settings, !full, 1, observe).map_err(|e| e.to_string())?;
        let done = TrainDone {
            run,
            settings,
            seconds: start.elapsed().as_secs_f64(),
        };
        Ok(Box::new(done) as Box<dyn Done>)
    });
    Ok((job?, geometry))
}

impl Done for TrainDone {
    /// The run as a dict: the kept model, every attempt's record (JSON), the epochs'
    /// metrics as arrays over every attempt, and how it ended.
    fn into_py(self: Box<Self>, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        let TrainDone {
            run,
            settings,
            seconds,
        } = *self;
        let kept = run.kept_record().attempt;
        let dict = PyDict::new(py);
        let index = run.records.iter().position(|r| r.attempt == kept);
        dict.set_item("kept", index.expect("the kept attempt is a record"))?;
        let history = run
            .records
            .iter()
            .flat_map(|r| r.history.iter().map(move |m| (r.attempt, m)));
        let (mut attempt, mut epoch) = (Vec::new(), Vec::new());
        let (mut soft, mut hard, mut accuracy) = (Vec::new(), Vec::new(), Vec::new());
        for (a, m) in history {
            attempt.push(a as u32);
            epoch.push(m.epoch as u32);
            soft.push(m.metrics.soft_loss);
            hard.push(m.metrics.hard_loss);
            accuracy.push(m.metrics.accuracy);
        }
        let metrics = PyDict::new(py);
        metrics.set_item("attempt", attempt.into_pyarray(py))?;
        metrics.set_item("epoch", epoch.into_pyarray(py))?;
        metrics.set_item("soft_loss", soft.into_pyarray(py))?;
        metrics.set_item("hard_loss", hard.into_pyarray(py))?;
        metrics.set_item("accuracy", accuracy.into_pyarray(py))?;
        dict.set_item("metrics", metrics)?;
        let records: Vec<serde_json::Value> = run
            .records
            .iter()
            .map(|r| {
                let mut value = serde_json::to_value(r)?;
                if let Some(fields) = value.as_object_mut() {
                    fields.remove("history");
                }
                Ok(value)
            })
            .collect::<Result<_, serde_json::Error>>()
            .map_err(|e| internal("the attempts' records", e))?;
        dict.set_item("attempts", serde_json::Value::Array(records).to_string())?;
        dict.set_item("stopped", run.stopped)?;
        dict.set_item("error", run.error.as_ref().map(|e| e.to_string()))?;
        dict.set_item("seconds", seconds)?;
        dict.set_item("search_seconds", run.search_s)?;
        let model = model::trained(run.kept, settings.for_attempt(kept));
        dict.set_item("model", Bound::new(py, model)?)?;
        Ok(dict.into_any())
    }
}
