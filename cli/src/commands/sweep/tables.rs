//! What a sweep adds up to, for people and programs: the tables it prints, and runs.csv,
//! sweep.json, summary.txt and sweep.svg. Only a merge writes them.

use anyhow::{Context, Result};
use logicars::io::atomic as output;
use logicars::model::task::TaskKind;
use logicars::sweep::{Outcome, Summary};
use logicars::views::plot;

/// The width of the setting column: the longest label, at least "setting".
fn label_width(labels: &[String]) -> usize {
    labels.iter().map(String::len).max().unwrap_or(0).max(7)
}

pub(super) fn runs_table(outcomes: &[Outcome], labels: &[String]) -> String {
    let width = label_width(labels);
    let mut out = format!(
        "{:<width$}  {:>6}  {:>5}  {:>8}  {:>7}  {:>7}  {:>8}  {:>9}  {:>8}  {:>7}  {:>7}\n",
        "setting",
        "seed",
        "exact",
        "attempts",
        "at",
        "solved",
        "epochs",
        "soft",
        "hard",
        "acc %",
        "fresh %"
    );
    let growing = outcomes.iter().any(|o| o.holds.is_some());
    if growing {
        out.insert_str(out.len() - 1, &format!("  {:>19}", "grows/holds/regrows"));
    }
    for o in outcomes {
        let epoch = |e: Option<usize>| e.map_or("-".into(), |e| e.to_string());
        let (soft, hard, acc) = o.last.map_or((f64::NAN, f64::NAN, f64::NAN), |m| {
            (m.soft_loss, m.hard_loss, 100.0 * m.accuracy)
        });
        let fresh = o.fresh_accuracy.map_or(f64::NAN, |a| 100.0 * a);
        let exact = if o.exact { "yes" } else { "no" };
        // How many attempts the run made, and which one it keeps when not the last.
        let attempts = match o.attempt == o.attempts {
            true => o.attempts.to_string(),
            false => format!("{} ({})", o.attempts, o.attempt),
        };
        out += &format!(
            "{:<width$}  {:>6}  {exact:>5}  {attempts:>8}  {:>7}  {:>7}  {:>8}  {soft:>9.3}  {hard:>8.0}  {acc:>7.2}  {fresh:>7.2}\n",
            labels[o.setting],
            o.seed,
            epoch(o.exact_at),
            epoch(o.solved_at),
            o.epochs
        );
        if growing {
            let yes = |b: Option<bool>| b.map_or("-", |b| if b { "yes" } else { "no" });
            let measures = format!("{}/{}/{}", yes(o.grows), yes(o.holds), yes(o.regrows));
            out.insert_str(out.len() - 1, &format!("  {measures:>19}"));
        }
    }
    out
}

/// Seconds, or `-` for none.
fn seconds(s: Option<f64>) -> String {
    s.map_or("-".into(), |s| format!("{s:.1}"))
}

pub(super) fn summary_table(summaries: &[Summary], labels: &[String]) -> String {
    let width = label_width(labels);
    let mut out = format!(
        "{:<width$}  {:>8}  {:>13}  {:>11}  {:>13}  {:>8}  {:>13}  {:>10}  {:>17}\n",
        "setting",
        "exact",
        "95% interval",
        "per attempt",
        "95% interval",
        "solved",
        "median epoch",
        "median s",
        "to exact s 50/90%"
    );
    let growing = summaries.iter().any(|s| s.holds.is_some());
    if growing {
        let names = format!("  {:>7}  {:>7}  {:>7}", "grows", "holds", "regrows");
        out.insert_str(out.len() - 1, &names);
    }
    for (summary, label) in summaries.iter().zip(labels) {
        let (lo, hi) = summary.interval;
        let epochs = summary
            .median_epochs
            .map_or("-".into(), |e| format!("{e:.0}"));
        let wall = seconds(summary.median_wall_s);
        let (a_lo, a_hi) = summary.attempt_interval;
        let (median, p90) = summary.time_to_exact;
        out += &format!(
            "{:<width$}  {:>8}  {:>13}  {:>11}  {:>13}  {:>8}  {epochs:>13}  {wall:>10}  {:>17}\n",
            label,
            format!("{}/{}", summary.exact, summary.runs),
            format!("{:.0}-{:.0}%", 100.0 * lo, 100.0 * hi),
            format!("{}/{}", summary.exact, summary.attempts),
            format!("{:.0}-{:.0}%", 100.0 * a_lo, 100.0 * a_hi),
            format!("{}/{}", summary.solved, summary.runs),
            format!("{} / {}", seconds(median), seconds(p90)),
        );
        if growing {
            let of = |n: Option<usize>| n.map_or("-".into(), |n| format!("{n}/{}", summary.runs));
            let measures = format!(
                "  {:>7}  {:>7}  {:>7}",
                of(summary.grows),
                of(summary.holds),
                of(summary.regrows)
            );
            out.insert_str(out.len() - 1, &measures);
        }
    }
    out
}

