//! An asynchronous rollout's forward on the cells that fire only: each step's firing
//! lanes packed into as few tiles as they fill (about 60% of the tiles at the paper's
//! fire rate), then every tile's new state written from them. A gate's value in a lane
//! does not depend on where the lane sits, so the states are the same bits as a step
//! over every lane. Backward packs the same lanes ([`backward_firing`](super::backward_firing)).

use rayon::prelude::*;

use crate::automaton::masks::FireMasks;
use crate::automaton::soft::phases::{run_phases, PhaseBuffer};
use crate::automaton::soft::SoftRollout;
use crate::automaton::soft_tiles::{firing_lanes, gather_lanes, tile_span, write_firing_tile};
use crate::kernels::plan::ForwardRows;
use crate::kernels::soft::{self as kernel, live_lanes, TILE};
use crate::kernels::table;
use crate::model::circuit::Circuit;

impl SoftRollout {
    /// Step `t` computed on the window's firing lanes only: the same new state, bit for
    /// bit, as [`forward_step`](Self::forward_step) over every lane. Returns false,
    /// doing nothing, where the firing lanes fill as many tiles as the window has
    /// (nothing to save).
    pub(super) fn forward_firing(
        &self,
        circuit: &Circuit,
        coefs: &[[f32; 4]],
        masks: &FireMasks,
        (t, first): (usize, usize),
        prev: &[f32],
        next: &mut [f32],
    ) -> bool {
        let tile_len = circuit.channels * TILE;
        let tiles = first..first + next.len() / tile_len;
        let lanes = firing_lanes(&self.geometry, masks, t, tiles.clone());
        let packed = lanes.len().div_ceil(TILE);
        if packed >= tiles.len() {
            return false;
        }
        let mut outs = vec![0.0; packed * tile_len];
        outs.par_chunks_mut(tile_len)
            .zip(lanes.par_chunks(TILE))
            .for_each(|(out, lanes)| self.packed_tile(circuit, coefs, (first, lanes), prev, out));
        for (i, next_tile) in next.chunks_mut(tile_len).enumerate() {
            let span = tile_span(&lanes, first + i);
            let firing = (&lanes[span.clone()], span.start);
            let prev_tile = &prev[i * tile_len..][..tile_len];
            let tiles = (prev_tile, next_tile);
            write_firing_tile(circuit.channels, firing, &outs, tiles, self.unit);
        }
        true
    }

    /// [`forward`](Self::forward) of an asynchronous rollout that is one run of tiles:
    /// each step two phases of [`run_phases`], the packed tiles of its firing lanes,
    /// then every tile's new state.
    pub(super) fn forward_firing_in_phases(
        &mut self,
        circuit: &Circuit,
        coefs: &[[f32; 4]],
        masks: &FireMasks,
    ) {
        let (len, tile_len) = (self.state_len(), circuit.channels * TILE);
        let tiles = self.geometry.tiles();
        let lanes: Vec<Vec<u32>> = (0..self.steps)
            .map(|t| firing_lanes(&self.geometry, masks, t, 0..tiles))
            .collect();
        // A step's packed outputs: at most as many packed tiles as tiles.
        let mut outs = vec![0.0; tiles * tile_len];
        let mut states = table::take(&mut self.states);
        let (buffer, packed) = (PhaseBuffer::new(&mut states), PhaseBuffer::new(&mut outs));
        let this = &*self;
        run_phases(2 * self.steps, tiles, |phase, k| {
            let (t, lanes) = (phase / 2, &lanes[phase / 2]);
            let (from, to) = this.step_slots(t);
            if phase.is_multiple_of(2) {
                let Some(mine) = lanes.chunks(TILE).nth(k) else {
                    return;
                };
                // SAFETY: this phase reads state `from`, written by the step before, and
                // writes packed tile k's outputs, which the phase before read.
                let (prev, out) = unsafe {
                    (
                        buffer.part(from * len, len),
                        packed.part_mut(k * tile_len, tile_len),
                    )
                };
                this.packed_tile(circuit, coefs, (0, mine), prev, out);
            } else {
                // SAFETY: this phase reads the packed outputs that the phase before wrote
                // and tile k of state `from`, and writes tile k of state `to` (`from !=
                // to`), which no task of the phase reads.
                let (outs, prev_tile, next_tile) = unsafe {
                    (
                        packed.part(0, packed.len()),
                        buffer.part(from * len + k * tile_len, tile_len),
                        buffer.part_mut(to * len + k * tile_len, tile_len),
                    )
                };
                let span = tile_span(lanes, k);
                let firing = (&lanes[span.clone()], span.start);
                let tiles = (prev_tile, next_tile);
                write_firing_tile(circuit.channels, firing, outs, tiles, this.unit);
            }
        });
        self.states = states;
    }

    /// The new state's channels of the firing lanes `lanes` (a tile of them at most) of
    /// the window of tiles `first..` of `prev`, into `out` (`channels` rows of
    /// [`TILE`]).
    fn packed_tile(
        &self,
        circuit: &Circuit,
        coefs: &[[f32; 4]],
        (first, lanes): (usize, &[u32]),
        prev: &[f32],
        out: &mut [f32],
    ) {
        let plan = &self.plans.new_state;
        let mut ws = self.workspace();
        let neighbors = &self.geometry.neighbors;
        gather_lanes(
            neighbors,
            (circuit.channels, first),
            lanes,
            prev,
            &mut ws.acts,
        );
        kernel::forward(
            ForwardRows::Plan(plan),
            coefs,
            &mut ws.acts,
            live_lanes(lanes.len()),
        );
        for (c, out) in out.chunks_mut(TILE).enumerate() {
            let row = plan.slot(circuit.output_row(c)) * TILE;
            out[..lanes.len()].copy_from_slice(&ws.acts[row..][..lanes.len()]);
        }
    }
}
