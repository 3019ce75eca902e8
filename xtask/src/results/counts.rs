//! What cachegrind counts for one run: the noise-free metric, the same on a busy machine
//! as on a quiet one.

use serde::{Deserialize, Serialize};

use crate::results::samples::FunctionInstructions;

/// What cachegrind counted for one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub instructions: u64,
    /// First-level data cache misses (reads and writes).
    pub d1_misses: u64,
    /// Last-level cache misses (instructions and data).
    pub ll_misses: u64,
}

/// What one cachegrind run counted: the totals and the instructions of each function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counted {
    pub totals: Counts,
    pub by_function: FunctionInstructions,
}
