//! An asynchronous rollout's backward on the cells that fire only: each step's firing
//! lanes packed into as few tiles as they fill, as its forward packs them
//! ([`forward_firing`](super::forward_firing)), recomputed and backpropagated there, and
//! their patch gradients sent back to the cells they read through the geometry's reader
//! table. A cell that did not fire passes its gradient on untouched and runs no gate, so
//! about 40% of the gate work of a step at the paper's fire rate is skipped.
//!
//! Every lane's gradients are the bits of a backward over every lane (a lane's gates do
//! not depend on where it sits, and a cell's patch gradients are still added in patch
//! order); the coefficient gradients are summed per packed tile instead of per tile of
//! the grid, a different order of the same terms. Which lanes share a packed tile
//! depends on the fire masks only, so the sums are the same for any thread count.

use std::sync::MutexGuard;

use crate::automaton::masks::FireMasks;
use crate::automaton::soft::backward::RunGrads;
use crate::automaton::soft::phases::{run_phases_early, PhaseBuffer};
use crate::automaton::soft::{every_row, SoftRollout, Workspace};
use crate::automaton::soft_tiles::{
    firing_lanes, gather_lanes, packed_places, scatter_packed_tile, seed_packed_grads,
};
use crate::kernels::soft::{self as kernel, live_lanes, TILE};
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;

impl SoftRollout {
    /// Backward of an asynchronous rollout that is one run of tiles and recomputes its
    /// activations: every step a phase of [`run_phases_early`] whose tasks are the
    /// step's packed tiles (the tasks beyond them do nothing) and whose shared jobs
    /// first scatter the step after's patch gradients into each tile of the grid.
    pub(super) fn backward_firing_in_phases(
        &self,
        circuit: &Circuit,
        (coefs, masks): (&[[f32; 4]], &FireMasks),
        loss_grads: &[Vec<f32>],
        grads: RunGrads,
    ) {
        let (channels, steps, tiles) = (circuit.channels, self.steps, self.geometry.tiles());
        let (tile_len, patch_len) = (channels * TILE, channels * PATCH * TILE);
        let lanes: Vec<Vec<u32>> = (0..steps)
            .map(|t| firing_lanes(&self.geometry, masks, t, 0..tiles))
            .collect();
        let places: Vec<Vec<u32>> = lanes
            .iter()
            .map(|l| packed_places(self.geometry.padded_lanes, l))
            .collect();
        grads.next.copy_from_slice(&loss_grads[0]);
        let (patch, coef) = (PhaseBuffer::new(grads.patch), PhaseBuffer::new(grads.coef));
        // The gradient of the state after the step of phase s is in turn s % 2.
        let turns = [PhaseBuffer::new(grads.next), PhaseBuffer::new(grads.state)];
        let packed = |s: usize, k: usize| lanes[steps - 1 - s].chunks(TILE).nth(k);
        let early = |s: usize, k: usize| {
            let mine = packed(s, k)?;
            Some((
                self.recompute_packed(circuit, coefs, steps - 1 - s, mine),
                mine,
            ))
        };
        let scatter = |s: usize, tile: usize| {
            if s == 0 {
                return;
            }
            let t = steps - s;
            let part = tile * tile_len..(tile + 1) * tile_len;
            // SAFETY: every task of the phase before is done and no task of this phase
            // has begun writing: this reads the packed patch gradients of step t and the
            // tile's part of the gradient after it, and writes the tile's part of the
            // gradient before it, which no other job touches.
            let (patch, next, out) = unsafe {
                (
                    patch.part(0, patch.len()),
                    turns[(s - 1) % 2].part(part.start, tile_len),
                    turns[s % 2].part_mut(part.start, tile_len),
                )
            };
            let at = (channels, tile, self.geometry.real_lanes(tile));
            let fired = (&places[t][..], masks.fire_bits(t, tile * TILE));
            scatter_packed_tile(&self.geometry.readers, at, fired, (patch, next), out);
            self.add_loss_grads(loss_grads, t, part, out);
        };
        let plan = &self.plans.backward;
        run_phases_early(steps, tiles, early, (tiles, scatter), |s, k, ws| {
            let Some((mut ws, mine)) = ws else {
                return;
            };
            // SAFETY: this task alone writes packed tile k's patch and coefficient
            // gradients in this phase, after its jobs read the patch gradients; it reads
            // the gradient after its step, which the jobs wrote.
            let (next, patch, coef) = unsafe {
                let next = &turns[s % 2];
                (
                    next.part(0, next.len()),
                    patch.part_mut(k * patch_len, patch_len),
                    &mut coef.part_mut(k, 1)[0],
                )
            };
            let Workspace { acts, grads } = &mut *ws;
            let slots = (0..channels).map(|c| plan.gradient_slot(circuit.output_row(c)));
            seed_packed_grads(channels, slots, mine, next, grads);
            let tables = (patch, &mut grads[..]);
            kernel::backward(plan, coefs, acts, tables, coef, live_lanes(mine.len()));
        });
    }

    /// This thread's workspace, holding the activations of the firing lanes `lanes` (a
    /// packed tile of them) at step `t`.
    fn recompute_packed(
        &self,
        circuit: &Circuit,
        coefs: &[[f32; 4]],
        t: usize,
        lanes: &[u32],
    ) -> MutexGuard<'_, Workspace> {
        let mut ws = self.workspace();
        let len = self.state_len();
        let state = &self.states[t * len..(t + 1) * len];
        let neighbors = &self.geometry.neighbors;
        gather_lanes(neighbors, (circuit.channels, 0), lanes, state, &mut ws.acts);
        let live = live_lanes(lanes.len());
        kernel::forward(every_row(circuit), coefs, &mut ws.acts, live);
        ws
    }
}
