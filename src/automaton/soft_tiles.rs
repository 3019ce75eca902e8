//! What a soft rollout does to one tile, on a window of tile-blocked buffers: the tiles
//! `first..` of a run of tiles that read only each other, so that each run can step on
//! its own thread with no barrier between steps (see [`Geometry::tile_runs`]).

use std::ops::Range;

use rayon::prelude::*;

use crate::automaton::geometry::{Geometry, NO_LANE};
use crate::automaton::masks::FireMasks;
use crate::kernels::soft::TILE;
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;

#[inline]
pub fn state_index(channels: usize, channel: usize, lane: usize) -> usize {
    (lane / TILE) * channels * TILE + channel * TILE + lane % TILE
}

/// Splits a tile-blocked buffer (`per_tile` items per tile) into one window per run.
pub(super) fn split_runs<'a, T>(
    mut buffer: &'a mut [T],
    runs: &[Range<usize>],
    per_tile: usize,
) -> Vec<&'a mut [T]> {
    runs.iter()
        .map(|run| {
            let (window, rest) = std::mem::take(&mut buffer).split_at_mut(run.len() * per_tile);
            buffer = rest;
            window
        })
        .collect()
}

/// The state in slot `from` to read and the one in slot `to` to write (`from != to`).
pub(super) fn prev_and_next<'a>(
    slots: &'a mut [&mut [f32]],
    (from, to): (usize, usize),
) -> (&'a [f32], &'a mut [f32]) {
    if from < to {
        let (before, after) = slots.split_at_mut(to);
        (&*before[from], &mut *after[0])
    } else {
        let (before, after) = slots.split_at_mut(from);
        (&*after[0], &mut *before[to])
    }
}

/// Fills rows `c*9 + p` of a tile's activations with what each lane sees; `state` is
/// the window of tiles `first..`.
pub(super) fn gather_patch(
    geometry: &Geometry,
    channels: usize,
    (tile, first): (usize, usize),
    state: &[f32],
    acts: &mut [f32],
) {
    let offset = first * channels * TILE;
    for c in 0..channels {
        for p in 0..PATCH {
            let out = &mut acts[(c * PATCH + p) * TILE..][..TILE];
            for (i, v) in out.iter_mut().enumerate() {
                let n = geometry.neighbors[tile * TILE + i][p];
                *v = if n == NO_LANE {
                    0.0
                } else {
                    state[state_index(channels, c, n as usize) - offset]
                };
            }
        }
    }
}

/// Writes a tile's new state: the circuit's output where the cell fires, else the old
/// value; `prev` is the window of tiles `first..`.
pub(super) fn write_outputs(
    circuit: &Circuit,
    (tile, first): (usize, usize),
    step: usize,
    acts: &[f32],
    prev: &[f32],
    next_tile: &mut [f32],
    masks: Option<&FireMasks>,
) {
    let tile_len = circuit.channels * TILE;
    for c in 0..circuit.channels {
        let out = &acts[circuit.output_row(c) * TILE..][..TILE];
        let old = &prev[(tile - first) * tile_len + c * TILE..][..TILE];
        let new = &mut next_tile[c * TILE..][..TILE];
        for i in 0..TILE {
            let fires = masks.is_none_or(|m| m.fires(step, tile * TILE + i));
            new[i] = if fires { out[i] } else { old[i] };
        }
    }
}

/// Seeds a tile's output gradient rows with the gradient of the next state (the kernel
/// reads no other row before writing it); a cell that did not fire at step `t` passes
/// no gradient through its gates. `next_grads` is the window of tiles `first..`.
pub(super) fn seed_output_grads(
    circuit: &Circuit,
    (tile, first): (usize, usize),
    t: usize,
    masks: Option<&FireMasks>,
    next_grads: &[f32],
    grads: &mut [f32],
) {
    let tile_len = circuit.channels * TILE;
    for c in 0..circuit.channels {
        let seed = &mut grads[circuit.output_row(c) * TILE..][..TILE];
        let from = &next_grads[(tile - first) * tile_len + c * TILE..][..TILE];
        for i in 0..TILE {
            let fires = masks.is_none_or(|m| m.fires(t, tile * TILE + i));
            seed[i] = if fires { from[i] } else { 0.0 };
        }
    }
}

/// Gradient of the state before step `t` on a window of tiles `first..`: what cells
/// that did not fire pass on from `next_grads`, plus what every reader's patch received,
/// summed in patch order.
pub(super) fn scatter_patch_grads(
    geometry: &Geometry,
    channels: usize,
    (t, first): (usize, usize),
    masks: Option<&FireMasks>,
    (patch_grads, next_grads): (&[f32], &[f32]),
    state_grads: &mut [f32],
) {
    let patch_len = channels * PATCH * TILE;
    let tile_len = channels * TILE;
    state_grads
        .par_chunks_mut(tile_len)
        .enumerate()
        .for_each(|(i, out)| {
            let tile = first + i;
            for l in 0..TILE {
                let lane = tile * TILE + l;
                let kept = masks.is_some_and(|m| !m.fires(t, lane));
                for c in 0..channels {
                    let mut g = if kept {
                        next_grads[i * tile_len + c * TILE + l]
                    } else {
                        0.0
                    };
                    for (p, &reader) in geometry.readers[lane].iter().enumerate() {
                        if reader != NO_LANE {
                            let r = reader as usize;
                            g += patch_grads[(r / TILE - first) * patch_len
                                + (c * PATCH + p) * TILE
                                + r % TILE];
                        }
                    }
                    out[c * TILE + l] = g;
                }
            }
        });
}

/// Adds every tile's coefficient gradients in tile order, whatever the thread count, so
/// the sum is the same on any machine.
pub(super) fn sum_in_tile_order(tile_coef_grads: &[Vec<[f64; 4]>], coef_grads: &mut [[f64; 4]]) {
    for tile_grads in tile_coef_grads {
        for (total, g) in coef_grads.iter_mut().zip(tile_grads) {
            for k in 0..4 {
                total[k] += g[k];
            }
        }
    }
}
