//! `logicars sweep`: one task over many seeds and settings, run several at once, one
//! table; how convergence claims are measured.

mod plan;

use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use logicars::io::atomic as output;
use logicars::model::task::TaskKind;
use logicars::sweep::{self, Outcome, Setting, Summary};
use logicars::tasks::preset;
use logicars::train::memory::training_run_bytes;
use logicars::views::plot;
use rayon::prelude::*;

use crate::support::outputs::check_outputs;
use crate::support::resources::{ensure_memory, thread_pool};
use crate::support::value_parsers::task_parser;
use plan::{parse_seeds, seeds_help, set_help, setting_count, settings, Seeds};

#[derive(Debug, Args)]
#[command(
    after_help = "Example: logicars sweep checkerboard --seeds 0..20 --set recipe=paper,input-wise"
)]
pub struct SweepArgs {
    /// The task (its preset, changed by --set).
    #[arg(value_parser = task_parser())]
    pub task: TaskKind,
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
    /// Worker threads shared by all runs [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Folder for runs.csv, sweep.json, summary.txt and sweep.svg
    /// [default: runs/sweep-<task>[-small]].
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: SweepArgs) -> Result<()> {
    sweep::check_plan(setting_count(&args.sets), args.seeds.count())?;
    let settings = settings(&args.sets)?;
    let seeds = args.seeds.list();
    let jobs = sweep::plan(settings.len(), &seeds)?;
    let small = if args.small { "-small" } else { "" };
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("runs/sweep-{}{small}", args.task.name())));
    let epochs = preset(args.task, args.small).1.epochs;
    let pool = thread_pool(args.threads)?;
    pool.install(|| ensure_sweep_fits(&args, &settings))?;
    eprintln!(
        "Sweeping {}{small}: {} setting(s) x {} seed(s) = {} runs",
        args.task.name(),
        settings.len(),
        seeds.len(),
        jobs.len()
    );
    if dir.is_file() {
        bail!(
            "--out {} is a file; the sweep writes a folder",
            dir.display()
        );
    }
    let names = ["runs.csv", "sweep.json", "summary.txt", "sweep.svg"];
    let files: Vec<_> = names
        .map(|n| ("the sweep's results (--out)", dir.join(n)))
        .into();
    check_outputs(&files)?;
    let mut outcomes = pool.install(|| run_all(&args, &settings, &jobs))?;
    outcomes.sort_by_key(|o| (o.setting, o.seed));
    let summaries = sweep::summarize(&outcomes, settings.len());
    print!("{}", runs_table(&outcomes, &settings));
    println!();
    print!("{}", summary_table(&summaries, &settings));
    write_outputs(&dir, &outcomes, &summaries, &settings, args.task, epochs)?;
    println!("\nwritten: {}", dir.display());
    Ok(())
}

/// Every setting checked as `train` checks its flags, and its training, once per thread
/// (runs go in parallel), against the memory limit: no run starts unless all can.
fn ensure_sweep_fits(args: &SweepArgs, settings: &[Setting]) -> Result<()> {
    let threads = rayon::current_num_threads();
    for setting in settings {
        let (config, s) = setting.apply(args.task, args.small, 0);
        let checked = config.validate().and_then(|()| s.validate(&config));
        checked.with_context(|| format!("setting {}", setting.label))?;
        let bytes = training_run_bytes(&config, &s).and_then(|b| b.checked_mul(threads as u64));
        let what = format!("{threads} runs at once of setting {}", setting.label);
        ensure_memory(&what, bytes)?;
    }
    Ok(())
}

