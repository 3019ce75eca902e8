//! Backward on one tile: its output gradients seeded from the next state's, and its
//! patch's gradient sent back to the cells it read.

use rayon::prelude::*;

use crate::automaton::masks::FireMasks;
use crate::automaton::patch_shifts::PatchShifts;
use crate::automaton::soft_tiles::{segments, select_lanes, tile_bits};
use crate::kernels::plan::BackwardPlan;
use crate::kernels::simd::multiversioned;
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
    for c in 0..circuit.channels {
        let seed = &mut grads[plan.gradient_slot(circuit.output_row(c)) * TILE..][..TILE];
        let from = &next_grads[(tile - first) * tile_len + c * TILE..][..TILE];
        for i in 0..TILE {
            let fires = masks.is_none_or(|m| m.fires(t, tile * TILE + i));
            seed[i] = if fires { from[i] } else { 0.0 };
        }
    }
}

/// Gradient of the state before step `t` on a window of tiles `first..`: what cells
/// that did not fire pass on from `next_grads`, plus what every reader's patch received,
/// summed in patch order. The readers at a position are the gathering's shifts run
/// backwards, so each is a whole-row masked add.
pub(in crate::automaton) fn scatter_patch_grads(
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
            scatter_tile(shifts, channels, (t, first + i, first), masks, grads, out)
        });
}

multiversioned! {
    /// [`scatter_patch_grads`] for one tile (`at` is `(t, tile, first)`), which the wider
    /// instruction sets do as masked adds.
    fn scatter_tile(
        shifts: &PatchShifts,
        channels: usize,
        at: (usize, usize, usize),
        masks: Option<&FireMasks>,
        grads: (&[f32], &[f32]),
        out: &mut [f32],
    ) => scatter_tile_body
}

#[inline(always)]
fn scatter_tile_body(
    shifts: &PatchShifts,
    channels: usize,
    (t, tile, first): (usize, usize, usize),
    masks: Option<&FireMasks>,
    (patch_grads, next_grads): (&[f32], &[f32]),
    out: &mut [f32],
) {
    let patch_len = channels * PATCH * TILE;
    let tile_len = channels * TILE;
    let i = tile - first;
    for c in 0..channels {
        let g = &mut out[c * TILE..][..TILE];
        let next = &next_grads[i * tile_len + c * TILE..][..TILE];
        for (l, (g, &next)) in g.iter_mut().zip(next).enumerate() {
            let kept = masks.is_some_and(|m| !m.fires(t, tile * TILE + l));
            *g = if kept { next } else { 0.0 };
        }
    }
    // As in the gather, each add's lanes are found once for all channels; a channel's
    // adds still come in patch order.
    for p in 0..PATCH {
        for (offset, lanes) in shifts.shifts(p) {
            for seg in segments(tile, -offset) {
                // The readers of this segment's lanes that see them from here.
                if seg.src_tile * TILE >= lanes.len() * 64 {
                    continue;
                }
                let read = tile_bits(lanes, seg.src_tile);
                let mask = seg.lanes(read >> seg.src_start);
                if mask == 0 {
                    continue;
                }
                let src_start = (seg.src_tile - first) * patch_len + p * TILE + seg.src_start;
                for c in 0..channels {
                    let g = &mut out[c * TILE..][..TILE];
                    let src = &patch_grads[src_start + c * PATCH * TILE..];
                    select_lanes(&mut g[seg.dst.clone()], src, mask, |o, v| *o += v);
                }
            }
        }
    }
}
