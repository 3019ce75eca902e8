//! Backpropagation through every step of a soft rollout, each run of tiles on its own.

use std::ops::Range;
use std::sync::MutexGuard;

use rayon::prelude::*;

use crate::automaton::masks::FireMasks;
use crate::automaton::soft::phases::{run_phases_early, PhaseBuffer};
use crate::automaton::soft::{every_row, ActivationMemory, BackwardTap, SoftRollout, Workspace};
use crate::automaton::soft_tiles::{
    gather_patch, scatter_one_tile, scatter_patch_grads, seed_output_grads, split_runs,
    sum_in_tile_order,
};
use crate::kernels::simd::SimdLevel;
use crate::kernels::soft::{self as kernel, TILE};
use crate::kernels::table;
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;

/// What every step of one backward pass shares: the gates' coefficients, the fire masks
/// and the tap.
type Pass<'a> = (
    &'a [[f32; 4]],
    Option<&'a FireMasks>,
    Option<&'a dyn BackwardTap>,
);

/// One run of tiles' windows of the backward buffers.
pub(super) struct RunGrads<'a> {
    pub(super) patch: &'a mut [f32],
    pub(super) coef: &'a mut [Vec<[f64; 4]>],
    pub(super) state: &'a mut [f32],
    pub(super) next: &'a mut [f32],
}

impl SoftRollout {
    /// Backpropagates the loss's gradients on the last states (tile-blocked, like a
    /// state; `loss_grads[j]` is on the state after step `steps - j`) through every step
    /// and returns the gradient of every parameter's four coefficients. Each run of
    /// tiles steps back on its own, as in [`forward`](Self::forward).
    ///
    /// Must follow [`forward`](Self::forward) with the same coefficients and masks.
    pub fn backward(
        &mut self,
        circuit: &Circuit,
        coefs: &[[f32; 4]],
        loss_grads: &[Vec<f32>],
        masks: Option<&FireMasks>,
        coef_grads: &mut [[f64; 4]],
    ) {
        self.backward_tapped(circuit, (coefs, masks), loss_grads, coef_grads, None);
    }

    /// [`backward`](Self::backward), showing `tap` every (step, tile) on the way.
    pub fn backward_tapped(
        &mut self,
        circuit: &Circuit,
        (coefs, masks): (&[[f32; 4]], Option<&FireMasks>),
        loss_grads: &[Vec<f32>],
        coef_grads: &mut [[f64; 4]],
        tap: Option<&dyn BackwardTap>,
    ) {
        assert!(
            self.memory != ActivationMemory::ForwardOnly,
            "a forward-only rollout has no backward pass"
        );
        let tile_len = circuit.channels * TILE;
        let patch_len = tile_len * PATCH;
        if self.tile_coef_grads.is_empty() {
            self.tile_coef_grads = vec![vec![[0.0; 4]; self.params]; self.geometry.tiles()];
        }
        let mut tile_coef_grads = std::mem::take(&mut self.tile_coef_grads);
        let mut patch_grads = table::take(&mut self.patch_grads);
        let mut state_grads = table::take(&mut self.state_grads);
        let mut next_grads = table::take(&mut self.next_state_grads);
        tile_coef_grads
            .par_iter_mut()
            .for_each(|g| g.fill([0.0; 4]));
        let runs = &self.runs;
        if let [_] = &runs[..] {
            let grads = RunGrads {
                patch: &mut patch_grads,
                coef: &mut tile_coef_grads,
                state: &mut state_grads,
                next: &mut next_grads,
            };
            match (masks, tap, self.memory) {
                (Some(masks), None, ActivationMemory::Recompute) => {
                    self.backward_firing_in_phases(circuit, (coefs, masks), loss_grads, grads);
                }
                _ => self.backward_in_phases(circuit, (coefs, masks, tap), loss_grads, grads),
            }
        } else {
            let windows = split_runs(&mut patch_grads, runs, patch_len)
                .into_iter()
                .zip(split_runs(&mut tile_coef_grads, runs, 1))
                .zip(split_runs(&mut state_grads, runs, tile_len))
                .zip(split_runs(&mut next_grads, runs, tile_len))
                .zip(runs);
            windows.collect::<Vec<_>>().into_par_iter().for_each(
                |((((patch, coef), state), next), run)| {
                    let grads = RunGrads {
                        patch,
                        coef,
                        state,
                        next,
                    };
                    self.backward_run(circuit, (coefs, masks, tap), loss_grads, run, grads);
                },
            );
        }
        sum_in_tile_order(&tile_coef_grads, coef_grads);
        self.tile_coef_grads = tile_coef_grads;
        self.patch_grads = patch_grads;
        self.state_grads = state_grads;
        self.next_state_grads = next_grads;
    }

