//! One training session, new or resumed: it runs the remaining epochs, writes a checkpoint
//! now and then and when a signal asks it to stop, and at the end saves what the run made.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use logicars::io::atomic::remove_leftovers;
use logicars::io::checkpoint_file::{self, Checkpoint, RunOutputs};
use logicars::io::{batch_file, model_file};
use logicars::train::{self, EpochMetrics, ExactWatch, Keep, Trainer};

use super::checkpoint::save_checkpoint;
use super::configure::{check_run_outputs, configure, ensure_training_fits, outputs, run_files};
use super::finish::choice_text;
use super::stop::StopRequest;
use super::TrainArgs;
use crate::support::compute_time::{self, ComputeClock};
use crate::support::progress::Progress;

/// How often a running session writes its checkpoint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CheckpointEvery {
    Epochs(usize),
    Seconds(u64),
    Off,
}

impl FromStr for CheckpointEvery {
    type Err = String;

    /// `100` (epochs), `30s` (seconds) or `off`.
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("expected N epochs, Ns seconds or off, got {text}");
        let count = |n: &str| n.parse::<u64>().ok().filter(|&n| n >= 1).ok_or_else(bad);
        match text {
            "off" => Ok(CheckpointEvery::Off),
            _ => match text.strip_suffix('s') {
                Some(seconds) => Ok(CheckpointEvery::Seconds(count(seconds)?)),
                None => Ok(CheckpointEvery::Epochs(count(text)? as usize)),
            },
        }
    }
}

/// Whether a checkpoint is due after an epoch.
struct Schedule {
    every: CheckpointEvery,
    last: Instant,
}

impl Schedule {
    /// A schedule whose seconds count from now.
    fn starting_now(every: CheckpointEvery) -> Self {
        Schedule {
            every,
            last: Instant::now(),
        }
    }

    fn due(&mut self, epoch: usize) -> bool {
        let due = match self.every {
            CheckpointEvery::Epochs(n) => epoch.is_multiple_of(n),
            CheckpointEvery::Seconds(s) => self.last.elapsed().as_secs() >= s,
            CheckpointEvery::Off => false,
        };
        if due {
            self.last = Instant::now();
        }
        due
    }
}

pub struct Session {
    trainer: Trainer,
    outputs: RunOutputs,
    /// The metrics of the epochs already run.
    history: Vec<EpochMetrics>,
    /// When the kept model was checked for exactness.
    watch: ExactWatch,
}

impl Session {
    /// A new run from the command line's task and flags.
    pub fn start(args: &TrainArgs) -> Result<Self> {
        let (config, settings) = configure(args)?;
        let outputs = outputs(args, &config, &settings)?;
        check_run_outputs(&outputs)?;
        let model = match &args.init_params {
            Some(path) => model_file::load_params(path, &config)?,
            None => train::fresh_model(config, &settings).context("building the model")?,
        };
        let trainer = with_batches(Trainer::new(model, settings), outputs.batches.as_deref())?;
        Ok(Session {
            trainer,
            outputs,
            history: Vec::new(),
            watch: ExactWatch::default(),
        })
    }

    /// The run whose checkpoint is `run` (or lies in the folder `run`).
    pub fn resume(run: &Path) -> Result<Self> {
        let path = checkpoint_in(run)?;
        let checkpoint = checkpoint_file::load(&path)?;
        ensure_training_fits(&checkpoint.model.config, &checkpoint.settings)?;
        let Checkpoint {
            model,
            settings,
            state,
            history,
            outputs,
            exact_watch,
        } = checkpoint;
        let trainer = Trainer::resume(model, settings, state)
            .with_context(|| format!("resuming from {}", path.display()))?;
        let trainer = with_batches(trainer, outputs.batches.as_deref())?;
        // A run killed while writing left its temporary files; the finished run keeps none.
        for (what, file) in run_files(&outputs) {
            remove_leftovers(&file)
                .with_context(|| format!("removing what a killed write of {what} left"))?;
        }
        Ok(Session {
            trainer,
            outputs,
            history,
            watch: exact_watch,
        })
    }

