//! How a session ends: finished (the model, its pictures, no checkpoint left), stopped by
//! a signal (checkpoint and model, and how to resume), or diverged (the last good model).

use std::borrow::Cow;

use logicars::evaluate::rule_table::named_rule;
use std::path::Path;

use anyhow::{bail, Context, Result};
use logicars::evaluate::fresh::{fresh_check, FreshCheck, Measure};
use logicars::io::atomic::write_atomically;
use logicars::io::checkpoint_file::{self, RunOutputs};
use logicars::io::model_file;
use logicars::io::run_folder::RunRecord;
use logicars::model::config::TrainSettings;
use logicars::model::network::Model;
use logicars::train::{
    best_attempt, AttemptRecord, Choice, EpochMetrics, GateSearch, Keep, TrainError, TrainSummary,
    Trainer,
};
use logicars::views::plot;

use super::checkpoint::{save_checkpoint, Saved};
use super::stop::Interrupted;
use crate::support::rollout_picture::training_gif;

/// A session stopped by a signal or a divergence: its trainer and what its checkpoint
/// keeps.
pub struct End<'a> {
    pub trainer: &'a Trainer,
    pub saved: Saved<'a>,
    /// Which parameters the run saves.
    pub keep: Keep,
}

impl End<'_> {
    /// A signal stopped the run after an epoch: write where it is, say how to go on.
    pub fn interrupted(&self, code: u8) -> Result<()> {
        save_checkpoint(self.trainer, &self.saved, self.keep)?;
        let done = self.trainer.epochs_done();
        let settings = self.trainer.settings();
        let epochs = settings.epochs;
        let outputs = self.saved.outputs;
        let run = outputs.model.parent().unwrap_or(Path::new("."));
        let attempt = match self.saved.attempts.is_empty() {
            true => String::new(),
            false => format!(" of attempt {}", settings.attempt),
        };
        let message = format!(
            "stopped after epoch {done} of {epochs}{attempt}; the model so far is in {}, the \
             checkpoint in {}\nresume with: logicars train --resume {}",
            outputs.model.display(),
            checkpoint_file::path_beside(&outputs.model).display(),
            run.display()
        );
        Err(Interrupted { code, message }.into())
    }

    /// The loss or the parameters became non-finite: keep the best earlier attempt's
    /// model, else this attempt's last good one.
    pub fn diverged(&self, e: &TrainError) -> Result<()> {
        let outputs = self.saved.outputs;
        let settings = self.trainer.settings();
        let which = match (self.saved.kept, best_attempt(self.saved.attempts)) {
            (Some(model), Some(best)) => {
                let best = &self.saved.attempts[best];
                let settings = settings.for_attempt(best.attempt);
                save_model_and_artefacts(model, &settings, (&best.history, best.chosen), outputs)?;
                "the best earlier attempt's model"
            }
            _ => {
                let model = self.trainer.kept_model(self.keep);
                let trained = (self.saved.history, self.trainer.chosen().copied());
                save_model_and_artefacts(&model, settings, trained, outputs)?;
                match self.keep {
                    Keep::Best => "the best model so far",
                    Keep::Last => "the last good model",
                }
            }
        };
        remove_checkpoint(outputs)?;
        RunRecord::mark_ended(super::folder::folder_of(outputs), false)?;
        bail!("{e}; {which} is saved in {}", outputs.model.display());
    }
}

/// A run whose attempts are over: one was exact, or none was and the budget is spent.
pub struct Run<'a> {
    pub outputs: &'a RunOutputs,
    /// Every attempt, in order.
    pub attempts: &'a [AttemptRecord],
    /// The last attempt's settings.
    pub settings: &'a TrainSettings,
}

