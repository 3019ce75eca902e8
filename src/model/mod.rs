//! What a model is: the 16 gate ops, wiring, the configuration, the network of layers and
//! its compiled per-cell circuit.

pub mod ca_rule;
pub mod circuit;
pub mod config;
pub mod gates;
pub mod network;
pub mod observed_rule;
pub mod parametrization;
pub mod pattern;
pub mod recipe;
pub mod task;
pub mod wiring;
