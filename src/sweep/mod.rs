//! Many training runs of one task, over seeds and settings, and what they add up to: how
//! every claim about convergence is measured.
//!
//! A run succeeds when the model it keeps is *exact*: right on inputs it did not train on
//! ([`fresh_check`]: Game of Life's 512 boards, fresh and larger grids, twice the steps).
//! It is *solved* (a weaker, secondary measure) at the first epoch whose batch the hard
//! circuit gets entirely right; for Game of Life the model after that epoch must also be
//! right on all 512 boards. Each run is deterministic (its seed fixes it for any thread
//! count), so a sweep can run several at once.

pub mod digest;
pub mod error;
pub mod gather;
pub mod hold;
pub mod manifest;
pub mod plan;
pub mod rows;
pub mod stats;

pub use plan::{check_plan, plan, MAX_RUNS};

use std::ops::ControlFlow;
use std::time::Instant;

use crate::error::ConfigError;
#[cfg(doc)]
use crate::evaluate::fresh_check;
use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::pattern::PatternTarget;
use crate::model::task::TaskKind;
use crate::tasks::{pattern_geometry, preset, use_target, Override};
#[cfg(doc)]
use crate::train;
use crate::train::attempts::{run_attempts, AttemptsRun};
#[cfg(doc)]
use crate::train::{search_gates, ExactWatch, Keep};
use crate::train::{GateSearch, Metrics};

/// One setting of a sweep: changes to the task's preset, and how to name them.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub label: String,
    pub overrides: Vec<Override>,
    /// The target image the runs grow instead of the preset's (a sweep's `--target`).
    pub target: Option<PatternTarget>,
}

impl Setting {
    /// The preset of `task` with this setting's changes, for `seed`, a pattern's grid
    /// fitted to its steps ([`pattern_geometry::fit`]: a setting whose steps cannot
    /// reach the target is refused by [`Setting::checked`]).
    pub fn apply(&self, task: TaskKind, small: bool, seed: u64) -> (ModelConfig, TrainSettings) {
        self.fitted(task, small, seed).0
    }

    fn fitted(
        &self,
        task: TaskKind,
        small: bool,
        seed: u64,
    ) -> ((ModelConfig, TrainSettings), Result<(), ConfigError>) {
        let (mut config, mut settings) = preset(task, small);
        settings.seed = seed;
        for change in &self.overrides {
            change.apply(&mut config, &mut settings);
        }
        let fit = (|| {
            if let Some(target) = &self.target {
                use_target(&mut config, target.clone())?;
            }
            pattern_geometry::fit(&mut config, &mut settings, &self.overrides).map(|_| ())
        })();
        ((config, settings), fit)
    }

    /// [`Setting::apply`] for any seed, checked as `train` checks its flags: the
    /// configuration, then every knob's range and the recipe's fit with the task.
    pub fn checked(
        &self,
        task: TaskKind,
        small: bool,
    ) -> Result<(ModelConfig, TrainSettings), ConfigError> {
        let ((config, settings), fit) = self.fitted(task, small, 0);
        fit?;
        config.validate()?;
        crate::tasks::knobs::validate(&config, &settings)?;
        Ok((config, settings))
    }
}

/// What one run did: its attempts, and the one whose model it keeps (the default: a run
/// that made none, for building one field by field).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Index of the run's setting.
    pub setting: usize,
    pub seed: u64,
    /// Attempts the run made ([`crate::train::attempts`]).
    pub attempts: usize,
    /// The attempt whose model the run keeps (the exact one, when one is).
    pub attempt: usize,
    /// Epochs of the attempts before the kept one.
    pub epochs_before: usize,
    /// The first epoch that solved the task (its batch right), in the kept attempt.
    pub solved_at: Option<usize>,
    /// The first epoch whose kept model was found exact (checked at solved epochs, at
    /// most every [`EXACT_CHECK_GAP`](train::EXACT_CHECK_GAP) epochs), in the kept
    /// attempt.
    pub exact_at: Option<usize>,
    /// Epochs run, over every attempt (fewer than planned when an attempt stopped once
    /// exact or stalled, or diverged). For an exact run, the epochs it took to be exact.
    pub epochs: usize,
    /// The kept attempt's last epoch's metrics.
    pub last: Option<Metrics>,
    /// The accuracy of the run's kept model ([`Keep::Best`]) on fresh inputs
    /// ([`fresh_check`]; none when the run stopped before its first epoch).
    pub fresh_accuracy: Option<f64>,
    /// Whether the kept model is exact: every bit of the fresh check right. A run's success.
    pub exact: bool,
    /// For a task that grows a pattern: whether the kept model grows it and holds it.
    pub grows: Option<bool>,
    pub holds: Option<bool>,
    /// For a task that grows a pattern: whether the kept model regrows it after damage.
    pub regrows: Option<bool>,
    /// Wall time of every attempt: for an exact run, its time to an exact circuit.
    pub wall_s: f64,
    /// Of `wall_s`, the seconds the gate search took, when it ran.
    pub search_s: Option<f64>,
    /// Why the run's last attempt stopped early, if it failed.
    pub error: Option<String>,
    /// What the recipe's gate search did to the kept model, when it ran.
    pub search: Option<GateSearch>,
}

