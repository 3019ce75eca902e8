//! The command line: one module per subcommand, each with its arguments and its `run`.

pub mod analyze;
pub mod check;
pub mod completions;
pub mod eval;
pub mod export;
pub mod presets;
pub mod render;
pub mod sweep;
pub mod train;

use clap::{CommandFactory, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "logicars",
    version,
    about = "Train Differentiable Logic Cellular Automata fast on a CPU"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Train a model on one of the paper's tasks.
    Train(Box<train::TrainArgs>),
    /// Run a saved model and score it against its task's target.
    Eval(eval::EvalArgs),
    /// Draw a hard rollout as a GIF animation or a PNG strip.
    Render(render::RenderArgs),
    /// Gate histograms, active gates and the pruned size of a model.
    Analyze(analyze::AnalyzeArgs),
    /// Export the pruned circuit of one cell update (Graphviz, Verilog, JSON).
    Export(export::ExportArgs),
    /// The paper's tests: generalization, recovery, robustness.
    Check(check::CheckArgs),
    /// Train one task over many seeds and settings; success rates and medians.
    Sweep(sweep::SweepArgs),
    /// The hyperparameters each task trains with unless a flag says otherwise.
    Presets(presets::PresetsArgs),
    /// Print a shell completion script.
    Completions(completions::CompletionsArgs),
}

/// The command line, with the presets' values shown under `train --help`.
pub fn command() -> clap::Command {
    let presets = format!(
        "Presets (flags override them; `logicars presets --json` for details):\n{}",
        presets::table()
    );
    Cli::command().mut_subcommand("train", |train| train.after_long_help(presets))
}
