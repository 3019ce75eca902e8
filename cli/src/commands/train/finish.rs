//! How a session ends: finished (the model, its pictures, no checkpoint left), stopped by
//! a signal (checkpoint and model, and how to resume), or diverged (the last good model).

use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use logicars::evaluate::fresh::fresh_check;
use logicars::io::atomic::write_atomically;
use logicars::io::checkpoint_file::{self, RunOutputs};
use logicars::io::model_file;
use logicars::model::network::Model;
use logicars::train::{
    search_gates, Choice, EpochMetrics, ExactWatch, GateSearch, Keep, SearchPlan, TrainError,
    TrainSummary, Trainer,
};
use logicars::views::plot;

use super::checkpoint::save_checkpoint;
use super::stop::Interrupted;
use crate::support::progress::search_bar;
use crate::support::rollout_picture::training_gif;

/// A session's trainer after its last epoch, where it writes, and every epoch's metrics.
pub struct End<'a> {
    pub trainer: &'a Trainer,
    pub outputs: &'a RunOutputs,
    pub history: &'a [EpochMetrics],
    /// Which parameters the run saves.
    pub keep: Keep,
    /// When the run's kept model was checked for exactness, for its checkpoint.
    pub exact_watch: ExactWatch,
}

impl End<'_> {
    /// The run is complete (all its epochs, or those until its last epoch's kept model was
    /// found `exact`): the model and its pictures, and no checkpoint is left.
    /// Returns the saved model, for [`print_fresh_check`] once the trainer is gone.
    pub fn finished(&self, wall_s: f64, ran: usize, exact: bool) -> Result<Model> {
        let mut model = self.trainer.kept_model(self.keep);
        let searched = Instant::now();
        let plan = SearchPlan::of(&self.trainer.settings().recipe);
        let bar = search_bar(plan.budget);
        let search = search_gates(&mut model, plan, |tried| bar.set_position(tried as u64));
        bar.finish_and_clear();
        let search_s = searched.elapsed().as_secs_f64();
        self.save_model_and_artefacts(&model)?;
        self.remove_checkpoint()?;
        let planned = self.trainer.settings().epochs;
        let stopped = exact.then(|| {
            format!(" of {planned}: stopped, the kept model exact (--full trains every epoch)")
        });
        print_summary(
            &TrainSummary::of(self.history),
            wall_s,
            ran,
            self.outputs,
            stopped,
        );
        self.print_kept();
        if let Some(search) = search {
            println!("gate search:  {}", search_text(&search, search_s));
        }
        if let Some(choice) = self.trainer.chosen() {
            let starts = self.trainer.settings().recipe.starts;
            println!("start:        {}", choice_text(choice, starts));
        }
        Ok(model)
    }

    /// A signal stopped the run after an epoch: write where it is, say how to go on.
    pub fn interrupted(&self, code: u8) -> Result<()> {
        save_checkpoint(
            self.trainer,
            self.history,
            self.outputs,
            self.keep,
            self.exact_watch,
        )?;
        let done = self.trainer.epochs_done();
        let epochs = self.trainer.settings().epochs;
        let run = self.outputs.model.parent().unwrap_or(Path::new("."));
        let message = format!(
            "stopped after epoch {done} of {epochs}; the model so far is in {}, the \
             checkpoint in {}\nresume with: logicars train --resume {}",
            self.outputs.model.display(),
            checkpoint_file::path_beside(&self.outputs.model).display(),
            run.display()
        );
        Err(Interrupted { code, message }.into())
    }

    /// The loss or the parameters became non-finite: keep the last good model.
    pub fn diverged(&self, e: &TrainError) -> Result<()> {
        self.save_model_and_artefacts(&self.trainer.kept_model(self.keep))?;
        self.remove_checkpoint()?;
        let which = match self.keep {
            Keep::Best => "the best model so far",
            Keep::Last => "the last good model",
        };
        bail!("{e}; {which} is saved in {}", self.outputs.model.display());
    }

    fn save_model_and_artefacts(&self, model: &Model) -> Result<()> {
        let settings = self.trainer.settings();
        model_file::save_trained(model, Some(settings), &self.outputs.model)?;
        if let Some(dir) = &self.outputs.artefacts {
            let title = format!("{} (seed {})", model.config.task.name(), settings.seed);
            let mark = self.trainer.chosen().map(|c| {
                let label = format!("start {} of {} chosen", c.start + 1, settings.recipe.starts);
                (c.epoch, label)
            });
            let mark = mark.as_ref().map(|(epoch, label)| (*epoch, label.as_str()));
            write_artefacts(model, self.history, (&title, settings.seed), mark, dir)?;
        }
        Ok(())
    }

    /// Says which epoch's parameters were saved under `--keep best`.
    fn print_kept(&self) {
        if let (Keep::Best, Some(best)) = (self.keep, self.trainer.best()) {
            println!(
                "kept:         the parameters epoch {} scored (hard loss {:.0} on its batch)",
                best.epoch, best.hard_loss
            );
        }
    }

    /// A finished run keeps no checkpoint, which would only be stale.
    fn remove_checkpoint(&self) -> Result<()> {
        let path = checkpoint_file::path_beside(&self.outputs.model);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("removing {}", path.display()))
            }
            _ => Ok(()),
        }
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

/// Scores the saved model on inputs it did not train on, and says whether it is exact
/// (each probe is the grids of one `logicars eval` command). Run after the trainer is
/// dropped: a probe of 64x64 grids would otherwise add its rollout to the run's peak.
pub fn print_fresh_check(model: &Model) {
    let check = fresh_check(model);
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
    println!(
        "fresh check:  {:.2}% right, {verdict}",
        100.0 * check.accuracy
    );
    for score in &check.scores {
        println!(
            "              {:.2}% of eval {}",
            100.0 * (1.0 - score.wrong / score.bits),
            score.probe.eval_flags()
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
