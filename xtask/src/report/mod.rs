//! `cargo xtask report`: build the variants, measure them side by side, write tables.

pub mod measure;
pub mod summary;
pub mod variants;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::machine::Machine;
use crate::runner::ProcessRunner;
use crate::workloads::WorkloadSet;
use crate::{export, paths};
use measure::{measure, Contestant};
use variants::Variant;

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Variants to compare, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    pub variants: Vec<Variant>,
    /// The variant others are compared with.
    #[arg(long, default_value = "cargo-default")]
    pub baseline: Variant,
    /// Timed runs per variant and workload.
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
    /// Untimed runs before them.
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
    /// The benchmark set.
    #[arg(long, default_value = "profiles/benchmark.toml")]
    pub workloads: PathBuf,
    /// Workload file used to train PGO/BOLT profiles when a variant must be built.
    #[arg(long, default_value = "profiles/training.toml")]
    pub training: PathBuf,
    /// Report name: writes <out-dir>/<name>.md and <out-dir>/<name>.json.
    #[arg(long, default_value = "report")]
    pub name: String,
    /// Folder of the report files.
    #[arg(long, default_value = "results")]
    pub out_dir: PathBuf,
}

pub fn run(args: ReportArgs) -> Result<()> {
    if args.runs < 2 {
        bail!("--runs must be at least 2 (a standard deviation needs two samples)");
    }
    let mut variants = if args.variants.is_empty() {
        Variant::ALL.to_vec()
    } else {
        args.variants.clone()
    };
    variants.retain(|v| *v != args.baseline);
    variants.insert(0, args.baseline);
    let set = WorkloadSet::load(&paths::root().join(&args.workloads))?;
    let training = paths::root().join(&args.training);
    let machine = Machine::detect()?;

    let mut contestants = Vec::new();
    for v in &variants {
        contestants.push(Contestant {
            variant: v.name().into(),
            binary: v.binary(&training)?,
        });
    }
    let scratch = paths::scratch("report");
    let samples = measure(
        &mut ProcessRunner,
        &contestants,
        &set,
        args.runs,
        args.warmup,
        &scratch,
    )?;

    let names: Vec<String> = variants.iter().map(|v| v.name().to_string()).collect();
    let workloads: Vec<_> = set
        .workloads
        .iter()
        .zip(&samples)
        .map(|(w, s)| summary::workload_report(&w.name, &w.command_line(), &names, 0, s))
        .collect();
    let report = summary::Report {
        name: args.name.clone(),
        workload_file: args.workloads.display().to_string(),
        baseline: args.baseline.name().into(),
        runs: args.runs,
        warmup: args.warmup,
        machine,
        summary: summary::summary(&names, &workloads),
        workloads,
    };
    let out_dir = paths::root().join(&args.out_dir);
    let md = out_dir.join(format!("{}.md", args.name));
    let json = out_dir.join(format!("{}.json", args.name));
    write_atomically(&md, &export::markdown::render(&report))?;
    write_atomically(&json, &export::json::render(&report))?;
    println!("{:<16} {:>10}", "variant", "speedup");
    for row in &report.summary {
        println!("{:<16} {:>10.3}", row.variant, row.geomean_speedup);
    }
    println!("wrote {} and {}", md.display(), json.display());
    Ok(())
}

/// Writes `text` whole or not at all (the library's atomic writer).
fn write_atomically(path: &Path, text: &str) -> Result<()> {
    logicars::io::atomic::write_atomically(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}
