//! Every timed run of a report, kept beside it (`<name>/rounds.json`) so that `report
//! --resume` can add rounds to them on the same builds and machine instead of starting
//! again: on this project's shared machines, ±2% on every workload takes longer than one
//! sitting may have.

use serde::{Deserialize, Serialize};

use crate::machine::Machine;
use crate::results::counts::Counted;
use crate::results::measured::{Measurement, Samples};
use crate::results::samples::FunctionSamples;

/// The version of this file's layout; a file of another one is not resumed.
pub const FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedRounds {
    pub format: u32,
    /// The machine of the first stretch; later stretches must run on the same kind.
    pub machine: Machine,
    /// The start of every stretch that added rounds, oldest first.
    pub stretches: Vec<String>,
    /// The variants in the report's order (baseline first), with their binaries' hashes.
    pub binaries: Vec<SavedBinary>,
    pub workloads: Vec<SavedWorkload>,
    /// The instruction counts and samples, once a stretch has taken them: they depend on
    /// the binaries and workloads only, so a later stretch reuses them (absent from the
    /// files of stretches that stopped before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<SavedAttribution>,
}

/// What a report needs besides its timed rounds to say where the time moved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SavedAttribution {
    /// `counted[workload][variant]` (`None` where a workload has no short form or valgrind
    /// could not run a build); empty when nothing was counted.
    pub counted: Vec<Vec<Option<Counted>>>,
    /// `samples[workload][variant]`; empty when nothing was sampled.
    pub samples: Vec<Vec<FunctionSamples>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedBinary {
    pub variant: String,
    /// SHA-256 of the binary that was timed.
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedWorkload {
    pub name: String,
    /// The workload's arguments as its file gives them.
    pub command: String,
    /// What every run printed, less its timing line: the variants must agree on it, and
    /// runs are saved only once they have.
    pub results: String,
    /// `runs[variant][round]`.
    pub runs: Vec<Vec<SavedRun>>,
}

/// One timed run's times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedRun {
    pub wall_s: f64,
    pub user_s: f64,
    pub system_s: f64,
    pub max_rss_kb: u64,
    pub exit_code: i32,
    pub compute_s: Option<f64>,
}

impl SavedRun {
    pub fn of(m: &Measurement) -> Self {
        SavedRun {
            wall_s: m.wall_s,
            user_s: m.user_s,
            system_s: m.system_s,
            max_rss_kb: m.max_rss_kb,
            exit_code: m.exit_code,
            compute_s: m.compute_s,
        }
    }

    /// The run as measured, `results` being what it printed.
    pub fn measurement(&self, results: &str) -> Measurement {
        Measurement {
            wall_s: self.wall_s,
            user_s: self.user_s,
            system_s: self.system_s,
            max_rss_kb: self.max_rss_kb,
            exit_code: self.exit_code,
            stdout: results.to_string(),
            stderr: String::new(),
            compute_s: self.compute_s,
        }
    }
}

impl SavedWorkload {
    /// Each variant's runs as samples.
    pub fn samples(&self) -> Vec<Samples> {
        self.runs
            .iter()
            .map(|runs| Samples {
                runs: runs.iter().map(|r| r.measurement(&self.results)).collect(),
            })
            .collect()
    }
}
