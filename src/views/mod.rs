//! Seeing what a model learned: pictures, plots, netlists and their exports, gate
//! statistics. The paper's tests are computed in [`crate::evaluate::checks`].

pub mod analysis;
pub mod netlist;
pub mod netlist_export;
pub mod page;
pub mod picture;
pub mod plot;
