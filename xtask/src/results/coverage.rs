//! How well a PGO profile represents a benchmark workload: which functions each of its
//! training runs executed, and where the workload's samples fall against them.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// One training run of a profile: the benchmark workloads it stands for and the
/// functions (demangled, without hash) it executed at least once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileRun {
    pub name: String,
    pub represents: Vec<String>,
    pub functions: BTreeSet<String>,
}

/// Every training run of one profile; written beside it as `<profile>.runs.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProfileRuns {
    pub runs: Vec<ProfileRun>,
}

/// Where one benchmark workload's cpu-clock samples fall against a profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    pub workload: String,
    pub samples: u64,
    /// Share of the samples outside the program (the kernel, libc, libm): no profile
    /// reaches them.
    pub outside: f64,
    /// Share in the program's functions that no training run executed.
    pub unprofiled: f64,
    /// Share in functions that only training runs standing for other workloads executed.
    pub elsewhere: f64,
    /// The training runs that stand for this workload.
    pub represented_by: Vec<String>,
}

impl Coverage {
    /// The share of the program's samples whose profile counts come from this
    /// workload's own kind of run.
    pub fn represented(&self) -> f64 {
        let inside = 1.0 - self.outside;
        if inside <= 0.0 {
            return 1.0;
        }
        (inside - self.unprofiled - self.elsewhere) / inside
    }

    /// Poorly represented: under [`WELL_REPRESENTED`] of its program samples.
    pub fn is_poor(&self) -> bool {
        self.represented() < WELL_REPRESENTED
    }
}

/// The share of a workload's program samples that should fall in functions its own
/// kind of training run executed.
pub const WELL_REPRESENTED: f64 = 0.9;
