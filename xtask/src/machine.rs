//! The machine a report was measured on.

use std::path::Path;

use logicars::kernels::simd::SimdLevel;
use serde::{Deserialize, Serialize};

use crate::paths;
use crate::toolchain::rustc;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    /// The SIMD level the trainer's kernels select here (the library's own detection).
    pub simd: String,
    pub rustc: String,
    pub llvm_major: u32,
    pub commit: String,
    pub date: String,
}

impl Machine {
    /// Whether timings taken here and on `other` can be pooled: the same CPU model, core
    /// count and kernel instruction set (rustc and commit are the binaries', checked by
    /// their hashes).
    pub fn same_kind(&self, other: &Machine) -> bool {
        (&self.cpu, self.cores, &self.simd) == (&other.cpu, other.cores, &other.simd)
    }

    pub fn detect() -> anyhow::Result<Self> {
        let (rustc, llvm_major) = rustc::version_and_llvm()?;
        Ok(Machine {
            cpu: cpu_model(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            simd: SimdLevel::detect().name().into(),
            rustc,
            llvm_major,
            commit: commit(&paths::root()),
            date: utc_second_now(),
        })
    }
}

/// The CPU's model name from `/proc/cpuinfo`, or "unknown".
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|r| r.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The short hash of HEAD, marked when tracked files differ from it, so a report says
/// which code it measured (empty outside a git checkout).
fn commit(root: &Path) -> String {
    let git = |args: &[&str]| duct::cmd("git", args).dir(root).read().unwrap_or_default();
    let mut commit = git(&["rev-parse", "--short", "HEAD"]);
    if !git(&["status", "--porcelain", "--untracked-files=no"])
        .trim()
        .is_empty()
    {
        commit.push_str(" (with uncommitted changes)");
    }
    commit
}

/// The current time in UTC to the second: the history tells reports apart by it.
fn utc_second_now() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%d %H:%M:%S UTC")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_date_is_utc_to_the_second() {
        let date = utc_second_now();
        let parsed = jiff::civil::DateTime::strptime("%Y-%m-%d %H:%M:%S UTC", &date).unwrap();
        assert!(parsed.year() >= 2024, "{date}");
    }

    #[test]
    fn reports_the_simd_level_the_kernels_use() {
        let machine = Machine::detect().unwrap();
        assert_eq!(machine.simd, SimdLevel::detect().name());
        assert!(machine.cores >= 1);
    }
}
