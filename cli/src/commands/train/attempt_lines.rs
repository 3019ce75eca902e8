//! The lines a run says about its attempts: their label, the opening line, the turns an
//! attempt takes and why the next attempt trains.

use logicars::model::config::TrainSettings;
use logicars::train::{AttemptRecord, Trainer};

use super::finish::choice_text;
use crate::support::progress::Progress;

/// `attempt 2 of 4: `, for the lines of a run that may make several attempts; a run that
/// goes on from `--attempt K` names the attempt as its summary does and counts its own
/// (`attempt 5 (2 of 3): `).
pub(super) fn attempt_label(settings: &TrainSettings, finished: usize) -> Option<String> {
    let first = settings.attempt - finished;
    let several = settings.last_attempt() > first;
    let (nth, of) = (
        settings.attempt - first + 1,
        settings.last_attempt() - first + 1,
    );
    several.then(|| match first {
        1 => format!("attempt {nth} of {of}: "),
        _ => format!("attempt {} ({nth} of {of}): ", settings.attempt),
    })
}

/// Says why the run goes on with another attempt.
pub(super) fn note_next_attempt(last: &AttemptRecord, next: &TrainSettings) {
    let yes = |b: bool| if b { "yes" } else { "no" };
    let measures = match (last.grows, last.holds, last.regrows) {
        (Some(g), Some(h), r) => {
            let regrows = r.map_or(String::new(), |r| format!(", regrows {}", yes(r)));
            format!("; grows {}, holds {}{regrows}", yes(g), yes(h))
        }
        _ => String::new(),
    };
    eprintln!(
        "attempt {} is not exact ({:.2}% of the fresh check right{measures}); attempt {} \
         trains from seed {}",
        last.attempt,
        100.0 * last.fresh_accuracy,
        next.attempt,
        next.attempt_seed()
    );
}

/// Says where the run turned after `epoch`: which start it goes on with, after the epoch
/// that chose it, and when it goes on to its finish's grids (`--finish-size`).
pub(super) fn note_turns(trainer: &Trainer, epoch: usize, progress: &Progress) {
    if let Some(choice) = trainer.chosen().filter(|c| c.epoch == epoch) {
        let starts = trainer.settings().recipe.starts;
        progress.note(&format!("epoch {epoch}: {}", choice_text(choice, starts)));
    }
    if trainer.finishing_from() == Some(epoch) {
        let side = trainer.settings().recipe.finish_size;
        progress.note(&format!(
            "epoch {epoch}: the kept model's batch is right; the rest of the attempt trains \
             on {side}x{side} grids (--finish-size)"
        ));
    }
}

/// The opening line: the task, its model's size, the epochs and the attempt.
pub(super) fn announce(trainer: &Trainer, attempts: usize, threads: usize) {
    let (model, s) = (&trainer.model, trainer.settings());
    let verb = match trainer.epochs_done() {
        0 => "Training".to_string(),
        done => format!("Resuming after epoch {done}:"),
    };
    let attempt = attempt_label(s, attempts)
        .map(|label| format!(" ({}seed {})", label, s.attempt_seed()))
        .unwrap_or_default();
    eprintln!(
        "{verb} {} ({} gates, {} per cell step) for {} epochs, batch {}, {} steps, {threads} threads{attempt}",
        model.config.task.name(),
        model.gate_count(),
        model.config.gates_per_cell_step(),
        s.epochs,
        s.batch,
        model.config.steps,
    );
}
