//! Attempts: a run whose kept model is not exact when its epochs end starts again from a
//! new seed, until one attempt is exact or the recipe's budget of attempts is spent.
//!
//! Training is a search that can check its own answer: the fresh check says in
//! milliseconds whether a kept model is right on inputs it never trained on. So a run
//! need not hope that one seed finds the rule; it tries seeds until one does. Attempt 1
//! is the run's own seed, so a budget of one attempt is the run as it always was; attempt
//! `k` trains from [`attempt_seed`]`(seed, k)` and depends on nothing else, so the result
//! is the same however attempts are scheduled.

use crate::evaluate::rule_table::named_rule;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use std::ops::ControlFlow;
use std::time::Instant;

pub use crate::model::config::attempt_seed;
pub use crate::train::ending::Ending;

use crate::error::ConfigError;
use crate::evaluate::fresh::{FreshCheck, Measure};
use crate::evaluate::fresh_check;
use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::network::Model;
use crate::train::best::Keep;
use crate::train::error::TrainError;
use crate::train::exact_watch::ExactWatch;
use crate::train::gate_search::{search_gates, GateSearch, SearchPlan};
use crate::train::stall_watch::StallWatch;
use crate::train::state::Choice;
use crate::train::trainer::{self, fresh_model, EpochMetrics, Trainer};

/// How one finished attempt ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttemptRecord {
    /// 1-based.
    pub attempt: usize,
    /// The seed it trained from ([`attempt_seed`]).
    pub seed: u64,
    /// Epochs it ran.
    pub epochs: usize,
    /// Whether it stopped early: its hard loss stalled, or was not yet below the
    /// give-up bound ([`StallWatch`]).
    pub stalled: bool,
    /// The first epoch that solved the task (its batch right).
    pub solved_at: Option<usize>,
    /// The first epoch whose kept model was found exact during training.
    pub exact_at: Option<usize>,
    /// Whether its kept model (after the gate search, when it ran) is exact.
    pub exact: bool,
    /// The kept model's accuracy on the fresh check.
    pub fresh_accuracy: f64,
    /// For a task that grows a pattern: whether the kept model grows it, and holds it
    /// ([`Measure`]; its exactness is one of the two).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grows: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holds: Option<bool>,
    /// For a task that grows a pattern: whether the kept model draws it again after the
    /// paper's damage (reported, never part of exactness).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regrows: Option<bool>,
    /// What the gate search did, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<GateSearch>,
    /// The epoch whose parameters it kept and the hard loss they scored on its batch
    /// (none under `--keep last`, or before its first epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_at: Option<(usize, f64)>,
    /// The start it went on with, when its recipe chose among several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<Choice>,
    /// Its epochs' metrics, in order.
    pub history: Vec<EpochMetrics>,
}

impl AttemptRecord {
    /// Whether this attempt's model is better to keep than `other`'s: exact first, then
    /// more of the fresh check right; of equals the earlier attempt.
    pub fn beats(&self, other: &AttemptRecord) -> bool {
        (self.exact, self.fresh_accuracy) > (other.exact, other.fresh_accuracy)
            || ((self.exact, self.fresh_accuracy) == (other.exact, other.fresh_accuracy)
                && self.attempt < other.attempt)
    }
}

/// The index, in `records`, of the attempt whose model a run keeps ([`AttemptRecord::beats`]).
pub fn best_attempt(records: &[AttemptRecord]) -> Option<usize> {
    (0..records.len()).reduce(|best, i| {
        if records[i].beats(&records[best]) {
            i
        } else {
            best
        }
    })
}

/// Whether a run with `settings` goes on after the attempts of `records`: none exact
/// and attempts left.
pub fn another_attempt(settings: &TrainSettings, records: &[AttemptRecord]) -> bool {
    let last = records.last().map_or(settings.attempt, |r| r.attempt);
    !records.iter().any(|r| r.exact) && (records.is_empty() || last < settings.last_attempt())
}

