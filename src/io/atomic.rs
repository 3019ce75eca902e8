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
    if let Some(file) = dir.ancestors().find(|a| a.exists()).filter(|a| !a.is_dir()) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            format!("{} is a file, not a folder", file.display()),
        ));
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    in_made_folder(&dir, || {
        tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".partial")
            .tempfile_in(&dir)
    })
    .map_err(without_temporary_name)
}

/// Makes `dir` (and its parents) and then `make`s something in it. Another process's
/// [`check_writable`] removes the empty folders it made, so a folder made here can vanish
/// before anything is in it (two runs started at once into one `runs/`): both steps are
/// tried again a few times when a folder is missing.
pub fn in_made_folder<T>(dir: &Path, make: impl Fn() -> std::io::Result<T>) -> std::io::Result<T> {
    let mut tries = 0;
    loop {
        match std::fs::create_dir_all(dir).and_then(|()| make()) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && tries < FOLDER_RETRIES => {
                tries += 1;
            }
            made => return made,
        }
    }
}

/// How often [`in_made_folder`] makes its folder again when one vanished meanwhile.
const FOLDER_RETRIES: usize = 8;

/// The cause of a failure to create the temporary file, without the temporary file's
/// random name: `tempfile` appends ` at path "..."` to the message and keeps the cause
/// private, and the name means nothing to a user.
fn without_temporary_name(error: std::io::Error) -> std::io::Error {
    let text = error.to_string();
    match text.rfind(" at path \"") {
        Some(end) => std::io::Error::new(error.kind(), &text[..end]),
        None => error,
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename,
/// creating parent folders; the result is an ordinary 0644 file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |out| out.write_all(bytes))
}

/// [`write_atomically`] that never replaces a file: when `path` exists, even one another
/// process made a moment ago, it fails with [`std::io::ErrorKind::AlreadyExists`] and
/// leaves that file as it is (a hard link in place of the rename).
pub fn write_new_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = partial_beside(path)?;
    tmp.as_file_mut().write_all(bytes)?;
    tmp.as_file().sync_all()?;
    readable_by_all(&tmp)?;
    tmp.persist_noclobber(path).map_err(|e| e.error)?;
    Ok(())
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
    readable_by_all(&tmp)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Makes the temporary file an ordinary 0644 file before it takes the output's name
/// (`tempfile` creates it 0600).
fn readable_by_all(tmp: &tempfile::NamedTempFile) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))?;
    }
    #[cfg(not(unix))]
    let _ = tmp;
    Ok(())
}

/// Removes the temporary files that writers of `path` killed while writing left beside it
/// (`.<name>.XXXXXX.partial`); returns how many there were. A missing folder has none.
pub fn remove_leftovers(path: &Path) -> std::io::Result<usize> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let prefix = format!(".{name}.");
    let entries = match std::fs::read_dir(folder_of(path)) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.starts_with(&prefix) && file.ends_with(".partial") && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Checks, before any work, that [`write_atomically`] could write `path`: its folder
/// exists or can be made, and a file can be created in it. Folders made for the check
/// are removed again, so that a command that then fails leaves nothing behind.
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    let dir = folder_of(path);
    let existing = dir.ancestors().find(|a| a.exists()).map(Path::to_path_buf);
    let checked = partial_beside(path).map(drop);
    if let Some(existing) = existing {
        for made in dir.ancestors().take_while(|a| *a != existing) {
            // Only empty folders go: a folder that another process filled meanwhile stays.
            let _ = std::fs::remove_dir(made);
        }
    }
    checked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_is_written_once_and_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/first.json");
        write_new_atomically(&path, b"one").unwrap();
        let err = write_new_atomically(&path, b"two").unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        assert_eq!(
            remove_leftovers(&path).unwrap(),
            0,
            "no temporary file left"
        );
    }

    #[test]
    fn checking_a_path_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        check_writable(&dir.path().join("a/b/out.json")).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        std::fs::write(dir.path().join("file"), "").unwrap();
        let error = check_writable(&dir.path().join("file/out.json")).unwrap_err();
        let file = dir.path().join("file");
        assert_eq!(
            error.to_string(),
            format!("{} is a file, not a folder", file.display())
        );
    }

    #[test]
    fn only_the_outputs_own_leftovers_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let names = [
            ".model.json.Ab12Cd.partial",
            ".model.json.x.partial",
            ".metrics.csv.Ab12Cd.partial",
            "model.json",
            ".model.json.keep",
        ];
        for name in names {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        assert_eq!(remove_leftovers(&dir.path().join("model.json")).unwrap(), 2);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                ".metrics.csv.Ab12Cd.partial",
                ".model.json.keep",
                "model.json"
            ]
        );
        assert_eq!(
            remove_leftovers(&dir.path().join("none/m.json")).unwrap(),
            0
        );
    }
}
