//! The `logicars` command: parse the options, run the command, report.
//!
//! `commands` holds one module per subcommand; `support` the helpers they share (flag
//! parsers, the machine's limits, output checks, progress, the compute-time record and
//! the pictures of a rollout). The computation itself is the library's.

mod commands;
mod support;

use std::process::ExitCode;

use anyhow::Result;
use clap::FromArgMatches;
use logicars::error::ConfigError;

use commands::sweep::{Misconfigured, MISCONFIGURED_EXIT};
use commands::train::Interrupted;
use commands::{Cli, Command};
use support::BadValue;

fn main() -> ExitCode {
    tune_malloc();
    let cli = parse_options();
    // An instruction set asked for that this CPU lacks is an error, not a panic later.
    if let Err(e) = logicars::kernels::simd::from_env() {
        eprintln!("Error: {}: {e}", logicars::kernels::simd::SIMD_VAR);
        return ExitCode::FAILURE;
    }
    exit_code(run(cli.command))
}

/// The options, or clap's usage message and exit on a mistake.
fn parse_options() -> Cli {
    match Cli::from_arg_matches(&commands::command().get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    }
}

fn run(command: Command) -> Result<()> {
    match command {
        Command::Train(args) => commands::train::run(*args),
        Command::Eval(args) => commands::eval::run(args),
        Command::Render(args) => commands::render::run(args),
        Command::Analyze(args) => commands::analyze::run(args),
        Command::Export(args) => commands::export::run(args),
        Command::Check(args) => commands::check::run(args),
        Command::Sweep(args) => commands::sweep::run(args),
        Command::Presets(args) => commands::presets::run(&args),
        Command::Completions(args) => {
            commands::completions::run(&args);
            Ok(())
        }
    }
}

/// Success, the exit code of the signal that stopped a training run (after its message),
/// 2 for a setting out of its range or a sweep that cannot start (its retry would fail the
/// same way), or failure after
/// `Error: ` and the error's chain.
fn exit_code(result: Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is::<Interrupted>() => {
            let interrupted = e.downcast_ref::<Interrupted>();
            let code = interrupted.map_or(1, |i| i.code);
            eprintln!("{e}");
            ExitCode::from(code)
        }
        Err(e) if e.is::<Misconfigured>() || e.is::<BadValue>() || is_a_bad_setting(&e) => {
            eprintln!("Error: {e:#}");
            ExitCode::from(MISCONFIGURED_EXIT)
        }
        Err(e) => {
            eprintln!("Error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `error` is a setting out of its range or not fit for its task: a usage error,
/// like a flag clap refuses, so the same exit code.
fn is_a_bad_setting(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.is::<ConfigError>())
}

/// Sets glibc's allocator up for the commands' few large tables.
///
/// - **One arena** instead of one per thread. The commands allocate their tables before
///   the parallel work and the threads' hot loops allocate nothing, so nothing contends
///   for the arena, and memory one thread frees is reused by another: the reference
///   training run peaks about 0.2 MB lower.
/// - **A fixed mmap threshold** ([`MMAP_THRESHOLD`]). Left to itself, glibc raises the
///   threshold to the size of each mapped block that is freed, so the tables of one
///   attempt, freed when the next builds its own, come back from the heap and fragment
///   it: default coloured-G runs peaked at 34 to 46 MiB, 25 to 26 MiB with it fixed.
fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets tuning parameters; it runs before any other thread.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

/// Blocks of this many bytes or more are mapped on their own and unmapped when freed: an
/// attempt's tables are, the per-epoch buffers (grids, truth tables: a few hundred KiB)
/// are not, so they reuse the heap rather than fault their pages in anew each epoch, as
/// at glibc's own 128 KiB.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 512 * 1024;
