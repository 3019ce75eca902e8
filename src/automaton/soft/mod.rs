//! Soft rollout over tiles of lanes, and backpropagation through all its steps.
//!
//! States are tile-blocked (`[tile][channel][TILE]`) so each tile writes one contiguous
//! chunk and tiles run in parallel without sharing anything writable. Per-tile
//! coefficient gradients are summed over tiles in tile order at the end, so the result
//! is the same for any number of threads.
//!
//! The rollout's buffers and states are here; `forward` runs the steps and `backward`
//! goes back through them.

mod backward;
mod backward_firing;
mod forward;
mod forward_firing;
mod phases;

use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use crate::automaton::geometry::Geometry;
use crate::automaton::grid::Grids;
use crate::automaton::patch_shifts::PatchShifts;
pub use crate::automaton::soft_tiles::state_index;
use crate::kernels::plan::{BackwardPlan, ForwardPlan, ForwardRows};
use crate::kernels::soft::{live_lanes as kernel_lanes, TILE};
use crate::kernels::table::{table, Table};
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
    /// Shared with the wiring it came from.
    plans: Arc<RolloutPlans>,
    /// Runs of tiles that read only each other ([`Geometry::tile_runs`]).
    runs: Vec<Range<usize>>,
    /// How a tile's patch is gathered from the state (and its gradient scattered back),
    /// made by the first step: a rollout that never runs (an evaluation of the hard
    /// circuit only) does not pay for it.
    shifts: OnceLock<PatchShifts>,
    /// Whether each new state is clamped to [0, 1] ([`SoftRollout::keep_states_in_unit`]).
    unit: bool,
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
        Self::keeping(circuit, usize::MAX)
    }

    /// [`RolloutPlans::of`], with backward keeping the gradients of rows `kept_from..`
    /// for a [`BackwardTap`] ([`BackwardPlan::keeping`]).
    pub fn keeping(circuit: &Circuit, kept_from: usize) -> Self {
        let outputs = || (0..circuit.channels).map(|c| circuit.output_row(c));
        let (gates, input_rows) = (&circuit.gates, circuit.input_rows);
        RolloutPlans {
            new_state: ForwardPlan::kept_only(gates, input_rows, outputs()),
            backward: BackwardPlan::keeping(gates, input_rows, outputs(), kept_from),
        }
    }
}

