//! `logicars export`: the pruned hard circuit of one cell update.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use logicars::io::{atomic as output, model_file};
use logicars::model::network::Model;
use logicars::views::netlist::Netlist;
use logicars::views::netlist_export;
use logicars::views::page;

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
    /// One self-contained HTML page that runs the rule in a browser, with controls to
    /// play, step and damage it.
    Html,
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
    if let Format::Html = args.format {
        return write_page(&model, &args);
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
        Format::Html => unreachable!("written above"),
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

/// The model's page ([`page::html`]): the pruned circuit always, since the page shows only
/// what the visible channels read.
fn write_page(model: &Model, args: &ExportArgs) -> Result<()> {
    if args.unpruned {
        bail!("--unpruned is for the netlist formats; the page runs the pruned circuit");
    }
    let html = page::html(model);
    match &args.out {
        Some(path) => {
            output::write_atomically(path, html.as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
            eprintln!(
                "page of {} ({} KB) -> {}",
                model.config.task.name(),
                html.len().div_ceil(1024),
                path.display()
            );
        }
        None => print!("{html}"),
    }
    Ok(())
}
