//! Errors of the library. Each says what went wrong and, where it can, what to do.

use std::path::PathBuf;

/// A model or training configuration that cannot be built or run.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{0}")]
    Invalid(String),
}

impl ConfigError {
    pub fn invalid(message: impl Into<String>) -> Self {
        ConfigError::Invalid(message.into())
    }
}

/// A model file that cannot be read, parsed or trusted.
#[derive(Debug, thiserror::Error)]
pub enum ModelFileError {
    #[error("cannot read model file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write model file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("model file {file}: at {json_path}: {message}")]
    Invalid {
        file: PathBuf,
        json_path: String,
        message: String,
    },
}

/// A grid file (initial states) that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum GridFileError {
    #[error("cannot read grid file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("grid file {file}: at {json_path}: {message}")]
    Invalid {
        file: PathBuf,
        json_path: String,
        message: String,
    },
}
