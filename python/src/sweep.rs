//! A sweep started from Python: every seed of every setting trained as `logicars sweep`
//! trains it, several at once on the job's threads; the runs and their summary come back
//! as columns.

use logicars::model::task::TaskKind;
use logicars::sweep::{self, plan, summarize, Outcome, Setting, Summary};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;

use crate::errors::bad_value;
use crate::job::{thread_pool, Done, Event, Job};
use crate::knobs::{overrides, task_named};

/// A finished sweep, until Python takes it.
pub struct SweepDone {
    labels: Vec<String>,
    /// Runs in plan order; those a stop left unstarted are missing.
    outcomes: Vec<Outcome>,
    /// Runs the sweep planned.
    planned: usize,
}

/// Each setting applied to the preset and checked, before any run starts.
fn check_settings(task: TaskKind, small: bool, settings: &[Setting]) -> PyResult<()> {
    for setting in settings {
        setting
            .checked(task, small)
            .map_err(|e| bad_value(format!("setting {}: {e}", setting.label)))?;
    }
    Ok(())
}

/// Starts the sweep of `settings` (each a label and its knobs) over `seeds`; every run
/// that ends is reported, and a stop lets the runs in progress end and starts no other.
#[pyfunction]
#[pyo3(signature = (task, seeds, settings, small=false, threads=None, full=false))]
pub fn start_sweep(
    task: &str,
    seeds: Vec<u64>,
    settings: Vec<(String, Vec<(String, String)>)>,
    small: bool,
    threads: Option<usize>,
    full: bool,
) -> PyResult<Job> {
    let task = task_named(task)?;
    if seeds.is_empty() || settings.is_empty() {
        return Err(bad_value("a sweep needs at least one seed and one setting"));
    }
    let settings = settings
        .into_iter()
        .map(|(label, knobs)| {
            Ok(Setting {
                label,
                overrides: overrides(&knobs)?,
                target: None,
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    check_settings(task, small, &settings)?;
    let runs = plan(settings.len(), &seeds).map_err(bad_value)?;
    let pool = thread_pool(threads)?;
    Job::spawn(pool, move |reporter| {
        let outcomes: Vec<Option<Outcome>> = runs
            .par_iter()
            .map(|&(s, seed)| {
                if reporter.asked_to_stop() {
                    return Ok(None);
                }
                let (mut outcome, _) = sweep::run(task, small, &settings[s], seed, !full)
                    .map_err(|e| e.to_string())?;
                outcome.setting = s;
                reporter.report(Event::Run(s, seed, outcome.exact, outcome.wall_s));
                Ok(Some(outcome))
            })
            .collect::<Result<_, String>>()?;
        let done = SweepDone {
            labels: settings.into_iter().map(|s| s.label).collect(),
            planned: runs.len(),
            outcomes: outcomes.into_iter().flatten().collect(),
        };
        Ok(Box::new(done) as Box<dyn Done>)
    })
}

/// A summary's figures, by name.
fn summary_dict<'py>(py: Python<'py>, label: &str, s: &Summary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("setting", label)?;
    d.set_item("runs", s.runs)?;
    d.set_item("exact", s.exact)?;
    d.set_item("exact_interval", s.interval)?;
    d.set_item("attempts", s.attempts)?;
    d.set_item("attempt_interval", s.attempt_interval)?;
    d.set_item("solved", s.solved)?;
    d.set_item("median_epochs", s.median_epochs)?;
    d.set_item("median_wall_s", s.median_wall_s)?;
    d.set_item("time_to_exact_median", s.time_to_exact.0)?;
    d.set_item("time_to_exact_p90", s.time_to_exact.1)?;
    d.set_item("grows", s.grows)?;
    d.set_item("holds", s.holds)?;
    d.set_item("regrows", s.regrows)?;
    Ok(d)
}

impl Done for SweepDone {
    /// The runs as columns (NumPy arrays; `grows`, `holds` and `regrows` lists, None for tasks that
    /// grow no pattern) and one summary per setting.
    fn into_py(self: Box<Self>, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        let o = &self.outcomes;
        let column = |f: fn(&Outcome) -> f64| o.iter().map(f).collect::<Vec<f64>>();
        let runs = PyDict::new(py);
        let labels: Vec<&str> = o.iter().map(|r| self.labels[r.setting].as_str()).collect();
        runs.set_item("setting", PyList::new(py, labels)?)?;
        let seeds: Vec<u64> = o.iter().map(|r| r.seed).collect();
        runs.set_item("seed", seeds.into_pyarray(py))?;
        let exact: Vec<bool> = o.iter().map(|r| r.exact).collect();
        runs.set_item("exact", exact.into_pyarray(py))?;
        let attempts: Vec<u32> = o.iter().map(|r| r.attempts as u32).collect();
        runs.set_item("attempts", attempts.into_pyarray(py))?;
        let epochs: Vec<u32> = o.iter().map(|r| r.epochs as u32).collect();
        runs.set_item("epochs", epochs.into_pyarray(py))?;
        let to_exact = |r: &Outcome| r.epochs_to_exact().map_or(f64::NAN, |e| e as f64);
        runs.set_item("epochs_to_exact", column(to_exact).into_pyarray(py))?;
        runs.set_item(
            "time_to_exact",
            column(Outcome::time_to_exact).into_pyarray(py),
        )?;
        runs.set_item("wall_s", column(|r| r.wall_s).into_pyarray(py))?;
        let fresh = |r: &Outcome| r.fresh_accuracy.unwrap_or(f64::NAN);
        runs.set_item("fresh_accuracy", column(fresh).into_pyarray(py))?;
        let grows: Vec<Option<bool>> = o.iter().map(|r| r.grows).collect();
        runs.set_item("grows", grows)?;
        let holds: Vec<Option<bool>> = o.iter().map(|r| r.holds).collect();
        runs.set_item("holds", holds)?;
        let regrows: Vec<Option<bool>> = o.iter().map(|r| r.regrows).collect();
        runs.set_item("regrows", regrows)?;
        let summaries = PyList::empty(py);
        for (label, s) in self.labels.iter().zip(summarize(o, self.labels.len())) {
            summaries.append(summary_dict(py, label, &s)?)?;
        }
        let dict = PyDict::new(py);
        dict.set_item("runs", runs)?;
        dict.set_item("summary", summaries)?;
        dict.set_item("planned", self.planned)?;
        Ok(dict.into_any())
    }
}
