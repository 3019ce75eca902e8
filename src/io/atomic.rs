//! Writing output files whole or not at all.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder a file goes in (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A hidden temporary file beside `path` (`.<name>.XXXXXX.partial`), so that a process
/// killed while writing leaves nothing that looks like the output itself.
fn partial_beside(path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = folder_of(path);
    std::fs::create_dir_all(&dir)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".partial")
        .tempfile_in(&dir)
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename,
/// creating parent folders; the result is an ordinary 0644 file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |out| out.write_all(bytes))
}

/// [`write_atomically`] for output produced piece by piece: `write` gets a buffered
/// writer on the temporary file, which becomes `path` only when `write` succeeds.
pub fn write_atomically_with<E: From<std::io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<(), E> {
    let mut tmp = partial_beside(path)?;
    {
        let mut out = std::io::BufWriter::new(tmp.as_file_mut());
        write(&mut out)?;
        out.flush()?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Checks, before any work, that [`write_atomically`] could write `path`: its folder
/// exists or can be made, and a file can be created in it.
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    partial_beside(path).map(drop)
}
