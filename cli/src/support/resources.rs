//! What a command may use of the machine: memory (checked before the work starts) and
//! threads.

use anyhow::{Context, Result};
use logicars::train::memory::MemoryLimit;

use crate::support::bad_value;

/// Fails with one line when `what` would need more memory than this command may use
/// (see `logicars::train::memory`).
pub fn ensure_memory(what: &str, bytes: Option<u64>) -> Result<()> {
    Ok(MemoryLimit::from_env()?.check(what, bytes)?)
}

/// More threads than this per core only add scheduling; far more exhaust the machine.
const THREADS_PER_CORE: usize = 8;

/// Builds the thread pool that every parallel loop runs in.
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let most = THREADS_PER_CORE * cores;
        if n == 0 {
            bad_value!("--threads must be at least 1");
        }
        if n > most {
            bad_value!("--threads {n} is more than {THREADS_PER_CORE} per core; this machine has {cores} core(s), so use at most {most}");
        }
        builder = builder.num_threads(n);
    }
    builder.build().context("starting the thread pool")
}
