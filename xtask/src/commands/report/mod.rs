//! `cargo xtask report`: build the variants, measure them side by side until their
//! differences are known, count their instructions, write the report and its history.

mod assemble;
mod counts_and_samples;
mod files;
mod resume;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use clap::Args;

use crate::history;
use crate::machine::Machine;
use crate::measure::agreement::check_same_results;
use crate::measure::cachegrind::count_all;
use crate::measure::rounds::measure;
use crate::measure::runner::{allowed_cpus, parse_cpus, ProcessRunner};
use crate::measure::sampling::sample_all;
use crate::measure::Contestant;
use crate::paths;
use crate::results::coverage::ProfileRuns;
use crate::results::measured::{Measured, Plan, Samples};
use crate::results::report::{Report, Settings};
use crate::results::saved_rounds::{SavedAttribution, SavedRounds};
use crate::stages::dry_run;
use crate::stages::pgo;
use crate::stages::variants::Variant;
use crate::toolchain::tools::ToolFinder;
use crate::workloads::WorkloadSet;
use assemble::{assemble, Results};
use counts_and_samples::{counts, rounds_of, samples, Wanted};
use files::write_files;

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Variants to compare, comma-separated [default: all].
    #[arg(long, value_delimiter = ',')]
    pub variants: Vec<Variant>,
    /// The variant others are compared with.
    #[arg(long, default_value = "release")]
    pub baseline: Variant,
    /// Timed rounds per workload at least (each round runs every variant once).
    #[arg(long, default_value_t = 5)]
    pub min_rounds: usize,
    /// Timed rounds per workload at most.
    #[arg(long, default_value_t = 200)]
    pub max_rounds: usize,
    /// Untimed rounds before them.
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
    /// Stop a workload once every speedup's 95% interval is within this relative
    /// half-width (0.02: +-2%).
    #[arg(long, default_value_t = 0.02)]
    pub precision: f64,
    /// Time the measurement may take in all (e.g. 90s, 30m, 1h 30m); each workload gets an
    /// even share of what is left when it starts.
    #[arg(long, default_value = "30m", value_parser = parse_budget)]
    pub budget: f64,
    /// Cores every run is pinned to, e.g. 0-1 [default: every core this process may use].
    // The full path keeps clap from reading a `Vec` as one core per value: `parse_cpus`
    // turns the whole list into one value.
    #[arg(long, value_parser = parse_cpus)]
    pub cpus: Option<::std::vec::Vec<usize>>,
    /// Rounds of every variant on every workload under `perf record -e cpu-clock`
    /// (untimed, after the timed rounds) for the "where the time moved" tables; 0 skips
    /// them. A resumed report reuses the samples saved with its rounds if they cover as
    /// many rounds.
    #[arg(long, default_value_t = 3)]
    pub sample_rounds: usize,
    /// Skip the instruction counts (cachegrind) [default: count where a workload has a
    /// `count` form, or reuse the counts saved with the rounds when resuming].
    #[arg(long)]
    pub no_counts: bool,
    /// The benchmark set.
    #[arg(long, default_value = "profiles/benchmark.toml")]
    pub workloads: PathBuf,
    /// Workload file used to train PGO/BOLT profiles when a variant must be built.
    #[arg(long, default_value = "profiles/training.toml")]
    pub training: PathBuf,
    /// Report name: writes <out-dir>/<name>.{md,json,svg} and <out-dir>/<name>/<workload>.{json,csv}.
    #[arg(long, default_value = "report")]
    pub name: String,
    /// Folder of the report files and of history.csv.
    #[arg(long, default_value = "results")]
    pub out_dir: PathBuf,
    /// Go on from the timed rounds this report saved last time (<out-dir>/<name>/rounds.json)
    /// instead of starting again: refused unless the variants' binaries, the workloads and
    /// the kind of machine are the same. The budget is this stretch's; the counts and
    /// samples an earlier stretch took are reused [default: start again].
    #[arg(long)]
    pub resume: bool,
}

/// Parses a duration such as `90s`, `30m` or `1h 30m` into seconds.
fn parse_budget(text: &str) -> Result<f64, String> {
    let d: jiff::SignedDuration = text
        .parse()
        .map_err(|e| format!("expected a duration such as 90s, 30m or 1h 30m: {e}"))?;
    if d.is_negative() || d.is_zero() {
        return Err("the budget must be positive".into());
    }
    Ok(d.as_secs_f64())
}

