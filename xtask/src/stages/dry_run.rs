//! Runs a workload set once with the plain release build before anything expensive
//! (an instrumented build, a long measurement), so a workload that fails is found in
//! seconds, not after the builds.

use std::collections::HashSet;
use std::sync::Mutex;

use anyhow::{Context, Result};

use crate::measure::runner::{run_workloads, ProcessRunner};
use crate::paths;
use crate::stages::builder::{build, BuildSpec};
use crate::workloads::WorkloadSet;

/// The sets already run by this process (`report` may build PGO and BOLT variants,
/// which check their training set again).
static CHECKED: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Runs every workload of `set` once with the release build; fails with the first
/// workload that exits non-zero.
pub fn check(set: &WorkloadSet) -> Result<()> {
    let key = format!("{:?}", set.workloads);
    if already_checked(&key) {
        return Ok(());
    }
    eprintln!("[dry-run] {} with the release build", set.file.display());
    let release = build(&BuildSpec::new("release", "release"))?.binary;
    run_workloads(
        &mut ProcessRunner,
        &release,
        set,
        &paths::scratch("dry-run"),
        &[],
    )
    .with_context(|| {
        format!(
            "dry run of {} (nothing was built or measured)",
            set.file.display()
        )
    })?;
    CHECKED
        .lock()
        .expect("no thread panics holding the lock")
        .get_or_insert_with(HashSet::new)
        .insert(key);
    Ok(())
}

fn already_checked(key: &str) -> bool {
    CHECKED
        .lock()
        .expect("no thread panics holding the lock")
        .as_ref()
        .is_some_and(|set| set.contains(key))
}