impl Run<'_> {
    /// Saves `model` (the best attempt's, after its search) and its pictures, removes the
    /// checkpoint and prints what the run did; `wall_s` and `ran` are this session's.
    /// `check` is the model's fresh check when this session made it.
    pub fn finished(
        &self,
        (model, check): (&Model, Option<FreshCheck>),
        wall_s: f64,
        ran: usize,
        search_s: Option<f64>,
    ) -> Result<()> {
        let best = &self.attempts[best_attempt(self.attempts).expect("an attempt")];
        let settings = self.settings.for_attempt(best.attempt);
        let (model, rule_line) = match best.exact {
            true => with_matched_rule(model),
            false => (Cow::Borrowed(model), None),
        };
        let model = model.as_ref();
        save_model_and_artefacts(model, &settings, (&best.history, best.chosen), self.outputs)?;
        remove_checkpoint(self.outputs)?;
        RunRecord::mark_ended(super::folder::folder_of(self.outputs), best.exact)?;
        let planned = settings.epochs;
        let stopped = best.exact_at.filter(|&e| e == best.epochs).map(|_| {
            format!(" of {planned}: stopped, the kept model exact (--full trains every epoch)")
        });
        print_summary(
            &TrainSummary::of(&best.history),
            wall_s,
            ran,
            self.outputs,
            stopped,
        );
        if let Some((epoch, hard_loss)) = best.kept_at {
            println!(
                "kept:         the parameters epoch {epoch} scored (hard loss {hard_loss:.0} on \
                 its batch)"
            );
        }
        if let (Some(search), Some(seconds)) = (best.search, search_s) {
            println!("gate search:  {}", search_text(&search, seconds));
        }
        if let Some(choice) = &best.chosen {
            println!(
                "start:        {}",
                choice_text(choice, settings.recipe.starts)
            );
        }
        print_attempts(self.attempts, best, self.settings);
        print_fresh_check(&check.unwrap_or_else(|| fresh_check(model)));
        if let Some(line) = rule_line {
            println!("rule:         {line}");
        }
        Ok(())
    }
}

/// An exact model of a recording's rule, with the named rule its circuit is on every
/// neighbourhood written into it (when there is one), and a line that says so.
fn with_matched_rule(model: &Model) -> (Cow<'_, Model>, Option<String>) {
    let Some(observed) = &model.config.observed else {
        return (Cow::Borrowed(model), None);
    };
    let all = observed.table.len();
    let never = observed.never_seen();
    let named = named_rule(model);
    let line = match named
        .as_ref()
        .and_then(|m| m.config.observed.as_ref()?.matches)
    {
        Some(rule) => {
            let unseen = match never {
                0 => String::new(),
                n => format!(", the {n} the recording never showed included"),
            };
            format!(
                "the circuit is {rule} on all {all} neighbourhoods{unseen} (saved in the model)"
            )
        }
        None => format!(
            "the circuit is no Life-like, Generations or Wireworld rule on all {all} \
             neighbourhoods (on the {never} never seen, its answers are its own guess)"
        ),
    };
    (named.map_or(Cow::Borrowed(model), Cow::Owned), Some(line))
}

/// Which attempt the run keeps and how to train it alone, when it may make several.
fn print_attempts(attempts: &[AttemptRecord], best: &AttemptRecord, last: &TrainSettings) {
    let first = attempts.first().map_or(1, |a| a.attempt);
    if last.last_attempt() == first {
        return;
    }
    let budget = last.last_attempt() - first + 1;
    let epochs: usize = attempts.iter().map(|a| a.epochs).sum();
    let verdict = match best.exact {
        true => "exact",
        false => "the best, not exact",
    };
    println!(
        "attempts:     {} of {budget} ({epochs} epochs in all); attempt {} {verdict} (seed {}: \
         --attempt {} --attempts 1 trains it alone)",
        attempts.len(),
        best.attempt,
        best.seed,
        best.attempt
    );
    for a in attempts.iter().filter(|a| a.attempt != best.attempt) {
        let stalled = if a.stalled { ", ended early" } else { "" };
        println!(
            "              attempt {} (seed {}): {} epochs{stalled}, {:.2}% of the fresh check",
            a.attempt,
            a.seed,
            a.epochs,
            100.0 * a.fresh_accuracy
        );
    }
    if !best.exact {
        println!(
            "              none exact: more attempts may find one (--resume is for a stopped \
             run; train again with --attempt {} to go on from the next)",
            last.last_attempt() + 1
        );
    }
}

/// Writes the model with how it was trained, and its pictures when the run draws them:
/// the loss plot of its attempt's epochs, marking the start the attempt went on with.
fn save_model_and_artefacts(
    model: &Model,
    settings: &TrainSettings,
    (history, chosen): (&[EpochMetrics], Option<Choice>),
    outputs: &RunOutputs,
) -> Result<()> {
    model_file::save_trained(model, Some(settings), &outputs.model)?;
    if let Some(dir) = &outputs.artefacts {
        let title = format!(
            "{} (seed {})",
            model.config.task.name(),
            settings.attempt_seed()
        );
        let mark = chosen.map(|c| {
            let label = format!("start {} of {} chosen", c.start + 1, settings.recipe.starts);
            (c.epoch, label)
        });
        let mark = mark.as_ref().map(|(epoch, label)| (*epoch, label.as_str()));
        write_artefacts(model, history, (&title, settings.seed), mark, dir)?;
    }
    Ok(())
}

