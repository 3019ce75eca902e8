//! Output paths checked before a command's work, so that long work never ends in a
//! failed save.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use logicars::io::atomic::check_writable;

/// Fails when two of the `files` (each named by what it holds, e.g. "the model (--save)")
/// share a path, when one is a folder, or when one cannot be created.
pub fn check_outputs(files: &[(&str, PathBuf)]) -> Result<()> {
    for (i, (what, path)) in files.iter().enumerate() {
        if let Some((other, _)) = files[..i].iter().find(|(_, p)| p == path) {
            bail!(
                "{other} and {what} would both be written to {}",
                path.display()
            );
        }
        if path.is_dir() {
            bail!(
                "{what} would be written to {}, which is a folder",
                path.display()
            );
        }
        check_writable(path)
            .with_context(|| format!("{what} cannot be written to {}", path.display()))?;
    }
    Ok(())
}
