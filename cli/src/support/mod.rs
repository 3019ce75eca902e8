//! Helpers the commands share: flag parsers, the machine's limits, output checks, progress
//! on the terminal, the compute-time record, and the pictures of a rollout.

pub mod compute_time;
pub mod outputs;
pub mod progress;
pub mod resources;
pub mod rollout_picture;
pub mod value_parsers;
