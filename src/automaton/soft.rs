//! Soft rollout over tiles of lanes, and backpropagation through all its steps.
//!
//! States are tile-blocked (`[tile][channel][TILE]`) so each tile writes one contiguous
//! chunk and tiles run in parallel without sharing anything writable. Per-tile
//! coefficient gradients are summed over tiles in tile order at the end, so the result
//! is the same for any number of threads.

use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use crate::automaton::geometry::Geometry;
use crate::automaton::grid::Grids;
use crate::automaton::masks::FireMasks;
use crate::automaton::patch_shifts::PatchShifts;
pub use crate::automaton::soft_tiles::state_index;
use crate::automaton::soft_tiles::{
    gather_patch, prev_and_next, scatter_patch_grads, seed_output_grads, split_runs,
    sum_in_tile_order, write_outputs,
};
use crate::kernels::plan::{BackwardPlan, ForwardPlan, ForwardRows};
use crate::kernels::soft::{self as kernel, TILE};
use crate::kernels::table::{self, table, Table};
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;

/// Whether backward keeps every step's activations or recomputes them from the states.
///
/// Measured on the reference checkerboard (batch 2, 20 steps, 2 threads, AMD EPYC with
/// 1 MiB L2 per core, `cargo bench --bench trainer -- epoch`, 2026-11-23): recompute
/// 26.5 ms per epoch, store 54.1 ms and 192 MB more memory. Streaming stored activations back from memory
/// costs more than computing them again, so recompute is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ActivationMemory {
    /// Keep only the grid states; recompute a step's activations during backward.
    #[default]
    Recompute,
    /// Keep the activations of all steps.
    Store,
    /// Keep only the latest state: a forward pass without backward (evaluation), whose
    /// memory does not grow with the steps.
    ForwardOnly,
}

pub struct SoftRollout {
    geometry: Geometry,
    channels: usize,
    steps: usize,
    memory: ActivationMemory,
    /// Tile-blocked states: `steps + 1` of them (state `t` is the grid before step `t`),
    /// or two used in turn in [`ActivationMemory::ForwardOnly`].
    states: Table<f32>,
    /// Store mode: the activations of every (step, tile).
    stored_acts: Vec<Table<f32>>,
    /// One scratch table pair per worker thread, so memory does not grow with the grid.
    workspaces: Vec<Mutex<Workspace>>,
    /// The lengths of a workspace's activations and gradients.
    workspace_lens: (usize, usize),
    patch_grads: Table<f32>,
    state_grads: Table<f32>,
    next_state_grads: Table<f32>,
    /// Per-tile coefficient gradients, allocated by the first backward pass.
    tile_coef_grads: Vec<Vec<[f64; 4]>>,
    params: usize,
    /// Shared with the wiring it came from (a start's two objectives take turns with one).
    plans: Arc<RolloutPlans>,
    /// Runs of tiles that read only each other ([`Geometry::tile_runs`]).
    runs: Vec<Range<usize>>,
    /// How a tile's patch is gathered from the state (and its gradient scattered back),
    /// made by the first step: a rollout that never runs (an evaluation of the hard
    /// circuit only) does not pay for it.
    shifts: OnceLock<PatchShifts>,
}

/// Scratch activations and gradients of one tile (`rows x TILE` each), allocated when a
/// thread first needs them, so a rollout that never runs holds none.
struct Workspace {
    acts: Table<f32>,
    grads: Table<f32>,
}

impl Workspace {
    /// Sizes the tables, keeping their memory: a rollout that changes its wiring
    /// ([`SoftRollout::swap_plan`]) may need a few gradient rows more or fewer.
    fn sized(&mut self, acts: usize, grads: usize) -> &mut Self {
        self.acts.resize(acts, 0.0);
        self.grads.resize(grads, 0.0);
        self
    }
}

/// What a rollout runs of one wiring besides the circuit itself: where the forward
/// rollout keeps its rows (the recomputation before backward keeps every row), and the
/// order in which backward reuses its gradient rows.
#[derive(Debug, Clone)]
pub struct RolloutPlans {
    /// Only what the new state needs, in slots that stay in cache.
    new_state: ForwardPlan,
    backward: BackwardPlan,
}

impl RolloutPlans {
    pub fn of(circuit: &Circuit) -> Self {
        let outputs = || (0..circuit.channels).map(|c| circuit.output_row(c));
        let (gates, input_rows) = (&circuit.gates, circuit.input_rows);
        RolloutPlans {
            new_state: ForwardPlan::kept_only(gates, input_rows, outputs()),
            backward: BackwardPlan::new(gates, input_rows, outputs()),
        }
    }
}