    /// Back through every step on one run of tiles, which reads only its own tiles.
    fn backward_run(
        &self,
        circuit: &Circuit,
        pass: Pass,
        loss_grads: &[Vec<f32>],
        run: &Range<usize>,
        grads: RunGrads,
    ) {
        let masks = pass.1;
        let RunGrads {
            patch,
            coef,
            mut state,
            mut next,
        } = grads;
        let tile_len = circuit.channels * TILE;
        let window = run.start * tile_len..run.end * tile_len;
        next.copy_from_slice(&loss_grads[0][window.clone()]);
        for t in (0..self.steps).rev() {
            self.backward_step(circuit, pass, (t, run.start), next, patch, coef);
            if t == 0 {
                break;
            }
            let grads = (&*patch, &*next);
            scatter_patch_grads(
                self.shifts(),
                circuit.channels,
                (t, run.start),
                masks,
                grads,
                state,
            );
            // The gradient of the state before step t, plus the loss's own on it.
            std::mem::swap(&mut state, &mut next);
            self.add_loss_grads(loss_grads, t, window.clone(), next);
        }
    }

    /// [`backward_run`](Self::backward_run) of a rollout that is one run of tiles, every
    /// step a phase of [`run_phases_early`]. A tile's task recomputes its activations
    /// early, while the step after its own is still running; once that step is done, the
    /// threads share out the scatter of its patch gradients into the gradient after the
    /// step, and then each backpropagates through its tile. A thread left without a tile
    /// of a step thus recomputes one of the next where it waited before (the asynchronous
    /// checkerboard's short fourth tile left one thread idle for most of each step). The
    /// same bits as step after step.
    fn backward_in_phases(
        &self,
        circuit: &Circuit,
        pass: Pass,
        loss_grads: &[Vec<f32>],
        grads: RunGrads,
    ) {
        let (tile_len, steps) = (circuit.channels * TILE, self.steps);
        let patch_len = tile_len * PATCH;
        grads.next.copy_from_slice(&loss_grads[0]);
        let (patch, coef) = (PhaseBuffer::new(grads.patch), PhaseBuffer::new(grads.coef));
        // The gradient of the state after the step of phase s is in turn s % 2.
        let turns = [PhaseBuffer::new(grads.next), PhaseBuffer::new(grads.state)];
        let (level, coefs, masks) = (SimdLevel::active(), pass.0, pass.1);
        let early = |s: usize, tile| self.recompute_tile(circuit, coefs, (steps - 1 - s, tile));
        let scatter = |s: usize, tile: usize| {
            if s == 0 {
                return;
            }
            let t = steps - s;
            let lanes = tile * tile_len..(tile + 1) * tile_len;
            // SAFETY: every task of the phase before is done and no task of this phase
            // has begun writing: this reads the patch gradients of step t and the tile's
            // part of the gradient after it, and writes the tile's part of the gradient
            // before it, which no other job touches.
            let (patch, next, out) = unsafe {
                (
                    patch.part(0, patch.len()),
                    turns[(s - 1) % 2].part(lanes.start, tile_len),
                    turns[s % 2].part_mut(lanes.start, tile_len),
                )
            };
            let (shifts, at) = (self.shifts(), (t, tile, 0));
            scatter_one_tile(
                level,
                shifts,
                circuit.channels,
                at,
                masks,
                (patch, next),
                out,
            );
            self.add_loss_grads(loss_grads, t, lanes, out);
        };
        let tiles = self.geometry.tiles();
        run_phases_early(steps, tiles, early, (tiles, scatter), |s, tile, ws| {
            let t = steps - 1 - s;
            // SAFETY: this task alone writes the tile's patch and coefficient gradients
            // in this phase, after its jobs read the patch gradients; it reads the
            // tile's part of the gradient after step t, which the jobs wrote.
            let (next, patch, coef) = unsafe {
                (
                    turns[s % 2].part(tile * tile_len, tile_len),
                    patch.part_mut(tile * patch_len, patch_len),
                    &mut coef.part_mut(tile, 1)[0],
                )
            };
            let at = (t, (tile, tile));
            self.backward_recomputed(circuit, pass, at, (next, patch, coef), ws);
        });
    }

