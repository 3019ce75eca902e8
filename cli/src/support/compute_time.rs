//! The time a command spends computing (training epochs, evaluation rollouts), without
//! start-up, file reading and writing, for benchmarks that compare builds of the trainer.
//!
//! Set `LOGICARS_COMPUTE_TIME=<file>` and `train` and `eval` write there, as JSON,
//! `{"command": "train", "compute_s": 1.234, "units": 60, "unit": "epoch",
//! "peak_rss_bytes": 14155776}` (the process's peak resident memory so far, where the
//! system says: Linux's `VmHWM`; else null). Without the variable nothing changes.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use logicars::io::atomic::write_atomically;
use serde::Serialize;

/// The environment variable naming the file the compute time is written to.
pub const ENV: &str = "LOGICARS_COMPUTE_TIME";

/// A stopwatch that runs only between `resume` and `pause`.
#[derive(Debug, Default)]
pub struct ComputeClock {
    total: Duration,
    since: Option<Instant>,
}

impl ComputeClock {
    pub fn resume(&mut self) {
        self.since.get_or_insert_with(Instant::now);
    }

    pub fn pause(&mut self) {
        if let Some(start) = self.since.take() {
            self.total += start.elapsed();
        }
    }

    pub fn seconds(&self) -> f64 {
        let running = self.since.map_or(Duration::ZERO, |s| s.elapsed());
        (self.total + running).as_secs_f64()
    }
}

#[derive(Debug, Serialize)]
struct Record<'a> {
    command: &'a str,
    compute_s: f64,
    units: usize,
    unit: &'a str,
    peak_rss_bytes: Option<u64>,
}

/// Writes the record when [`ENV`] names a file; does nothing otherwise.
pub fn report(command: &str, compute_s: f64, units: usize, unit: &str) -> Result<()> {
    let Some(path) = std::env::var_os(ENV).map(PathBuf::from) else {
        return Ok(());
    };
    let record = Record {
        command,
        compute_s,
        units,
        unit,
        peak_rss_bytes: peak_rss_bytes(),
    };
    let text = serde_json::to_string(&record).expect("a record always serializes");
    write_atomically(&path, text.as_bytes())
        .with_context(|| format!("writing the compute time to {} ({ENV})", path.display()))
}

/// The peak resident memory of this process: `VmHWM` of `/proc/self/status` (Linux).
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_counts_only_while_running() {
        let mut clock = ComputeClock::default();
        assert_eq!(clock.seconds(), 0.0);
        clock.resume();
        std::thread::sleep(Duration::from_millis(5));
        clock.pause();
        let once = clock.seconds();
        assert!(once >= 0.005, "{once}");
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(clock.seconds(), once, "paused: nothing added");
        clock.resume();
        clock.resume();
        clock.pause();
        assert!(clock.seconds() >= once);
    }
}
