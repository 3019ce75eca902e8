//! File chores shared by the stages and the measurement.

use std::path::Path;

use anyhow::{Context, Result};

/// Removes what an earlier run left (a stable binary before its stage rebuilds it, a
/// compute-time record before the next run); a missing file is fine.
pub fn remove_stale(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("removing stale {}", path.display())),
    }
}