/// Runs every `(setting, seed)` job in parallel, with a progress bar and a line per run.
fn run_all(args: &SweepArgs, settings: &[Setting], jobs: &[(usize, u64)]) -> Result<Vec<Outcome>> {
    let bar = ProgressBar::new(jobs.len() as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs [{elapsed}, eta {eta}] {msg}")
            .expect("valid template"),
    );
    let first_error = Mutex::new(None);
    let outcomes = jobs
        .par_iter()
        .filter_map(|&(s, seed)| {
            let result = sweep::run(args.task, args.small, &settings[s], seed, !args.full);
            bar.inc(1);
            match result {
                Ok((outcome, _)) => {
                    let solved = outcome
                        .solved_at
                        .map_or("not solved".into(), |e| format!("solved at {e}"));
                    let note = match (outcome.exact, outcome.exact_at) {
                        (true, Some(e)) => format!("exact at {e} ({solved})"),
                        (true, None) => format!("exact at the end ({solved})"),
                        (false, _) => format!("not exact ({solved})"),
                    };
                    let line = format!("{} seed {seed}: {note}", settings[s].label);
                    if bar.is_hidden() {
                        eprintln!("{line}");
                    } else {
                        bar.println(line);
                    }
                    Some(Outcome {
                        setting: s,
                        ..outcome
                    })
                }
                Err(e) => {
                    first_error.lock().expect("not poisoned").get_or_insert(e);
                    None
                }
            }
        })
        .collect();
    bar.finish_and_clear();
    match first_error.into_inner().expect("not poisoned") {
        Some(e) => Err(e).context("building a model"),
        None => Ok(outcomes),
    }
}

/// The width of the setting column: the longest label, at least "setting".
fn label_width(settings: &[Setting]) -> usize {
    settings
        .iter()
        .map(|s| s.label.len())
        .max()
        .unwrap_or(0)
        .max(7)
}

fn runs_table(outcomes: &[Outcome], settings: &[Setting]) -> String {
    let width = label_width(settings);
    let mut out = format!(
        "{:<width$}  {:>6}  {:>5}  {:>7}  {:>7}  {:>8}  {:>9}  {:>8}  {:>7}  {:>7}\n",
        "setting", "seed", "exact", "at", "solved", "epochs", "soft", "hard", "acc %", "fresh %"
    );
    for o in outcomes {
        let epoch = |e: Option<usize>| e.map_or("-".into(), |e| e.to_string());
        let (soft, hard, acc) = o.last.map_or((f64::NAN, f64::NAN, f64::NAN), |m| {
            (m.soft_loss, m.hard_loss, 100.0 * m.accuracy)
        });
        let fresh = o.fresh_accuracy.map_or(f64::NAN, |a| 100.0 * a);
        let exact = if o.exact { "yes" } else { "no" };
        out += &format!(
            "{:<width$}  {:>6}  {exact:>5}  {:>7}  {:>7}  {:>8}  {soft:>9.3}  {hard:>8.0}  {acc:>7.2}  {fresh:>7.2}\n",
            settings[o.setting].label,
            o.seed,
            epoch(o.exact_at),
            epoch(o.solved_at),
            o.epochs
        );
    }
    out
}

fn summary_table(summaries: &[Summary], settings: &[Setting]) -> String {
    let width = label_width(settings);
    let mut out = format!(
        "{:<width$}  {:>8}  {:>13}  {:>8}  {:>13}  {:>10}\n",
        "setting", "exact", "95% interval", "solved", "median epoch", "median s"
    );
    for (summary, setting) in summaries.iter().zip(settings) {
        let (lo, hi) = summary.interval;
        let epochs = summary
            .median_epochs
            .map_or("-".into(), |e| format!("{e:.0}"));
        let wall = summary
            .median_wall_s
            .map_or("-".into(), |w| format!("{w:.1}"));
        out += &format!(
            "{:<width$}  {:>8}  {:>13}  {:>8}  {epochs:>13}  {wall:>10}\n",
            setting.label,
            format!("{}/{}", summary.exact, summary.runs),
            format!("{:.0}-{:.0}%", 100.0 * lo, 100.0 * hi),
            format!("{}/{}", summary.solved, summary.runs),
        );
    }
    out
}

