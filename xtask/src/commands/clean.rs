//! `cargo xtask clean`: removes what the pipeline made under `target/`.

use anyhow::{Context, Result};

use crate::paths;

pub fn run() -> Result<()> {
    for dir in [
        paths::root().join("target/xtask"),
        paths::root().join("target/optimized"),
    ] {
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
            eprintln!("[clean] removed {}", dir.display());
        }
    }
    Ok(())
}
