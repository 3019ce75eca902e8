//! `logicars check`: the paper's tests of a trained rule.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;
use logicars::io::model_file;
use logicars::train::memory::{hard_bytes, RolloutSize};
use logicars::views::check::{run_checks, total_steps};

use super::progress::steps_bar;
use super::{ensure_memory, thread_pool};

/// Steps of the robustness run, far above the paper's 4000, that still end in minutes.
const MAX_ROBUSTNESS_STEPS: usize = 1_000_000;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The model file (from `logicars train`).
    #[arg(long)]
    pub model: PathBuf,
    /// Random grids per test.
    #[arg(long, default_value_t = 4)]
    pub batch: usize,
    /// Seed of the random grids and of async fire masks.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Steps of the async robustness run.
    #[arg(long, default_value_t = 1000)]
    pub robustness_steps: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Worker threads [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
}

pub fn run(args: CheckArgs) -> Result<()> {
    if args.batch == 0 || args.robustness_steps < 2 {
        bail!("--batch must be at least 1 and --robustness-steps at least 2");
    }
    let model = model_file::load(&args.model)?;
    let c = &model.config;
    let largest = RolloutSize::evaluation(args.batch, (4 * c.height, 4 * c.width), 4 * c.steps);
    let what = format!(
        "checking --batch {} grids of {}x{} for {} steps",
        largest.batch, largest.height, largest.width, largest.steps
    );
    ensure_memory(&what, hard_bytes(c, &largest))?;
    if args.robustness_steps > MAX_ROBUSTNESS_STEPS {
        bail!("--robustness-steps must be at most {MAX_ROBUSTNESS_STEPS}");
    }
    let bar = steps_bar(total_steps(c, args.robustness_steps));
    bar.set_message("checking");
    let rows = thread_pool(args.threads)?.install(|| {
        run_checks(&model, args.batch, args.seed, args.robustness_steps, || {
            bar.inc(1);
        })
    });
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    println!("| test | grid | steps | accuracy | note |\n|---|---|---:|---:|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {:.2}% | {} |",
            r.test,
            r.grid,
            r.steps,
            r.accuracy * 100.0,
            r.note
        );
    }
    Ok(())
}
