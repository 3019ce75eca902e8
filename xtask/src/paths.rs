//! Where the pipeline reads and writes, all relative to the workspace root.

use std::path::{Path, PathBuf};

/// The workspace root (the folder above `xtask/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}

/// Per-variant target folders, so builds with different flags never evict each other.
pub fn build_dir(variant: &str) -> PathBuf {
    root().join("target/xtask/build").join(variant)
}

/// Scratch folder in which workloads run (their default outputs land here).
pub fn scratch(stage: &str) -> PathBuf {
    root().join("target/xtask/scratch").join(stage)
}

/// Raw and merged PGO profiles.
pub fn pgo_dir() -> PathBuf {
    root().join("target/xtask/pgo")
}

/// BOLT instrumentation output.
pub fn bolt_dir() -> PathBuf {
    root().join("target/xtask/bolt")
}

/// Stable paths of the optimized binaries.
pub fn optimized(name: &str) -> PathBuf {
    root().join("target/optimized").join(name)
}

#[cfg(test)]
pub fn profiles() -> PathBuf {
    root().join("profiles")
}
