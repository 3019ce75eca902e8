//! The machine a report was measured on.

use logicars::kernels::simd::SimdLevel;
use serde::Serialize;

use crate::tools::rustc_info;

#[derive(Debug, Clone, PartialEq, Serialize)]
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
    pub fn detect() -> anyhow::Result<Self> {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines().find_map(|l| {
                    l.strip_prefix("model name")
                        .map(|r| r.trim_start_matches([' ', '\t', ':']).to_string())
                })
            })
            .unwrap_or_else(|| "unknown".into());
        let (rustc, llvm_major) = rustc_info()?;
        let root = crate::paths::root();
        let git = |args: &[&str]| duct::cmd("git", args).dir(&root).read().unwrap_or_default();
        let mut commit = git(&["rev-parse", "--short", "HEAD"]);
        if !git(&["status", "--porcelain", "--untracked-files=no"])
            .trim()
            .is_empty()
        {
            commit.push_str(" (with uncommitted changes)");
        }
        let date = jiff::Timestamp::now()
            .strftime("%Y-%m-%d %H:%M UTC")
            .to_string();
        Ok(Machine {
            cpu,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            simd: SimdLevel::detect().name().into(),
            rustc,
            llvm_major,
            commit,
            date,
        })
    }
}