#[derive(serde::Serialize)]
struct RunRow<'a> {
    setting: &'a str,
    seed: u64,
    /// Whether the kept model is exact on the fresh check: the run's success.
    exact: bool,
    exact_at: Option<usize>,
    solved_at: Option<usize>,
    epochs: usize,
    soft_loss: Option<f64>,
    hard_loss: Option<f64>,
    accuracy: Option<f64>,
    /// The kept model's accuracy on the fresh check (docs/recipes.md, "exact").
    fresh_accuracy: Option<f64>,
    wall_s: f64,
    error: Option<&'a str>,
}

/// One setting's success rate in `sweep.json`.
#[derive(serde::Serialize)]
struct SettingSummary<'a> {
    setting: &'a str,
    runs: usize,
    /// Runs whose kept model is exact: the success rate, with its interval.
    exact: usize,
    interval_95: (f64, f64),
    /// Runs whose batch was right at some epoch, exact or not.
    solved: usize,
    median_exact_epoch: Option<f64>,
    median_wall_s: Option<f64>,
}

/// The whole sweep for programs: every setting's summary and every run.
#[derive(serde::Serialize)]
struct SweepJson<'a> {
    task: &'a str,
    epochs: usize,
    settings: Vec<SettingSummary<'a>>,
    runs: &'a [RunRow<'a>],
}

fn run_rows<'a>(outcomes: &'a [Outcome], settings: &'a [Setting]) -> Vec<RunRow<'a>> {
    outcomes
        .iter()
        .map(|o| RunRow {
            setting: &settings[o.setting].label,
            seed: o.seed,
            exact: o.exact,
            exact_at: o.exact_at,
            solved_at: o.solved_at,
            epochs: o.epochs,
            soft_loss: o.last.map(|m| m.soft_loss),
            hard_loss: o.last.map(|m| m.hard_loss),
            accuracy: o.last.map(|m| m.accuracy),
            fresh_accuracy: o.fresh_accuracy,
            wall_s: o.wall_s,
            error: o.error.as_deref(),
        })
        .collect()
}

fn sweep_json(
    rows: &[RunRow],
    summaries: &[Summary],
    settings: &[Setting],
    task: TaskKind,
    epochs: usize,
) -> Result<Vec<u8>> {
    let settings = summaries
        .iter()
        .zip(settings)
        .map(|(s, setting)| SettingSummary {
            setting: &setting.label,
            runs: s.runs,
            solved: s.solved,
            exact: s.exact,
            interval_95: s.interval,
            median_exact_epoch: s.median_epochs,
            median_wall_s: s.median_wall_s,
        })
        .collect();
    let json = SweepJson {
        task: task.name(),
        epochs,
        settings,
        runs: rows,
    };
    Ok(serde_json::to_vec_pretty(&json)?)
}

fn write_outputs(
    dir: &std::path::Path,
    outcomes: &[Outcome],
    summaries: &[Summary],
    settings: &[Setting],
    task: TaskKind,
    epochs: usize,
) -> Result<()> {
    let rows = run_rows(outcomes, settings);
    let mut csv = csv::Writer::from_writer(Vec::new());
    for row in &rows {
        csv.serialize(row)?;
    }
    let bytes = csv.into_inner().context("writing runs.csv")?;
    output::write_atomically(&dir.join("runs.csv"), &bytes).context("writing runs.csv")?;
    let json = sweep_json(&rows, summaries, settings, task, epochs)?;
    output::write_atomically(&dir.join("sweep.json"), &json).context("writing sweep.json")?;
    let summary = summary_table(summaries, settings);
    output::write_atomically(&dir.join("summary.txt"), summary.as_bytes())
        .context("writing summary.txt")?;
    let labels: Vec<String> = settings.iter().map(|s| s.label.clone()).collect();
    let title = format!("{}: epoch each run was found exact", task.name());
    let epochs_max = outcomes
        .iter()
        .map(|o| o.epochs)
        .max()
        .unwrap_or(epochs)
        .max(epochs);
    let svg = plot::sweep_svg(outcomes, &labels, epochs_max, &title)?;
    output::write_atomically(&dir.join("sweep.svg"), svg.as_bytes()).context("writing sweep.svg")
}
