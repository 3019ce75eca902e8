//! Grids and targets from NumPy arrays of bits.

use logicars::automaton::grid::Grids;
use logicars::model::pattern::PatternTarget;
use logicars::tasks::recording::Recording;
use numpy::PyReadonlyArrayDyn;
use pyo3::prelude::*;

use crate::errors::bad_value;

/// The bits of an array of 0s and 1s, row-major, with its shape; anything else refused.
fn bits(array: &PyReadonlyArrayDyn<'_, u8>, what: &str) -> PyResult<(Vec<usize>, Vec<u8>)> {
    let view = array.as_array();
    let bits: Vec<u8> = view.iter().copied().collect();
    if let Some(bad) = bits.iter().find(|&&b| b > 1) {
        return Err(bad_value(format!(
            "{what} must hold 0s and 1s (or booleans), got {bad}"
        )));
    }
    Ok((view.shape().to_vec(), bits))
}

/// Recorded frames `(T, H, W)` of states 0, 1, 2..., checked as `train --frames` checks
/// a file's.
pub fn recording(array: &PyReadonlyArrayDyn<'_, u8>) -> PyResult<Recording> {
    let view = array.as_array();
    let [frames, height, width] = view.shape()[..] else {
        return Err(bad_value(format!(
            "frames must have shape (frames, height, width), got {:?}",
            view.shape()
        )));
    };
    let states = view.iter().copied().collect();
    Recording::new(frames, height, width, states).map_err(bad_value)
}

/// One grid `(H, W, C)` of bits, for a model of `channels` channels.
pub fn grid(array: &PyReadonlyArrayDyn<'_, u8>, channels: usize) -> PyResult<Grids> {
    let (shape, bits) = bits(array, "a grid")?;
    let [height, width, c] = shape[..] else {
        return Err(bad_value(format!(
            "a grid must have shape (height, width, channels), got {shape:?}"
        )));
    };
    if c != channels || height == 0 || width == 0 {
        return Err(bad_value(format!(
            "a grid for this model must have shape (height, width, {channels}) and not be \
             empty, got {shape:?}"
        )));
    }
    Ok(Grids {
        batch: 1,
        height,
        width,
        channels,
        values: bits.into_iter().map(f32::from).collect(),
    })
}

/// A target image: `(H, W)` or `(H, W, 1)` bits for one channel, `(H, W, 3)` for RGB.
pub fn target(array: &PyReadonlyArrayDyn<'_, u8>) -> PyResult<PatternTarget> {
    let (shape, bits) = bits(array, "a target")?;
    let (height, width, rgb) = match shape[..] {
        [h, w] | [h, w, 1] => (h, w, false),
        [h, w, 3] => (h, w, true),
        _ => {
            return Err(bad_value(format!(
                "a target must have shape (height, width), (height, width, 1) or (height, \
                 width, 3), got {shape:?}"
            )))
        }
    };
    let target = PatternTarget {
        height,
        width,
        rgb,
        bits,
    };
    target.validate().map_err(bad_value)?;
    Ok(target)
}
