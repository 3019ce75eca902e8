//! `logicars check`: the paper's tests of one or more trained rules, and its robustness
//! figure.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use logicars::evaluate::checks::{
    rollout_checks, run_checks, total_steps, CheckOptions, CheckRow, Checked,
};
use logicars::io::{atomic as output, model_file};
use logicars::model::network::Model;
use logicars::train::memory::{hard_bytes, RolloutSize};
use logicars::views::plot::{robustness_svg, ErrorCurve};
use serde::Serialize;

use crate::support::bad_value;
use crate::support::outputs::check_outputs;
use crate::support::progress::steps_bar;
use crate::support::resources::{ensure_memory, thread_pool};

/// Steps of the robustness run, far above the paper's 4000, that still end in minutes.
const MAX_ROBUSTNESS_STEPS: usize = 1_000_000;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A model file (from `logicars train`); repeat to check several, e.g. the sync and
    /// the async checkerboard for the robustness figure.
    #[arg(long, required = true)]
    pub model: Vec<PathBuf>,
    /// Random grids per test.
    #[arg(long, default_value_t = 4)]
    pub batch: usize,
    /// Seed of the random grids and of async fire masks.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Side of the block the healing and regrowth tests zero (the paper's: 20; growing
    /// patterns cut it to half the grid's side).
    #[arg(long, default_value_t = CheckOptions::PAPER_BLOCK)]
    pub block: usize,
    /// Steps of the checkerboard robustness run (the paper's: 4000).
    #[arg(long, default_value_t = CheckOptions::PAPER_ROBUSTNESS_STEPS)]
    pub robustness_steps: usize,
    /// Write the robustness runs' error per step, one line per checkerboard model, as SVG.
    #[arg(long)]
    pub robustness_svg: Option<PathBuf>,
    /// Print JSON (one list of rows, each naming its model) instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Worker threads [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
}

/// A row of the JSON output.
#[derive(Serialize)]
struct ModelRow<'a> {
    model: String,
    #[serde(flatten)]
    row: &'a CheckRow,
}

pub fn run(args: CheckArgs) -> Result<()> {
    if args.batch == 0 || args.robustness_steps < 2 || args.block == 0 {
        bad_value!("--batch and --block must be at least 1 and --robustness-steps at least 2");
    }
    if args.robustness_steps > MAX_ROBUSTNESS_STEPS {
        bail!("--robustness-steps must be at most {MAX_ROBUSTNESS_STEPS}");
    }
    let models = args
        .model
        .iter()
        .map(|path| model_file::load(path))
        .collect::<Result<Vec<_>, _>>()?;
    let options = CheckOptions {
        batch: args.batch,
        seed: args.seed,
        block: args.block,
        robustness_steps: args.robustness_steps,
    };
    for model in &models {
        ensure_fits(model, &options)?;
    }
    if let Some(svg) = &args.robustness_svg {
        check_outputs(&[("the robustness plot (--robustness-svg)", svg.clone())])?;
    }
    let pool = thread_pool(args.threads)?;
    let mut all = Vec::new();
    for (path, model) in args.model.iter().zip(&models) {
        let bar = steps_bar(total_steps(&model.config, &options));
        bar.set_message(format!("checking {}", path.display()));
        let checked = pool.install(|| run_checks(model, &options, || bar.inc(1)));
        bar.finish_and_clear();
        all.push(checked);
    }
    if let Some(svg) = &args.robustness_svg {
        write_robustness_svg(svg, &args.model, &models, &all)?;
    }
    if args.json {
        let rows: Vec<ModelRow> = args
            .model
            .iter()
            .zip(&all)
            .flat_map(|(path, checked)| {
                checked.rows.iter().map(|row| ModelRow {
                    model: path.display().to_string(),
                    row,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    for (i, (path, checked)) in args.model.iter().zip(&all).enumerate() {
        if args.model.len() > 1 {
            let gap = if i == 0 { "" } else { "\n" };
            println!("{gap}{}:\n", path.display());
        }
        print_table(&checked.rows);
    }
    Ok(())
}

/// Refuses, before any work, a check whose largest rollout would not fit in memory.
fn ensure_fits(model: &Model, options: &CheckOptions) -> Result<()> {
    let c = &model.config;
    let sizes = rollout_checks(c, options.block).into_iter().map(|check| {
        RolloutSize::evaluation(options.batch, (check.height, check.width), check.steps)
    });
    let Some((bytes, size)) = sizes.map(|size| (hard_bytes(c, &size), size)).max_by_key(
        // `None` (beyond u64) is the largest.
        |(bytes, _)| bytes.map_or(u128::MAX, u128::from),
    ) else {
        return Ok(());
    };
    let what = format!(
        "checking --batch {} grids of {}x{} for {} steps",
        size.batch, size.height, size.width, size.steps
    );
    ensure_memory(&what, bytes)
}

fn print_table(rows: &[CheckRow]) {
    println!("| test | grid | steps | accuracy | note |\n|---|---|---:|---:|---|");
    for r in rows {
        println!(
            "| {} | {} | {} | {:.2}% | {} |",
            r.test,
            r.grid,
            r.steps,
            r.accuracy * 100.0,
            r.note
        );
    }
}

fn write_robustness_svg(
    svg: &Path,
    paths: &[PathBuf],
    models: &[Model],
    all: &[Checked],
) -> Result<()> {
    let curves: Vec<ErrorCurve> = paths
        .iter()
        .zip(models)
        .zip(all)
        .filter_map(|((path, model), checked)| {
            let errors = checked.robustness_errors.as_deref()?;
            let mode = match model.config.fire_rate {
                Some(_) => "async-trained",
                None => "sync-trained",
            };
            Some(ErrorCurve {
                label: format!("{mode} ({})", path.display()),
                errors,
            })
        })
        .collect();
    if curves.is_empty() {
        bail!("--robustness-svg: none of the models is a checkerboard, which the robustness run is for");
    }
    let title =
        "Robustness: wrong cells (either phase) per async step, a 10x10 block reset after each";
    let text = robustness_svg(&curves, title).map_err(anyhow::Error::msg)?;
    output::write_atomically(svg, text.as_bytes())
        .with_context(|| format!("writing {}", svg.display()))?;
    eprintln!("wrote {}", svg.display());
    Ok(())
}