/// Trains `task` (`small` preset) with `setting` from `seed`, attempt after attempt
/// ([`run_attempts`]); each attempt stops at the first epoch whose kept model is exact
/// ([`ExactWatch`]) when `stop_when_exact`, and runs the recipe's [`search_gates`] on its
/// kept model. Returns what the run did, and its attempts (their records, with each
/// epoch's metrics, and the model it keeps).
pub fn run(
    task: TaskKind,
    small: bool,
    setting: &Setting,
    seed: u64,
    stop_when_exact: bool,
) -> Result<(Outcome, AttemptsRun), ConfigError> {
    let start = Instant::now();
    let (config, settings) = setting.apply(task, small, seed);
    let run = run_attempts(&config, &settings, stop_when_exact, 1, |_, _| {
        ControlFlow::Continue(())
    })?;
    let kept = run.kept_record();
    let search_s = run.search_s;
    let outcome = Outcome {
        setting: 0,
        seed,
        attempts: run.records.len(),
        attempt: kept.attempt,
        epochs_before: run
            .records
            .iter()
            .take_while(|r| r.attempt < kept.attempt)
            .map(|r| r.epochs)
            .sum(),
        solved_at: kept.solved_at,
        exact_at: kept.exact_at,
        epochs: run.records.iter().map(|r| r.epochs).sum(),
        last: kept.history.last().map(|m| m.metrics),
        fresh_accuracy: (!kept.history.is_empty()).then_some(kept.fresh_accuracy),
        exact: kept.exact,
        grows: kept.grows,
        holds: kept.holds,
        regrows: kept.regrows,
        wall_s: start.elapsed().as_secs_f64(),
        search_s,
        error: run.error.as_ref().map(|e| e.to_string()),
        search: kept.search,
    };
    Ok((outcome, run))
}

impl Outcome {
    /// The epochs an exact run trained until its model was exact, over every attempt.
    pub fn epochs_to_exact(&self) -> Option<usize> {
        let kept_epochs = self.epochs.saturating_sub(self.epochs_before);
        self.exact
            .then(|| self.epochs_before + self.exact_at.unwrap_or(kept_epochs))
    }

    /// The seconds until the run held an exact model (all of its time, since a run ends
    /// at its first exact attempt); infinite for a run that ended without one.
    pub fn time_to_exact(&self) -> f64 {
        if self.exact {
            self.wall_s
        } else {
            f64::INFINITY
        }
    }
}

/// What the runs of one setting add up to.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub runs: usize,
    /// Runs whose kept model is exact: the success rate.
    pub exact: usize,
    /// 95% Wilson interval of the success rate.
    pub interval: (f64, f64),
    /// Attempts made over every run. A run stops at its first exact attempt, so `exact`
    /// of them were exact: the rate of one attempt, by which recipes are compared.
    pub attempts: usize,
    /// 95% Wilson interval of the rate of one attempt.
    pub attempt_interval: (f64, f64),
    /// Runs solved (a batch right), exact or not.
    pub solved: usize,
    /// Median epochs until exact over the exact runs, every attempt counted.
    pub median_epochs: Option<f64>,
    pub median_wall_s: Option<f64>,
    /// Median and 90th percentile of the time to an exact circuit over every run, a run
    /// without one counting as never (then `None` where more than that share has none).
    pub time_to_exact: (Option<f64>, Option<f64>),
    /// For a task that grows a pattern: runs whose kept model grows it, holds it, and
    /// regrows it.
    pub grows: Option<usize>,
    pub holds: Option<usize>,
    pub regrows: Option<usize>,
}