/// Ends an attempt whose epochs are over: runs the recipe's gate search on the model it
/// keeps (`keep`; calling `searched` with the circuits tried so far), then the fresh
/// check, after the trainer is dropped so that the check's rollouts do not add to its
/// memory.
pub fn finish_attempt(
    trainer: Trainer,
    history: Vec<EpochMetrics>,
    watch: ExactWatch,
    ending: Ending,
    keep: Keep,
    searched: impl FnMut(usize),
) -> FinishedAttempt {
    let settings = trainer.settings().clone();
    let mut kept = trainer.kept_model(keep);
    let trained = !history.is_empty();
    let kept_at = match keep {
        Keep::Best => trainer.best().map(|b| (b.epoch, b.hard_loss)),
        Keep::Last => None,
    };
    let chosen = trainer.chosen().copied();
    drop(trainer);
    let searching = Instant::now();
    let search = match ending {
        Ending::Stopped | Ending::GaveUp => None,
        _ => search_gates(&mut kept, SearchPlan::of(&settings.recipe), searched),
    };
    let search_s = search.map(|_| searching.elapsed().as_secs_f64());
    let fresh = trained.then(|| fresh_check(&kept));
    let record = AttemptRecord {
        attempt: settings.attempt,
        seed: settings.attempt_seed(),
        epochs: history.last().map_or(0, |m| m.epoch),
        stalled: matches!(ending, Ending::Stalled | Ending::GaveUp),
        solved_at: watch.solved_at(),
        exact_at: watch.exact_at(),
        exact: fresh.as_ref().is_some_and(|f| f.exact()),
        fresh_accuracy: fresh.as_ref().map_or(0.0, |f| f.accuracy),
        grows: measured(fresh.as_ref(), Measure::Grows),
        holds: measured(fresh.as_ref(), Measure::Holds),
        regrows: measured(fresh.as_ref(), Measure::Regrows),
        search,
        kept_at,
        chosen,
        history,
    };
    FinishedAttempt {
        record,
        kept,
        search_s,
        fresh,
    }
}

/// Whether a check of a growing task passes `measure`; none for other tasks.
fn measured(fresh: Option<&FreshCheck>, measure: Measure) -> Option<bool> {
    fresh
        .filter(|f| f.has_holds() && f.scored(measure))
        .map(|f| f.passes(measure))
}

/// An attempt after [`finish_attempt`].
pub struct FinishedAttempt {
    pub record: AttemptRecord,
    /// The model it keeps, after the gate search.
    pub kept: Model,
    /// Seconds the gate search took, when it ran.
    pub search_s: Option<f64>,
    /// The kept model's fresh check (none when no epoch ran).
    pub fresh: Option<FreshCheck>,
}

/// What [`run_attempts`] did: every attempt's record, in order, the model of the best
/// ([`best_attempt`]), and the error that ended the last attempt early, if one did.
pub struct AttemptsRun {
    pub records: Vec<AttemptRecord>,
    pub kept: Model,
    pub error: Option<TrainError>,
    /// Whether the observer stopped the run before its attempts were over.
    pub stopped: bool,
    /// Seconds the gate searches took, over every attempt, when one ran.
    pub search_s: Option<f64>,
}

impl AttemptsRun {
    /// The record of the attempt whose model the run keeps.
    pub fn kept_record(&self) -> &AttemptRecord {
        &self.records[best_attempt(&self.records).expect("at least one attempt")]
    }
}

