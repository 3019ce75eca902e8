//! `cargo xtask bolt`: post-link layout optimization with LLVM BOLT, profiled by
//! instrumentation or, with `--perf`, by sampling (see [`crate::stages::bolt`]).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use crate::paths;
use crate::stages::bolt::{flags_of, make, make_with_perf, DEFAULT_FLAGS};

#[derive(Debug, Args)]
pub struct BoltArgs {
    /// Apply BOLT on top of the PGO build (reuses the current PGO profile when it was
    /// collected from this tree and training set) [default: off].
    #[arg(long)]
    pub with_pgo: bool,
    /// Sample with perf and LBR instead of instrumenting (needs hardware branch records)
    /// [default: off].
    #[arg(long)]
    pub perf: bool,
    /// The training workloads.
    #[arg(long, default_value = "profiles/training.toml")]
    pub workloads: PathBuf,
    /// llvm-bolt optimization flags, space-separated.
    #[arg(long, default_value = DEFAULT_FLAGS, allow_hyphen_values = true)]
    pub bolt_flags: String,
}

pub fn run(args: BoltArgs) -> Result<()> {
    let flags = flags_of(&args.bolt_flags);
    let workloads = paths::root().join(&args.workloads);
    let out = if args.perf {
        make_with_perf(&workloads, args.with_pgo, &flags)?
    } else {
        make(&workloads, args.with_pgo, &flags)?
    };
    println!("{}", out.display());
    Ok(())
}
