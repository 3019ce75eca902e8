//! `cargo xtask pgo`: instrumented build, training runs, merged profile, optimized build.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use crate::paths;
use crate::stages::pgo::make;

#[derive(Debug, Args)]
pub struct PgoArgs {
    /// Also build for this machine's CPU (-C target-cpu=native) [default: off].
    #[arg(long)]
    pub native: bool,
    /// The training workloads.
    #[arg(long, default_value = "profiles/training.toml")]
    pub workloads: PathBuf,
}

pub fn run(args: PgoArgs) -> Result<()> {
    let out = make(&paths::root().join(&args.workloads), args.native)?;
    println!("{}", out.display());
    Ok(())
}
