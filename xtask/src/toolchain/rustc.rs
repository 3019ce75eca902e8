//! What the toolchain in use says about itself. Profiles and BOLT tools must match its
//! LLVM, builds name its host triple so RUSTFLAGS skip build scripts, and rustup's
//! `llvm-tools` live in its sysroot.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

/// rustc's version line (`rustc 1.95.0 (59807616e 2026-04-14)`) and its LLVM major.
pub fn version_and_llvm() -> Result<(String, u32)> {
    let meta =
        rustc_version::version_meta().context("asking rustc its version (is Rust installed?)")?;
    let major = meta
        .llvm_version
        .map(|v| v.major as u32)
        .ok_or_else(|| anyhow!("rustc names no LLVM version: {}", meta.short_version_string))?;
    Ok((meta.short_version_string, major))
}

/// The host target triple, e.g. `x86_64-unknown-linux-gnu`.
pub fn host_triple() -> Result<String> {
    Ok(rustc_version::version_meta()
        .context("asking rustc its host")?
        .host)
}

/// Where rustup's `llvm-tools` component puts its tools (`None` if rustc cannot say).
pub fn llvm_tools_dir() -> Option<PathBuf> {
    let sysroot = duct::cmd!("rustc", "--print", "sysroot").read().ok()?;
    let host = host_triple().ok()?;
    Some(
        Path::new(sysroot.trim())
            .join("lib/rustlib")
            .join(host)
            .join("bin"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_toolchain_names_its_version_llvm_and_host() {
        let (version, llvm) = version_and_llvm().unwrap();
        assert!(version.starts_with("rustc "), "{version}");
        assert!(llvm > 0);
        let host = host_triple().unwrap();
        assert!(host.split('-').count() >= 3, "{host}");
    }
}
