//! Differentiable Logic Cellular Automata, trained fast on a CPU.
//!
//! The modules are layers; each imports only the ones listed before it. Read top-down:
//!
//! 1. [`error`]: the typed errors of every layer.
//! 2. [`model`]: the 16 gate ops ([`model::gates`]), wiring, the configuration, the
//!    network of layers and logits, and [`model::circuit`], one cell step as a flat gate
//!    list.
//! 3. [`kernels`]: the hot loops over lanes (soft and bit-sliced hard), each beside its
//!    scalar reference, and the per-gate parameters they read.
//! 4. [`automaton`]: grids, their tiled geometry, and rollouts of many steps (soft for
//!    training, hard on bits, each model's made by [`automaton::hard_run::HardRun`]),
//!    frame by frame with damage.
//! 5. [`tasks`]: the paper's experiments: initial states, targets, presets.
//! 6. [`evaluate`]: judging a model: the losses, a batch scored by the hard circuit (and
//!    the soft gates), the check on fresh inputs, and the paper's tests (larger grids,
//!    healing, all 512 boards, robustness under damage).
//! 7. [`train`]: the objective (rollout, loss, gradient), the optimizer and the epoch
//!    loop; its epochs are scored with [`evaluate`]'s losses.
//! 8. [`sweep`]: many runs over seeds and settings, driven through [`train`]'s epoch loop;
//!    success rates and medians.
//! 9. [`io`]: model, grid and image files, and atomic output.
//! 10. [`views`]: pictures, plots, netlists and their exports, analysis.
//!
//! The semantics these modules implement are written down in `docs/semantics.md`.

// Kernels walk several lane-indexed arrays with one index; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

pub mod automaton;
pub mod error;
pub mod evaluate;
pub mod io;
pub mod kernels;
pub mod model;
pub mod sweep;
pub mod tasks;
pub mod train;
pub mod views;