#[derive(serde::Serialize)]
struct RunRow<'a> {
    setting: &'a str,
    seed: u64,
    /// Whether the kept model is exact on the fresh check: the run's success.
    exact: bool,
    /// Attempts made, and the one whose model the run keeps.
    attempts: usize,
    attempt: usize,
    exact_at: Option<usize>,
    solved_at: Option<usize>,
    epochs: usize,
    soft_loss: Option<f64>,
    hard_loss: Option<f64>,
    accuracy: Option<f64>,
    /// The kept model's accuracy on the fresh check (docs/recipes.md, "exact").
    fresh_accuracy: Option<f64>,
    /// For a task that grows a pattern: whether the kept model grows it and holds it
    /// (docs/tasks.md; empty for other tasks).
    grows: Option<bool>,
    holds: Option<bool>,
    regrows: Option<bool>,
    /// Every attempt's wall time: for an exact run, its time to an exact circuit.
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
    /// Attempts made over every run; `exact` of them were exact (the rate of one
    /// attempt), with its interval.
    attempts: usize,
    attempt_interval_95: (f64, f64),
    /// Seconds to an exact circuit over every run, median and 90th percentile (null:
    /// more than that share of the runs had none).
    time_to_exact_median_s: Option<f64>,
    time_to_exact_p90_s: Option<f64>,
    /// Runs whose batch was right at some epoch, exact or not.
    solved: usize,
    median_exact_epoch: Option<f64>,
    median_wall_s: Option<f64>,
    /// For a task that grows a pattern: runs whose kept model grows it, and holds it
    /// (null for other tasks).
    grows: Option<usize>,
    holds: Option<usize>,
    regrows: Option<usize>,
}

/// The whole sweep for programs: every setting's summary and every run.
#[derive(serde::Serialize)]
struct SweepJson<'a> {
    task: &'a str,
    epochs: usize,
    settings: Vec<SettingSummary<'a>>,
    runs: &'a [RunRow<'a>],
}

fn run_rows<'a>(outcomes: &'a [Outcome], labels: &'a [String]) -> Vec<RunRow<'a>> {
    outcomes
        .iter()
        .map(|o| RunRow {
            setting: &labels[o.setting],
            seed: o.seed,
            exact: o.exact,
            attempts: o.attempts,
            attempt: o.attempt,
            exact_at: o.exact_at,
            solved_at: o.solved_at,
            epochs: o.epochs,
            soft_loss: o.last.map(|m| m.soft_loss),
            hard_loss: o.last.map(|m| m.hard_loss),
            accuracy: o.last.map(|m| m.accuracy),
            fresh_accuracy: o.fresh_accuracy,
            grows: o.grows,
            holds: o.holds,
            regrows: o.regrows,
            wall_s: o.wall_s,
            error: o.error.as_deref(),
        })
        .collect()
}

fn sweep_json(
    rows: &[RunRow],
    summaries: &[Summary],
    labels: &[String],
    task: TaskKind,
    epochs: usize,
) -> Result<Vec<u8>> {
    let settings = summaries
        .iter()
        .zip(labels)
        .map(|(s, label)| SettingSummary {
            setting: label,
            runs: s.runs,
            solved: s.solved,
            exact: s.exact,
            interval_95: s.interval,
            attempts: s.attempts,
            attempt_interval_95: s.attempt_interval,
            time_to_exact_median_s: s.time_to_exact.0,
            time_to_exact_p90_s: s.time_to_exact.1,
            median_exact_epoch: s.median_epochs,
            median_wall_s: s.median_wall_s,
            grows: s.grows,
            holds: s.holds,
            regrows: s.regrows,
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

pub(super) fn write_outputs(
    dir: &std::path::Path,
    outcomes: &[Outcome],
    summaries: &[Summary],
    labels: &[String],
    task: TaskKind,
    epochs: usize,
) -> Result<()> {
    let rows = run_rows(outcomes, labels);
    let mut csv = csv::Writer::from_writer(Vec::new());
    for row in &rows {
        csv.serialize(row)?;
    }
    let bytes = csv.into_inner().context("writing runs.csv")?;
    output::write_atomically(&dir.join("runs.csv"), &bytes).context("writing runs.csv")?;
    let json = sweep_json(&rows, summaries, labels, task, epochs)?;
    output::write_atomically(&dir.join("sweep.json"), &json).context("writing sweep.json")?;
    let summary = summary_table(summaries, labels);
    output::write_atomically(&dir.join("summary.txt"), summary.as_bytes())
        .context("writing summary.txt")?;
    let title = format!(
        "{}: epochs until each run was exact, every attempt counted",
        task.name()
    );
    let epochs_max = outcomes
        .iter()
        .map(|o| o.epochs)
        .max()
        .unwrap_or(epochs)
        .max(epochs);
    // Each setting's rates beside its name: per run and per attempt.
    let rated: Vec<String> = summaries
        .iter()
        .zip(labels)
        .map(|(s, label)| {
            let (exact, runs, attempts) = (s.exact, s.runs, s.attempts);
            format!("{label}: {exact}/{runs} runs, {exact}/{attempts} attempts")
        })
        .collect();
    let svg = plot::sweep_svg(outcomes, &rated, epochs_max, &title)?;
    output::write_atomically(&dir.join("sweep.svg"), svg.as_bytes()).context("writing sweep.svg")
}
