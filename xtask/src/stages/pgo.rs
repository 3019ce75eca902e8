//! The PGO stage: instrumented build, training runs, merged profile, optimized build.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::measure::runner::{run_workload, ProcessRunner};
use crate::paths;
use crate::results::coverage::{ProfileRun, ProfileRuns};
use crate::stages::builder::{build, install, BuildSpec};
use crate::stages::dry_run;
use crate::stages::manifest::{self, Manifest};
use crate::support::files::remove_stale;
use crate::support::symbols::demangle;
use crate::support::text::tail;
use crate::toolchain::tools::ToolFinder;
use crate::workloads::WorkloadSet;

fn native_flags(native: bool) -> Vec<String> {
    if native {
        vec!["-Ctarget-cpu=native".into()]
    } else {
        vec![]
    }
}

/// The whole stage; returns the stable path of the optimized binary.
pub fn make(workloads: &Path, native: bool) -> Result<PathBuf> {
    let stable = paths::optimized(if native {
        "logicars-pgo-native"
    } else {
        "logicars-pgo"
    });
    remove_stale(&stable)?;
    let profile = collect_profile(workloads, native)?;
    let spec = BuildSpec::new(if native { "pgo-use-native" } else { "pgo-use" }, "pgo-use")
        .flags(use_flags(&profile))
        .flags(native_flags(native));
    let built = build(&spec)?;
    let missing = built
        .messages
        .iter()
        .filter(|m| m.contains("no profile data available for function"))
        .count();
    eprintln!(
        "[pgo] functions without profile data: {missing} (cold code the workloads never ran)"
    );
    install(&built.binary, &stable)?;
    manifest::write(&stable, &binary_manifest(workloads, native)?)?;
    Ok(stable)
}

/// What the PGO binary is built from: the tree, the flags, the training workloads.
pub fn binary_manifest(workloads: &Path, native: bool) -> Result<Manifest> {
    stage_manifest("pgo", workloads, native)
}

fn stage_manifest(stage: &str, workloads: &Path, native: bool) -> Result<Manifest> {
    let inputs = vec![
        ("stage".to_string(), stage.to_string()),
        ("training".to_string(), manifest::file_hash(workloads)?),
    ];
    Manifest::of_tree(&native_flags(native), inputs)
}

/// The merged profile of the current tree and training set: the one last collected if
/// its manifest matches, otherwise a new one.
pub fn current_profile(workloads: &Path, native: bool) -> Result<PathBuf> {
    let wanted = stage_manifest("pgo-profile", workloads, native)?;
    let pointer = current_pointer(native);
    let last = std::fs::read_to_string(&pointer).ok().map(PathBuf::from);
    match last {
        Some(profile) if manifest::stale(&profile, &wanted).is_none() => {
            eprintln!("[reuse] {}: collected from this tree", profile.display());
            Ok(profile)
        }
        _ => collect_profile(workloads, native),
    }
}

/// The file naming the last collected profile.
fn current_pointer(native: bool) -> PathBuf {
    paths::pgo_dir().join(if native { "current-native" } else { "current" })
}

/// RUSTFLAGS that apply a merged profile.
pub fn use_flags(profile: &Path) -> Vec<String> {
    vec![
        format!("-Cprofile-use={}", profile.display()),
        "-Cllvm-args=-pgo-warn-missing-function".into(),
    ]
}

/// Builds the instrumented binary, runs the training workloads and merges their raw
/// profiles into `target/xtask/pgo/logicars-<hash>.profdata` (named by content, so a new
/// profile changes RUSTFLAGS and forces a rebuild).
pub fn collect_profile(workloads: &Path, native: bool) -> Result<PathBuf> {
    let tools = ToolFinder::from_env()?;
    let profdata = tools.find_llvm("llvm-profdata")?;
    let set = WorkloadSet::load(workloads)?;
    dry_run::check(&set)?;
    let raw = paths::pgo_dir().join("raw");
    if raw.exists() {
        std::fs::remove_dir_all(&raw).with_context(|| format!("clearing {}", raw.display()))?;
    }
    std::fs::create_dir_all(&raw)?;
    let spec = BuildSpec::new(if native { "pgo-gen-native" } else { "pgo-gen" }, "pgo-gen")
        .flag(format!("-Cprofile-generate={}", raw.display()))
        .flags(native_flags(native));
    let instrumented = build(&spec)?.binary;
    // Each run writes into its own folder, so what each one executed can be told apart.
    let scratch = paths::scratch("pgo");
    let mut files = Vec::new();
    for w in &set.workloads {
        let dir = raw.join(&w.name);
        std::fs::create_dir_all(&dir)?;
        let env = vec![(
            "LLVM_PROFILE_FILE".to_string(),
            format!("{}/%m_%p.profraw", dir.display()),
        )];
        run_workload(&mut ProcessRunner, &instrumented, w, &scratch, &env)?;
        files.extend(raw_profiles(&dir)?);
    }
    let merged_tmp = paths::pgo_dir().join("merged.tmp.profdata");
    merge(&profdata.path, &files, &merged_tmp)?;
    let mut runs = ProfileRuns::default();
    for w in &set.workloads {
        let dir = raw.join(&w.name);
        let own = dir.join("run.profdata");
        merge(&profdata.path, &raw_profiles(&dir)?, &own)?;
        runs.runs.push(ProfileRun {
            name: w.name.clone(),
            represents: w.represents.clone(),
            functions: covered_functions(&profdata.path, &own)?,
        });
    }
    let hash = manifest::file_hash(&merged_tmp)?;
    let merged = paths::pgo_dir().join(format!("logicars-{}.profdata", &hash[..16]));
    std::fs::rename(&merged_tmp, &merged)?;
    eprintln!("[pgo] profile {}", merged.display());
    let runs_file = runs_path(&merged);
    std::fs::write(&runs_file, serde_json::to_string(&runs)? + "\n")
        .with_context(|| format!("writing {}", runs_file.display()))?;
    manifest::write(&merged, &stage_manifest("pgo-profile", workloads, native)?)?;
    std::fs::write(current_pointer(native), merged.display().to_string())?;
    Ok(merged)
}

