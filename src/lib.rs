//! Differentiable Logic Cellular Automata, trained fast on a CPU.
//!
//! Read top-down: [`gates`] (the 16 ops), [`wiring`] and [`model`] (layers and their
//! logits), [`circuit`] (one cell step as a flat gate list), [`geometry`] and
//! [`rollout`] (the grid over many steps, soft and hard), [`kernels`] (the hot loops),
//! [`train`] (loss, backward, optimizer), [`tasks`] (the paper's experiments), and
//! [`model_file`] (saving and loading).

// Kernels walk several lane-indexed arrays with one index; iterator zips would hide that.
#![allow(clippy::needless_range_loop)]

pub mod analysis;
pub mod check;
pub mod circuit;
pub mod config;
pub mod error;
pub mod eval;
pub mod gates;
pub mod geometry;
pub mod grid;
pub mod grid_file;
pub mod kernels;
pub mod model;
pub mod model_file;
pub mod netlist;
pub mod netlist_export;
pub mod output;
pub mod parameters;
pub mod pattern;
pub mod picture;
pub mod plot;
pub mod rollout;
pub mod tasks;
pub mod train;
pub mod wiring;
