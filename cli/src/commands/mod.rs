//! Command-line options and the commands behind them.

pub mod analyze;
pub mod check;
pub mod completions;
pub mod compute_time;
pub mod eval;
pub mod export;
pub mod outputs;
pub mod presets;
pub mod progress;
pub mod render;
pub mod sweep;
pub mod train;

use anyhow::{bail, Context, Result};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{CommandFactory, Parser, Subcommand};
use logicars::model::parametrization::Parametrization;
use logicars::model::recipe::RecipeName;
use logicars::model::task::TaskKind;
use logicars::train::memory::MemoryLimit;
use logicars::views::picture::View;

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

/// Parses a task name into the library's [`TaskKind`]; `--help` lists every task.
pub fn task_parser() -> impl TypedValueParser<Value = TaskKind> {
    let values = TaskKind::ALL.map(|t| PossibleValue::new(t.name()).help(t.summary()));
    PossibleValuesParser::new(values)
        .map(|name| TaskKind::from_name(&name).expect("clap accepted only task names"))
}

/// Parses a recipe name; `--help` lists every recipe.
pub fn recipe_parser() -> impl TypedValueParser<Value = RecipeName> {
    let values = RecipeName::ALL.map(|r| PossibleValue::new(r.name()).help(r.summary()));
    PossibleValuesParser::new(values)
        .map(|name| RecipeName::from_name(&name).expect("clap accepted only recipe names"))
}

/// Parses a parametrization name.
pub fn parametrization_parser() -> impl TypedValueParser<Value = Parametrization> {
    let values = Parametrization::ALL.map(|p| PossibleValue::new(p.name()));
    PossibleValuesParser::new(values).map(|name| {
        Parametrization::from_name(&name).expect("clap accepted only parametrization names")
    })
}

/// Parses a view name into the library's [`View`]; `--help` lists every view.
pub fn view_parser() -> impl TypedValueParser<Value = View> {
    let values = View::ALL.map(|v| PossibleValue::new(v.name()).help(v.summary()));
    PossibleValuesParser::new(values).map(|name| {
        *View::ALL
            .iter()
            .find(|v| v.name() == name)
            .expect("clap accepted only view names")
    })
}

/// Fails with one line when `what` would need more memory than this command may use
/// (see `logicars::train::memory`).
pub fn ensure_memory(what: &str, bytes: Option<u64>) -> Result<()> {
    Ok(MemoryLimit::from_env()?.check(what, bytes)?)
}

/// More threads than this per core only add scheduling; far more exhaust the machine.
const THREADS_PER_CORE: usize = 8;

/// Builds the thread pool that every parallel loop runs in.
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let most = THREADS_PER_CORE * cores;
        if n == 0 {
            bail!("--threads must be at least 1");
        }
        if n > most {
            bail!("--threads {n} is more than {THREADS_PER_CORE} per core; this machine has {cores} core(s), so use at most {most}");
        }
        builder = builder.num_threads(n);
    }
    builder.build().context("starting the thread pool")
}

/// Parses `HxW`, e.g. `64x64`.
pub fn parse_size(text: &str) -> Result<(usize, usize), String> {
    let (h, w) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected HxW such as 64x64, got '{text}'"))?;
    let parse = |s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| format!("'{s}' in '{text}' is not a whole number"))
    };
    let (h, w) = (parse(h)?, parse(w)?);
    if h == 0 || w == 0 {
        return Err(format!("the grid must not be empty, got {text}"));
    }
    Ok((h, w))
}
