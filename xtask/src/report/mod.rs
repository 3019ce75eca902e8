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
    /// Variants to compare, comma-separated [default: all].
    #[arg(long, value_delimiter = ',')]
    pub variants: Vec<Variant>,
    /// The variant others are compared with.
    #[arg(long, default_value = "cargo-default")]
    pub baseline: Variant,
    /// Timed runs per variant and workload (at least 2).
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
    let variants = baseline_first(&args.variants, args.baseline);
    let set = WorkloadSet::load(&paths::root().join(&args.workloads))?;
    let machine = Machine::detect()?;
    let contestants = contestants(&variants, &paths::root().join(&args.training))?;
    let samples = measure(
        &mut ProcessRunner,
        &contestants,
        &set,
        args.runs,
        args.warmup,
        &paths::scratch("report"),
    )?;
    let report = assemble(&args, &variants, &set, &samples, machine);
    let (md, json) = write_files(&report, &paths::root().join(&args.out_dir))?;
    println!("{:<16} {:>10}", "variant", "speedup");
    for row in &report.summary {
        println!("{:<16} {:>10.3}", row.variant, row.geomean_speedup);
    }
    println!("wrote {} and {}", md.display(), json.display());
    Ok(())
}

/// The variants to measure (all when none are named), the baseline first: the
/// statistics take column 0 as the reference.
fn baseline_first(named: &[Variant], baseline: Variant) -> Vec<Variant> {
    let mut variants = if named.is_empty() {
        Variant::ALL.to_vec()
    } else {
        named.to_vec()
    };
    variants.retain(|v| *v != baseline);
    variants.insert(0, baseline);
    variants
}

/// Each variant with its binary, building (or reusing) it first.
fn contestants(variants: &[Variant], training: &Path) -> Result<Vec<Contestant>> {
    variants
        .iter()
        .map(|v| {
            Ok(Contestant {
                variant: v.name().into(),
                binary: v.binary(training)?,
            })
        })
        .collect()
}

/// The report of `samples[workload][variant]`, relative to the first variant.
fn assemble(
    args: &ReportArgs,
    variants: &[Variant],
    set: &WorkloadSet,
    samples: &[Vec<summary::Samples>],
    machine: Machine,
) -> summary::Report {
    let names: Vec<String> = variants.iter().map(|v| v.name().to_string()).collect();
    let workloads: Vec<_> = set
        .workloads
        .iter()
        .zip(samples)
        .map(|(w, s)| summary::workload_report(&w.name, &w.command_line(), &names, 0, s))
        .collect();
    summary::Report {
        name: args.name.clone(),
        workload_file: args.workloads.display().to_string(),
        baseline: args.baseline.name().into(),
        runs: args.runs,
        warmup: args.warmup,
        machine,
        summary: summary::summary(&names, &workloads),
        workloads,
    }
}

/// Writes `<name>.md` and `<name>.json` into `out_dir`, each whole or not at all;
/// returns their paths.
fn write_files(report: &summary::Report, out_dir: &Path) -> Result<(PathBuf, PathBuf)> {
    let md = out_dir.join(format!("{}.md", report.name));
    let json = out_dir.join(format!("{}.json", report.name));
    for (path, text) in [
        (&md, export::markdown::render(report)),
        (&json, export::json::render(report)),
    ] {
        logicars::io::atomic::write_atomically(path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok((md, json))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baseline_comes_first_and_only_once() {
        let named = [Variant::Pgo, Variant::Release, Variant::Bolt];
        assert_eq!(
            baseline_first(&named, Variant::Release),
            [Variant::Release, Variant::Pgo, Variant::Bolt]
        );
        let all = baseline_first(&[], Variant::Release);
        assert_eq!(all.len(), Variant::ALL.len());
        assert_eq!(all[0], Variant::Release);
    }

    #[test]
    fn report_files_are_written_whole_next_to_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let report = crate::export::fixture::fixed_report();
        let (md, json) = write_files(&report, &dir.path().join("out")).unwrap();
        assert!(md.ends_with("out/fixture.md") && json.ends_with("out/fixture.json"));
        assert_eq!(
            std::fs::read_to_string(&json).unwrap(),
            crate::export::json::render(&report)
        );
    }
}