    /// Adds the loss's own gradient on the state before step `t`, if the loss reads that
    /// state, to `grads`: its `part` of the tile-blocked state.
    pub(super) fn add_loss_grads(
        &self,
        loss_grads: &[Vec<f32>],
        t: usize,
        part: Range<usize>,
        grads: &mut [f32],
    ) {
        if let Some(loss_grads) = loss_grads.get(self.steps - t) {
            for (g, l) in grads.iter_mut().zip(&loss_grads[part]) {
                *g += l;
            }
        }
    }

    /// Back through step `t` on the window of tiles `first..`: each tile's patch
    /// gradient into its rows of `patch_grads` (the kernel writes them there, so the
    /// thread's workspace holds only the gates' slots), its coefficient gradients added
    /// to `coef_grads`.
    fn backward_step(
        &self,
        circuit: &Circuit,
        pass: Pass,
        (t, first): (usize, usize),
        next_grads: &[f32],
        patch_grads: &mut [f32],
        coef_grads: &mut [Vec<[f64; 4]>],
    ) {
        let patch_len = circuit.channels * PATCH * TILE;
        patch_grads
            .par_chunks_mut(patch_len)
            .zip(coef_grads.par_iter_mut())
            .enumerate()
            .for_each(|(i, (patch_grads, tile_coef_grads))| {
                let at = (t, (first + i, first));
                let grads = (next_grads, patch_grads, &mut tile_coef_grads[..]);
                self.backward_tile(circuit, pass, at, grads);
            });
    }

    /// Back through step `t` on one tile (`tile` is `(tile, first)`): `grads` is
    /// `(next_grads, patch_grads, coef_grads)`, the window's gradient of the next state
    /// and the tile's patch gradient and coefficient gradients.
    fn backward_tile(
        &self,
        circuit: &Circuit,
        pass: Pass,
        (t, tile): (usize, (usize, usize)),
        grads: (&[f32], &mut [f32], &mut [[f64; 4]]),
    ) {
        let ws = self.recompute_tile(circuit, pass.0, (t, tile.0));
        self.backward_recomputed(circuit, pass, (t, tile), grads, ws);
    }

    /// This thread's workspace, holding the activations of `tile` at step `t` if the
    /// rollout recomputes them.
    fn recompute_tile(
        &self,
        circuit: &Circuit,
        coefs: &[[f32; 4]],
        (t, tile): (usize, usize),
    ) -> MutexGuard<'_, Workspace> {
        let mut ws = self.workspace();
        if self.memory == ActivationMemory::Recompute {
            let len = self.state_len();
            let state = &self.states[t * len..(t + 1) * len];
            gather_patch(
                self.shifts(),
                circuit.channels,
                (tile, 0),
                state,
                &mut ws.acts,
            );
            kernel::forward(
                every_row(circuit),
                coefs,
                &mut ws.acts,
                self.live_lanes(tile),
            );
        }
        ws
    }

    /// [`backward_tile`](Self::backward_tile) once [`recompute_tile`](Self::recompute_tile)
    /// has given `ws`.
    fn backward_recomputed(
        &self,
        circuit: &Circuit,
        (coefs, masks, tap): Pass,
        (t, (tile, first)): (usize, (usize, usize)),
        (next_grads, patch_grads, coef_grads): (&[f32], &mut [f32], &mut [[f64; 4]]),
        mut ws: MutexGuard<'_, Workspace>,
    ) {
        let live = self.live_lanes(tile);
        let Workspace { acts, grads } = &mut *ws;
        let acts: &[f32] = match self.memory {
            ActivationMemory::Recompute => acts,
            ActivationMemory::Store => &self.stored_acts[t * self.geometry.tiles() + tile],
            ActivationMemory::ForwardOnly => unreachable!("checked by backward"),
        };
        let plan = &self.plans.backward;
        seed_output_grads(circuit, plan, (tile, first), t, masks, next_grads, grads);
        let tables = (patch_grads, &mut grads[..]);
        kernel::backward(plan, coefs, acts, tables, coef_grads, live);
        if let Some(tap) = tap {
            tap.tile((t, tile), (acts, grads, live), plan);
        }
    }
}
