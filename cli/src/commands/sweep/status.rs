//! `logicars sweep status`: how far each shard of a sweep has got, and what to run again.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use logicars::sweep::gather::gather;
use logicars::sweep::manifest::Manifest;

use super::emit::{program, SBATCH};
use super::exit::store_error;
use super::plan::shard_args;

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The sweep's folder.
    pub dir: PathBuf,
}

pub fn run(args: &StatusArgs) -> Result<()> {
    let gathered = gather(std::slice::from_ref(&args.dir)).map_err(store_error)?;
    let manifest = &gathered.manifest;
    let missing: HashSet<&(usize, u64)> = gathered.missing.iter().collect();
    let damaged: HashSet<&(usize, u64)> = gathered.damaged.iter().map(|d| &d.run).collect();
    println!(
        "sweep {} ({}{}, {} runs in {} shard(s))",
        manifest.sweep_id,
        manifest.sweep.task,
        if manifest.sweep.small { " --small" } else { "" },
        manifest.plan().len(),
        manifest.sweep.shards
    );
    println!("{:>6}  {:>6}  {:>7}  missing", "shard", "done", "runs");
    let mut unfinished = Vec::new();
    for index in 0..manifest.sweep.shards {
        let runs = manifest.shard(index);
        let missing: Vec<String> = runs
            .iter()
            .filter(|run| missing.contains(run))
            .map(|run| {
                let (s, seed) = *run;
                let label = format!("'{}' seed {seed}", manifest.sweep.settings[s]);
                match damaged.contains(run) {
                    true => label + " (damaged)",
                    false => label,
                }
            })
            .collect();
        println!(
            "{index:>6}  {:>6}  {:>7}  {}",
            runs.len() - missing.len(),
            runs.len(),
            if missing.is_empty() {
                "-".into()
            } else {
                missing.join(", ")
            }
        );
        if !missing.is_empty() {
            unfinished.push(index);
        }
    }
    if !gathered.damaged.is_empty() {
        println!("\ndamaged rows (their shard makes them again, replacing them):");
        for row in &gathered.damaged {
            println!("  {}", row.why);
        }
    }
    if unfinished.is_empty() {
        println!(
            "\nevery run is done: logicars sweep merge {}",
            args.dir.display()
        );
        return Ok(());
    }
    print_reruns(manifest, &args.dir, &unfinished)
}

/// The commands that run the `unfinished` shards again, on this machine or on Slurm.
fn print_reruns(manifest: &Manifest, dir: &Path, unfinished: &[usize]) -> Result<()> {
    println!(
        "\n{} shard(s) unfinished; run each again (it skips its done runs):",
        unfinished.len()
    );
    let exe = program();
    for &index in unfinished {
        let line = shard_args(manifest, dir, &index.to_string(), None);
        let line = std::iter::once(exe.clone()).chain(line);
        println!(
            "  {}",
            shlex::try_join(line.collect::<Vec<_>>().iter().map(String::as_str))?
        );
    }
    let script = dir.join(SBATCH);
    if script.is_file() {
        let indices: Vec<String> = unfinished.iter().map(usize::to_string).collect();
        println!(
            "or on Slurm: sbatch --array={} {}",
            indices.join(","),
            script.display()
        );
    }
    Ok(())
}