pub fn run(args: ReportArgs) -> Result<()> {
    check_limits(&args)?;
    let variants = baseline_first(&args.variants, args.baseline);
    let set = WorkloadSet::load(&paths::root().join(&args.workloads))?;
    let training = paths::root().join(&args.training);
    dry_run::check(&set)?;
    let machine = Machine::detect()?;
    let contestants = contestants(&variants, &training)?;
    let plan = plan_of(&args);
    let scratch = paths::scratch("report");
    let out_dir = paths::root().join(&args.out_dir);
    let rounds_file = resume::rounds_path(&out_dir, &args.name);
    let (measured, mut saved) = timed_rounds(
        args.resume,
        &rounds_file,
        &machine,
        &contestants,
        &set,
        &plan,
        &scratch,
    )?;
    let SavedAttribution { counted, samples } = counts_and_samples_of(
        &args,
        &contestants,
        &set,
        &plan,
        &scratch,
        (&mut saved, &rounds_file),
    )?;
    let counted = if counted.is_empty() {
        vec![vec![None; contestants.len()]; set.workloads.len()]
    } else {
        counted
    };
    // This stretch's start is the last; the report names the earlier ones.
    let earlier_stretches = saved.stretches[..saved.stretches.len() - 1].to_vec();
    let profile = profile_runs(&variants);
    let settings = Settings {
        workload_file: args.workloads.display().to_string(),
        baseline: args.baseline.name().into(),
        sample_rounds: rounds_of(&samples),
        plan,
        earlier_stretches,
    };
    let results = Results::by_workload(&set, &measured, &counted, &samples);
    let header = (args.name.clone(), settings, machine);
    let report = assemble(header, &contestants, &results, profile.as_ref(), &scratch);
    warn_poor_coverage(&report);
    let mut written = write_files(&report, &out_dir)?;
    written.push(rounds_file);
    history::append(&out_dir.join("history.csv"), &history::rows_of(&report))?;
    print_summary(&report, &written);
    Ok(())
}

/// The instruction counts and samples: the ones saved with the rounds, or taken now and
/// saved with them (each as soon as it is taken) for a later stretch.
fn counts_and_samples_of(
    args: &ReportArgs,
    contestants: &[Contestant],
    set: &WorkloadSet,
    plan: &Plan,
    scratch: &Path,
    (saved, rounds_file): (&mut SavedRounds, &Path),
) -> Result<SavedAttribution> {
    let wanted = Wanted {
        counts: !args.no_counts,
        sample_rounds: args.sample_rounds,
        workloads: set.workloads.len(),
        variants: contestants.len(),
    };
    let earlier = saved.attribution.clone();
    let mut taken = SavedAttribution {
        counted: counts(earlier.as_ref(), wanted, || {
            count_all(contestants, set, scratch)
        })?,
        samples: earlier
            .as_ref()
            .map(|e| e.samples.clone())
            .unwrap_or_default(),
    };
    keep(saved, rounds_file, &taken)?;
    taken.samples = samples(earlier.as_ref(), wanted, |rounds| {
        let perf = ToolFinder::from_env()?.find_any("perf")?.path;
        sample_all(
            &mut ProcessRunner,
            &perf,
            contestants,
            set,
            plan,
            rounds,
            scratch,
        )
    })?;
    keep(saved, rounds_file, &taken)?;
    Ok(taken)
}

/// Saves the rounds again with `taken` if it changed what they hold.
fn keep(saved: &mut SavedRounds, rounds_file: &Path, taken: &SavedAttribution) -> Result<()> {
    if saved.attribution.as_ref() == Some(taken) {
        return Ok(());
    }
    saved.attribution = Some(taken.clone());
    resume::save(rounds_file, saved)
}

/// How often the timed rounds are saved while they run.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(60);

