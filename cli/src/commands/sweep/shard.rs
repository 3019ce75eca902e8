//! Running a sweep's shard: the runs of its piece of the plan that have no row yet, each
//! row written the moment its run ends; then, for a plain sweep (shard 0/1), the merge.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use logicars::io::atomic::write_atomically;
use logicars::io::{model_file, pattern_image};
use logicars::model::task::TaskKind;
use logicars::sweep::manifest::Manifest;
use logicars::sweep::plan::Shard;
use logicars::sweep::rows::{Row, RowState};
use logicars::sweep::{self, Outcome, Setting};
use logicars::tasks::target_images::image_spec;
use logicars::train::memory::training_run_bytes;
use rayon::prelude::*;

use super::exit::{misconfigured, store_error};
use super::plan::{self, setting_count, settings};
use super::{emit, merge, scheduler_values, PlanArgs};
use crate::support::progress::attempts_log;
use crate::support::resources::{ensure_memory, thread_pool};

/// The sweep's folder: `--out`, or one named after the task.
fn folder(args: &PlanArgs, task: TaskKind) -> PathBuf {
    let small = if args.small { "-small" } else { "" };
    args.out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("runs/sweep-{}{small}", task.name())))
}

pub fn run(args: PlanArgs) -> Result<()> {
    let task = args.task.expect("clap requires the task");
    sweep::check_plan(setting_count(&args.sets), args.seeds.count())?;
    let mut settings = settings(&args.sets)?;
    if let Some(path) = &args.target {
        if task != TaskKind::Pattern {
            bail!("--target is for sweeps of the pattern task");
        }
        let spec = image_spec(task, false).expect("a growing task");
        let target = pattern_image::load(path, spec)?;
        for setting in &mut settings {
            setting.target = Some(target.clone());
        }
    }
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let pieces = match (args.cluster.emit, args.cluster.shards) {
        (Some(engine), Some(asked)) => {
            scheduler_values::check(engine, &args.cluster).map_err(misconfigured)?;
            let runs = setting_count(&args.sets).saturating_mul(args.seeds.count());
            emitted_pieces(asked, usize::try_from(runs).unwrap_or(usize::MAX))
        }
        _ => shard.count,
    };
    let manifest = plan::manifest(
        task,
        args.small,
        args.full,
        &args.seeds,
        &args.sets,
        &settings,
        pieces,
    );
    let dir = folder(&args, task);
    if dir.is_file() {
        bail!(
            "--out {} is a file; the sweep writes a folder",
            dir.display()
        );
    }
    let per_run = check_settings(task, args.small, &settings).map_err(misconfigured)?;
    if let Some(engine) = args.cluster.emit {
        manifest.create_or_check(&dir).map_err(store_error)?;
        let threads = args.threads.unwrap_or(1);
        return emit::write(engine, &manifest, &dir, threads, per_run, &args.cluster);
    }
    let pool = thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    let bytes = per_run.checked_mul(threads as u64);
    ensure_memory(&format!("{threads} runs at once"), bytes)?;
    let job = Job {
        task,
        args: &args,
        manifest: &manifest,
        settings: &settings,
        dir: &dir,
        threads,
    };
    pool.install(|| job.run_shard(shard))
}

/// The pieces an emitted job cuts its `runs` into: as many as asked, but no more than
/// there are runs (an empty piece would be a job that runs nothing), said on stderr.
fn emitted_pieces(asked: usize, runs: usize) -> usize {
    if asked > runs {
        eprintln!("note: --shards {asked} is more than the sweep's {runs} runs; using {runs}");
        return runs;
    }
    asked
}

/// Every setting checked as `train` checks its flags; the most memory one run of any of
/// them may take.
fn check_settings(task: TaskKind, small: bool, settings: &[Setting]) -> Result<u64> {
    let mut most = 0;
    for setting in settings {
        let (config, s) = setting
            .checked(task, small)
            .with_context(|| format!("setting {}", setting.label))?;
        let bytes = training_run_bytes(&config, &s).with_context(|| {
            format!(
                "setting {}: its memory does not fit in 64 bits",
                setting.label
            )
        })?;
        most = most.max(bytes);
    }
    Ok(most)
}

fn announce(manifest: &Manifest, shard: Shard, dir: &Path, runs: usize, pending: usize) {
    let done = runs - pending;
    let what = if shard == Shard::WHOLE {
        format!(
            "Sweeping {}{}: {} setting(s) x {} seed(s) = {runs} runs",
            manifest.sweep.task,
            if manifest.sweep.small { "-small" } else { "" },
            manifest.sweep.settings.len(),
            manifest.sweep.seeds.len()
        )
    } else {
        format!(
            "Shard {}/{} of sweep {} ({}): {runs} of its {} runs",
            shard.index,
            shard.count,
            manifest.sweep_id,
            manifest.sweep.task,
            manifest.plan().len()
        )
    };
    eprintln!("{what}");
    if done > 0 {
        eprintln!(
            "{done} already done in {}; running the other {pending}",
            dir.display()
        );
    }
}

/// What every run of one shard shares.
struct Job<'a> {
    task: TaskKind,
    args: &'a PlanArgs,
    manifest: &'a Manifest,
    settings: &'a [Setting],
    dir: &'a Path,
    threads: usize,
}

