//! Many training runs of one task, over seeds and settings, and what they add up to: how
//! every claim about convergence is measured.
//!
//! A run succeeds when the model it keeps is *exact*: right on inputs it did not train on
//! ([`fresh_check`]: Game of Life's 512 boards, fresh and larger grids, twice the steps).
//! It is *solved* (a weaker, secondary measure) at the first epoch whose batch the hard
//! circuit gets entirely right; for Game of Life the model after that epoch must also be
//! right on all 512 boards. Each run is deterministic (its seed fixes it for any thread
//! count), so a sweep can run several at once.

pub mod error;
pub mod gather;
pub mod manifest;
pub mod plan;
pub mod rows;
pub mod stats;

pub use plan::{check_plan, plan, MAX_RUNS};

use std::ops::ControlFlow;
use std::time::Instant;

use crate::error::ConfigError;
use crate::evaluate::fresh_check;
use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::network::Model;
use crate::model::task::TaskKind;
use crate::tasks::{preset, Override};
use crate::train::{
    self, fresh_model, search_gates, ExactWatch, GateSearch, Keep, Metrics, SearchPlan, Trainer,
};

/// One setting of a sweep: changes to the task's preset, and how to name them.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub label: String,
    pub overrides: Vec<Override>,
}

impl Setting {
    /// The preset of `task` with this setting's changes, for `seed`.
    pub fn apply(&self, task: TaskKind, small: bool, seed: u64) -> (ModelConfig, TrainSettings) {
        let (mut config, mut settings) = preset(task, small);
        settings.seed = seed;
        for change in &self.overrides {
            change.apply(&mut config, &mut settings);
        }
        (config, settings)
    }
}

/// What one run did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Index of the run's setting.
    pub setting: usize,
    pub seed: u64,
    /// The first epoch that solved the task (its batch right).
    pub solved_at: Option<usize>,
    /// The first epoch whose kept model was found exact (checked at solved epochs, at
    /// most every [`EXACT_CHECK_GAP`](train::EXACT_CHECK_GAP) epochs).
    pub exact_at: Option<usize>,
    /// Epochs run (fewer than planned when the run stopped once exact, or diverged).
    pub epochs: usize,
    /// The last epoch's metrics.
    pub last: Option<Metrics>,
    /// The accuracy of the run's kept model ([`Keep::Best`]) on fresh inputs
    /// ([`fresh_check`]; none when the run stopped before its first epoch).
    pub fresh_accuracy: Option<f64>,
    /// Whether the kept model is exact: every bit of the fresh check right. A run's success.
    pub exact: bool,
    pub wall_s: f64,
    /// Of `wall_s`, the seconds the gate search took, when it ran.
    pub search_s: Option<f64>,
    /// Why the run stopped early, if it failed.
    pub error: Option<String>,
    /// What the recipe's gate search did to the kept model, when it ran.
    pub search: Option<GateSearch>,
}

/// Trains `task` (`small` preset) with `setting` from `seed` through the epoch loop of
/// [`train::run`]; stops at the first epoch whose kept model is exact ([`ExactWatch`])
/// when `stop_when_exact`, and runs the recipe's [`search_gates`] on the kept model.
/// Returns what the run did and the model it keeps.
pub fn run(
    task: TaskKind,
    small: bool,
    setting: &Setting,
    seed: u64,
    stop_when_exact: bool,
) -> Result<(Outcome, Model), ConfigError> {
    let start = Instant::now();
    let (config, settings) = setting.apply(task, small, seed);
    let trainer = Trainer::new(fresh_model(config, &settings)?, settings);
    let mut watch = ExactWatch::default();
    let (trainer, summary, error) = train::run(trainer, |trainer, m| {
        if watch.observe(trainer, m) && stop_when_exact {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    let mut kept = trainer.kept_model(Keep::Best);
    let plan = SearchPlan::of(&trainer.settings().recipe);
    let searching = Instant::now();
    let search = search_gates(&mut kept, plan, |_| {});
    let search_s = search.map(|_| searching.elapsed().as_secs_f64());
    let fresh = trainer.best().map(|_| fresh_check(&kept));
    let outcome = Outcome {
        setting: 0,
        seed,
        solved_at: watch.solved_at(),
        exact_at: watch.exact_at(),
        epochs: summary.epochs,
        last: summary.last.map(|m| m.metrics),
        fresh_accuracy: fresh.as_ref().map(|f| f.accuracy),
        exact: fresh.is_some_and(|f| f.exact()),
        wall_s: start.elapsed().as_secs_f64(),
        search_s,
        error: error.map(|e| e.to_string()),
        search,
    };
    Ok((outcome, kept))
}

/// What the runs of one setting add up to.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub runs: usize,
    /// Runs whose kept model is exact: the success rate.
    pub exact: usize,
    /// 95% Wilson interval of the success rate.
    pub interval: (f64, f64),
    /// Runs solved (a batch right), exact or not.
    pub solved: usize,
    /// Median epoch of success over the exact runs (where the run found its kept model
    /// exact, or its last epoch).
    pub median_epochs: Option<f64>,
    pub median_wall_s: Option<f64>,
}

/// One summary per setting (`settings` of them), in order.
pub fn summarize(outcomes: &[Outcome], settings: usize) -> Vec<Summary> {
    (0..settings)
        .map(|s| {
            let mine: Vec<&Outcome> = outcomes.iter().filter(|o| o.setting == s).collect();
            let exact: Vec<f64> = mine
                .iter()
                .filter(|o| o.exact)
                .map(|o| o.exact_at.unwrap_or(o.epochs) as f64)
                .collect();
            let walls: Vec<f64> = mine.iter().map(|o| o.wall_s).collect();
            Summary {
                runs: mine.len(),
                exact: exact.len(),
                interval: stats::wilson_95(exact.len(), mine.len()),
                solved: mine.iter().filter(|o| o.solved_at.is_some()).count(),
                median_epochs: stats::median(&exact),
                median_wall_s: stats::median(&walls),
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
            seed: 0,
            solved_at,
            exact_at: solved_at,
            epochs: 10,
            last: None,
            fresh_accuracy: solved_at.map(|_| 1.0),
            exact: solved_at.is_some(),
            wall_s: 1.0,
            search_s: None,
            error: None,
            search: None,
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
    }
}
