//! A folder held by one process for its whole life: an advisory lock on a file in it.
//!
//! The lock is the kernel's (`flock`, through [`std::fs::File::try_lock`]): it belongs to
//! the open file, so it is released when the process ends however it ends, SIGKILL
//! included, and a lock file left behind holds nothing. The holder writes who it is into
//! the file, so that a process refused can name it.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::io::atomic::in_made_folder;

/// Why a folder could not be taken.
#[derive(Debug, Error)]
pub enum LockError {
    /// Another process holds it; `holder` says who, as it wrote itself down.
    #[error("{} is in use by {holder}", folder.display())]
    Held { folder: PathBuf, holder: String },
    #[error("cannot lock {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// This process, as a holder names itself: its id, the command that started it, since
/// when.
pub fn this_process() -> String {
    let command: Vec<String> = std::env::args().collect();
    let name = |arg: &String| {
        Path::new(arg)
            .file_name()
            .map_or_else(|| arg.clone(), |n| n.to_string_lossy().into_owned())
    };
    let mut words = command.iter().take(1).map(name).collect::<Vec<_>>();
    words.extend(command.iter().skip(1).cloned());
    format!(
        "process {} (`{}`), since {}",
        std::process::id(),
        words.join(" "),
        now()
    )
}

/// The time now, to the second, in UTC (`2026-12-02T03:04:05Z`).
pub fn now() -> String {
    format!("{:.0}", jiff::Timestamp::now())
}

/// A held folder; dropping it (or the process ending) releases the folder.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

impl FolderLock {
    /// Takes `folder` (created if missing) for this process alone, through its lock file
    /// `name`, and writes `holder` into that file.
    pub fn exclusive(folder: &Path, name: &str, holder: &str) -> Result<Self, LockError> {
        let path = folder.join(name);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let mut file = open(folder, &path).map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(held(folder, &mut file)),
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        writeln!(file, "{holder}").map_err(io)?;
        Ok(FolderLock { _file: file })
    }

    /// Shares `folder` with the other processes that share it through the lock file
    /// `name`, while none holds it alone (a sweep's shards share its folder, a whole
    /// sweep holds it alone). Refused while one holds it alone, naming it.
    pub fn shared(folder: &Path, name: &str) -> Result<Self, LockError> {
        let path = folder.join(name);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let mut file = open(folder, &path).map_err(io)?;
        match file.try_lock_shared() {
            Ok(()) => Ok(FolderLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(held(folder, &mut file)),
            Err(TryLockError::Error(e)) => Err(io(e)),
        }
    }
}

/// Whether a process holds `folder` through its lock file `name`, and who: `None` when
/// the file is missing or free. Never takes the folder.
pub fn holder(folder: &Path, name: &str) -> Result<Option<String>, LockError> {
    let path = folder.join(name);
    let mut file = match File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(LockError::Io { path, source }),
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(None),
        Err(TryLockError::WouldBlock) => Ok(Some(holder_text(&mut file))),
        Err(TryLockError::Error(source)) => Err(LockError::Io { path, source }),
    }
}

fn open(folder: &Path, path: &Path) -> std::io::Result<File> {
    in_made_folder(folder, || {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
    })
}

fn held(folder: &Path, file: &mut File) -> LockError {
    LockError::Held {
        folder: folder.to_path_buf(),
        holder: holder_text(file),
    }
}

/// What the holder wrote of itself; a holder caught between taking the lock and writing
/// (or one that shares the folder and writes nothing) is "another process".
fn holder_text(file: &mut File) -> String {
    let mut text = String::new();
    let read = file.rewind().and_then(|()| file.read_to_string(&mut text));
    match text.trim() {
        line if read.is_ok() && !line.is_empty() => line.to_string(),
        _ => "another process".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // flock belongs to the open file, so two opens in one process contend as two
    // processes would.

    #[test]
    fn a_held_folder_is_refused_with_its_holder_and_freed_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let first = FolderLock::exclusive(&run, "run.lock", "process 1 (`first`)").unwrap();
        assert_eq!(
            holder(&run, "run.lock").unwrap().as_deref(),
            Some("process 1 (`first`)")
        );
        let refused = FolderLock::exclusive(&run, "run.lock", "process 2").unwrap_err();
        assert_eq!(
            refused.to_string(),
            format!("{} is in use by process 1 (`first`)", run.display())
        );
        drop(first);
        assert_eq!(holder(&run, "run.lock").unwrap(), None);
        let second = FolderLock::exclusive(&run, "run.lock", "process 2").unwrap();
        assert_eq!(
            std::fs::read_to_string(run.join("run.lock")).unwrap(),
            "process 2\n",
            "the new holder's line replaces the old one"
        );
        drop(second);
    }

    #[test]
    fn shared_holders_exclude_a_sole_holder_and_a_sole_holder_excludes_them() {
        let dir = tempfile::tempdir().unwrap();
        let a = FolderLock::shared(dir.path(), "sweep.lock").unwrap();
        let b = FolderLock::shared(dir.path(), "sweep.lock").unwrap();
        let refused = FolderLock::exclusive(dir.path(), "sweep.lock", "whole").unwrap_err();
        assert!(matches!(refused, LockError::Held { .. }), "{refused}");
        drop((a, b));
        let whole = FolderLock::exclusive(dir.path(), "sweep.lock", "process 7").unwrap();
        let refused = FolderLock::shared(dir.path(), "sweep.lock").unwrap_err();
        assert!(
            refused.to_string().ends_with("in use by process 7"),
            "{refused}"
        );
        drop(whole);
    }

    #[test]
    fn a_missing_lock_file_has_no_holder_and_this_process_names_itself() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(holder(dir.path(), "run.lock").unwrap(), None);
        let me = this_process();
        assert!(
            me.starts_with(&format!("process {} (`", std::process::id())),
            "{me}"
        );
        assert!(me.contains("), since 20") && me.ends_with('Z'), "{me}");
    }
}
