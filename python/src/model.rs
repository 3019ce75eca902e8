//! A trained model, as Python holds it: load and save the command's model file, run it
//! on grids, score it, check it as the paper does, export its circuit.

use std::path::PathBuf;

use logicars::automaton::frames::{for_each_hard_frame, Damage};
use logicars::automaton::grid::Grids;
use logicars::evaluate::checks::{run_checks, CheckOptions};
use logicars::evaluate::fresh::{fresh_check, Measure};
use logicars::evaluate::{evaluate, SoftLoss};
use logicars::io::model_file;
use logicars::io::run_folder;
use logicars::model::config::{check_steps, TrainSettings};
use logicars::model::network::Model as Trained;
use logicars::tasks;
use logicars::train::memory::{evaluation_bytes, hard_bytes, MemoryLimit, RolloutSize};
use logicars::views::analysis::analyze;
use logicars::views::netlist::Netlist;
use logicars::views::netlist_export;
use logicars::views::page;
use numpy::ndarray::Array4;
use numpy::{IntoPyArray, PyArray4, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::errors::{self, bad_value, internal};
use crate::grids;
use crate::job::thread_pool;
use crate::knobs;

/// A model and, when it was trained here or its file says, how it was trained.
#[pyclass(module = "logicars._native", frozen)]
pub struct Model {
    pub model: Trained,
    pub training: Option<TrainSettings>,
}

/// A block zeroed during a rollout: `"RxC@FIRST..LAST"` as the command takes it, or
/// `(rows, cols, first, last)`.
#[derive(FromPyObject)]
pub enum DamageSpec {
    Text(String),
    Block(usize, usize, usize, usize),
}

impl DamageSpec {
    fn damage(self, height: usize, width: usize) -> PyResult<Damage> {
        match self {
            DamageSpec::Text(text) => Damage::parse(&text, height, width).map_err(bad_value),
            DamageSpec::Block(rows, cols, first, last) => {
                Damage::centred(rows, cols, first, last, height, width).map_err(bad_value)
            }
        }
    }
}

impl Model {
    /// The steps to run: `steps`, else the training steps.
    fn steps(&self, steps: Option<usize>) -> PyResult<usize> {
        let steps = steps.unwrap_or(self.model.config.steps);
        check_steps(steps).map_err(bad_value)?;
        Ok(steps)
    }

    /// `grid` as the model's input, or `batch` fresh grids of `size` from `rng` as the
    /// task starts them.
    fn init(
        &self,
        grid: Option<PyReadonlyArrayDyn<'_, u8>>,
        size: Option<(usize, usize)>,
        batch: usize,
        rng: &mut ChaCha8Rng,
    ) -> PyResult<Grids> {
        let c = &self.model.config;
        match (grid, size) {
            (Some(_), Some(_)) => Err(bad_value("give a grid or a size, not both")),
            (Some(grid), None) => grids::grid(&grid, c.channels),
            (None, size) => {
                let (h, w) = size.unwrap_or((c.height, c.width));
                if h == 0 || w == 0 {
                    return Err(bad_value(format!("a grid must not be empty, got {h}x{w}")));
                }
                // One f32 per value, before anything is allocated.
                let values = [batch, h, w, c.channels, 4];
                let bytes = values
                    .iter()
                    .try_fold(1u64, |acc, &n| acc.checked_mul(n as u64));
                ensure_memory(&format!("{batch} grid(s) of {h}x{w}"), bytes)?;
                Ok(tasks::eval_init(c, batch, h, w, rng))
            }
        }
    }
}

/// What `fresh_check` returns to Python.
type FreshCheckTuple = (bool, f64, Option<bool>, Option<bool>, Option<bool>);

/// Refuses work that would need more memory than the limit (`LOGICARS_MEMORY_LIMIT`).
fn ensure_memory(what: &str, bytes: Option<u64>) -> PyResult<()> {
    let limit = MemoryLimit::from_env().map_err(errors::memory)?;
    limit.check(what, bytes).map_err(errors::memory)
}

#[pymethods]
impl Model {
    /// Reads a model file (from `logicars train` or `save`).
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Self> {
        let (model, training) = model_file::load_trained(&path).map_err(errors::model_file)?;
        Ok(Model { model, training })
    }

    /// Reads a model file's text.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        let (model, training) = model_file::trained_from_json(text)
            .map_err(|(at, message)| bad_value(format!("at {at}: {message}")))?;
        Ok(Model { model, training })
    }

    /// Writes the model file, the same bytes `logicars train` writes for the same run;
    /// never into the folder of a run that is training (it holds that folder).
    fn save(&self, path: PathBuf) -> PyResult<()> {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
        run_folder::ensure_not_running(folder).map_err(errors::run_folder)?;
        model_file::save_trained(&self.model, self.training.as_ref(), &path)
            .map_err(errors::model_file)
    }

    /// The model as one self-contained HTML page that runs it (`export --format html`).
    fn to_html(&self) -> String {
        page::html(&self.model)
    }

    /// The model file's text.
    fn to_json(&self) -> String {
        model_file::to_json(&self.model, self.training.as_ref())
    }

    /// The model's configuration, as its file holds it (JSON).
    fn config_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.model.config).map_err(|e| internal("the config", e))
    }

    /// Every knob's value in the model's training, when the model knows it.
    fn training_knobs<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.training
            .as_ref()
            .map(|t| knobs::values(py, &self.model.config, t))
            .transpose()
    }

    /// The seed the model's attempt trained from, when known.
    fn trained_seed(&self) -> Option<u64> {
        self.training.as_ref().map(TrainSettings::attempt_seed)
    }

    fn gate_count(&self) -> usize {
        self.model.gate_count()
    }

    /// The hard rollout from `grid` (H, W, C) or a fresh grid of `size`: every frame,
    /// (steps + 1, H, W, C) bits.
    #[pyo3(signature = (grid=None, size=None, steps=None, seed=0, damage=None))]
    fn rollout<'py>(
        &self,
        py: Python<'py>,
        grid: Option<PyReadonlyArrayDyn<'py, u8>>,
        size: Option<(usize, usize)>,
        steps: Option<usize>,
        seed: u64,
        damage: Option<DamageSpec>,
    ) -> PyResult<Bound<'py, PyArray4<u8>>> {
        let c = &self.model.config;
        let steps = steps.unwrap_or(c.steps);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let init = self.init(grid, size, 1, &mut rng)?;
        let (h, w, ch) = (init.height, init.width, init.channels);
        let frames = [steps as u64 + 1, h as u64, w as u64, ch as u64]
            .iter()
            .try_fold(1u64, |acc, &n| acc.checked_mul(n));
        let size = RolloutSize::evaluation(1, (h, w), steps);
        let bytes = hard_bytes(c, &size)
            .zip(frames)
            .and_then(|(b, f)| b.checked_add(f));
        ensure_memory(&format!("a rollout of {h}x{w} for {steps} steps"), bytes)?;
        let damage = damage.map(|d| d.damage(h, w)).transpose()?;
        let masks = tasks::fire_masks(c, &init, steps, false, &mut rng);
        let mut values = Vec::with_capacity(frames.unwrap_or(0) as usize);
        py.detach(|| {
            for_each_hard_frame::<()>(
                &self.model,
                &init,
                steps,
                masks.as_ref(),
                damage.as_ref(),
                |frame| {
                    values.extend(frame.values.iter().map(|&v| u8::from(v >= 0.5)));
                    Ok(())
                },
            )
        })
        .expect("the visitor cannot fail");
        let array = Array4::from_shape_vec((steps + 1, h, w, ch), values)
            .map_err(|e| internal("shaping the rollout", e))?;
        Ok(array.into_pyarray(py))
    }

    /// Scores the model on `grids` (B, H, W, C), or on `batch` fresh grids of `size`:
    /// `(soft_loss or None, hard_loss, accuracy)`.
    #[pyo3(signature = (grid=None, batch=8, size=None, steps=None, seed=0, soft=false, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn eval(
        &self,
        py: Python<'_>,
        grid: Option<PyReadonlyArrayDyn<'_, u8>>,
        batch: usize,
        size: Option<(usize, usize)>,
        steps: Option<usize>,
        seed: u64,
        soft: bool,
        threads: Option<usize>,
    ) -> PyResult<(Option<f64>, f64, f64)> {
        if batch == 0 {
            return Err(bad_value("batch must be at least 1"));
        }
        let steps = self.steps(steps)?;
        let c = &self.model.config;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let init = self.init(grid, size, batch, &mut rng)?;
        let size = RolloutSize::evaluation(init.batch, (init.height, init.width), steps);
        ensure_memory("the evaluation", evaluation_bytes(c, &size))?;
        let masks = tasks::fire_masks(c, &init, steps, false, &mut rng);
        let soft = if soft {
            SoftLoss::Compute
        } else {
            SoftLoss::Skip
        };
        let pool = thread_pool(threads)?;
        let e = py.detach(|| {
            pool.install(|| evaluate(&self.model, &init, steps, masks.as_ref(), soft, |_, _| {}))
        });
        Ok((e.soft_loss, e.hard_loss, e.accuracy))
    }

    /// The check a run ends with: `(exact, accuracy, grows, holds, regrows)` on inputs it
    /// never trained on (grows, holds and regrows: for the growing tasks).
    fn fresh_check(&self, py: Python<'_>) -> FreshCheckTuple {
        let check = py.detach(|| fresh_check(&self.model));
        let measured = |m| check.has_holds().then(|| check.passes(m));
        (
            check.exact(),
            check.accuracy,
            measured(Measure::Grows),
            measured(Measure::Holds),
            measured(Measure::Regrows),
        )
    }

    /// The paper's tests (`logicars check`), as JSON rows.
    #[pyo3(signature = (batch=4, seed=0, block=20, robustness_steps=4000, threads=None))]
    fn check(
        &self,
        py: Python<'_>,
        batch: usize,
        seed: u64,
        block: usize,
        robustness_steps: usize,
        threads: Option<usize>,
    ) -> PyResult<String> {
        if batch == 0 || block == 0 || robustness_steps < 2 {
            return Err(bad_value(
                "batch and block must be at least 1 and robustness_steps at least 2",
            ));
        }
        let options = CheckOptions {
            batch,
            seed,
            block,
            robustness_steps,
        };
        let pool = thread_pool(threads)?;
        let checked = py.detach(|| pool.install(|| run_checks(&self.model, &options, || {})));
        serde_json::to_string(&checked.rows).map_err(|e| internal("the check's rows", e))
    }

    /// The pruned (or whole) circuit of one cell update as Verilog, Graphviz or JSON.
    #[pyo3(signature = (format, unpruned=false))]
    fn export(&self, format: &str, unpruned: bool) -> PyResult<String> {
        let full = Netlist::from_model(&self.model);
        let net = match unpruned {
            true => full,
            false => full.pruned(&self.model.config.target_channels),
        };
        match format {
            "verilog" => Ok(netlist_export::verilog(&net, "logicars_cell")),
            "dot" => Ok(netlist_export::dot(&net)),
            "json" => Ok(netlist_export::json(&net)),
            _ => Err(bad_value(format!(
                "format must be verilog, dot or json, got {format:?}"
            ))),
        }
    }

    /// What the circuit is made of (`logicars analyze --json`).
    fn gates(&self) -> PyResult<String> {
        serde_json::to_string(&analyze(&self.model)).map_err(|e| internal("the analysis", e))
    }
}

/// A model trained here, with the settings of the attempt that made it.
pub fn trained(model: Trained, training: TrainSettings) -> Model {
    Model {
        model,
        training: Some(training),
    }
}
