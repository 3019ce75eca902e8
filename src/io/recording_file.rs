//! Reading a recording of frames: a NumPy `.npy` array of shape (T, H, W) and dtype
//! uint8 (or bool), the states as 0, 1, 2..., in C order.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use npyz::{NpyFile, Order};

use crate::tasks::recording::{Recording, RecordingError};

/// A recording file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordingFileError {
    #[error("cannot read the recording {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error(
        "the recording {path} has shape {shape:?}: frames must be an array of shape (T, H, W)"
    )]
    Dimensions { path: PathBuf, shape: Vec<u64> },
    #[error("the recording {path} holds {dtype}: states must be uint8 (or bool)")]
    DType { path: PathBuf, dtype: String },
    #[error("the recording {path} is in Fortran order: save it in C order (numpy's default)")]
    Fortran { path: PathBuf },
    #[error("the recording {path}: {cause}")]
    Invalid {
        path: PathBuf,
        cause: RecordingError,
    },
}

/// The recording in the `.npy` file at `path`.
pub fn load(path: &Path) -> Result<Recording, RecordingFileError> {
    let read = |e: std::io::Error| RecordingFileError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let file = File::open(path).map_err(read)?;
    let npy = NpyFile::new(BufReader::new(file)).map_err(read)?;
    let shape = npy.shape().to_vec();
    let &[frames, height, width] = shape.as_slice() else {
        return Err(RecordingFileError::Dimensions {
            path: path.to_path_buf(),
            shape,
        });
    };
    if npy.order() == Order::Fortran {
        return Err(RecordingFileError::Fortran {
            path: path.to_path_buf(),
        });
    }
    let dtype = npy.dtype().descr().trim_matches('\'').to_string();
    let states: Vec<u8> = match dtype.trim_start_matches(['|', '<', '>', '=']) {
        "u1" => npy.into_vec::<u8>().map_err(read)?,
        "b1" => npy
            .into_vec::<bool>()
            .map_err(read)?
            .into_iter()
            .map(u8::from)
            .collect(),
        _ => {
            return Err(RecordingFileError::DType {
                path: path.to_path_buf(),
                dtype,
            })
        }
    };
    let side = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    Recording::new(side(frames), side(height), side(width), states).map_err(|cause| {
        RecordingFileError::Invalid {
            path: path.to_path_buf(),
            cause,
        }
    })
}