impl Job<'_> {
    /// Runs the runs of `shard` that have no row yet; fails unless every one of them has
    /// a row at the end. The whole plan (a plain sweep) then merges its tables.
    fn run_shard(&self, shard: Shard) -> Result<()> {
        let (manifest, dir) = (self.manifest, self.dir);
        let whole = self.args.shard.is_none();
        if whole {
            merge::check_table_outputs(dir)?;
        }
        manifest.create_or_check(dir).map_err(store_error)?;
        // Held until the shard is over, its tables included.
        let _held = sweep::hold::hold(dir, shard).map_err(|e| {
            anyhow::anyhow!("{e}: two processes would run the same runs; wait for it to end")
        })?;
        let mine = sweep::plan::shard(&manifest.plan(), shard);
        let without_row = || -> Vec<(usize, u64)> {
            mine.iter()
                .copied()
                .filter(|&(s, seed)| Row::done(manifest, dir, s, seed).is_none())
                .collect()
        };
        // One read of each row: a damaged one is said and run again with the missing.
        let pending: Vec<(usize, u64)> = mine
            .iter()
            .copied()
            .filter(|&(s, seed)| match Row::state(manifest, dir, s, seed) {
                RowState::Done(_) => false,
                RowState::Missing => true,
                RowState::Damaged(why) => {
                    eprintln!("note: {why:#}; running it again");
                    true
                }
            })
            .collect();
        announce(manifest, shard, dir, mine.len(), pending.len());
        self.run_all(&pending)?;
        let unfinished = without_row();
        if let Some(&(s, seed)) = unfinished.first() {
            bail!(
                "shard {}/{}: {} of its runs have no row (the first: setting '{}' seed {seed}); \
                 run the shard again to finish them",
                shard.index,
                shard.count,
                unfinished.len(),
                manifest.sweep.settings[s]
            );
        }
        if whole {
            return merge::merge_into(std::slice::from_ref(&self.dir.to_path_buf()), dir);
        }
        eprintln!(
            "shard {}/{} done; once every shard is: logicars sweep merge {}",
            shard.index,
            shard.count,
            dir.display()
        );
        Ok(())
    }

    /// Runs the `(setting, seed)` runs in parallel, with a progress bar and a line per
    /// run, writing each one's row as it ends.
    fn run_all(&self, runs: &[(usize, u64)]) -> Result<()> {
        let bar = ProgressBar::new(runs.len() as u64).with_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} runs [{elapsed}, eta {eta}] {msg}")
                .expect("valid template"),
        );
        let first_error = Mutex::new(None);
        runs.par_iter().for_each(|&(s, seed)| {
            let result = self.run_one(s, seed);
            bar.inc(1);
            match result {
                Ok(line) if bar.is_hidden() => eprintln!("{line}"),
                Ok(line) => bar.println(line),
                Err(e) => {
                    first_error.lock().expect("not poisoned").get_or_insert(e);
                }
            }
        });
        bar.finish_and_clear();
        match first_error.into_inner().expect("not poisoned") {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Trains one run, writes its row (and model), and says how it went.
    fn run_one(&self, s: usize, seed: u64) -> Result<String> {
        let setting = &self.settings[s];
        let (outcome, run) = sweep::run(self.task, self.args.small, setting, seed, !self.args.full)
            .with_context(|| format!("setting {} seed {seed}: building a model", setting.label))?;
        let outcome = Outcome {
            setting: s,
            ..outcome
        };
        if self.args.save_models {
            let path = self.manifest.model_path(self.dir, s, seed);
            model_file::save(&run.kept, &path)?;
            let log = self.manifest.log_path(self.dir, s, seed);
            write_atomically(&log, &attempts_log(&run.records)?)
                .with_context(|| format!("writing log {}", log.display()))?;
        }
        let host = gethostname::gethostname().to_string_lossy().into_owned();
        Row::new(self.manifest, &outcome, host, self.threads)
            .write(&self.manifest.row_path(self.dir, s, seed))?;
        Ok(format!(
            "{} seed {seed}: {}",
            setting.label,
            verdict(&outcome)
        ))
    }
}

/// How a run ended, in words; an attempt is named by its number in the run (which starts
/// at `--attempt`), with the count made when there were several.
fn verdict(outcome: &Outcome) -> String {
    let solved = outcome
        .solved_at
        .map_or("not solved".into(), |e| format!("solved at {e}"));
    let (attempt, made) = (outcome.attempt, outcome.attempts);
    let at = match outcome.exact_at {
        Some(e) => format!("at {e}"),
        // Found exact after the last epoch: by the recipe's gate search.
        None => "after the last epoch".into(),
    };
    match (outcome.exact, made) {
        (true, 1) => format!("exact {at} ({solved})"),
        (true, _) => format!("exact {at} in attempt {attempt}, the last of {made} made ({solved})"),
        (false, 1) => format!("not exact ({solved})"),
        (false, _) => {
            format!("not exact after {made} attempts (the best, attempt {attempt}: {solved})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(attempts: usize, attempt: usize, exact_at: Option<usize>) -> Outcome {
        Outcome {
            attempts,
            attempt,
            solved_at: exact_at.map(|e| e - 10),
            exact_at,
            exact: exact_at.is_some(),
            ..Outcome::default()
        }
    }

    #[test]
    fn a_verdict_names_the_attempt_by_its_number_and_counts_those_made() {
        assert_eq!(
            verdict(&outcome(1, 1, Some(90))),
            "exact at 90 (solved at 80)"
        );
        assert_eq!(verdict(&outcome(1, 1, None)), "not exact (not solved)");
        // Started at attempt 2 (`--attempt 2`), two made, the second exact.
        assert_eq!(
            verdict(&outcome(2, 3, Some(1995))),
            "exact at 1995 in attempt 3, the last of 2 made (solved at 1985)"
        );
        assert_eq!(
            verdict(&outcome(2, 2, None)),
            "not exact after 2 attempts (the best, attempt 2: not solved)"
        );
    }
}