/// Trains `config` with `settings` attempt after attempt, each stopped once its kept
/// model is exact when `stop_when_exact` (a run that does not stop can only trade its
/// exact model for a later one as right on its batch), until one is exact or the budget
/// is spent; no checkpoints (see the `train` command for those). `observe` sees every
/// epoch with its attempt's settings, and may stop the run there ([`Ending::Stopped`]).
///
/// `at_once` attempts train side by side (on a machine with more cores than one attempt
/// uses well); the run is the same for any `at_once`: attempts after the first exact one
/// are dropped, as if they had never started.
pub fn run_attempts(
    config: &ModelConfig,
    settings: &TrainSettings,
    stop_when_exact: bool,
    at_once: usize,
    observe: impl Fn(&TrainSettings, &EpochMetrics) -> ControlFlow<()> + Sync,
) -> Result<AttemptsRun, ConfigError> {
    let mut records: Vec<AttemptRecord> = Vec::new();
    let mut kept: Option<Model> = None;
    let (mut error, mut search_s, mut stopped) = (None, None, false);
    let mut next = settings.attempt;
    while !stopped && another_attempt(settings, &records) {
        let wave: Vec<usize> = (next..=settings.last_attempt())
            .take(at_once.max(1))
            .collect();
        next += wave.len();
        let finished: Vec<_> = wave
            .par_iter()
            .map(|&k| one_attempt(config, &settings.for_attempt(k), stop_when_exact, &observe))
            .collect();
        for attempt in finished {
            let (attempt, failure, ending) = attempt?;
            stopped |= ending == Ending::Stopped;
            if let Some(seconds) = attempt.search_s {
                *search_s.get_or_insert(0.0) += seconds;
            }
            let better = best_attempt(&records).is_none_or(|i| attempt.record.beats(&records[i]));
            if better {
                kept = Some(attempt.kept);
            }
            records.push(attempt.record);
            error = failure;
            if stopped || !another_attempt(settings, &records) {
                break;
            }
        }
    }
    let kept = kept.expect("a run makes at least one attempt");
    let exact = best_attempt(&records).is_some_and(|i| records[i].exact);
    let kept = match exact {
        true => named_rule(&kept).unwrap_or(kept),
        false => kept,
    };
    Ok(AttemptsRun {
        records,
        kept,
        error,
        stopped,
        search_s,
    })
}