/// One summary per setting (`settings` of them), in order.
pub fn summarize(outcomes: &[Outcome], settings: usize) -> Vec<Summary> {
    (0..settings)
        .map(|s| {
            let mine: Vec<&Outcome> = outcomes.iter().filter(|o| o.setting == s).collect();
            let exact: Vec<f64> = mine
                .iter()
                .filter_map(|o| o.epochs_to_exact())
                .map(|e| e as f64)
                .collect();
            let walls: Vec<f64> = mine.iter().map(|o| o.wall_s).collect();
            let times: Vec<f64> = mine.iter().map(|o| o.time_to_exact()).collect();
            let finite = |t: Option<f64>| t.filter(|t| t.is_finite());
            let attempts = mine.iter().map(|o| o.attempts).sum();
            let count = |measure: fn(&Outcome) -> Option<bool>| {
                let known: Vec<bool> = mine.iter().filter_map(|o| measure(o)).collect();
                (!known.is_empty()).then(|| known.iter().filter(|&&b| b).count())
            };
            Summary {
                runs: mine.len(),
                exact: exact.len(),
                interval: stats::wilson_95(exact.len(), mine.len()),
                attempts,
                attempt_interval: stats::wilson_95(exact.len(), attempts),
                solved: mine.iter().filter(|o| o.solved_at.is_some()).count(),
                median_epochs: stats::median(&exact),
                median_wall_s: stats::median(&walls),
                time_to_exact: (
                    finite(stats::median(&times)),
                    finite(stats::percentile(&times, 0.9)),
                ),
                grows: count(|o| o.grows),
                holds: count(|o| o.holds),
                regrows: count(|o| o.regrows),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_stops_when_exact_and_is_deterministic() {
        let setting = Setting {
            label: "paper".into(),
            overrides: vec![Override::recipe(crate::model::recipe::RecipeName::Paper)],
            target: None,
        };
        // Seed 25 solves the small checkerboard at epoch 181 with the paper's recipe, and
        // the model it keeps then is exact.
        let (a, _) = run(TaskKind::Checkerboard, true, &setting, 25, true).unwrap();
        assert_eq!((a.solved_at, a.exact_at), (Some(181), Some(181)));
        assert_eq!(a.epochs, 181);
        assert_eq!(a.last.unwrap().hard_loss, 0.0);
        assert!(a.exact);
        assert_eq!(a.fresh_accuracy, Some(1.0));
        let (b, _) = run(TaskKind::Checkerboard, true, &setting, 25, true).unwrap();
        assert_eq!((a.solved_at, a.last), (b.solved_at, b.last));
    }

    #[test]
    fn summaries_count_per_setting() {
        let outcome = |setting, solved_at: Option<usize>| Outcome {
            setting,
            attempts: 1,
            attempt: 1,
            solved_at,
            exact_at: solved_at,
            epochs: 10,
            fresh_accuracy: solved_at.map(|_| 1.0),
            exact: solved_at.is_some(),
            wall_s: 1.0,
            ..Outcome::default()
        };
        let outcomes = [
            outcome(0, Some(10)),
            outcome(0, None),
            outcome(0, Some(30)),
            outcome(1, None),
        ];
        let s = summarize(&outcomes, 2);
        assert_eq!(
            (s[0].runs, s[0].solved, s[0].exact, s[0].median_epochs),
            (3, 2, 2, Some(20.0))
        );
        assert_eq!((s[1].runs, s[1].solved, s[1].median_epochs), (1, 0, None));
        assert_eq!(s[1].interval.0, 0.0);
        assert_eq!((s[0].grows, s[0].holds), (None, None), "not a growing task");
        // A growing task's runs: two grow, one of them holds.
        let grown = |grows, holds| Outcome {
            grows: Some(grows),
            holds: Some(holds),
            ..outcome(0, None)
        };
        let s = summarize(
            &[grown(true, true), grown(true, false), grown(false, false)],
            1,
        );
        assert_eq!((s[0].grows, s[0].holds), (Some(2), Some(1)));
    }
}