/// Merges raw profiles into `out` with llvm-profdata.
fn merge(profdata: &Path, files: &[PathBuf], out: &Path) -> Result<()> {
    eprintln!(
        "[pgo] merging {} raw profiles into {}",
        files.len(),
        out.display()
    );
    // --failure-mode=warn: rayon's threads can leave a counter file damaged; keep the rest.
    let mut args: Vec<String> = vec!["merge".into(), "--failure-mode=warn".into(), "-o".into()];
    args.push(out.display().to_string());
    args.extend(files.iter().map(|f| f.display().to_string()));
    let run = duct::cmd(profdata, &args)
        .stderr_capture()
        .unchecked()
        .run()?;
    let stderr = String::from_utf8_lossy(&run.stderr);
    if !run.status.success() || !out.is_file() {
        bail!(
            "llvm-profdata merge failed (corrupt .profraw?):\n{}",
            tail(&stderr, 15)
        );
    }
    if !stderr.trim().is_empty() {
        eprintln!("[pgo] llvm-profdata: {}", tail(&stderr, 5));
    }
    Ok(())
}

/// The functions a profile saw executed (`llvm-profdata show --covered`).
fn covered_functions(
    profdata: &Path,
    profile: &Path,
) -> Result<std::collections::BTreeSet<String>> {
    let out = duct::cmd(
        profdata,
        ["show", "--covered", &profile.display().to_string()],
    )
    .stdout_capture()
    .run()
    .with_context(|| format!("llvm-profdata show --covered {}", profile.display()))?;
    Ok(parse_covered(&String::from_utf8_lossy(&out.stdout)))
}

/// One name a line, `[file;]symbol`: demangled without hash, the file dropped.
fn parse_covered(text: &str) -> std::collections::BTreeSet<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| demangle(l.rsplit_once(';').map_or(l, |(_, symbol)| symbol)))
        .collect()
}

/// Where the training runs of a profile are described.
fn runs_path(profile: &Path) -> PathBuf {
    let mut name = profile.as_os_str().to_owned();
    name.push(".runs.json");
    PathBuf::from(name)
}

/// The training runs of the profile last collected for this tree's PGO build, if it was
/// collected with them written down.
pub fn current_profile_runs(native: bool) -> Option<ProfileRuns> {
    let profile = std::fs::read_to_string(current_pointer(native)).ok()?;
    let text = std::fs::read_to_string(runs_path(Path::new(profile.trim()))).ok()?;
    serde_json::from_str(&text).ok()
}

/// The `.profraw` files the instrumented workloads wrote into `raw`.
fn raw_profiles(raw: &Path) -> Result<Vec<PathBuf>> {
    let files: Vec<PathBuf> = std::fs::read_dir(raw)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "profraw"))
        .collect();
    if files.is_empty() {
        bail!(
            "no .profraw files in {}: the workloads ran but wrote no profile (is the binary instrumented?)",
            raw.display()
        );
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covered_names_drop_their_file_and_hash() {
        let text = "logicars.1e94-cgu.0;_ZN8logicars7kernels4soft10forward_at6avx51217h00d8a9cade2a0858E\n\
                    _ZN8logicars7kernels4hard10forward_at17h477175521a02e540E\n\
                    main\n";
        let names: Vec<String> = parse_covered(text).into_iter().collect();
        assert_eq!(
            names,
            [
                "logicars::kernels::hard::forward_at",
                "logicars::kernels::soft::forward_at::avx512",
                "main"
            ]
        );
    }
}