/// A finished run keeps no checkpoint, which would only be stale.
fn remove_checkpoint(outputs: &RunOutputs) -> Result<()> {
    let path = checkpoint_file::path_beside(&outputs.model);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// Which start a run went on with, and why.
pub(super) fn choice_text(choice: &Choice, starts: usize) -> String {
    let why = match choice.perfect {
        true => "its hard circuit was perfect",
        false => "lowest soft loss when the run chose",
    };
    format!(
        "going on with start {} of {starts} (seed {}): {why}",
        choice.start + 1,
        choice.seed
    )
}

/// The loss plot (marking the epoch the run chose its start) and a rollout GIF of the
/// trained model; `title` names the task and seed.
fn write_artefacts(
    model: &Model,
    history: &[EpochMetrics],
    (title, seed): (&str, u64),
    mark: Option<(usize, &str)>,
    dir: &Path,
) -> Result<()> {
    let svg = plot::loss_svg(history, title, mark)?;
    write_atomically(&dir.join("loss.svg"), svg.as_bytes()).context("writing loss.svg")?;
    training_gif(model, seed, &dir.join("rollout.gif"))
}

/// Says how the saved model scored on inputs it did not train on, and whether it is exact
/// (each probe is the grids of one `logicars eval` command). The check runs after the
/// trainer is dropped: a probe of 64x64 grids would otherwise add its rollout to the
/// run's peak.
fn print_fresh_check(check: &FreshCheck) {
    let verdict = match check.exact() {
        true => "exact",
        false => "not exact: another --seed or more --epochs may find the rule (docs/recipes.md)",
    };
    if check.every_input {
        println!(
            "fresh check:  {:.2}% of all {} inputs right, {verdict}",
            100.0 * check.accuracy,
            check.grids
        );
        return;
    }
    // A growing task's check names its measure, and gives both.
    let measure = match check.has_holds() {
        true => format!(" (exact = {})", check.criterion.name()),
        false => String::new(),
    };
    println!(
        "fresh check:  {:.2}% right{measure}, {verdict}",
        100.0 * check.accuracy
    );
    for score in &check.scores {
        let tag = match check.has_holds() {
            true => format!("  [{}]", score.probe.measure.name()),
            false => String::new(),
        };
        println!(
            "              {:.2}% of eval {}{tag}",
            100.0 * (1.0 - score.wrong / score.bits),
            score.probe.eval_flags()
        );
    }
    if check.has_holds() {
        let yes = |m| if check.passes(m) { "yes" } else { "no" };
        let failed = check
            .scores
            .iter()
            .find(|s| s.wrong > 0.0)
            .map(|s| {
                let (h, w) = s.probe.size;
                let (measure, steps) = (s.probe.measure.name(), s.probe.steps);
                format!("{measure} fails first on {h}x{w} at step {steps}; ")
            })
            .unwrap_or_default();
        println!(
            "grows, holds, regrows: {}, {}, {} ({failed}docs/tasks.md: right at the task's \
             step; still right later, where it has room; right again after damage)",
            yes(Measure::Grows),
            yes(Measure::Holds),
            yes(Measure::Regrows)
        );
    }
}

/// `ran`: the epochs of this session (fewer than the run's when it was resumed);
/// `stopped`: why the run ended before its planned epochs, if it did.
fn print_summary(
    summary: &TrainSummary,
    wall: f64,
    ran: usize,
    outputs: &RunOutputs,
    stopped: Option<String>,
) {
    let per_epoch = 1000.0 * wall / ran.max(1) as f64;
    println!(
        "epochs:       {}{}",
        summary.epochs,
        stopped.unwrap_or_default()
    );
    println!("wall time:    {wall:.2} s ({per_epoch:.1} ms per epoch)");
    if let Some(last) = summary.last {
        println!(
            "final:        soft_loss={:.4}, hard_loss={:.0}, acc={:.2}%",
            last.metrics.soft_loss,
            last.metrics.hard_loss,
            last.metrics.accuracy * 100.0
        );
    }
    match summary.first_perfect_epoch {
        Some(e) => println!("hard loss 0:  first at epoch {e}"),
        None => println!("hard loss 0:  not reached"),
    }
    println!("model:        {}", outputs.model.display());
    println!("log:          {}", outputs.log.display());
}

/// What a search over single gate changes did, e.g. `2 gates changed: 2 -> 0 target bits
/// wrong (31 circuits tried in 0.4 s)`.
pub fn search_text(search: &GateSearch, seconds: f64) -> String {
    format!(
        "{} gate(s) given another op, {} another wire: {} -> {} target bits wrong ({} \
         circuits tried in {seconds:.1} s)",
        search.changed, search.rewired, search.wrong_before, search.wrong_after, search.tried
    )
}
