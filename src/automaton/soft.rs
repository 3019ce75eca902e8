//! Soft rollout over tiles of lanes, and backpropagation through all its steps.
//!
//! States are tile-blocked (`[tile][channel][TILE]`) so each tile writes one contiguous
//! chunk and tiles run in parallel without sharing anything writable. Per-tile
//! coefficient gradients are summed over tiles in tile order at the end, so the result
//! is the same for any number of threads.

use std::sync::Mutex;

use rayon::prelude::*;

use crate::automaton::geometry::{Geometry, NO_LANE};
use crate::automaton::grid::Grids;
use crate::automaton::masks::FireMasks;
use crate::kernels::soft::{self as kernel, BackwardPlan, TILE};
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;

/// Whether backward keeps every step's activations or recomputes them from the states.
///
/// Measured on the reference checkerboard (batch 2, 20 steps, 2 threads, AMD EPYC with
/// 1 MiB L2 per core, `cargo bench --bench trainer -- epoch`): recompute 23.6 ms per epoch,
/// store 52.8 ms and 192 MB more memory. Streaming stored activations back from memory
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
    states: Vec<f32>,
    /// Store mode: the activations of every (step, tile).
    stored_acts: Vec<Vec<f32>>,
    /// One scratch table pair per worker thread, so memory does not grow with the grid.
    workspaces: Vec<Mutex<Workspace>>,
    patch_grads: Vec<f32>,
    state_grads: Vec<f32>,
    next_state_grads: Vec<f32>,
    /// Per-tile coefficient gradients, allocated by the first backward pass.
    tile_coef_grads: Vec<Vec<[f64; 4]>>,
    params: usize,
    plan: BackwardPlan,
}

