//! One training session, new or resumed: it runs the remaining epochs, writes a checkpoint
//! now and then and when a signal asks it to stop, and at the end saves what the run made.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use logicars::evaluate::fresh::FreshCheck;
use logicars::io::atomic::remove_leftovers;
use logicars::io::checkpoint_file::{self, Checkpoint, RunOutputs};
use logicars::io::folder_lock::FolderLock;
use logicars::io::run_folder::RunIdentity;
use logicars::io::{batch_file, model_file};
use logicars::model::config::TrainSettings;
use logicars::model::network::Model;
use logicars::train::attempts::{finish_attempt, Ending, FinishedAttempt};
use logicars::train::{
    self, best_attempt, AttemptRecord, EpochMetrics, ExactWatch, Keep, SearchPlan, StallWatch,
    TrainError, Trainer,
};

use super::attempt_lines::{announce, attempt_label, note_next_attempt, note_turns};
use super::checkpoint::{save_checkpoint, Saved};
use super::configure::{check_run_outputs, configure, ensure_training_fits, outputs, run_files};
use super::finish::{End, Run};
use super::folder::{self, Claim};
use super::schedule::{CheckpointEvery, Schedule};
use super::stop::StopRequest;
use super::TrainArgs;
use crate::support::compute_time::{self, ComputeClock};
use crate::support::progress::{search_bar, Progress};

pub struct Session {
    trainer: Trainer,
    outputs: RunOutputs,
    /// The metrics of the epochs this attempt has run.
    history: Vec<EpochMetrics>,
    /// When the kept model was checked for exactness.
    watch: ExactWatch,
    /// The run's finished attempts, none exact, before the one training now.
    attempts: Vec<AttemptRecord>,
    /// The model the best of them keeps.
    kept: Option<Model>,
}

/// A run whose attempts are over, and what it saves.
struct Done {
    outputs: RunOutputs,
    attempts: Vec<AttemptRecord>,
    /// The last attempt's settings.
    settings: TrainSettings,
    /// The best attempt's model.
    kept: Model,
    /// Seconds the last attempt's gate search took, when it ran.
    search_s: Option<f64>,
    /// The kept model's fresh check, when the last attempt is the one kept.
    check: Option<FreshCheck>,
}

impl Done {
    fn run(&self) -> Run<'_> {
        Run {
            outputs: &self.outputs,
            attempts: &self.attempts,
            settings: &self.settings,
        }
    }
}

/// What follows an attempt.
enum After {
    Done(Box<Done>),
    Next(Box<Session>),
}

/// How an attempt's epochs ended in a session.
enum Stop {
    /// Its epochs are over: all of them, or until its kept model was exact or it stalled.
    Ended(Ending),
    /// A signal asked the run to stop, with this exit code.
    Signal(u8),
    Diverged(TrainError),
}

impl Session {
    /// A new run from the command line's task and flags, holding its folder; `None` when
    /// the folder already holds this run, finished.
    pub fn start(args: &TrainArgs) -> Result<Option<(Self, FolderLock)>> {
        let (config, settings) = configure(args)?;
        let run = RunIdentity::new(&config, &settings, args.keep.into(), args.full);
        let outputs_in = |dir: &Path| outputs(args, &config, &settings, dir);
        // Before the folder is taken (which creates it): a --save under a file is refused
        // as every unwritable output is.
        check_run_outputs(&outputs_in(Path::new(""))?)?;
        let Claim::Train(claimed) = folder::claim(args, run, outputs_in)? else {
            return Ok(None);
        };
        let (outputs, held) = *claimed;
        check_run_outputs(&outputs)?;
        let model = match &args.init_params {
            Some(_) if settings.recipe.attempts > 1 => bail!(
                "--init-params gives the parameters of one attempt, and the run may make {}: \
                 add --attempts 1",
                settings.recipe.attempts
            ),
            Some(path) => model_file::load_params(path, &config)?,
            None => train::fresh_model(config, &settings).context("building the model")?,
        };
        let trainer = with_batches(Trainer::new(model, settings), outputs.batches.as_deref())?;
        let lock = held.begin(&outputs)?;
        let session = Session {
            trainer,
            outputs,
            history: Vec::new(),
            watch: ExactWatch::default(),
            attempts: Vec::new(),
            kept: None,
        };
        Ok(Some((session, lock)))
    }

