//! `logicars._native`: the trainer's library as a Python extension module. The package
//! `logicars` (in `python/logicars/`) wraps it with progress bars, interrupts, dicts and
//! docstrings; this module only converts: NumPy arrays to grids and back, Python values to
//! knob settings, library errors to Python exceptions.

mod errors;
mod grids;
mod job;
mod knobs;
mod model;
mod sweep;
mod train;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(knobs::knobs, m)?)?;
    m.add_function(wrap_pyfunction!(knobs::presets, m)?)?;
    m.add_function(wrap_pyfunction!(train::start_training, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::start_sweep, m)?)?;
    m.add_class::<job::Job>()?;
    m.add_class::<model::Model>()?;
    Ok(())
}
