//! `logicars sweep`: one task over many seeds and settings, run several at once, one
//! table; how convergence claims are measured.
//!
//! A sweep is a plan written into its folder (`manifest.json`), one row file per run, and
//! tables merged from the rows. A plain sweep is shard 0/1 followed by a merge; on a
//! cluster, each array task runs one shard (`--shard I/N`) and `sweep merge` tabulates
//! them (`--emit` writes the job for Slurm or Kubernetes).

mod emit;
mod exit;
mod merge;
mod plan;
mod scheduler_values;
mod shard;
mod status;
mod tables;

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use logicars::model::task::TaskKind;
use logicars::sweep::plan::Shard;

use crate::support::value_parsers::task_parser;
use plan::{parse_seeds, seeds_help, set_help, Seeds};

pub use exit::{Misconfigured, MISCONFIGURED_EXIT};

#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Examples:\n  logicars sweep checkerboard --seeds 0..20 --set recipe=paper,input-wise\n  \
                  logicars sweep checkerboard --seeds 0..100 --out D --emit slurm --shards 8\n  \
                  logicars sweep merge D"
)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub action: Option<SweepAction>,
    #[command(flatten)]
    pub plan: PlanArgs,
}

#[derive(Debug, Subcommand)]
pub enum SweepAction {
    /// Tabulate the rows of a sweep's shards (one folder or several) as a one-machine
    /// sweep does: runs.csv, sweep.json, summary.txt, sweep.svg.
    Merge(merge::MergeArgs),
    /// Runs done and missing in each shard of a sweep, and the command that runs only
    /// the missing shards again.
    Status(status::StatusArgs),
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The task (its preset, changed by --set).
    #[arg(value_parser = task_parser(), required = true)]
    pub task: Option<TaskKind>,
    /// The reduced preset.
    #[arg(long)]
    pub small: bool,
    #[arg(long, default_value = "0..10", value_parser = parse_seeds, help = seeds_help())]
    pub seeds: Seeds,
    #[arg(long = "set", value_name = "KEY=VALUES", help = set_help())]
    pub sets: Vec<String>,
    /// Keep training after a run's kept model is exact (default: stop it there).
    #[arg(long)]
    pub full: bool,
    /// Worker threads shared by all runs [default: all cores; with --emit: 1 per shard,
    /// passed to the scheduler as the shard's CPUs].
    #[arg(long)]
    pub threads: Option<usize>,
    /// The sweep's folder: its manifest, one row per run under runs/, and the tables
    /// [default: runs/sweep-<task>[-small]]. A sweep run again into its own folder goes
    /// on where it stopped; a folder of another sweep is refused.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run only piece I of N of the plan (0-based: the runs k with k mod N = I, settings
    /// outermost, then seeds), writing rows but no tables; `sweep merge` tabulates the
    /// pieces [default: the whole plan, then its tables].
    #[arg(long, value_name = "I/N", requires = "out", conflicts_with = "emit")]
    pub shard: Option<Shard>,
    /// Also save each run's kept model beside its row (runs/<setting>-seed<S>.model.json),
    /// and its log, every epoch of every attempt (runs/<setting>-seed<S>.metrics.csv).
    #[arg(long)]
    pub save_models: bool,
    /// pattern: the target image every run grows, read as `train pattern --target` reads
    /// it; the sweep's folder keeps a copy (target.png) that its shards read.
    #[arg(long, value_name = "IMAGE.png")]
    pub target: Option<PathBuf>,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// A cluster's scheduler that `--emit` writes a job for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// A Slurm job array: DIR/sweep.sbatch.
    Slurm,
    /// A Kubernetes Indexed Job: DIR/sweep-job.yaml.
    K8s,
}

#[derive(Debug, Args)]
#[command(next_help_heading = "Cluster (with --emit)")]
pub struct ClusterArgs {
    /// Write the job that runs this sweep on a cluster into --out (and its manifest),
    /// print how to submit and merge it, and run nothing here.
    #[arg(long, value_enum, requires_all = ["out", "shards"])]
    pub emit: Option<Engine>,
    /// How many pieces the plan is cut into: Slurm array tasks, Kubernetes completions.
    #[arg(long, requires = "emit", value_parser = at_least_one)]
    pub shards: Option<usize>,
    /// At most this many pieces at once (Slurm's %P, Kubernetes' parallelism)
    /// [default: no limit].
    #[arg(long, requires = "emit", value_parser = at_least_one)]
    pub throttle: Option<usize>,
    /// Slurm: the time limit of one piece, e.g. 4:00:00 [default: the partition's].
    #[arg(long, requires = "emit")]
    pub time: Option<String>,
    /// Slurm: the partition to run in.
    #[arg(long, requires = "emit")]
    pub partition: Option<String>,
    /// Slurm: the account to charge.
    #[arg(long, requires = "emit")]
    pub account: Option<String>,
    /// Kubernetes: the container image, with `logicars` on its PATH.
    #[arg(long, requires = "emit", required_if_eq("emit", "k8s"))]
    pub image: Option<String>,
    /// Kubernetes: the PersistentVolumeClaim mounted at /sweeps; --out's folder is
    /// /sweeps/<its name> in the pods.
    #[arg(long, default_value = "logicars-sweeps", requires = "emit")]
    pub claim: String,
    /// Kubernetes: retries of one failed piece (backoffLimitPerIndex).
    #[arg(long, default_value_t = 2, requires = "emit")]
    pub retries: u32,
}

/// A count of pieces: a whole number from 1.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("'{text}' is not a whole number of at least 1")),
    }
}

pub fn run(args: SweepArgs) -> anyhow::Result<()> {
    match args.action {
        Some(SweepAction::Merge(merge)) => merge::run(&merge),
        Some(SweepAction::Status(status)) => status::run(&status),
        None => shard::run(args.plan),
    }
}
