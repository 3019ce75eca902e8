//! `logicars export`: the pruned hard circuit of one cell update.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use logicars::io::{atomic as output, model_file};
use logicars::views::netlist::Netlist;
use logicars::views::netlist_export;

use crate::support::outputs::check_outputs;

/// What the circuit is written as.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    /// Graphviz, to draw with `dot -Tsvg`.
    Dot,
    /// A synthesizable Verilog module, `logicars_cell`.
    Verilog,
    /// Gates and wires as JSON, to read back or process.
    Json,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The model file (from `logicars train`).
    #[arg(long)]
    pub model: PathBuf,
    /// The output format.
    #[arg(long, value_enum)]
    pub format: Format,
    /// Output file [default: standard output].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Keep every gate (no pruning).
    #[arg(long)]
    pub unpruned: bool,
}

pub fn run(args: ExportArgs) -> Result<()> {
    let model = model_file::load(&args.model)?;
    if let Some(path) = &args.out {
        check_outputs(&[("the netlist (--out)", path.clone())])?;
    }
    let full = Netlist::from_model(&model);
    let net = if args.unpruned {
        full
    } else {
        full.pruned(&model.config.target_channels)
    };
    let text = match args.format {
        Format::Dot => netlist_export::dot(&net),
        Format::Verilog => netlist_export::verilog(&net, "logicars_cell"),
        Format::Json => netlist_export::json(&net),
    };
    match &args.out {
        Some(path) => {
            output::write_atomically(path, text.as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
            eprintln!("{} gates -> {}", net.gates.len(), path.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}
