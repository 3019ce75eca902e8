//! Forward on one tile: the patch each lane sees, and the tile's new state.

use crate::automaton::masks::FireMasks;
use crate::automaton::patch_shifts::PatchShifts;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{__m256, __m512};

#[cfg(target_arch = "x86_64")]
use crate::automaton::soft_tiles::registers;
use crate::automaton::soft_tiles::{gather_moves, select_lanes};
use crate::kernels::plan::ForwardRows;
use crate::kernels::simd::multiversioned;
use crate::kernels::soft::TILE;
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;

multiversioned! {
    /// Fills rows `c*9 + p` of a tile's activations with what each lane sees; `state` is
    /// the window of tiles `first..` and `tiles` is `(tile, first)`. Each position is a
    /// few shifted copies of the state's channel rows ([`PatchShifts`]), each kept where
    /// its offset applies: whole-row copies instead of a table lookup per lane.
    pub(in crate::automaton) fn gather_patch / gather_patch_at(
        shifts: &PatchShifts,
        channels: usize,
        tiles: (usize, usize),
        state: &[f32],
        acts: &mut [f32],
    ) => gather_patch_body,
        avx2 => registers::gather_patch::<__m256>,
        avx512 => registers::gather_patch::<__m512>
}

/// The lane loops: each move a masked copy over the rows of every channel.
#[inline(always)]
fn gather_patch_body(
    shifts: &PatchShifts,
    channels: usize,
    (tile, first): (usize, usize),
    state: &[f32],
    acts: &mut [f32],
) {
    let tile_len = channels * TILE;
    let mut seen = [0u64; PATCH];
    for m in &gather_moves(shifts, tile) {
        seen[m.p] |= m.tile_lanes();
        let src_start = (m.seg.src_tile - first) * tile_len + m.seg.src_start;
        for c in 0..channels {
            let out = &mut acts[(c * PATCH + m.p) * TILE..][..TILE];
            let src = &state[src_start + c * TILE..];
            select_lanes(&mut out[m.seg.dst.clone()], src, m.mask, |o, v| *o = v);
        }
    }
    // On a wrapping grid every real lane sees something, so mostly none is cleared.
    let zeros = [0.0; TILE];
    for (p, seen) in seen.into_iter().enumerate() {
        let unseen = !seen & (u64::MAX >> (64 - TILE));
        if unseen != 0 {
            for c in 0..channels {
                let out = &mut acts[(c * PATCH + p) * TILE..][..TILE];
                select_lanes(out, &zeros, unseen, |o, v| *o = v);
            }
        }
    }
}

/// Writes a tile's new state in its first `live` lanes (the kernels ran no others): the
/// circuit's output (in `acts`, laid out as `rows`) where the cell fires, else the old
/// value; `prev` is the window of tiles `first..`. With `unit`, outputs are clamped to
/// [0, 1] ([`SoftRollout::keep_states_in_unit`]).
///
/// [`SoftRollout::keep_states_in_unit`]: crate::automaton::soft::SoftRollout::keep_states_in_unit
#[allow(clippy::too_many_arguments)]
pub(in crate::automaton) fn write_outputs(
    circuit: &Circuit,
    rows: ForwardRows<'_>,
    (tile, first): (usize, usize),
    step: usize,
    acts: &[f32],
    prev: &[f32],
    next_tile: &mut [f32],
    (masks, unit): (Option<&FireMasks>, bool),
    live: usize,
) {
    let tile_len = circuit.channels * TILE;
    let every = u64::MAX >> (TILE - live);
    let fired = masks.map_or(every, |m| m.fire_bits(step, tile * TILE)) & every;
    for c in 0..circuit.channels {
        let out = &acts[rows.slot(circuit.output_row(c)) * TILE..][..live];
        let old = &prev[(tile - first) * tile_len + c * TILE..][..live];
        let new = &mut next_tile[c * TILE..][..live];
        if fired != every {
            new.copy_from_slice(old);
        }
        select_lanes(new, out, fired, |o, v| *o = v);
        if unit {
            new.iter_mut().for_each(|x| *x = x.clamp(0.0, 1.0));
        }
    }
}
