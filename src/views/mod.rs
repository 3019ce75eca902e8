//! Seeing what a model learned: pictures, plots, netlists and their exports, gate
//! statistics, and the paper's tests.

pub mod analysis;
pub mod check;
pub mod netlist;
pub mod netlist_export;
pub mod picture;
pub mod plot;
