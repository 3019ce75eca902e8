//! `cargo xtask flamegraph`: where the time goes, from `perf record -e cpu-clock`
//! (software sampling: works without hardware counters), drawn with inferno.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::measure::runner::{run_inputs_of, ProcessRunner};
use crate::paths;
use crate::stages::builder::{build, BuildSpec};
use crate::support::text::tail;
use crate::toolchain::tools::ToolFinder;
use crate::workloads::WorkloadSet;

#[derive(Debug, Args)]
pub struct FlamegraphArgs {
    /// Workload to profile [default: the first of the set].
    pub workload: Option<String>,
    /// The workload set to pick it from.
    #[arg(long, default_value = "profiles/benchmark.toml")]
    pub workloads: PathBuf,
    /// Output SVG.
    #[arg(long, default_value = "results/flamegraph.svg")]
    pub out: PathBuf,
}

pub fn run(args: FlamegraphArgs) -> Result<()> {
    let perf = ToolFinder::from_env()?.find_any("perf")?;
    let set = WorkloadSet::load(&paths::root().join(&args.workloads))?
        .select(&args.workload.iter().cloned().collect::<Vec<_>>())?;
    let binary = build(&BuildSpec::new("profiling", "profiling"))?.binary;
    let scratch = paths::scratch("flamegraph");
    std::fs::create_dir_all(&scratch)?;
    // A workload may read what an earlier one wrote (a model); run those first.
    let workload = set.workloads[0].clone();
    let full = WorkloadSet::load(&paths::root().join(&args.workloads))?;
    run_inputs_of(&mut ProcessRunner, &full, &workload, &binary, &scratch)?;
    let data = scratch.join("perf.data");
    let mut record = vec![
        "record".to_string(),
        "-e".into(),
        "cpu-clock".into(),
        "-F".into(),
        "999".into(),
        "-g".into(),
    ];
    record.extend([
        "-o".into(),
        data.display().to_string(),
        "--".into(),
        binary.display().to_string(),
    ]);
    record.extend(workload.args_in(&scratch));
    eprintln!("[flamegraph] perf {}", record.join(" "));
    let out = duct::cmd(&perf.path, &record)
        .dir(&scratch)
        .stdout_null()
        .stderr_capture()
        .unchecked()
        .run()?;
    if !out.status.success() {
        bail!(
            "perf record failed (is perf allowed here? try: sysctl kernel.perf_event_paranoid=1):\n{}",
            tail(&String::from_utf8_lossy(&out.stderr), 10)
        );
    }
    let svg = draw(&perf.path, &data, &workload.command_line())?;
    let out_path = paths::root().join(&args.out);
    logicars::io::atomic::write_atomically(&out_path, &svg)
        .with_context(|| format!("writing {}", out_path.display()))?;
    println!("{}", out_path.display());
    Ok(())
}

/// Folds the stacks of `perf.data` and draws them as a flamegraph SVG.
fn draw(perf: &Path, data: &Path, command_line: &str) -> Result<Vec<u8>> {
    let script = duct::cmd(perf, ["script", "-i", &data.display().to_string()])
        .stderr_null()
        .stdout_capture()
        .run()
        .context("perf script")?
        .stdout;
    let mut folded = Vec::new();
    let mut folder = inferno::collapse::perf::Folder::default();
    inferno::collapse::Collapse::collapse(&mut folder, &script[..], &mut folded)
        .context("folding stacks")?;
    let mut svg = Vec::new();
    let mut options = inferno::flamegraph::Options::default();
    options.title = format!("logicars: {command_line}");
    inferno::flamegraph::from_reader(&mut options, &folded[..], &mut svg)
        .context("drawing the flamegraph")?;
    Ok(svg)
}