/// Scratch activations and gradients of one tile (`rows x TILE` each).
struct Workspace {
    acts: Vec<f32>,
    grads: Vec<f32>,
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
        SoftRollout {
            channels,
            steps,
            memory,
            states: vec![0.0; kept_states * state_len],
            stored_acts: vec![vec![0.0; rows * TILE]; stored],
            workspaces: (0..workers)
                .map(|_| {
                    Mutex::new(Workspace {
                        acts: vec![0.0; rows * TILE],
                        grads: vec![0.0; if grad_len > 0 { rows * TILE } else { 0 }],
                    })
                })
                .collect(),
            patch_grads: vec![0.0; grad_len * PATCH],
            state_grads: vec![0.0; grad_len],
            next_state_grads: vec![0.0; grad_len],
            tile_coef_grads: Vec::new(),
            params,
            plan: BackwardPlan::new(
                &circuit.gates,
                circuit.input_rows,
                (0..channels).map(|c| circuit.output_row(c)),
            ),
            geometry,
        }
    }

    /// This thread's workspace. Results never depend on which one a tile gets: every
    /// row a tile reads is written first.
    fn workspace(&self) -> std::sync::MutexGuard<'_, Workspace> {
        let i = rayon::current_thread_index().unwrap_or(0) % self.workspaces.len();
        self.workspaces[i]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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

    /// Runs all steps with the given gate coefficients.
    pub fn forward(&mut self, circuit: &Circuit, coefs: &[[f32; 4]], masks: Option<&FireMasks>) {
        self.forward_observed(circuit, coefs, masks, |_| {});
    }

    /// [`forward`](Self::forward), calling `after_step(t)` once step `t` is done (to show
    /// progress on long rollouts).
    pub fn forward_observed(
        &mut self,
        circuit: &Circuit,
        coefs: &[[f32; 4]],
        masks: Option<&FireMasks>,
        mut after_step: impl FnMut(usize),
    ) {
        let len = self.state_len();
        let tiles = self.geometry.tiles();
        let mut states = std::mem::take(&mut self.states);
        let mut stored = std::mem::take(&mut self.stored_acts);
        for t in 0..self.steps {
            let (prev, next) = prev_and_next(&mut states, len, self.step_slots(t));
            let work = |tile: usize, next_tile: &mut [f32], acts: &mut [f32]| {
                gather_patch(&self.geometry, circuit.channels, tile, prev, acts);
                kernel::forward(&circuit.gates, coefs, circuit.input_rows, acts);
                write_outputs(circuit, tile, t, acts, prev, next_tile, masks);
            };
            let chunks = next.par_chunks_mut(circuit.channels * TILE).enumerate();
            match self.memory {
                ActivationMemory::Recompute | ActivationMemory::ForwardOnly => {
                    chunks.for_each(|(tile, next_tile)| {
                        let mut ws = self.workspace();
                        work(tile, next_tile, &mut ws.acts);
                    });
                }
                ActivationMemory::Store => chunks
                    .zip(stored[t * tiles..(t + 1) * tiles].par_iter_mut())
                    .for_each(|((tile, next_tile), acts)| work(tile, next_tile, acts)),
            }
            after_step(t);
        }
        self.states = states;
        self.stored_acts = stored;
    }

    /// Backpropagates the loss's gradients on the last states (tile-blocked, like a
    /// state; `loss_grads[j]` is on the state after step `steps - j`) through every step
    /// and returns the gradient of every parameter's four coefficients.
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
        let len = self.state_len();
        let tiles = self.geometry.tiles();
        let channels = circuit.channels;
        let patch_len = channels * PATCH * TILE;
        if self.tile_coef_grads.is_empty() {
            self.tile_coef_grads = vec![vec![[0.0; 4]; self.params]; tiles];
        }
        self.next_state_grads.copy_from_slice(&loss_grads[0]);
        let mut tile_coef_grads = std::mem::take(&mut self.tile_coef_grads);
        let mut patch_grads = std::mem::take(&mut self.patch_grads);
        tile_coef_grads
            .par_iter_mut()
            .for_each(|g| g.fill([0.0; 4]));
        for t in (0..self.steps).rev() {
            let state = &self.states[t * len..(t + 1) * len];
            let next_grads = &self.next_state_grads;
            patch_grads
                .par_chunks_mut(patch_len)
                .zip(tile_coef_grads.par_iter_mut())
                .enumerate()
                .for_each(|(tile, (patch_grads, tile_coef_grads))| {
                    let mut ws = self.workspace();
                    let Workspace { acts, grads } = &mut *ws;
                    let acts: &[f32] = match self.memory {
                        ActivationMemory::Recompute => {
                            gather_patch(&self.geometry, channels, tile, state, acts);
                            kernel::forward(&circuit.gates, coefs, circuit.input_rows, acts);
                            acts
                        }
                        ActivationMemory::Store => &self.stored_acts[t * tiles + tile],
                        ActivationMemory::ForwardOnly => unreachable!("checked above"),
                    };
                    seed_output_grads(circuit, tile, t, masks, next_grads, grads);
                    kernel::backward(
                        &circuit.gates,
                        &self.plan,
                        coefs,
                        acts,
                        grads,
                        tile_coef_grads,
                    );
                    patch_grads.copy_from_slice(&grads[..patch_len]);
                });
            if t > 0 {
                self.grads_before_step(&patch_grads, channels, t, masks, loss_grads);
            }
        }
        sum_in_tile_order(&tile_coef_grads, coef_grads);
        self.tile_coef_grads = tile_coef_grads;
        self.patch_grads = patch_grads;
    }

    /// Makes `next_state_grads` the gradient of the state before step `t`: what flows back
    /// through step `t`, plus the loss's own gradient on that state.
    fn grads_before_step(
        &mut self,
        patch_grads: &[f32],
        channels: usize,
        t: usize,
        masks: Option<&FireMasks>,
        loss_grads: &[Vec<f32>],
    ) {
        self.scatter_patch_grads(patch_grads, channels, t, masks);
        std::mem::swap(&mut self.state_grads, &mut self.next_state_grads);
        if let Some(loss_grads) = loss_grads.get(self.steps - t) {
            for (g, l) in self.next_state_grads.iter_mut().zip(loss_grads) {
                *g += l;
            }
        }
    }

    /// Gradient of the state before step `t`: what cells that did not fire pass on, plus
    /// what every reader's patch received, summed in patch order.
    fn scatter_patch_grads(
        &mut self,
        patch_grads: &[f32],
        channels: usize,
        t: usize,
        masks: Option<&FireMasks>,
    ) {
        let geometry = &self.geometry;
        let next_grads = &self.next_state_grads;
        let patch_len = channels * PATCH * TILE;
        self.state_grads
            .par_chunks_mut(channels * TILE)
            .enumerate()
            .for_each(|(tile, out)| {
                for i in 0..TILE {
                    let lane = tile * TILE + i;
                    let kept = masks.is_some_and(|m| !m.fires(t, lane));
                    for c in 0..channels {
                        let mut g = if kept {
                            next_grads[tile * channels * TILE + c * TILE + i]
                        } else {
                            0.0
                        };
                        for (p, &reader) in geometry.readers[lane].iter().enumerate() {
                            if reader != NO_LANE {
                                let r = reader as usize;
                                g += patch_grads
                                    [(r / TILE) * patch_len + (c * PATCH + p) * TILE + r % TILE];
                            }
                        }
                        out[c * TILE + i] = g;
                    }
                }
            });
    }
}

