//! The knob table and the presets, as Python values; a caller's knob settings, parsed and
//! applied as the command's flags are.

use logicars::model::config::{ModelConfig, TrainSettings};
use logicars::model::task::TaskKind;
use logicars::tasks::{preset, Knob, KnobValue, Override, KNOBS};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::bad_value;

/// A knob's value as Python holds it: an int, a float, a bool or a name.
fn py_value<'py>(py: Python<'py>, value: KnobValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        KnobValue::Count(n) => n.into_pyobject(py)?.into_any(),
        // Through its text, so that 0.1 reads as 0.1 rather than 0.1's nearest f32.
        KnobValue::Number(x) => {
            let x: f64 = x.to_string().parse().expect("a float's text parses");
            x.into_pyobject(py)?.into_any()
        }
        KnobValue::Switch(on) => on.into_pyobject(py)?.to_owned().into_any(),
        other => other.to_string().into_pyobject(py)?.into_any(),
    })
}

/// The task a name gives, or a `ValueError` listing the tasks.
pub fn task_named(name: &str) -> PyResult<TaskKind> {
    TaskKind::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = TaskKind::ALL.iter().map(|t| t.name()).collect();
        bad_value(format!(
            "no task named '{name}'; the tasks are {}",
            names.join(", ")
        ))
    })
}

/// Every knob of the table, in order: its key, what it means, what it accepts and its
/// kind, and each task's default (full preset, then the small one's).
#[pyfunction]
pub fn knobs(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for knob in KNOBS {
        let entry = PyDict::new(py);
        entry.set_item("key", knob.key)?;
        entry.set_item("help", knob.help)?;
        entry.set_item("accepts", knob.accepts())?;
        let defaults = PyDict::new(py);
        for task in TaskKind::ALL {
            let pair = [false, true].map(|small| {
                let (config, settings) = preset(task, small);
                knob.value(&config, &settings)
            });
            let pair = (py_value(py, pair[0])?, py_value(py, pair[1])?);
            defaults.set_item(task.name(), pair)?;
        }
        entry.set_item("defaults", defaults)?;
        list.append(entry)?;
    }
    Ok(list)
}

/// Every preset: for each task (full, or small), every knob's value.
#[pyfunction]
#[pyo3(signature = (small=false))]
pub fn presets(py: Python<'_>, small: bool) -> PyResult<Bound<'_, PyDict>> {
    let all = PyDict::new(py);
    for task in TaskKind::ALL {
        let (config, settings) = preset(task, small);
        all.set_item(task.name(), values(py, &config, &settings)?)?;
    }
    Ok(all)
}

/// Every knob's value in a model and its training.
pub fn values<'py>(
    py: Python<'py>,
    config: &ModelConfig,
    settings: &TrainSettings,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for knob in KNOBS {
        dict.set_item(knob.key, py_value(py, knob.value(config, settings))?)?;
    }
    Ok(dict)
}

/// The knob a key names (`weight-decay`), or a `TypeError` listing them, as Python says
/// of an unknown keyword.
fn knob_named(key: &str) -> PyResult<&'static Knob> {
    Knob::named(key).ok_or_else(|| {
        let keys: Vec<String> = KNOBS.iter().map(|k| k.key.replace('-', "_")).collect();
        PyTypeError::new_err(format!(
            "no knob named '{}'; the knobs are {}",
            key.replace('-', "_"),
            keys.join(", ")
        ))
    })
}

/// The settings `(key, text)` as overrides in table order (the order the command applies
/// its flags in); the kind of each value checked here, its range when the run is set up.
pub fn overrides(given: &[(String, String)]) -> PyResult<Vec<Override>> {
    let mut changes = Vec::new();
    for (key, text) in given {
        let knob = knob_named(key)?;
        let change = knob.parse(text).map_err(|expected| {
            bad_value(format!("{}: expected {expected}, got {text}", knob.key))
        })?;
        changes.push(change);
    }
    let order = |o: &Override| KNOBS.iter().position(|k| k.key == o.knob().key);
    changes.sort_by_key(order);
    Ok(changes)
}
