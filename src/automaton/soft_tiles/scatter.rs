//! Backward on one tile: its output gradients seeded from the next state's, and its
//! patch's gradient sent back to the cells it read.

use rayon::prelude::*;

use crate::automaton::masks::FireMasks;
use crate::automaton::patch_shifts::PatchShifts;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{__m256, __m512};

#[cfg(target_arch = "x86_64")]
use crate::automaton::soft_tiles::registers;
use crate::automaton::soft_tiles::{scatter_moves, select_lanes};
use crate::kernels::plan::BackwardPlan;
use crate::kernels::simd::{multiversioned, SimdLevel};
use crate::kernels::soft::TILE;
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;

/// Seeds a tile's output gradient rows with the gradient of the next state (the kernel
/// reads no other row before writing it); a cell that did not fire at step `t` passes
/// no gradient through its gates. `next_grads` is the window of tiles `first..`.
pub(in crate::automaton) fn seed_output_grads(
    circuit: &Circuit,
    plan: &BackwardPlan,
    (tile, first): (usize, usize),
    t: usize,
    masks: Option<&FireMasks>,
    next_grads: &[f32],
    grads: &mut [f32],
) {
    let tile_len = circuit.channels * TILE;
    let fired = masks.map_or(u64::MAX, |m| m.fire_bits(t, tile * TILE));
    for c in 0..circuit.channels {
        let seed = &mut grads[plan.gradient_slot(circuit.output_row(c)) * TILE..][..TILE];
        let from = &next_grads[(tile - first) * tile_len + c * TILE..][..TILE];
        if fired != u64::MAX {
            seed.fill(0.0);
        }
        select_lanes(seed, from, fired, |o, v| *o = v);
    }
}

/// Gradient of the state before step `t` on a window of tiles `first..`: what cells
/// that did not fire pass on from `next_grads`, plus what every reader's patch received,
/// summed in patch order. The readers at a position are the gathering's shifts run
/// backwards, so each is a whole-row masked add.
pub(in crate::automaton) fn scatter_patch_grads(
    shifts: &PatchShifts,
    channels: usize,
    at: (usize, usize),
    masks: Option<&FireMasks>,
    grads: (&[f32], &[f32]),
    state_grads: &mut [f32],
) {
    let level = SimdLevel::active();
    scatter_patch_grads_at(level, shifts, channels, at, masks, grads, state_grads);
}

/// [`scatter_patch_grads`] with the kernels of `level`.
pub(in crate::automaton) fn scatter_patch_grads_at(
    level: SimdLevel,
    shifts: &PatchShifts,
    channels: usize,
    (t, first): (usize, usize),
    masks: Option<&FireMasks>,
    grads: (&[f32], &[f32]),
    state_grads: &mut [f32],
) {
    state_grads
        .par_chunks_mut(channels * TILE)
        .enumerate()
        .for_each(|(i, out)| {
            let next = &grads.1[i * channels * TILE..][..channels * TILE];
            let at = (t, first + i, first);
            scatter_one_tile(level, shifts, channels, at, masks, (grads.0, next), out);
        });
}

/// [`scatter_patch_grads_at`] for one tile: `at` is `(t, tile, first)`, `grads` the
/// window's patch gradients and the tile's rows of the next state's, `out` the tile's
/// rows of the state's.
pub(in crate::automaton) fn scatter_one_tile(
    level: SimdLevel,
    shifts: &PatchShifts,
    channels: usize,
    (t, tile, first): (usize, usize, usize),
    masks: Option<&FireMasks>,
    grads: (&[f32], &[f32]),
    out: &mut [f32],
) {
    let kept = masks.map_or(0, |m| !m.fire_bits(t, tile * TILE));
    scatter_tile_at(level, shifts, channels, (tile, first, kept), grads, out);
}

multiversioned! {
    /// [`scatter_patch_grads_at`] for one tile (`at` is `(tile, first, kept)`, `kept` a
    /// bit for each lane whose cell did not fire; `grads` is the window's patch
    /// gradients and the tile's rows of the next state's).
    fn _ / scatter_tile_at(
        shifts: &PatchShifts,
        channels: usize,
        at: (usize, usize, u64),
        grads: (&[f32], &[f32]),
        out: &mut [f32],
    ) => scatter_tile_body,
        avx2 => registers::scatter_tile::<__m256>,
        avx512 => registers::scatter_tile::<__m512>
}

/// The lane loops: each move a masked add over the rows of every channel.
#[inline(always)]
fn scatter_tile_body(
    shifts: &PatchShifts,
    channels: usize,
    (tile, first, kept): (usize, usize, u64),
    (patch_grads, next): (&[f32], &[f32]),
    out: &mut [f32],
) {
    let patch_len = channels * PATCH * TILE;
    for c in 0..channels {
        let g = &mut out[c * TILE..][..TILE];
        let next = &next[c * TILE..][..TILE];
        for (l, (g, &next)) in g.iter_mut().zip(next).enumerate() {
            *g = if (kept >> l) & 1 != 0 { next } else { 0.0 };
        }
    }
    // Each add's lanes are found once for all channels; a channel's adds still come in
    // patch order.
    for m in &scatter_moves(shifts, tile) {
        let src_start = (m.seg.src_tile - first) * patch_len + m.p * TILE + m.seg.src_start;
        for c in 0..channels {
            let g = &mut out[c * TILE..][..TILE];
            let src = &patch_grads[src_start + c * PATCH * TILE..];
            select_lanes(&mut g[m.seg.dst.clone()], src, m.mask, |o, v| *o += v);
        }
    }
}
