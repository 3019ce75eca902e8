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
    let (text, what) = match args.format {
        Format::Html => page_text(&model, args.unpruned)?,
        netlist => netlist_text(&model, netlist, args.unpruned),
    };
    match &args.out {
        Some(path) => {
            output::write_atomically(path, text.as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
            eprintln!("{what} -> {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// The pruned (or whole) netlist in a netlist format, and its gate count.
fn netlist_text(model: &Model, format: Format, unpruned: bool) -> (String, String) {
    let full = Netlist::from_model(model);
    let net = if unpruned {
        full
    } else {
        full.pruned(&model.config.target_channels)
    };
    let text = match format {
        Format::Dot => netlist_export::dot(&net),
        Format::Verilog => netlist_export::verilog(&net, "logicars_cell"),
        // `run` sends the page to `page_text`; JSON is the netlist as data.
        Format::Json | Format::Html => netlist_export::json(&net),
    };
    (text, format!("{} gates", net.gates.len()))
}

/// The model's page ([`page::html`]) and its size: the pruned circuit always, since the
/// page shows only what the visible channels read.
fn page_text(model: &Model, unpruned: bool) -> Result<(String, String)> {
    if unpruned {
        bail!("--unpruned is for the netlist formats; the page runs the pruned circuit");
    }
    let html = page::html(model);
    let what = format!(
        "page of {} ({} KB)",
        model.config.task.name(),
        html.len().div_ceil(1024)
    );
    Ok((html, what))
}
