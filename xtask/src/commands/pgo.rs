//! `cargo xtask pgo`: instrumented build, training runs, merged profile, optimized build;
//! then how well the profile represents each benchmark workload.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use crate::analysis::coverage::coverage;
use crate::export::moved::coverage_table;
use crate::measure::runner::ProcessRunner;
use crate::measure::sampling::{sample_all, unpinned};
use crate::measure::Contestant;
use crate::paths;
use crate::stages::dry_run;
use crate::stages::pgo::{current_profile_runs, make};
use crate::stages::variants::Variant;
use crate::toolchain::tools::ToolFinder;
use crate::workloads::WorkloadSet;

#[derive(Debug, Args)]
pub struct PgoArgs {
    /// Also build for this machine's CPU (-C target-cpu=native) [default: off].
    #[arg(long)]
    pub native: bool,
    /// The training workloads.
    #[arg(long, default_value = "profiles/training.toml")]
    pub workloads: PathBuf,
    /// The benchmark workloads whose coverage by the profile is reported.
    #[arg(long, default_value = "profiles/benchmark.toml")]
    pub benchmark: PathBuf,
    /// Skip the coverage report [default: run each benchmark workload once under perf
    /// with the release build].
    #[arg(long)]
    pub no_coverage: bool,
}

pub fn run(args: PgoArgs) -> Result<()> {
    let training = paths::root().join(&args.workloads);
    let out = make(&training, args.native)?;
    if !args.no_coverage {
        report_coverage(&args, &training)?;
    }
    println!("{}", out.display());
    Ok(())
}

/// Samples each benchmark workload once with the matching non-PGO build and prints where
/// its samples fall against the profile's training runs (on stderr: stdout is the path).
fn report_coverage(args: &PgoArgs, training: &std::path::Path) -> Result<()> {
    let runs = current_profile_runs(args.native).context("the profile's runs were not written")?;
    let set = WorkloadSet::load(&paths::root().join(&args.benchmark))?;
    dry_run::check(&set)?;
    let base = if args.native {
        Variant::ReleaseNative
    } else {
        Variant::Release
    };
    let contestant = Contestant {
        variant: base.name().into(),
        binary: base.binary(training)?,
    };
    let perf = ToolFinder::from_env()?.find_any("perf")?.path;
    let plan = unpinned();
    let scratch = paths::scratch("pgo-coverage");
    let samples = sample_all(
        &mut ProcessRunner,
        &perf,
        std::slice::from_ref(&contestant),
        &set,
        &plan,
        1,
        &scratch,
    )?;
    let rows: Vec<_> = set
        .workloads
        .iter()
        .zip(&samples)
        .map(|(w, s)| coverage(&w.name, &s[0], &runs))
        .collect();
    let mut table = String::new();
    coverage_table(&mut table, &rows.iter().collect::<Vec<_>>());
    eprintln!(
        "[pgo] where each benchmark workload's samples ({}) fall against the profile's runs:\n{table}",
        base.name()
    );
    Ok(())
}