/// Trains one attempt (`settings` are its own) to its end, and finishes it.
fn one_attempt(
    config: &ModelConfig,
    settings: &TrainSettings,
    stop_when_exact: bool,
    observe: &(impl Fn(&TrainSettings, &EpochMetrics) -> ControlFlow<()> + Sync),
) -> Result<(FinishedAttempt, Option<TrainError>, Ending), ConfigError> {
    let trainer = Trainer::new(fresh_model(config.clone(), settings)?, settings.clone());
    let (mut exact, mut stall) = (ExactWatch::default(), StallWatch::new(settings, &[]));
    let mut history = Vec::new();
    let mut ending = Ending::Finished;
    let (trainer, _, failure) = trainer::run(trainer, |trainer, m| {
        let asked_to_stop = observe(settings, m).is_break();
        history.push(*m);
        if asked_to_stop {
            ending = Ending::Stopped;
        } else if exact.observe(trainer, m) && stop_when_exact {
            ending = Ending::Exact;
        } else if let Some(early) = stall.observe(m) {
            ending = early;
        }
        match ending {
            Ending::Finished => ControlFlow::Continue(()),
            _ => ControlFlow::Break(()),
        }
    });
    let finished = finish_attempt(trainer, history, exact, ending, Keep::Best, |_| {});
    Ok((finished, failure, ending))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::task::TaskKind;
    use crate::tasks::preset;

    fn record(attempt: usize, exact: bool, fresh_accuracy: f64) -> AttemptRecord {
        AttemptRecord {
            attempt,
            seed: attempt_seed(7, attempt),
            epochs: 10,
            stalled: false,
            solved_at: None,
            exact_at: None,
            exact,
            fresh_accuracy,
            grows: None,
            holds: None,
            regrows: None,
            search: None,
            kept_at: None,
            chosen: None,
            history: Vec::new(),
        }
    }

    #[test]
    fn attempt_one_is_the_runs_own_seed_and_the_others_differ_from_it_and_the_starts() {
        assert_eq!(attempt_seed(42, 1), 42);
        let seeds: Vec<u64> = (1..6).map(|k| attempt_seed(42, k)).collect();
        let mut distinct = seeds.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 5, "{seeds:?}");
        assert_eq!(attempt_seed(42, 3), attempt_seed(42, 3));
        assert_ne!(attempt_seed(42, 2), attempt_seed(43, 2));
        let starts: Vec<u64> = (1..6)
            .map(|i| crate::train::starts::start_seed(42, i))
            .collect();
        assert!(seeds[1..].iter().all(|s| !starts.contains(s)));
    }

    #[test]
    fn the_kept_attempt_is_exact_first_then_the_most_right_then_the_earliest() {
        let records = [
            record(1, false, 0.9),
            record(2, false, 0.95),
            record(3, false, 0.95),
        ];
        assert_eq!(best_attempt(&records), Some(1));
        let records = [
            record(1, false, 0.99),
            record(2, true, 1.0),
            record(3, true, 1.0),
        ];
        assert_eq!(best_attempt(&records), Some(1));
        assert_eq!(best_attempt(&[]), None);
    }

    #[test]
    fn a_run_goes_on_until_an_attempt_is_exact_or_the_budget_is_spent() {
        let (_, mut s) = preset(TaskKind::Gol, true);
        s.recipe.attempts = 3;
        assert!(another_attempt(&s, &[]));
        assert!(another_attempt(&s, &[record(1, false, 0.9)]));
        assert!(!another_attempt(&s, &[record(1, true, 1.0)]));
        let spent = [
            record(1, false, 0.9),
            record(2, false, 0.9),
            record(3, false, 0.9),
        ];
        assert!(!another_attempt(&s, &spent));
        // A run that starts at attempt 2 has attempts 2, 3 and 4.
        s.attempt = 2;
        assert!(another_attempt(&s, &spent[1..]));
    }

    /// Attempts trained side by side give the run that trains them one at a time: the
    /// same records and the same kept model, the attempts after the first exact one
    /// dropped. The reduced checkerboard in 200 epochs: seed 0 is exact at its second
    /// attempt; seed 1 at none of three, keeping the second's model.
    #[test]
    fn attempts_side_by_side_make_the_run_one_at_a_time_makes() {
        for (seed, made, kept) in [(0, 2, 2), (1, 3, 2)] {
            let (config, mut s) = preset(TaskKind::Checkerboard, true);
            (s.seed, s.epochs, s.recipe.attempts) = (seed, 200, 3);
            let go_on = |_: &TrainSettings, _: &EpochMetrics| ControlFlow::Continue(());
            let one = run_attempts(&config, &s, true, 1, go_on).unwrap();
            let three = run_attempts(&config, &s, true, 3, go_on).unwrap();
            assert_eq!(one.records, three.records, "seed {seed}");
            assert_eq!(one.kept, three.kept, "seed {seed}");
            assert_eq!(one.records.len(), made, "seed {seed}");
            assert_eq!(one.kept_record().attempt, kept, "seed {seed}");
            assert_eq!(one.kept_record().exact, seed == 0, "seed {seed}");
        }
    }

    /// An observer that asks to stop ends the run at that epoch: its attempt is kept,
    /// finished without the gate search, and no other attempt starts.
    #[test]
    fn an_observer_stops_the_run_at_its_epoch() {
        let (config, mut s) = preset(TaskKind::Pattern, true);
        (s.seed, s.epochs, s.recipe.attempts) = (1, 200, 3);
        s.recipe.search_circuits = 8;
        let run = run_attempts(&config, &s, true, 1, |_, m| match m.epoch {
            30 => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        })
        .unwrap();
        assert!(run.stopped);
        assert_eq!(run.records.len(), 1);
        let record = run.kept_record();
        assert_eq!((record.epochs, record.history.len()), (30, 30));
        assert_eq!(record.search, None);
        assert!(!record.exact);
    }
}