    /// The run whose checkpoint is `run` (or lies in the folder `run`), holding its
    /// folder: taken before the checkpoint is read, so that no other process can go on
    /// from the same one.
    pub fn resume(run: &Path) -> Result<(Self, FolderLock)> {
        let path = checkpoint_in(run)?;
        let held = folder::claim_for_resume(path.parent().unwrap_or(Path::new(".")))?;
        let checkpoint = checkpoint_file::load(&path)?;
        ensure_training_fits(&checkpoint.model.config, &checkpoint.settings)?;
        let Checkpoint {
            model,
            settings,
            state,
            history,
            outputs,
            exact_watch,
            attempts,
            kept,
        } = checkpoint;
        let trainer = Trainer::resume(model, settings, state)
            .with_context(|| format!("resuming from {}", path.display()))?;
        let trainer = with_batches(trainer, outputs.batches.as_deref())?;
        // A run killed while writing left its temporary files; the finished run keeps none.
        for (what, file) in run_files(&outputs) {
            remove_leftovers(&file)
                .with_context(|| format!("removing what a killed write of {what} left"))?;
        }
        let session = Session {
            trainer,
            outputs,
            history,
            watch: exact_watch,
            attempts,
            kept,
        };
        let (config, settings) = (&session.trainer.model.config, session.trainer.settings());
        let run = RunIdentity::new(config, settings, session.outputs.keep, session.outputs.full);
        folder::record_if_unrecorded(&session.outputs, run)?;
        Ok((session, held))
    }

    /// Trains the run's attempts: each its remaining epochs, or until its kept model is
    /// exact when the run stops there ([`RunOutputs::until_exact`], [`ExactWatch`]) or it
    /// stalls; then, while none is exact and the recipe allows another, the next from its
    /// own seed. Saves the run (see [`super::finish`]).
    pub fn train(mut self, every: CheckpointEvery, threads: usize) -> Result<()> {
        let (keep, until_exact) = (self.outputs.keep, self.outputs.until_exact());
        let stop = StopRequest::catch()?;
        // Epochs only: the clock stops while an epoch's log line or checkpoint is written.
        let mut clock = ComputeClock::default();
        let wall = Instant::now();
        let mut ran = 0;
        loop {
            announce(&self.trainer, self.attempts.len(), threads);
            let resumed_at = self.history.len();
            let (session, stopped) =
                self.train_attempt(every, keep, until_exact, &stop, &mut clock)?;
            ran += session.history.len() - resumed_at;
            let ending = match stopped {
                Stop::Signal(code) => return session.end(keep).interrupted(code),
                // One attempt's overflow is that attempt's failure, not the run's: it
                // ends with the model it kept before, and the next attempt goes on.
                Stop::Diverged(e) if session.attempts_follow() => {
                    session.note_divergence(&e);
                    Ending::Finished
                }
                Stop::Diverged(e) => return session.end(keep).diverged(&e),
                Stop::Ended(ending) => ending,
            };
            self = match session.end_attempt(ending, keep)? {
                After::Next(session) => *session,
                After::Done(mut done) => {
                    let kept = (&done.kept, done.check.take());
                    let wall_s = wall.elapsed().as_secs_f64();
                    done.run().finished(kept, wall_s, ran, done.search_s)?;
                    drop(done);
                    return compute_time::report("train", clock.seconds(), ran, "epoch");
                }
            };
        }
    }

    /// Ends the attempt whose epochs are over ([`finish_attempt`]): the run is done when
    /// it is exact or the last, else the next attempt's session begins.
    fn end_attempt(self, ending: Ending, keep: Keep) -> Result<After> {
        let Session {
            trainer,
            outputs,
            history,
            watch,
            mut attempts,
            mut kept,
        } = self;
        let settings = trainer.settings().clone();
        let bar = search_bar(SearchPlan::of(&settings.recipe).budget);
        let finished = finish_attempt(trainer, history, watch, ending, keep, |tried| {
            bar.set_position(tried as u64)
        });
        bar.finish_and_clear();
        let FinishedAttempt {
            record,
            kept: model,
            search_s,
            fresh,
        } = finished;
        let best = best_attempt(&attempts).is_none_or(|i| record.beats(&attempts[i]));
        if best {
            kept = Some(model);
        }
        attempts.push(record);
        let kept = kept.expect("a run makes at least one attempt");
        if !train::attempts::another_attempt(&settings, &attempts) {
            return Ok(After::Done(Box::new(Done {
                outputs,
                attempts,
                settings,
                kept,
                search_s,
                check: fresh.filter(|_| best),
            })));
        }
        let next = settings.for_attempt(settings.attempt + 1);
        note_next_attempt(attempts.last().expect("just pushed"), &next);
        let model = train::fresh_model(kept.config.clone(), &next)
            .context("building the next attempt's model")?;
        let trainer = with_batches(Trainer::new(model, next), outputs.batches.as_deref())?;
        Ok(After::Next(Box::new(Session {
            trainer,
            outputs,
            history: Vec::new(),
            watch: ExactWatch::default(),
            attempts,
            kept: Some(kept),
        })))
    }

