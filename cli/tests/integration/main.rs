//! The command's integration tests, one binary: each module tests `logicars` as a user
//! runs it (gathered so that the suite links once).

mod bad_files;
mod cli;
mod common;
mod determinism;
mod docs;
mod export;
mod knobs;
mod kubernetes;
mod limits;
mod one_line_errors;
mod page;
mod pattern_geometry;
mod pattern_targets;
mod refused;
mod replay;
mod resume;
mod rules;
mod run_folder;
mod shards;
mod slurm;
mod sweep;
mod views;
