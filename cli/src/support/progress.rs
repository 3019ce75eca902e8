//! What a training run shows: epoch lines and a bar on stderr, a CSV log on disk.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use logicars::io::atomic::write_atomically;
use logicars::train::{AttemptRecord, EpochMetrics};

/// One progress line per logged epoch, e.g.
/// `Epoch   50: soft_loss=12.34, hard_loss=3.00, acc=99.41% [1.2s]`.
pub fn epoch_line(m: &EpochMetrics, elapsed_s: f64) -> String {
    format!(
        "Epoch {:>4}: soft_loss={:.2}, hard_loss={:.2}, acc={:.2}% [{:.1}s]",
        m.epoch,
        m.metrics.soft_loss,
        m.metrics.hard_loss,
        m.metrics.accuracy * 100.0,
        elapsed_s
    )
}

/// A bar of rollout steps on stderr, drawn only on a terminal, for commands whose
/// rollouts can run long (`eval`, `check`).
pub fn steps_bar(steps: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(steps as u64), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} steps [{elapsed}]");
    bar.set_style(style.unwrap_or_else(|_| ProgressStyle::default_bar()));
    bar
}

/// A bar of the circuits the gate search has rolled out, of its budget, on stderr, drawn
/// only on a terminal.
pub fn search_bar(budget: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(budget as u64), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(
        "gate search {bar:30} {pos}/{len} circuits at most [{elapsed}]",
    );
    bar.set_style(style.unwrap_or_else(|_| ProgressStyle::default_bar()));
    bar
}

pub struct Progress {
    bar: ProgressBar,
    log: File,
    interval: usize,
    epochs: usize,
    start: Instant,
    /// `attempt 2 of 4: ` in a run that may make several attempts; its log then has an
    /// `attempt` column.
    label: Option<String>,
    attempt: usize,
}

#[derive(serde::Serialize)]
struct LogRow {
    #[serde(skip_serializing_if = "Option::is_none")]
    attempt: Option<usize>,
    epoch: usize,
    soft_loss: f64,
    hard_loss: f64,
    accuracy: f64,
}

/// The log's first line.
const LOG_HEADER: &[u8] = b"epoch,soft_loss,hard_loss,accuracy\n";

/// The log's first line in a run that may make several attempts.
const ATTEMPTS_LOG_HEADER: &[u8] = b"attempt,epoch,soft_loss,hard_loss,accuracy\n";

/// One whole line of the log; `attempt` in a run that may make several.
fn log_row(attempt: Option<usize>, m: &EpochMetrics) -> Result<Vec<u8>> {
    let mut row = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    row.serialize(LogRow {
        attempt,
        epoch: m.epoch,
        soft_loss: m.metrics.soft_loss,
        hard_loss: m.metrics.hard_loss,
        accuracy: m.metrics.accuracy,
    })?;
    Ok(row.into_inner().map_err(|e| e.into_error())?)
}

/// The log of a run's finished attempts, as a run that may make several writes it (an
/// `attempt` column): a sweep's runs keep theirs beside their rows.
pub fn attempts_log(records: &[AttemptRecord]) -> Result<Vec<u8>> {
    let mut text = ATTEMPTS_LOG_HEADER.to_vec();
    for a in records {
        for m in &a.history {
            text.extend(log_row(Some(a.attempt), m)?);
        }
    }
    Ok(text)
}

impl Progress {
    /// Starts the log over with the rows of the epochs already run (those of the
    /// `finished` attempts, then `history`, the training attempt's; written whole), then
    /// appends each epoch's row with one write, so that a reader never sees half a row.
    /// The log holds no timings: the same seed gives the same file bit for bit. `label`
    /// names the attempt in a run that may make several.
    pub fn new(
        (epochs, interval): (usize, usize),
        log_path: &Path,
        finished: &[AttemptRecord],
        history: &[EpochMetrics],
        (attempt, label): (usize, Option<String>),
    ) -> Result<Self> {
        let several = label.is_some();
        let mut text = match several {
            true => ATTEMPTS_LOG_HEADER.to_vec(),
            false => LOG_HEADER.to_vec(),
        };
        let earlier = finished
            .iter()
            .flat_map(|a| a.history.iter().map(|m| (a.attempt, m)));
        for (a, m) in earlier.chain(history.iter().map(|m| (attempt, m))) {
            text.extend(log_row(several.then_some(a), m)?);
        }
        write_atomically(log_path, &text)
            .with_context(|| format!("writing log {}", log_path.display()))?;
        let log = File::options()
            .append(true)
            .open(log_path)
            .with_context(|| format!("opening log {}", log_path.display()))?;
        // indicatif draws nothing when stderr is not a terminal.
        let bar = ProgressBar::with_draw_target(Some(epochs as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} epochs  {msg}  [{elapsed_precise} < {eta}]",
            )
            .expect("valid template"),
        );
        bar.set_position(history.len() as u64);
        Ok(Progress {
            bar,
            log,
            interval,
            epochs,
            start: Instant::now(),
            label,
            attempt,
        })
    }

    pub fn elapsed_s(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    pub fn record(&mut self, m: &EpochMetrics) -> Result<()> {
        let attempt = self.label.as_ref().map(|_| self.attempt);
        self.log
            .write_all(&log_row(attempt, m)?)
            .context("writing the training log")?;
        let label = self.label.as_deref().unwrap_or_default();
        self.bar.set_position(m.epoch as u64);
        self.bar
            .set_message(format!("{label}hard_loss={:.0}", m.metrics.hard_loss));
        if m.epoch.is_multiple_of(self.interval) || m.epoch == self.epochs {
            let line = format!("{label}{}", epoch_line(m, self.elapsed_s()));
            self.bar.suspend(|| eprintln!("{line}"));
        }
        Ok(())
    }

    /// A line beside the progress bar, e.g. an event of the run.
    pub fn note(&self, line: &str) {
        self.bar.suspend(|| eprintln!("{line}"));
    }

    /// Clears the bar; returns the seconds since the progress began.
    pub fn finish(self) -> f64 {
        self.bar.finish_and_clear();
        self.elapsed_s()
    }
}
