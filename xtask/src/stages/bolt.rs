//! The BOLT stage: post-link layout optimization with LLVM BOLT.
//!
//! Instrumentation is the default: it needs no hardware support. `--perf` samples with
//! `perf record -j any,u` instead, which needs branch records (LBR) that many virtual
//! machines lack.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::measure::runner::{run_workloads, ProcessRunner};
use crate::paths;
use crate::stages::builder::{build, install, BuildSpec};
use crate::stages::manifest::{self, Manifest};
use crate::stages::{dry_run, pgo};
use crate::support::files::remove_stale;
use crate::support::text::tail;
use crate::toolchain::tools::ToolFinder;
use crate::workloads::WorkloadSet;

/// The optimization flags; `--bolt-flags` replaces them.
pub const DEFAULT_FLAGS: &str =
    "-reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions \
     -split-all-cold -split-eh -icf=all -use-gnu-stack -dyno-stats";

pub fn default_flags() -> Vec<String> {
    flags_of(DEFAULT_FLAGS)
}

/// A space-separated flag list, one flag per item.
pub fn flags_of(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

pub fn stable_path(with_pgo: bool) -> PathBuf {
    paths::optimized(if with_pgo {
        "logicars-pgo-bolt"
    } else {
        "logicars-bolt"
    })
}

/// The binary BOLT starts from: relocations kept, optionally PGO-optimized.
fn base_binary(workloads: &Path, with_pgo: bool) -> Result<PathBuf> {
    let spec = if with_pgo {
        let profile = pgo::current_profile(workloads, false)?;
        BuildSpec::new("pgo-bolt-base", "pgo-use").flags(pgo::use_flags(&profile))
    } else {
        BuildSpec::new("bolt-base", "release")
    };
    Ok(build(&spec.flag("-Clink-args=-Wl,--emit-relocs"))?.binary)
}

/// What a BOLT binary is built from: the tree, the training workloads, BOLT's flags.
pub fn binary_manifest(workloads: &Path, with_pgo: bool, flags: &[String]) -> Result<Manifest> {
    let inputs = vec![
        (
            "stage".to_string(),
            if with_pgo { "pgo-bolt" } else { "bolt" }.to_string(),
        ),
        ("training".to_string(), manifest::file_hash(workloads)?),
        ("bolt-flags".to_string(), flags.join(" ")),
    ];
    Manifest::of_tree(&[], inputs)
}

/// Instrument, run the training workloads, merge, optimize, install.
pub fn make(workloads: &Path, with_pgo: bool, flags: &[String]) -> Result<PathBuf> {
    let stable = stable_path(with_pgo);
    remove_stale(&stable)?;
    let tools = ToolFinder::from_env()?;
    let bolt = tools.find_llvm("llvm-bolt")?;
    let merge = tools.find_llvm("merge-fdata")?;
    let set = WorkloadSet::load(workloads)?;
    dry_run::check(&set)?;
    let base = base_binary(workloads, with_pgo)?;

    let dir = paths::bolt_dir().join(if with_pgo { "pgo-bolt" } else { "bolt" });
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    let instrumented = dir.join("logicars.instrumented");
    let prefix = dir.join("prof");
    bolt_cmd(
        &bolt.path,
        &[
            base.display().to_string(),
            "-instrument".into(),
            format!("--instrumentation-file={}", prefix.display()),
            "--instrumentation-file-append-pid".into(),
            "-o".into(),
            instrumented.display().to_string(),
        ],
        "instrumenting",
    )?;
    run_workloads(
        &mut ProcessRunner,
        &instrumented,
        &set,
        &paths::scratch("bolt"),
        &[],
    )?;

    let merged = merge_fdata(&merge.path, &dir)?;
    optimize(&bolt.path, &base, &merged, flags, &stable)?;
    manifest::write(&stable, &binary_manifest(workloads, with_pgo, flags)?)?;
    Ok(stable)
}

/// Every `.fdata` file the instrumented runs wrote into `dir`, merged into one profile.
fn merge_fdata(merge: &Path, dir: &Path) -> Result<PathBuf> {
    let fdata: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "fdata"))
        .map(|p| p.display().to_string())
        .collect();
    if fdata.is_empty() {
        bail!(
            "the instrumented binary wrote no .fdata files into {}",
            dir.display()
        );
    }
    let merged = dir.join("merged.fdata");
    let out = duct::cmd(merge, &fdata)
        .stdout_path(&merged)
        .stderr_capture()
        .unchecked()
        .run()?;
    if !out.status.success() {
        bail!(
            "merge-fdata failed:\n{}",
            tail(&String::from_utf8_lossy(&out.stderr), 15)
        );
    }
    Ok(merged)
}

