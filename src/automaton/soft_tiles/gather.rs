//! Forward on one tile: the patch each lane sees, and the tile's new state.

use crate::automaton::masks::FireMasks;
use crate::automaton::patch_shifts::PatchShifts;
use crate::automaton::soft_tiles::{segments, select_lanes, tile_bits};
use crate::kernels::plan::ForwardRows;
use crate::kernels::simd::multiversioned;
use crate::kernels::soft::TILE;
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;

multiversioned! {
    /// Fills rows `c*9 + p` of a tile's activations with what each lane sees; `state` is
    /// the window of tiles `first..` and `tiles` is `(tile, first)`. Each position is a
    /// few shifted copies of the state's channel rows ([`PatchShifts`]), each kept where
    /// its offset applies: whole-row copies instead of a table lookup per lane, which
    /// the wider instruction sets do as masked moves.
    pub(in crate::automaton) fn gather_patch(
        shifts: &PatchShifts,
        channels: usize,
        tiles: (usize, usize),
        state: &[f32],
        acts: &mut [f32],
    ) => gather_patch_body
}

#[inline(always)]
fn gather_patch_body(
    shifts: &PatchShifts,
    channels: usize,
    (tile, first): (usize, usize),
    state: &[f32],
    acts: &mut [f32],
) {
    let tile_len = channels * TILE;
    let zeros = [0.0; TILE];
    // Which lanes each copy takes depends on the position, not the channel: found once
    // for all channels.
    for p in 0..PATCH {
        // Lanes that see nothing at `p` (outside a zero-padded grid, padding) read zero;
        // on a wrapping grid every real lane sees something, so mostly none is cleared.
        let unseen = !shifts
            .shifts(p)
            .fold(0, |seen, (_, lanes)| seen | tile_bits(lanes, tile))
            & (u64::MAX >> (64 - TILE));
        if unseen != 0 {
            for c in 0..channels {
                let out = &mut acts[(c * PATCH + p) * TILE..][..TILE];
                select_lanes(out, &zeros, unseen, |o, v| *o = v);
            }
        }
        for (offset, lanes) in shifts.shifts(p) {
            let seen = tile_bits(lanes, tile);
            for seg in segments(tile, offset) {
                // The lanes of this segment that see the offset; their source is in the
                // window (a run reads only its own tiles).
                let mask = seg.lanes(seen >> seg.dst.start);
                if mask == 0 {
                    continue;
                }
                let src_start = (seg.src_tile - first) * tile_len + seg.src_start;
                for c in 0..channels {
                    let out = &mut acts[(c * PATCH + p) * TILE..][..TILE];
                    let src = &state[src_start + c * TILE..];
                    select_lanes(&mut out[seg.dst.clone()], src, mask, |o, v| *o = v);
                }
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
    for c in 0..circuit.channels {
        let out = &acts[rows.slot(circuit.output_row(c)) * TILE..][..live];
        let old = &prev[(tile - first) * tile_len + c * TILE..][..live];
        let new = &mut next_tile[c * TILE..][..live];
        for i in 0..live {
            let fires = masks.is_none_or(|m| m.fires(step, tile * TILE + i));
            new[i] = if fires { out[i] } else { old[i] };
        }
        if unit {
            new.iter_mut().for_each(|x| *x = x.clamp(0.0, 1.0));
        }
    }
}