/// The state in slot `from` to read and the one in slot `to` to write (`from != to`).
fn prev_and_next(
    states: &mut [f32],
    len: usize,
    (from, to): (usize, usize),
) -> (&[f32], &mut [f32]) {
    if from < to {
        let (before, after) = states.split_at_mut(to * len);
        (&before[from * len..][..len], &mut after[..len])
    } else {
        let (before, after) = states.split_at_mut(from * len);
        (&after[..len], &mut before[to * len..][..len])
    }
}

/// Writes a tile's new state: the circuit's output where the cell fires, else the old value.
fn write_outputs(
    circuit: &Circuit,
    tile: usize,
    step: usize,
    acts: &[f32],
    prev: &[f32],
    next_tile: &mut [f32],
    masks: Option<&FireMasks>,
) {
    for c in 0..circuit.channels {
        let out = &acts[circuit.output_row(c) * TILE..][..TILE];
        let old = &prev[tile * circuit.channels * TILE + c * TILE..][..TILE];
        let new = &mut next_tile[c * TILE..][..TILE];
        for i in 0..TILE {
            let fires = masks.is_none_or(|m| m.fires(step, tile * TILE + i));
            new[i] = if fires { out[i] } else { old[i] };
        }
    }
}

/// Seeds a tile's output gradient rows with the gradient of the next state (the kernel
/// reads no other row before writing it); a cell that did not fire at step `t` passes
/// no gradient through its gates.
fn seed_output_grads(
    circuit: &Circuit,
    tile: usize,
    t: usize,
    masks: Option<&FireMasks>,
    next_grads: &[f32],
    grads: &mut [f32],
) {
    let channels = circuit.channels;
    for c in 0..channels {
        let seed = &mut grads[circuit.output_row(c) * TILE..][..TILE];
        let from = &next_grads[tile * channels * TILE + c * TILE..][..TILE];
        for i in 0..TILE {
            let fires = masks.is_none_or(|m| m.fires(t, tile * TILE + i));
            seed[i] = if fires { from[i] } else { 0.0 };
        }
    }
}

#[inline]
pub fn state_index(channels: usize, channel: usize, lane: usize) -> usize {
    (lane / TILE) * channels * TILE + channel * TILE + lane % TILE
}

/// Fills rows `c*9 + p` of a tile's activations with what each lane sees.
fn gather_patch(
    geometry: &Geometry,
    channels: usize,
    tile: usize,
    state: &[f32],
    acts: &mut [f32],
) {
    for c in 0..channels {
        for p in 0..PATCH {
            let out = &mut acts[(c * PATCH + p) * TILE..][..TILE];
            for (i, v) in out.iter_mut().enumerate() {
                let n = geometry.neighbors[tile * TILE + i][p];
                *v = if n == NO_LANE {
                    0.0
                } else {
                    state[state_index(channels, c, n as usize)]
                };
            }
        }
    }
}

/// Adds every tile's coefficient gradients in tile order, whatever the thread count, so
/// the sum is the same on any machine.
fn sum_in_tile_order(tile_coef_grads: &[Vec<[f64; 4]>], coef_grads: &mut [[f64; 4]]) {
    for tile_grads in tile_coef_grads {
        for (total, g) in coef_grads.iter_mut().zip(tile_grads) {
            for k in 0..4 {
                total[k] += g[k];
            }
        }
    }
}
