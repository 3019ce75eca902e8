//! A sweep's folder held while its runs write rows (see [`crate::io::folder_lock`]): a
//! whole sweep holds it alone; each shard shares it with the other shards and holds its
//! own piece alone, so two processes never run the same runs and write the same rows.

use std::path::Path;

use crate::io::folder_lock::{self, FolderLock, LockError};
use crate::sweep::plan::Shard;

/// The lock file of the whole folder.
const SWEEP_LOCK: &str = "sweep.lock";

/// The lock file of one shard's piece.
fn shard_lock(shard: Shard) -> String {
    format!("shard-{}-of-{}.lock", shard.index, shard.count)
}

/// The folder's locks this process holds; dropping them (or the process ending) frees
/// the folder.
#[derive(Debug)]
pub struct SweepHold {
    _locks: Vec<FolderLock>,
}

/// Holds `dir` for `shard` ([`Shard::WHOLE`]: the whole plan), or names who holds it.
pub fn hold(dir: &Path, shard: Shard) -> Result<SweepHold, LockError> {
    let me = folder_lock::this_process();
    if shard == Shard::WHOLE {
        return match FolderLock::exclusive(dir, SWEEP_LOCK, &me) {
            Ok(lock) => Ok(SweepHold { _locks: vec![lock] }),
            Err(LockError::Held { folder, .. }) => Err(LockError::Held {
                holder: shard_holder(dir)?,
                folder,
            }),
            Err(e) => Err(e),
        };
    }
    let shared = FolderLock::shared(dir, SWEEP_LOCK)?;
    let own = FolderLock::exclusive(dir, &shard_lock(shard), &me)?;
    Ok(SweepHold {
        _locks: vec![shared, own],
    })
}

/// Who holds the folder when a whole sweep cannot: the whole sweep that does, else the
/// first shard whose lock is held.
fn shard_holder(dir: &Path) -> Result<String, LockError> {
    if let Some(whole) = folder_lock::holder(dir, SWEEP_LOCK)? {
        if whole != "another process" {
            return Ok(whole);
        }
    }
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("shard-") && n.ends_with(".lock"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    for name in names {
        if let Some(holder) = folder_lock::holder(dir, &name)? {
            return Ok(format!("a shard's {holder}"));
        }
    }
    Ok("a shard of this sweep".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_share_the_folder_a_whole_sweep_holds_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (zero, one) = (Shard::new(0, 2).unwrap(), Shard::new(1, 2).unwrap());
        let first = hold(dir.path(), zero).unwrap();
        let other = hold(dir.path(), one).expect("another shard runs beside it");
        let twice = hold(dir.path(), zero).unwrap_err().to_string();
        assert!(twice.contains("is in use by process"), "{twice}");
        let whole = hold(dir.path(), Shard::WHOLE).unwrap_err().to_string();
        assert!(whole.contains("is in use by a shard's process"), "{whole}");
        drop((first, other));
        let whole = hold(dir.path(), Shard::WHOLE).unwrap();
        let shard = hold(dir.path(), one).unwrap_err().to_string();
        assert!(shard.contains("is in use by process"), "{shard}");
        drop(whole);
    }
}
