//! Where a run's time went: cpu-clock samples by function, summed over the sampled runs,
//! and the instructions cachegrind counted by function.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The rate `perf record` samples at, per second of CPU time: one sample stands for
/// about a millisecond of one core's time.
pub const SAMPLES_PER_S: u32 = 999;

/// cpu-clock samples by function name (demangled, without its hash; code outside the
/// program is named `[library] symbol` or `[kernel]`), summed over `runs` runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionSamples {
    pub runs: usize,
    pub by_function: BTreeMap<String, u64>,
}

impl FunctionSamples {
    pub fn total(&self) -> u64 {
        self.by_function.values().sum()
    }

    /// The samples of one function (0 when it was never seen).
    pub fn of(&self, function: &str) -> u64 {
        self.by_function.get(function).copied().unwrap_or(0)
    }

    /// The share of all samples that fell in `function`.
    pub fn share(&self, function: &str) -> f64 {
        match self.total() {
            0 => 0.0,
            total => self.of(function) as f64 / total as f64,
        }
    }

    /// The CPU milliseconds one run spent in `function`, as the samples estimate it.
    pub fn ms_per_run(&self, function: &str) -> f64 {
        if self.runs == 0 {
            return 0.0;
        }
        self.of(function) as f64 / self.runs as f64 * 1000.0 / f64::from(SAMPLES_PER_S)
    }

    /// The CPU milliseconds of one run, as the samples estimate them.
    pub fn total_ms_per_run(&self) -> f64 {
        if self.runs == 0 {
            return 0.0;
        }
        self.total() as f64 / self.runs as f64 * 1000.0 / f64::from(SAMPLES_PER_S)
    }

    /// Adds another run's samples.
    pub fn absorb(&mut self, other: FunctionSamples) {
        self.runs += other.runs;
        for (function, n) in other.by_function {
            *self.by_function.entry(function).or_default() += n;
        }
    }
}

/// Instructions (cachegrind's `Ir`) by function name, named as in [`FunctionSamples`].
pub type FunctionInstructions = BTreeMap<String, u64>;

/// One function (or module) in the baseline and in a variant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MovedFunction {
    pub function: String,
    pub module: String,
    pub baseline_samples: u64,
    pub variant_samples: u64,
    pub baseline_share: f64,
    pub variant_share: f64,
    /// The variant's CPU milliseconds in it per run minus the baseline's.
    pub delta_ms: f64,
    /// Instructions in it in the workload's counted short form (AVX2 kernels).
    pub baseline_instructions: Option<u64>,
    pub variant_instructions: Option<u64>,
}

impl MovedFunction {
    /// The variant's share minus the baseline's, in percentage points.
    pub fn delta_share_points(&self) -> f64 {
        100.0 * (self.variant_share - self.baseline_share)
    }
}

/// Where the time moved on one workload between the baseline and one variant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Moved {
    pub variant: String,
    /// CPU milliseconds per run, as the samples estimate them.
    pub baseline_ms: f64,
    pub variant_ms: f64,
    /// The functions whose share changed most, largest change first.
    pub functions: Vec<MovedFunction>,
    /// The same by module.
    pub modules: Vec<MovedFunction>,
}