/// Every row of `circuit` its own: the activations backward reads.
fn every_row(circuit: &Circuit) -> ForwardRows<'_> {
    ForwardRows::Every {
        gates: &circuit.gates,
        input_rows: circuit.input_rows,
    }
}

impl SoftRollout {
    /// Builds the buffers; call it inside the thread pool that will run it (one
    /// workspace per thread of that pool).
    pub fn new(
        geometry: Geometry,
        circuit: &Circuit,
        steps: usize,
        params: usize,
        memory: ActivationMemory,
    ) -> Self {
        assert_eq!(
            geometry.tile, TILE,
            "soft rollouts use the kernel's tile size"
        );
        let tiles = geometry.tiles();
        let channels = circuit.channels;
        let rows = circuit.rows();
        let state_len = tiles * channels * TILE;
        let stored = match memory {
            ActivationMemory::Store => tiles * steps,
            ActivationMemory::Recompute | ActivationMemory::ForwardOnly => 0,
        };
        let (kept_states, grad_len) = match memory {
            ActivationMemory::ForwardOnly => (2, 0),
            _ => (steps + 1, state_len),
        };
        let workers = rayon::current_num_threads().max(1);
        let plans = Arc::new(RolloutPlans::of(circuit));
        SoftRollout {
            channels,
            steps,
            memory,
            states: table(0.0, kept_states * state_len),
            stored_acts: (0..stored).map(|_| table(0.0, rows * TILE)).collect(),
            workspaces: (0..workers)
                .map(|_| {
                    Mutex::new(Workspace {
                        acts: table(0.0, 0),
                        grads: table(0.0, 0),
                    })
                })
                .collect(),
            workspace_lens: (
                rows * TILE,
                if grad_len > 0 {
                    plans.backward.gradient_rows() * TILE
                } else {
                    0
                },
            ),
            patch_grads: table(0.0, grad_len * PATCH),
            state_grads: table(0.0, grad_len),
            next_state_grads: table(0.0, grad_len),
            tile_coef_grads: Vec::new(),
            params,
            plans,
            runs: geometry.tile_runs(),
            shifts: OnceLock::new(),
            geometry,
        }
    }

