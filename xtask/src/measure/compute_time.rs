//! The program's own compute time: each run is asked, through an environment variable,
//! to write the seconds it spent computing (no start-up or I/O) into a record.

use std::path::Path;

use anyhow::{bail, Result};

use crate::measure::runner::{run_checked, Invocation, Runner};
use crate::measure::Contestant;
use crate::results::measured::{Measurement, Plan};
use crate::support::files::remove_stale;
use crate::workloads::Workload;

/// The environment variable through which `logicars` reports its compute time.
pub const COMPUTE_TIME_ENV: &str = "LOGICARS_COMPUTE_TIME";

/// One run of one variant, pinned, with the program asked to report its compute time.
pub fn run_once(
    runner: &mut dyn Runner,
    c: &Contestant,
    workload: &Workload,
    plan: &Plan,
    scratch: &Path,
) -> Result<Measurement> {
    let report = record_path(scratch);
    remove_stale(&report)?;
    let inv = invocation(c, workload, plan, scratch);
    let what = format!("workload '{}' of variant {}", workload.name, c.variant);
    let mut m = run_checked(runner, &inv, &what)?;
    m.compute_s = read_compute_time(&report)?;
    Ok(m)
}

/// How a contestant runs a workload: pinned, in the scratch folder, asked to report its
/// compute time.
pub fn invocation(c: &Contestant, workload: &Workload, plan: &Plan, scratch: &Path) -> Invocation {
    Invocation {
        program: c.binary.clone(),
        args: workload.args_in(scratch),
        cwd: scratch.to_path_buf(),
        env: vec![(
            COMPUTE_TIME_ENV.into(),
            record_path(scratch).display().to_string(),
        )],
        cpus: plan.cpus.clone(),
    }
}

fn record_path(scratch: &Path) -> std::path::PathBuf {
    scratch.join("compute-time.json")
}

/// The `compute_s` of the record a run wrote, `None` if it wrote none.
fn read_compute_time(path: &Path) -> Result<Option<f64>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let record: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{}: not a compute-time record: {e}", path.display()))?;
    match record["compute_s"].as_f64() {
        Some(s) if s.is_finite() && s >= 0.0 => Ok(Some(s)),
        _ => bail!("{}: no valid compute_s in {text}", path.display()),
    }
}