/// Sees every (step, tile) of a backward pass once that tile's gates are through: its
/// activations (`rows x TILE`, every row) and its gradient table, where the rows that
/// the rollout's plans keep ([`RolloutPlans::keeping`]) hold their gradients
/// (`plan.kept_slot`). Called from the pool's threads, a tile's steps in reverse order.
pub trait BackwardTap: Sync {
    /// `tile_rows` is `(acts, grads, live)`: the tile's tables, of which only the first
    /// `live` lanes were run (the others are padding).
    fn tile(
        &self,
        step_tile: (usize, usize),
        tile_rows: (&[f32], &[f32], usize),
        plan: &BackwardPlan,
    );
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
            unit: false,
            geometry,
        }
    }

    /// Clamps every new state to [0, 1] when `on`; backward passes the gradient through
    /// the clamp unchanged (straight-through). Soft gates of inputs in [0, 1] give outputs
    /// in [0, 1] in exact arithmetic, but f32 rounding leaves some a few ulps outside
    /// (-6e-8 after one step), and a circuit rolled out past the steps it was trained on
    /// can amplify that until the state overflows. Off by default: it changes the
    /// rounding of every run.
    pub fn keep_states_in_unit(&mut self, on: bool) {
        self.unit = on;
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

    /// The lanes the kernels run on `tile`: its blocks that hold a real lane.
    fn live_lanes(&self, tile: usize) -> usize {
        kernel_lanes(self.geometry.real_lanes(tile))
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

    /// The steps of one run.
    pub fn steps(&self) -> usize {
        self.steps
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

    /// The first step whose state holds a value that is not finite, among the states
    /// this rollout keeps. In exact arithmetic a soft state stays in [0, 1]; in f32 a
    /// rounding can take it just outside, and a long rollout can amplify that until it
    /// overflows, which is what a NaN loss then comes from.
    pub fn first_non_finite_step(&self) -> Option<usize> {
        let kept = match self.memory {
            ActivationMemory::ForwardOnly => self.steps.saturating_sub(1),
            ActivationMemory::Recompute | ActivationMemory::Store => 0,
        };
        (kept..=self.steps).find(|&step| self.state(step).iter().any(|x| !x.is_finite()))
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gates::{coefficient_table, soft_coefficients, softmax};
    use crate::model::network::Model;
    use crate::model::task::TaskKind;
    use crate::tasks::preset;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The step `first_non_finite_step` names: none for mixtures of the 16 ops, which
    /// keep every state in [0, 1]; for gates that double and add (coefficients of 2
    /// everywhere, outside what the ops can mix) the first step that overflows, with
    /// every state before it finite.
    const STEPS: usize = 20;

    /// A checkerboard circuit on one random 8x8 grid, and op mixtures for its gates.
    struct Setup {
        circuit: Circuit,
        init: Grids,
        mixtures: Vec<[f32; 4]>,
    }

    impl Setup {
        fn new() -> Self {
            let (mut config, settings) = preset(TaskKind::Checkerboard, false);
            (config.height, config.width) = (8, 8);
            let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
            let model = Model::new(config.clone(), &mut rng).unwrap();
            let mut init = Grids::zeros(1, 8, 8, config.channels);
            init.values.iter_mut().for_each(|v| *v = rng.random());
            let table = coefficient_table();
            let mixtures = (0..model.gate_count())
                .map(|_| {
                    soft_coefficients(&softmax(&std::array::from_fn(|_| rng.random())), &table)
                })
                .collect();
            Setup {
                circuit: Circuit::compile(&model),
                init,
                mixtures,
            }
        }

        /// The rollout of `coefs` over [`STEPS`] steps, its states clamped when `unit`.
        fn run(&self, coefs: &[[f32; 4]], unit: bool) -> SoftRollout {
            let geometry = Geometry::new(1, 8, 8, false, TILE);
            let memory = ActivationMemory::Recompute;
            let params = coefs.len();
            let mut rollout = SoftRollout::new(geometry, &self.circuit, STEPS, params, memory);
            rollout.keep_states_in_unit(unit);
            rollout.set_initial(&self.init);
            rollout.forward(&self.circuit, coefs, None);
            rollout
        }
    }

    #[test]
    fn the_first_step_that_overflows_is_found() {
        let setup = Setup::new();
        let params = setup.mixtures.len();
        let run = |coefs: &[[f32; 4]]| {
            let rollout = setup.run(coefs, false);
            let finite = |step: usize| rollout.state(step).iter().all(|x| x.is_finite());
            let first = rollout.first_non_finite_step();
            (first, (0..=STEPS).map(finite).collect::<Vec<_>>())
        };

        let (first, _) = run(&setup.mixtures);
        assert_eq!(first, None);

        let (first, finite) = run(&vec![[2.0; 4]; params]);
        let step = first.expect("gates that double overflow within 20 steps");
        assert!(step > 0, "the initial state is finite");
        assert!(
            finite[..step].iter().all(|&f| f),
            "every state before it is finite"
        );
        assert!(!finite[step]);
    }

    /// Clamped states stay in [0, 1] where gates that double would overflow; for op
    /// mixtures, whose states leave [0, 1] by rounding only, the clamp moves states and
    /// the gradient (passed straight through) by no more than rounding does.
    #[test]
    fn states_kept_in_unit_stay_there_and_barely_move() {
        let setup = Setup::new();
        let in_unit = |r: &SoftRollout| {
            (0..=STEPS).all(|t| r.state(t).iter().all(|x| (0.0..=1.0).contains(x)))
        };
        let doubling = setup.run(&vec![[2.0; 4]; setup.mixtures.len()], true);
        assert_eq!(doubling.first_non_finite_step(), None);
        assert!(in_unit(&doubling));

        let gradient = |rollout: &mut SoftRollout| {
            let ones = vec![vec![1.0; rollout.final_state().len()]];
            let mut grads = vec![[0.0; 4]; setup.mixtures.len()];
            rollout.backward(&setup.circuit, &setup.mixtures, &ones, None, &mut grads);
            grads.concat()
        };
        let (mut free, mut clamped) = (
            setup.run(&setup.mixtures, false),
            setup.run(&setup.mixtures, true),
        );
        assert!(in_unit(&clamped));
        let moved = (0..=STEPS)
            .flat_map(|t| free.state(t).iter().zip(clamped.state(t)))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(moved < 1e-5, "states moved by {moved}");
        let (g_free, g_clamped) = (gradient(&mut free), gradient(&mut clamped));
        let scale = g_free.iter().fold(0.0, |m: f64, g| m.max(g.abs()));
        let apart = g_free
            .iter()
            .zip(&g_clamped)
            .fold(0.0, |m: f64, (a, b)| m.max((a - b).abs()));
        assert!(scale > 0.0);
        assert!(apart <= 1e-4 * scale, "gradients {apart} apart of {scale}");
    }
}
