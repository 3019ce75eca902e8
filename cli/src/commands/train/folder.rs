//! Which folder a run writes, held for its whole life (see
//! [`logicars::io::run_folder`]). A new run never writes over another run: in a folder
//! the user named (`--save`) it is refused, saying what is there and the ways on; in the
//! default folder (`runs/<task>-seed<S>/`) a run with other settings goes to the next
//! numbered one (`-2`, `-3`...), as other training tools do. The same run again into its
//! own finished folder says so and trains nothing; `--overwrite` replaces what is there.
//! A run stopped before its first checkpoint left nothing to go on from: its folder is
//! taken as free.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use logicars::io::checkpoint_file::RunOutputs;
use logicars::io::folder_lock::{FolderLock, LockError};
use logicars::io::run_folder::{self, FolderState, RunFolderError, RunIdentity, RunRecord};

use super::configure::run_files;
use super::TrainArgs;

/// Numbered folders tried beside the default one before giving up.
const MOST_NUMBERED: usize = 999;

/// Where a new run goes.
pub enum Claim {
    /// Train into these outputs, whose folder is held.
    Train(Box<(RunOutputs, Held)>),
    /// The folder already holds this run, finished: nothing to train.
    Finished,
}

/// A folder held for a run that has not begun: nothing in it is changed until
/// [`Held::begin`], so a run refused while it is set up leaves the folder as it was.
pub struct Held {
    lock: FolderLock,
    folder: PathBuf,
    state: FolderState,
    run: RunIdentity,
}

impl Held {
    /// Clears what another run left in the folder and records this run there; the
    /// returned lock holds the folder until it is dropped.
    pub fn begin(self, outputs: &RunOutputs) -> Result<FolderLock> {
        if self.state != FolderState::Free {
            clear(&self.folder, &self.state, outputs)?;
        }
        RunRecord::starting(self.run).write(&self.folder)?;
        Ok(self.lock)
    }
}

/// The folder a run's files go in: its model's.
pub fn folder_of(outputs: &RunOutputs) -> &Path {
    outputs.model.parent().unwrap_or(Path::new("."))
}

