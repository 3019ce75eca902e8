//! The soft rollout's forward steps: each run of tiles on its own, one run as phases,
//! or all in step.

use rayon::prelude::*;

use crate::automaton::masks::FireMasks;
use crate::automaton::soft::phases::{run_phases, PhaseBuffer};
use crate::automaton::soft::{every_row, ActivationMemory, SoftRollout};
use crate::automaton::soft_tiles::{gather_patch, prev_and_next, split_runs, write_outputs};
use crate::kernels::plan::ForwardRows;
use crate::kernels::soft::{self as kernel, TILE};
use crate::kernels::table::{self, Table};
use crate::model::circuit::Circuit;

impl SoftRollout {
    /// Runs all steps with the given gate coefficients; each run of tiles that read only
    /// each other (a grid, see [`Geometry::tile_runs`]) steps on its own, so threads
    /// do not wait for each other between steps. A rollout that is one run steps as
    /// phases that the threads share (`run_phases`), an asynchronous one on its firing
    /// cells only.
    ///
    /// [`Geometry::tile_runs`]: crate::automaton::geometry::Geometry::tile_runs
    pub fn forward(&mut self, circuit: &Circuit, coefs: &[[f32; 4]], masks: Option<&FireMasks>) {
        match (self.memory, masks) {
            (ActivationMemory::Store, _) => {
                return self.forward_observed(circuit, coefs, masks, |_| {});
            }
            (_, None) if self.runs.len() < 2 => return self.forward_in_phases(circuit, coefs),
            (_, Some(masks)) if self.runs.len() < 2 => {
                return self.forward_firing_in_phases(circuit, coefs, masks);
            }
            _ => {}
        }
        let len = self.state_len();
        let tile_len = circuit.channels * TILE;
        let mut states = table::take(&mut self.states);
        let mut windows: Vec<Vec<&mut [f32]>> = self.runs.iter().map(|_| Vec::new()).collect();
        for slot in states.chunks_mut(len) {
            for (run, window) in windows
                .iter_mut()
                .zip(split_runs(slot, &self.runs, tile_len))
            {
                run.push(window);
            }
        }
        let this = &*self;
        windows
            .into_par_iter()
            .zip(&this.runs)
            .for_each(|(mut slots, run)| {
                for t in 0..this.steps {
                    let (prev, next) = prev_and_next(&mut slots, this.step_slots(t));
                    this.forward_step(circuit, coefs, masks, (t, run.start), prev, next, None);
                }
            });
        self.states = states;
    }

    /// [`forward`](Self::forward) with all tiles in step, calling `after_step(t)` once
    /// step `t` is done (to show progress on long rollouts).
    pub fn forward_observed(
        &mut self,
        circuit: &Circuit,
        coefs: &[[f32; 4]],
        masks: Option<&FireMasks>,
        mut after_step: impl FnMut(usize),
    ) {
        let len = self.state_len();
        let tiles = self.geometry.tiles();
        let mut states = table::take(&mut self.states);
        let mut stored = std::mem::take(&mut self.stored_acts);
        for t in 0..self.steps {
            let mut slots: Vec<&mut [f32]> = states.chunks_mut(len).collect();
            let (prev, next) = prev_and_next(&mut slots, self.step_slots(t));
            let stored = match self.memory {
                ActivationMemory::Store => Some(&mut stored[t * tiles..(t + 1) * tiles]),
                ActivationMemory::Recompute | ActivationMemory::ForwardOnly => None,
            };
            self.forward_step(circuit, coefs, masks, (t, 0), prev, next, stored);
            after_step(t);
        }
        self.states = states;
        self.stored_acts = stored;
    }

    /// Step `t` on the window of tiles `first..` that `prev` and `next` hold; `stored`
    /// (store mode) receives each tile's activations.
    #[allow(clippy::too_many_arguments)]
    fn forward_step(
        &self,
        circuit: &Circuit,
        coefs: &[[f32; 4]],
        masks: Option<&FireMasks>,
        (t, first): (usize, usize),
        prev: &[f32],
        next: &mut [f32],
        stored: Option<&mut [Table<f32>]>,
    ) {
        if let (Some(masks), None) = (masks, &stored) {
            if self.forward_firing(circuit, coefs, masks, (t, first), prev, next) {
                return;
            }
        }
        // Stored activations are read by backward: every row. Otherwise only the new
        // state is, and a table that stays in cache is faster to write.
        let rows = match stored {
            Some(_) => every_row(circuit),
            None => ForwardRows::Plan(&self.plans.new_state),
        };
        let work = |i: usize, next_tile: &mut [f32], acts: &mut [f32]| {
            let tile = (first + i, first);
            self.forward_tile(
                circuit,
                (coefs, masks),
                rows,
                (t, tile),
                (prev, next_tile),
                acts,
            );
        };
        let chunks = next.par_chunks_mut(circuit.channels * TILE).enumerate();
        match stored {
            None => chunks.for_each(|(i, next_tile)| {
                let mut ws = self.workspace();
                work(i, next_tile, &mut ws.acts);
            }),
            Some(stored) => chunks
                .zip(stored.par_iter_mut())
                .for_each(|((i, next_tile), acts)| work(i, next_tile, acts)),
        }
    }

    /// Step `t` on one tile (`tile` is `(tile, first)`, `prev` the window of tiles
    /// `first..`): its patch gathered into `acts`, the gates of `rows` run, its new state
    /// written to `next_tile`.
    fn forward_tile(
        &self,
        circuit: &Circuit,
        (coefs, masks): (&[[f32; 4]], Option<&FireMasks>),
        rows: ForwardRows<'_>,
        (t, tile): (usize, (usize, usize)),
        (prev, next_tile): (&[f32], &mut [f32]),
        acts: &mut [f32],
    ) {
        let live = self.live_lanes(tile.0);
        gather_patch(self.shifts(), circuit.channels, tile, prev, acts);
        kernel::forward(rows, coefs, acts, live);
        let written = (masks, self.unit);
        write_outputs(circuit, rows, tile, t, acts, prev, next_tile, written, live);
    }

    /// [`forward`](Self::forward) of a rollout that is one run of tiles, every step a
    /// phase of [`run_phases`]: the same bits as step after step.
    fn forward_in_phases(&mut self, circuit: &Circuit, coefs: &[[f32; 4]]) {
        let (len, tile_len) = (self.state_len(), circuit.channels * TILE);
        let rows = ForwardRows::Plan(&self.plans.new_state);
        let mut states = table::take(&mut self.states);
        let buffer = PhaseBuffer::new(&mut states);
        let this = &*self;
        run_phases(self.steps, self.geometry.tiles(), |t, tile| {
            let (from, to) = this.step_slots(t);
            // SAFETY: step t reads state `from` whole and writes its tile of state `to`
            // (`from != to`); the step before wrote `from`, and the step after reads `to`.
            let (prev, next_tile) = unsafe {
                (
                    buffer.part(from * len, len),
                    buffer.part_mut(to * len + tile * tile_len, tile_len),
                )
            };
            let mut ws = this.workspace();
            let at = (t, (tile, 0));
            this.forward_tile(
                circuit,
                (coefs, None),
                rows,
                at,
                (prev, next_tile),
                &mut ws.acts,
            );
        });
        self.states = states;
    }
}
