//! `logicars analyze`: what the trained circuit is made of.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use logicars::io::{atomic as output, model_file};
use logicars::views::analysis::{analyze, ModuleStats};
use logicars::views::plot;

use crate::support::outputs::check_outputs;

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// The model file (from `logicars train`).
    #[arg(long)]
    pub model: PathBuf,
    /// Also write gate histograms as SVG into this folder.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: AnalyzeArgs) -> Result<()> {
    let model = model_file::load(&args.model)?;
    let a = analyze(&model);
    if let Some(dir) = &args.svg {
        let path_of = |module: &str| dir.join(format!("gates-{module}.svg"));
        let what = "the gate histograms (--svg)";
        check_outputs(&[(what, path_of("perception")), (what, path_of("update"))])?;
        for m in [&a.perception, &a.update] {
            let svg = plot::histogram_svg(
                &m.histogram,
                &format!("Gates of the {} network (without A and B)", m.module),
            )
            .map_err(anyhow::Error::msg)?;
            let path = path_of(&m.module);
            output::write_atomically(&path, svg.as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
            eprintln!("wrote {}", path.display());
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&a)?);
        return Ok(());
    }
    for m in [&a.perception, &a.update] {
        print_module(m);
    }
    println!("active gates (the paper's count):    {}", a.active_gates);
    println!("gates per cell update:               {}", a.cell_gates);
    println!(
        "  after pruning:                     {}",
        a.pruned_cell_gates
    );
    println!("channels the target depends on:      {:?}", a.live_channels);
    Ok(())
}

fn print_module(m: &ModuleStats) {
    println!("{}: {} gates, {} active", m.module, m.gates, m.active);
    for (op, n) in &m.histogram {
        println!("  {op:<12} {n:>5}");
    }
}