/// The timed rounds, going on from the saved ones if `resume` asks, and saved as they run;
/// returns them with what was saved at their end.
fn timed_rounds(
    resume: bool,
    rounds_file: &Path,
    machine: &Machine,
    contestants: &[Contestant],
    set: &WorkloadSet,
    plan: &Plan,
    scratch: &Path,
) -> Result<(Vec<Measured>, SavedRounds)> {
    let binaries = resume::fingerprints(contestants)?;
    let earlier = if resume {
        Some(resume::load(rounds_file, machine, &binaries, set)?)
    } else {
        if rounds_file.exists() {
            eprintln!(
                "[report] starting again: the rounds in {} will be replaced (--resume goes on from them)",
                rounds_file.display()
            );
        }
        None
    };
    let earlier_samples: Vec<Vec<Samples>> = earlier
        .iter()
        .flat_map(|e| e.workloads.iter().map(|w| w.samples()))
        .collect();
    // Saved every minute while it runs, so that a stretch cut short loses little, and
    // at the end, before the slower counts and samples.
    let mut last_save = Instant::now();
    let mut checkpoint = |so_far: &[&[Samples]]| -> Result<()> {
        if last_save.elapsed() < CHECKPOINT_EVERY {
            return Ok(());
        }
        for (w, samples) in set.workloads.iter().zip(so_far) {
            check_same_results(&w.name, contestants, samples)?;
        }
        let saved = resume::to_save(earlier.as_ref(), machine, &binaries, set, so_far);
        last_save = Instant::now();
        resume::save(rounds_file, &saved)
    };
    let measured = measure(
        &mut ProcessRunner,
        contestants,
        set,
        plan,
        &earlier_samples,
        &mut checkpoint,
        scratch,
    )?;
    let samples: Vec<&[Samples]> = measured.iter().map(|m| m.samples.as_slice()).collect();
    let saved = resume::to_save(earlier.as_ref(), machine, &binaries, set, &samples);
    resume::save(rounds_file, &saved)?;
    Ok((measured, saved))
}

/// Refuses limits that cannot give a spread or an interval.
fn check_limits(args: &ReportArgs) -> Result<()> {
    if args.min_rounds < 2 || args.max_rounds < args.min_rounds {
        bail!("need 2 <= --min-rounds <= --max-rounds (a spread needs two rounds)");
    }
    if !(args.precision > 0.0 && args.precision < 1.0) {
        bail!("--precision must be between 0 and 1, e.g. 0.02 for +-2%");
    }
    Ok(())
}

/// How long to measure, as the flags ask.
fn plan_of(args: &ReportArgs) -> Plan {
    Plan {
        min_rounds: args.min_rounds,
        max_rounds: args.max_rounds,
        warmup: args.warmup,
        precision: args.precision,
        budget_s: args.budget,
        cpus: args.cpus.clone().unwrap_or_else(allowed_cpus),
    }
}

/// The training runs of the profile the compared PGO builds use, if one is compared and
/// its profile wrote them down.
fn profile_runs(variants: &[Variant]) -> Option<ProfileRuns> {
    let uses_pgo = variants.iter().any(|v| v.uses_pgo());
    uses_pgo.then(|| pgo::current_profile_runs(false)).flatten()
}

/// Says on stderr which workloads the profile represents poorly (the report says it too).
fn warn_poor_coverage(report: &Report) {
    for w in &report.workloads {
        if let Some(c) = w.coverage.as_ref().filter(|c| c.is_poor()) {
            eprintln!(
                "[report] warning: the PGO profile represents {} poorly: {:.0}% of its program samples fall in code its own kind of training run executed",
                w.name,
                100.0 * c.represented()
            );
        }
    }
}

/// Each variant's geometric-mean speedup, then the files written.
fn print_summary(report: &Report, written: &[PathBuf]) {
    println!("{:<16} {:>10}", "variant", "speedup");
    for row in &report.summary {
        println!("{:<16} {:>10.3}", row.variant, row.geomean_speedup);
    }
    for path in written {
        println!("wrote {}", path.display());
    }
}

/// The variants to measure (all when none are named), the baseline first: the
/// statistics take column 0 as the reference.
fn baseline_first(named: &[Variant], baseline: Variant) -> Vec<Variant> {
    let mut variants = if named.is_empty() {
        Variant::ALL.to_vec()
    } else {
        named.to_vec()
    };
    variants.retain(|v| *v != baseline);
    variants.insert(0, baseline);
    variants
}

/// Each variant with its binary, building (or reusing) it first.
fn contestants(variants: &[Variant], training: &Path) -> Result<Vec<Contestant>> {
    variants
        .iter()
        .map(|v| {
            Ok(Contestant {
                variant: v.name().into(),
                binary: v.binary(training)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_baseline_comes_first_and_only_once() {
        let named = [Variant::Pgo, Variant::Release, Variant::Bolt];
        assert_eq!(
            baseline_first(&named, Variant::Release),
            [Variant::Release, Variant::Pgo, Variant::Bolt]
        );
        let all = baseline_first(&[], Variant::Release);
        assert_eq!(all.len(), Variant::ALL.len());
        assert_eq!(all[0], Variant::Release);
    }

    #[test]
    fn budgets_read_as_durations() {
        assert_eq!(parse_budget("90s"), Ok(90.0));
        assert_eq!(parse_budget("1h 30m"), Ok(5400.0));
        assert!(parse_budget("0s").is_err());
        assert!(parse_budget("soon").is_err());
    }
}
