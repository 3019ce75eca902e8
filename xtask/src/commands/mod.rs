//! One module per `cargo xtask` command, each with its arguments and its `run`.

pub mod assets;
pub mod bolt;
pub mod clean;
pub mod compare;
pub mod doctor;
pub mod explain;
pub mod flamegraph;
pub mod instructions;
pub mod pattern_sets;
pub mod pgo;
pub mod report;
pub mod setup;