    /// Runs this attempt's remaining epochs; checkpoints as `every` says.
    fn train_attempt(
        self,
        every: CheckpointEvery,
        keep: Keep,
        until_exact: bool,
        stop: &StopRequest,
        clock: &mut ComputeClock,
    ) -> Result<(Self, Stop)> {
        let mut progress = self.progress()?;
        let Session {
            trainer,
            outputs,
            mut history,
            mut watch,
            attempts,
            kept,
        } = self;
        let epochs = trainer.settings().epochs;
        let mut stall = StallWatch::new(trainer.settings(), &history);
        let mut schedule = Schedule::starting_now(every);
        let (mut failure, mut ending) = (None, Ending::Finished);
        clock.resume();
        let (trainer, _, diverged) = train::run(trainer, |trainer, m| {
            clock.pause();
            history.push(*m);
            // Checked before the checkpoint, which carries the check to a resumed run.
            ending = match until_exact && watch.observe(trainer, m) {
                true => Ending::Exact,
                false => stall.observe(m).unwrap_or(Ending::Finished),
            };
            let over = ending != Ending::Finished;
            let mut step = progress.record(m);
            note_turns(trainer, m.epoch, &progress);
            if step.is_ok() && !over && m.epoch < epochs && schedule.due(m.epoch) {
                let saved = Saved::of(&history, &outputs, watch, &attempts, kept.as_ref());
                step = save_checkpoint(trainer, &saved, keep);
            }
            match (step, stop.received()) {
                (Err(e), _) => {
                    failure = Some(e);
                    ControlFlow::Break(())
                }
                (Ok(()), signal) if signal.is_some() || over => ControlFlow::Break(()),
                (Ok(()), _) => {
                    clock.resume();
                    ControlFlow::Continue(())
                }
            }
        });
        clock.pause();
        progress.finish();
        let unfinished = ending == Ending::Finished && trainer.epochs_done() < epochs;
        let stopped = match (failure, diverged, stop.received()) {
            (Some(e), _, _) => return Err(e),
            (None, Some(e), _) => Stop::Diverged(e),
            (None, None, Some(code)) if unfinished => Stop::Signal(code),
            (None, None, _) => Stop::Ended(ending),
        };
        let session = Session {
            trainer,
            outputs,
            history,
            watch,
            attempts,
            kept,
        };
        session.note_stall(&stopped);
        Ok((session, stopped))
    }

    /// The attempt's progress lines and log, the log rewritten with the epochs so far.
    fn progress(&self) -> Result<Progress> {
        let (settings, outputs) = (self.trainer.settings(), &self.outputs);
        let label = attempt_label(settings, self.attempts.len());
        let interval = (settings.epochs, outputs.log_interval);
        let attempt = (settings.attempt, label);
        Progress::new(
            interval,
            &outputs.log,
            &self.attempts,
            &self.history,
            attempt,
        )
    }

    /// Whether the run has attempts after this one (none of its attempts so far being
    /// exact, or the run would have ended).
    fn attempts_follow(&self) -> bool {
        let s = self.trainer.settings();
        s.attempt < s.last_attempt()
    }

    /// Says that the attempt's loss or parameters stopped being finite, and that the
    /// attempt ends there rather than the run.
    fn note_divergence(&self, e: &TrainError) {
        eprintln!(
            "{}{e}: the attempt ends here (its gate search and check follow)",
            attempt_label(self.trainer.settings(), self.attempts.len()).unwrap_or_default(),
        );
    }

    /// Says that the attempt stopped for a stalled hard loss, or gave up far from its
    /// target, when it did.
    fn note_stall(&self, stopped: &Stop) {
        let s = self.trainer.settings();
        let why = match stopped {
            Stop::Ended(Ending::Stalled) => {
                format!("no new lowest hard loss for {} epochs", s.recipe.stall)
            }
            Stop::Ended(Ending::GaveUp) => format!(
                "its hard loss was never below {} bits (--give-up), so no gate search",
                s.recipe.give_up
            ),
            _ => return,
        };
        eprintln!(
            "{}stopped at epoch {}: {why}",
            attempt_label(s, self.attempts.len()).unwrap_or_default(),
            self.trainer.epochs_done(),
        );
    }

    /// What a stop by a signal or a divergence saves.
    fn end(&self, keep: Keep) -> End<'_> {
        let saved = Saved::of(
            &self.history,
            &self.outputs,
            self.watch,
            &self.attempts,
            self.kept.as_ref(),
        );
        End {
            trainer: &self.trainer,
            saved,
            keep,
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