    /// Trains the remaining epochs, or until the kept model is exact when `until_exact`
    /// ([`ExactWatch`]), and saves the run (see [`super::finish`]).
    pub fn train(
        self,
        every: CheckpointEvery,
        threads: usize,
        keep: Keep,
        until_exact: bool,
    ) -> Result<()> {
        let Session {
            trainer,
            outputs,
            mut history,
            mut watch,
        } = self;
        announce(&trainer, threads);
        let stop = StopRequest::catch()?;
        let epochs = trainer.settings().epochs;
        let mut progress = Progress::new(epochs, outputs.log_interval, &outputs.log, &history)?;
        let resumed_at = history.len();
        let mut schedule = Schedule::starting_now(every);
        let (mut failure, mut exact) = (None, false);
        // Epochs only: the clock stops while an epoch's log line or checkpoint is written.
        let mut clock = ComputeClock::default();
        clock.resume();
        let (trainer, _, diverged) = train::run(trainer, |trainer, m| {
            clock.pause();
            history.push(*m);
            // Checked before the checkpoint, which carries the check to a resumed run.
            exact = until_exact && watch.observe(trainer, m);
            let mut step = progress.record(m);
            note_choice(trainer, m.epoch, &progress);
            if step.is_ok() && !exact && m.epoch < epochs && schedule.due(m.epoch) {
                step = save_checkpoint(trainer, &history, &outputs, keep, watch);
            }
            match (step, stop.received()) {
                (Err(e), _) => {
                    failure = Some(e);
                    ControlFlow::Break(())
                }
                (Ok(()), signal) if signal.is_some() || exact => ControlFlow::Break(()),
                (Ok(()), _) => {
                    clock.resume();
                    ControlFlow::Continue(())
                }
            }
        });
        clock.pause();
        let wall = progress.finish();
        let ran = history.len() - resumed_at;
        let end = super::finish::End {
            trainer: &trainer,
            outputs: &outputs,
            history: &history,
            keep,
            exact_watch: watch,
        };
        let unfinished = !exact && trainer.epochs_done() < epochs;
        match (failure, diverged, stop.received()) {
            (Some(e), _, _) => Err(e),
            (None, Some(e), _) => end.diverged(&e),
            (None, None, Some(code)) if unfinished => end.interrupted(code),
            (None, None, _) => {
                let kept = end.finished(wall, ran, exact)?;
                drop(trainer);
                super::finish::print_fresh_check(&kept);
                compute_time::report("train", clock.seconds(), ran, "epoch")
            }
        }
    }
}

/// The checkpoint file a `--resume` argument names.
fn checkpoint_in(run: &Path) -> Result<PathBuf> {
    if !run.is_dir() {
        return Ok(run.to_path_buf());
    }
    let path = checkpoint_file::path_beside(&run.join("model.json"));
    if !path.exists() {
        bail!(
            "{} holds no checkpoint ({}): its run finished, or stopped before its first \
             checkpoint",
            run.display(),
            path.display()
        );
    }
    Ok(path)
}

/// The trainer, told to replay the batches of `path` when the run has them.
fn with_batches(trainer: Trainer, path: Option<&Path>) -> Result<Trainer> {
    let Some(path) = path else {
        return Ok(trainer);
    };
    let (s, c) = (trainer.settings(), &trainer.model.config);
    let batches = batch_file::load(path, s.batch, (c.height, c.width, c.channels))?;
    if batches.len() < s.epochs {
        bail!(
            "{} holds {} batches, fewer than the {} epochs",
            path.display(),
            batches.len(),
            s.epochs
        );
    }
    Ok(trainer.with_batches(batches)?)
}

/// Says which start the run goes on with, after the epoch that chose it.
fn note_choice(trainer: &Trainer, epoch: usize, progress: &Progress) {
    if let Some(choice) = trainer.chosen().filter(|c| c.epoch == epoch) {
        let starts = trainer.settings().recipe.starts;
        progress.note(&format!("epoch {epoch}: {}", choice_text(choice, starts)));
    }
}

fn announce(trainer: &Trainer, threads: usize) {
    let (model, s) = (&trainer.model, trainer.settings());
    let verb = match trainer.epochs_done() {
        0 => "Training".to_string(),
        done => format!("Resuming after epoch {done}:"),
    };
    eprintln!(
        "{verb} {} ({} gates, {} per cell step) for {} epochs, batch {}, {} steps, {threads} threads",
        model.config.task.name(),
        model.gate_count(),
        model.config.gates_per_cell_step(),
        s.epochs,
        s.batch,
        model.config.steps,
    );
}