    /// This thread's workspace. Results never depend on which one a tile gets: every
    /// row a tile reads is written first.
    fn workspace(&self) -> std::sync::MutexGuard<'_, Workspace> {
        let i = rayon::current_thread_index().unwrap_or(0) % self.workspaces.len();
        let mut workspace = self.workspaces[i]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (acts, grads) = self.workspace_lens;
        workspace.sized(acts, grads);
        workspace
    }

    /// Exchanges the plans for another wiring's (of a model of the same shape).
    pub fn swap_plans(&mut self, plans: &mut Arc<RolloutPlans>) {
        std::mem::swap(&mut self.plans, plans);
        if self.workspace_lens.1 > 0 {
            self.workspace_lens.1 = self.plans.backward.gradient_rows() * TILE;
        }
    }

    fn shifts(&self) -> &PatchShifts {
        self.shifts.get_or_init(|| PatchShifts::new(&self.geometry))
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    fn state_len(&self) -> usize {
        self.geometry.tiles() * self.channels * TILE
    }

    /// Index of (channel, lane) in a tile-blocked state.
    #[inline]
    pub fn state_index(&self, channel: usize, lane: usize) -> usize {
        state_index(self.channels, channel, lane)
    }

    /// Loads the initial grids (their batch and size must match the geometry).
    pub fn set_initial(&mut self, init: &Grids) {
        assert_eq!(
            init.batch * init.cells(),
            self.geometry.lanes,
            "grids match the geometry"
        );
        let state_len = self.state_len();
        let state = &mut self.states[..state_len];
        state.fill(0.0);
        for lane in 0..self.geometry.lanes {
            for c in 0..self.channels {
                state[state_index(self.channels, c, lane)] = init.values[lane * self.channels + c];
            }
        }
    }

    /// The state after the last step.
    pub fn final_state(&self) -> &[f32] {
        self.state(self.steps)
    }

    /// The state after `step` steps (0: the initial state). A forward-only rollout
    /// keeps the last two steps' states.
    pub fn state(&self, step: usize) -> &[f32] {
        let len = self.state_len();
        let slot = self.slot(step);
        &self.states[slot * len..(slot + 1) * len]
    }

    /// Where the state after `step` steps is kept.
    fn slot(&self, step: usize) -> usize {
        match self.memory {
            ActivationMemory::ForwardOnly => {
                assert!(
                    step + 2 > self.steps,
                    "a forward-only rollout keeps no older states"
                );
                step % 2
            }
            ActivationMemory::Recompute | ActivationMemory::Store => step,
        }
    }

    /// The slots of the states before and after step `t`.
    fn step_slots(&self, t: usize) -> (usize, usize) {
        match self.memory {
            ActivationMemory::ForwardOnly => (t % 2, (t + 1) % 2),
            ActivationMemory::Recompute | ActivationMemory::Store => (t, t + 1),
        }
    }

    /// Runs all steps with the given gate coefficients; each run of tiles that read only
    /// each other (a grid, see [`Geometry::tile_runs`]) steps on its own, so threads
    /// do not wait for each other between steps.
    pub fn forward(&mut self, circuit: &Circuit, coefs: &[[f32; 4]], masks: Option<&FireMasks>) {
        if self.runs.len() < 2 || self.memory == ActivationMemory::Store {
            return self.forward_observed(circuit, coefs, masks, |_| {});
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
        // Stored activations are read by backward: every row. Otherwise only the new
        // state is, and a table that stays in cache is faster to write.
        let rows = match stored {
            Some(_) => every_row(circuit),
            None => ForwardRows::Plan(&self.plans.new_state),
        };
        let work = |i: usize, next_tile: &mut [f32], acts: &mut [f32]| {
            let tile = (first + i, first);
            gather_patch(self.shifts(), circuit.channels, tile, prev, acts);
            kernel::forward(rows, coefs, acts);
            write_outputs(circuit, rows, tile, t, acts, prev, next_tile, masks);
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
        let windows = split_runs(&mut patch_grads, runs, patch_len)
            .into_iter()
            .zip(split_runs(&mut tile_coef_grads, runs, 1))
            .zip(split_runs(&mut state_grads, runs, tile_len))
            .zip(split_runs(&mut next_grads, runs, tile_len))
            .zip(runs);
        let windows: Vec<_> = windows.collect();
        windows
            .into_par_iter()
            .for_each(|((((patch, coef), mut state), mut next), run)| {
                let window = run.start * tile_len..run.end * tile_len;
                next.copy_from_slice(&loss_grads[0][window.clone()]);
                for t in (0..self.steps).rev() {
                    self.backward_step(circuit, coefs, masks, (t, run.start), next, patch, coef);
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
                    if let Some(loss_grads) = loss_grads.get(self.steps - t) {
                        for (g, l) in next.iter_mut().zip(&loss_grads[window.clone()]) {
                            *g += l;
                        }
                    }
                }
            });
        sum_in_tile_order(&tile_coef_grads, coef_grads);
        self.tile_coef_grads = tile_coef_grads;
        self.patch_grads = patch_grads;
        self.state_grads = state_grads;
        self.next_state_grads = next_grads;
    }

    /// Back through step `t` on the window of tiles `first..`: each tile's patch
    /// gradient into `patch_grads`, its coefficient gradients added to `coef_grads`.
    #[allow(clippy::too_many_arguments)]
    fn backward_step(
        &self,
        circuit: &Circuit,
        coefs: &[[f32; 4]],
        masks: Option<&FireMasks>,
        (t, first): (usize, usize),
        next_grads: &[f32],
        patch_grads: &mut [f32],
        coef_grads: &mut [Vec<[f64; 4]>],
    ) {
        let len = self.state_len();
        let state = &self.states[t * len..(t + 1) * len];
        let patch_len = circuit.channels * PATCH * TILE;
        patch_grads
            .par_chunks_mut(patch_len)
            .zip(coef_grads.par_iter_mut())
            .enumerate()
            .for_each(|(i, (patch_grads, tile_coef_grads))| {
                let tile = first + i;
                let mut ws = self.workspace();
                let Workspace { acts, grads } = &mut *ws;
                let acts: &[f32] = match self.memory {
                    ActivationMemory::Recompute => {
                        gather_patch(self.shifts(), circuit.channels, (tile, 0), state, acts);
                        kernel::forward(every_row(circuit), coefs, acts);
                        acts
                    }
                    ActivationMemory::Store => &self.stored_acts[t * self.geometry.tiles() + tile],
                    ActivationMemory::ForwardOnly => unreachable!("checked by backward"),
                };
                seed_output_grads(
                    circuit,
                    &self.plans.backward,
                    (tile, first),
                    t,
                    masks,
                    next_grads,
                    grads,
                );
                kernel::backward(&self.plans.backward, coefs, acts, grads, tile_coef_grads);
                patch_grads.copy_from_slice(&grads[..patch_len]);
            });
    }
}
