//! Library errors as the Python exceptions a caller expects: a bad setting is a
//! `ValueError` (the same line the command prints), a file that cannot be read an
//! `OSError` (`FileNotFoundError` when it is not there), a run that would not fit a
//! `MemoryError`.

use std::fmt::Display;
use std::io::ErrorKind;

use logicars::error::{MemoryError, ModelFileError};
use logicars::io::folder_lock::LockError;
use logicars::io::run_folder::RunFolderError;
use pyo3::exceptions::{
    PyFileNotFoundError, PyMemoryError, PyOSError, PyRuntimeError, PyValueError,
};
use pyo3::PyErr;

/// A value the caller gave that the library refuses.
pub fn bad_value(e: impl Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Something that should not happen, with what it was doing.
pub fn internal(what: &str, e: impl Display) -> PyErr {
    PyRuntimeError::new_err(format!("{what}: {e}"))
}

pub fn model_file(e: ModelFileError) -> PyErr {
    match &e {
        ModelFileError::Read { source, .. } | ModelFileError::Write { source, .. } => {
            let message = format!("{e}: {source}");
            match source.kind() {
                ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
                _ => PyOSError::new_err(message),
            }
        }
        ModelFileError::Invalid { .. } => bad_value(e),
    }
}

pub fn memory(e: MemoryError) -> PyErr {
    match e {
        MemoryError::TooMuch { .. } => PyMemoryError::new_err(e.to_string()),
        _ => bad_value(e),
    }
}

/// A folder a running run holds, or one that cannot be looked at: an `OSError`.
pub fn run_folder(e: RunFolderError) -> PyErr {
    match e {
        RunFolderError::Lock(LockError::Held { .. }) => PyOSError::new_err(format!(
            "{e}: a model is not written into a running run's folder"
        )),
        RunFolderError::Invalid { .. } => bad_value(e),
        _ => PyOSError::new_err(e.to_string()),
    }
}
