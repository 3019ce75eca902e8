//! Measurement: running the variants' binaries (behind a [`runner::Runner`], so tests can
//! measure without processes), round after round until their differences are known, and
//! counting their instructions under cachegrind.

pub mod agreement;
pub mod cachegrind;
pub mod compute_time;
pub mod disassembly;
pub mod rounds;
pub mod runner;
pub mod sampling;

use std::path::PathBuf;

/// A variant and the binary that runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Contestant {
    pub variant: String,
    pub binary: PathBuf,
}