/// `--perf`: sample the base binary with LBR, convert with perf2bolt, optimize.
pub fn make_with_perf(workloads: &Path, with_pgo: bool, flags: &[String]) -> Result<PathBuf> {
    let stable = stable_path(with_pgo);
    remove_stale(&stable)?;
    let tools = ToolFinder::from_env()?;
    let bolt = tools.find_llvm("llvm-bolt")?;
    let perf2bolt = tools.find_llvm("perf2bolt")?;
    let perf = tools.find_any("perf")?;
    let set = WorkloadSet::load(workloads)?;
    dry_run::check(&set)?;
    let base = base_binary(workloads, with_pgo)?;
    let dir = paths::bolt_dir().join("perf");
    std::fs::create_dir_all(&dir)?;
    let scratch = paths::scratch("bolt-perf");
    std::fs::create_dir_all(&scratch)?;
    let data = dir.join("perf.data");
    // One recording of all workloads, each appended through a shell would lose the
    // binary's identity; record the first (longest-running) training workload.
    let w = &set.workloads[0];
    let mut args = vec![
        "record".to_string(),
        "-e".into(),
        "cycles:u".into(),
        "-j".into(),
        "any,u".into(),
    ];
    args.extend([
        "-o".into(),
        data.display().to_string(),
        "--".into(),
        base.display().to_string(),
    ]);
    args.extend(w.args_in(&scratch));
    let out = duct::cmd(&perf.path, &args)
        .dir(&scratch)
        .stderr_capture()
        .stdout_null()
        .unchecked()
        .run()?;
    if !out.status.success() {
        bail!(
            "perf record with branch records failed; this machine likely has no LBR. Use the default instrumentation mode (without --perf).\n{}",
            tail(&String::from_utf8_lossy(&out.stderr), 10)
        );
    }
    let fdata = dir.join("perf.fdata");
    bolt_cmd(
        &perf2bolt.path,
        &[
            "-p".into(),
            data.display().to_string(),
            "-o".into(),
            fdata.display().to_string(),
            base.display().to_string(),
        ],
        "converting the perf profile",
    )?;
    optimize(&bolt.path, &base, &fdata, flags, &stable)
}

fn optimize(
    bolt: &Path,
    base: &Path,
    fdata: &Path,
    flags: &[String],
    stable: &Path,
) -> Result<PathBuf> {
    let optimized = fdata.with_file_name("logicars.bolt");
    let mut args = vec![
        base.display().to_string(),
        "-o".into(),
        optimized.display().to_string(),
        format!("-data={}", fdata.display()),
    ];
    args.extend(flags.iter().cloned());
    eprintln!("[bolt] llvm-bolt {}", args.join(" "));
    let log = bolt_cmd(bolt, &args, "optimizing")?;
    let info: Vec<&str> = log.lines().filter(|l| l.contains("BOLT-INFO")).collect();
    // The last lines hold the summary (profile coverage, functions moved).
    for l in &info[info.len().saturating_sub(8)..] {
        eprintln!("[bolt] {l}");
    }
    install(&optimized, stable)?;
    Ok(stable.to_path_buf())
}

fn bolt_cmd(program: &Path, args: &[String], what: &str) -> Result<String> {
    let out = duct::cmd(program, args)
        .stderr_to_stdout()
        .stdout_capture()
        .unchecked()
        .run()
        .with_context(|| format!("running {}", program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        bail!("BOLT failed while {what}:\n{}", tail(&text, 20));
    }
    Ok(text)
}