/// Takes the folder of a new run's outputs (`outputs_in("")`; `outputs_in(dir)` moves
/// them to the numbered folder `dir`), or the next numbered one where the folder is the
/// default and holds another run.
pub fn claim(
    args: &TrainArgs,
    run: RunIdentity,
    outputs_in: impl Fn(&Path) -> Result<RunOutputs>,
) -> Result<Claim> {
    let first = outputs_in(Path::new(""))?;
    if args.save.is_some() || args.overwrite {
        return claim_named(first, run, args.overwrite);
    }
    let base = folder_of(&first).to_path_buf();
    for n in 1..=MOST_NUMBERED {
        let folder = numbered(&base, n);
        let lock = match run_folder::take(&folder) {
            Ok(lock) => lock,
            Err(RunFolderError::Lock(LockError::Held { holder, .. })) => {
                if RunRecord::read(&folder)?.is_some_and(|r| r.run == run) {
                    bail!(
                        "this run is already running in {}: {holder}",
                        folder.display()
                    );
                }
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let outputs = match n {
            1 => first.clone(),
            _ => outputs_in(&folder)?,
        };
        let state = FolderState::of_held(&folder, &outputs.model)?;
        if let Some(claim) = this_run(&state, &run, &folder)? {
            return Ok(claim);
        }
        if !takes_as_free(&state, &folder) {
            continue;
        }
        if n > 1 {
            eprintln!(
                "note: {} holds another run; this one goes to {}",
                base.display(),
                folder.display()
            );
        }
        return Ok(held(outputs, lock, state, run));
    }
    bail!(
        "{} and its numbered folders up to -{MOST_NUMBERED} all hold other runs: name one with --save",
        base.display()
    )
}

/// `base` for the first run, `base-n` for the n-th.
fn numbered(base: &Path, n: usize) -> PathBuf {
    match n {
        1 => base.to_path_buf(),
        _ => {
            let name = base.file_name().unwrap_or_default().to_string_lossy();
            base.with_file_name(format!("{name}-{n}"))
        }
    }
}

/// The folder the user named, or the default one with `--overwrite`.
fn claim_named(outputs: RunOutputs, run: RunIdentity, overwrite: bool) -> Result<Claim> {
    let folder = folder_of(&outputs).to_path_buf();
    let lock = run_folder::take(&folder).map_err(|e| match e {
        RunFolderError::Lock(held @ LockError::Held { .. }) => {
            anyhow::anyhow!("{held}: wait for it to end, or write this run elsewhere with --save")
        }
        other => other.into(),
    })?;
    let state = FolderState::of_held(&folder, &outputs.model)?;
    if overwrite {
        if state != FolderState::Free {
            eprintln!(
                "note: replacing {} in {}",
                state.describe(),
                folder.display()
            );
        }
        return Ok(held(outputs, lock, state, run));
    }
    if let Some(claim) = this_run(&state, &run, &folder)? {
        return Ok(claim);
    }
    if !takes_as_free(&state, &folder) {
        bail!(
            "{} holds {}: {}",
            folder.display(),
            state.describe(),
            ways_on(&state, &folder)
        );
    }
    Ok(held(outputs, lock, state, run))
}

fn held(outputs: RunOutputs, lock: FolderLock, state: FolderState, run: RunIdentity) -> Claim {
    let folder = folder_of(&outputs).to_path_buf();
    let held = Held {
        lock,
        folder,
        state,
        run,
    };
    Claim::Train(Box::new((outputs, held)))
}

/// Whether a run may start in a folder that holds `state`: nothing of a run, or a run
/// stopped before its first checkpoint (said), which left nothing to go on from.
fn takes_as_free(state: &FolderState, folder: &Path) -> bool {
    match state {
        FolderState::Free => true,
        FolderState::Recorded {
            record,
            checkpoint: None,
        } if record.ended.is_none() => {
            eprintln!(
                "note: {} holds {}; it left nothing to go on from, so this run replaces it",
                folder.display(),
                state.describe()
            );
            true
        }
        _ => false,
    }
}

/// What to do when the folder holds this very run: finished, nothing; stopped, resume
/// it (refused, saying how). `None` otherwise.
fn this_run(state: &FolderState, run: &RunIdentity, folder: &Path) -> Result<Option<Claim>> {
    let FolderState::Recorded { record, checkpoint } = state else {
        return Ok(None);
    };
    if record.run != *run {
        return Ok(None);
    }
    if state.finished(run) {
        eprintln!(
            "{} already holds this run ({}); nothing to train (--overwrite trains it again)",
            folder.display(),
            record.describe()
        );
        return Ok(Some(Claim::Finished));
    }
    if checkpoint.is_some() {
        bail!(
            "{} holds {}: go on with `logicars train --resume {0}`, or train it afresh \
             with --overwrite",
            folder.display(),
            state.describe()
        );
    }
    Ok(None)
}

/// How to go on from a folder that holds another run.
fn ways_on(state: &FolderState, folder: &Path) -> String {
    let elsewhere = "write this run elsewhere with --save, or replace it with --overwrite";
    match state {
        FolderState::Recorded {
            checkpoint: Some(_),
            ..
        } => format!(
            "resume it with `logicars train --resume {}`, {elsewhere}",
            folder.display()
        ),
        _ => elsewhere.to_string(),
    }
}

/// Removes what the run a folder held wrote, before another run starts there: its
/// record and checkpoints, and every file the new run writes (model, log, pictures).
/// Other files stay.
fn clear(folder: &Path, state: &FolderState, outputs: &RunOutputs) -> Result<()> {
    let mut files = vec![folder.join(run_folder::RECORD)];
    files.extend(run_folder::checkpoints_in(folder));
    files.extend(run_files(outputs).into_iter().map(|(_, file)| file));
    if let FolderState::Unrecorded { file } = state {
        files.push(file.clone());
    }
    for file in files {
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(e).with_context(|| format!("removing {}", file.display()));
            }
        }
    }
    Ok(())
}

/// Takes the folder of a stopped run for `--resume`, before its checkpoint is read.
pub fn claim_for_resume(folder: &Path) -> Result<FolderLock> {
    run_folder::take(folder).map_err(|e| match e {
        RunFolderError::Lock(held @ LockError::Held { .. }) => {
            anyhow::anyhow!("{held}: a run cannot be resumed while a process holds its folder")
        }
        other => other.into(),
    })
}

/// Records a resumed run whose checkpoint an older build wrote, with no record.
pub fn record_if_unrecorded(outputs: &RunOutputs, run: RunIdentity) -> Result<()> {
    let dir = folder_of(outputs);
    if RunRecord::read(dir)?.is_none() {
        RunRecord::starting(run).write(dir)?;
    }
    Ok(())
}
