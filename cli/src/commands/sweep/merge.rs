//! `logicars sweep merge`: the rows of a sweep's shards, checked and tabulated exactly as
//! a one-machine sweep tabulates its own (which is a merge of one shard).

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use clap::Args;
use logicars::model::task::TaskKind;
use logicars::sweep::gather::{gather, Gathered};
use logicars::sweep::{self};
use logicars::tasks::preset;

use super::exit::{misconfigured, store_error};
use super::tables::{runs_table, summary_table, write_outputs};
use crate::support::outputs::check_outputs;

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The sweep's folders (one shared folder, or one per shard); the first one's
    /// manifest is the sweep's.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Folder for the tables [default: the first DIR].
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The files a merge writes.
const TABLES: [&str; 4] = ["runs.csv", "sweep.json", "summary.txt", "sweep.svg"];

pub fn run(args: &MergeArgs) -> Result<()> {
    let out = args.out.clone().unwrap_or_else(|| args.dirs[0].clone());
    check_table_outputs(&out)?;
    merge_into(&args.dirs, &out)
}

/// Fails unless the tables can be written into `dir`: checked before any long work.
pub(super) fn check_table_outputs(dir: &Path) -> Result<()> {
    let files: Vec<_> = TABLES
        .map(|n| ("the sweep's results (--out)", dir.join(n)))
        .into();
    check_outputs(&files)
}

/// Gathers the rows in `dirs`, prints the tables and writes them into `out`; refuses a
/// sweep with runs missing, naming them.
pub(super) fn merge_into(dirs: &[PathBuf], out: &Path) -> Result<()> {
    let Gathered {
        manifest,
        mut outcomes,
        missing,
        damaged,
    } = gather(dirs).map_err(store_error)?;
    if let Some(first) = damaged.first() {
        let more = match damaged.len() {
            1 => String::new(),
            n => format!(" ({} more row(s) damaged)", n - 1),
        };
        return Err(misconfigured(anyhow::anyhow!(
            "{}{more}; `logicars sweep status {}` prints the command that makes it again",
            first.why,
            dirs[0].display()
        )));
    }
    if !missing.is_empty() {
        let listed: Vec<String> = missing
            .iter()
            .take(10)
            .map(|&(s, seed)| format!("'{}' seed {seed}", manifest.sweep.settings[s]))
            .collect();
        let more = missing.len().saturating_sub(listed.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        bail!(
            "{} of the sweep's {} runs have no row: {}{more}; `logicars sweep status {}` \
             says which shards to run again",
            missing.len(),
            manifest.plan().len(),
            listed.join(", "),
            dirs[0].display()
        );
    }
    let Some(task) = TaskKind::from_name(&manifest.sweep.task) else {
        bail!(
            "the manifest's task '{}' is not a task of this logicars",
            manifest.sweep.task
        );
    };
    let epochs = preset(task, manifest.sweep.small).1.epochs;
    let labels = &manifest.sweep.settings;
    // Listed per setting in seed order, whatever order the seeds were given in.
    outcomes.sort_by_key(|o| (o.setting, o.seed));
    let summaries = sweep::summarize(&outcomes, labels.len());
    print!("{}", runs_table(&outcomes, labels));
    println!();
    print!("{}", summary_table(&summaries, labels));
    write_outputs(out, &outcomes, &summaries, labels, task, epochs)?;
    println!("\nwritten: {}", out.display());
    Ok(())
}
