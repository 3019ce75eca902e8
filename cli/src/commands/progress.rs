//! What a training run shows: epoch lines and a bar on stderr, a CSV log on disk.

use std::fs::File;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use logicars::train::EpochMetrics;

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

pub struct Progress {
    bar: ProgressBar,
    log: csv::Writer<File>,
    interval: usize,
    epochs: usize,
    start: Instant,
}

#[derive(serde::Serialize)]
struct LogRow {
    epoch: usize,
    soft_loss: f64,
    hard_loss: f64,
    accuracy: f64,
}

impl Progress {
    /// The CSV log holds no timings, so the same seed gives the same file bit for bit.
    pub fn new(epochs: usize, interval: usize, log_path: &Path) -> Result<Self> {
        if let Some(dir) = log_path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let log = csv::Writer::from_path(log_path)
            .with_context(|| format!("creating log {}", log_path.display()))?;
        // indicatif draws nothing when stderr is not a terminal.
        let bar = ProgressBar::with_draw_target(Some(epochs as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} epochs  {msg}  [{elapsed_precise} < {eta}]",
            )
            .expect("valid template"),
        );
        Ok(Progress {
            bar,
            log,
            interval,
            epochs,
            start: Instant::now(),
        })
    }

    pub fn elapsed_s(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    pub fn record(&mut self, m: &EpochMetrics) -> Result<()> {
        self.log
            .serialize(LogRow {
                epoch: m.epoch,
                soft_loss: m.metrics.soft_loss,
                hard_loss: m.metrics.hard_loss,
                accuracy: m.metrics.accuracy,
            })
            .context("writing the training log")?;
        self.bar.set_position(m.epoch as u64);
        self.bar
            .set_message(format!("hard_loss={:.0}", m.metrics.hard_loss));
        if m.epoch % self.interval == 0 || m.epoch == self.epochs {
            let line = epoch_line(m, self.elapsed_s());
            self.bar.suspend(|| eprintln!("{line}"));
        }
        Ok(())
    }

    pub fn finish(mut self) -> Result<()> {
        self.bar.finish_and_clear();
        self.log.flush().context("writing the training log")
    }
}
