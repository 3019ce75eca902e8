//! The paper's tests of a trained rule, in numbers: accuracy at the training size, on a
//! 4x larger grid for 4x the steps, after a block of cells was zeroed, and (async
//! models) under repeated random damage.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::automaton::frames::{hard_last_frame, Damage};
use crate::automaton::grid::Grids;
use crate::automaton::hard::HardRollout;
use crate::automaton::masks::FireMasks;
use crate::kernels::parameters::hard_truth;
use crate::model::circuit::Circuit;
use crate::model::config::ModelConfig;
use crate::model::network::Model;
use crate::model::task::TaskKind;
use crate::tasks;
use crate::train::loss::wrong_bits;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckRow {
    pub test: String,
    pub grid: String,
    pub steps: usize,
    /// Share of target bits right at the last step.
    pub accuracy: f64,
    pub note: String,
}

/// One of the rollout tests: `steps` steps from random grids of `height x width`.
#[derive(Debug, Clone, PartialEq)]
pub struct RolloutCheck {
    pub name: &'static str,
    pub height: usize,
    pub width: usize,
    pub steps: usize,
    pub damage: Option<Damage>,
    pub note: String,
}

/// The rollout tests that fit the model's task, in the order they run.
pub fn rollout_checks(config: &ModelConfig) -> Vec<RolloutCheck> {
    let c = config;
    let plain = |name, height, width, steps| RolloutCheck {
        name,
        height,
        width,
        steps,
        damage: None,
        note: String::new(),
    };
    let (h4, w4, s4) = (4 * c.height, 4 * c.width, 4 * c.steps);
    let mut checks = vec![
        plain("training size", c.height, c.width, c.steps),
        plain("4x grid, 4x steps", h4, w4, s4),
    ];
    if c.task != TaskKind::Gol {
        let side = 10.min(h4 / 2).min(w4 / 2).max(1);
        // A pattern first grows from its seed, then is damaged (the paper's regrowth);
        // other tasks are damaged from the start.
        let (first, last) = if c.task == TaskKind::Pattern {
            (c.steps, 2 * c.steps)
        } else {
            (0, s4 / 2)
        };
        let damage = Damage::centred(side, side, first, last, h4, w4).expect("the block fits");
        checks.push(RolloutCheck {
            damage: Some(damage),
            note: format!("{side}x{side} block zeroed for steps {first}..{last}"),
            ..plain("recovery after damage", h4, w4, s4)
        });
    }
    checks
}

/// Steps that [`run_checks`] runs in all (what its `after_step` counts to).
pub fn total_steps(config: &ModelConfig, robustness_steps: usize) -> usize {
    let rollouts: usize = rollout_checks(config).iter().map(|c| c.steps).sum();
    rollouts + config.fire_rate.map_or(0, |_| robustness_steps)
}

/// Runs every test that fits the model's task; `batch` random grids each. `after_step`
/// is called once per step run, to show progress.
pub fn run_checks(
    model: &Model,
    batch: usize,
    seed: u64,
    robustness_steps: usize,
    mut after_step: impl FnMut(),
) -> Vec<CheckRow> {
    let c = &model.config;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rows = Vec::new();
    for check in rollout_checks(c) {
        let (h, w, steps) = (check.height, check.width, check.steps);
        let init = tasks::eval_init(c.task, batch, h, w, c.channels, &mut rng);
        let masks = c
            .fire_rate
            .map(|r| FireMasks::draw(steps, batch, h * w, r, &mut rng));
        let damage = check.damage.as_ref();
        let last = hard_last_frame(model, &init, steps, masks.as_ref(), damage, |_| {
            after_step();
        });
        let target = tasks::target(c, &init, steps);
        let accuracy = accuracy(&last, &target, &c.target_channels);
        rows.push(CheckRow {
            test: check.name.into(),
            grid: format!("{h}x{w}"),
            steps,
            accuracy,
            note: with_phase_note(c.task, accuracy, check.note),
        });
    }
    if c.fire_rate.is_some() {
        rows.push(robustness(model, seed, robustness_steps, after_step));
    }
    rows
}

/// A rule may anchor the checkerboard on the far border: on a grid with another parity of
/// squares it then draws the other phase, which scores `1 - accuracy` (the target is binary).
fn with_phase_note(task: TaskKind, accuracy: f64, note: String) -> String {
    let checkerboard = matches!(task, TaskKind::Checkerboard | TaskKind::CheckerboardAsync);
    if !checkerboard || accuracy >= 0.5 {
        return note;
    }
    let phase = format!(
        "the other phase of the checkerboard: {:.2}%",
        (1.0 - accuracy) * 100.0
    );
    if note.is_empty() {
        phase
    } else {
        format!("{note}; {phase}")
    }
}

/// Share of target bits right.
fn accuracy(state: &Grids, target: &Grids, target_channels: &[usize]) -> f64 {
    let channels = state.channels;
    let bit = |channel, lane| state.values[lane * channels + channel] >= 0.5;
    wrong_bits(target_channels, target, bit).1
}

/// The paper's robustness plot in one number: a 64x64 grid, async steps, and after
/// every step a random 10x10 block reset; mean accuracy over the second half of the run.
fn robustness(model: &Model, seed: u64, steps: usize, mut after_step: impl FnMut()) -> CheckRow {
    let c = &model.config;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let (h, w) = (64, 64);
    let mut state = Grids::random_bits(1, h, w, c.channels, &mut rng);
    let target = tasks::target(c, &state, steps);
    let circuit = Circuit::compile(model);
    let truth = hard_truth(model.config.parametrization, &model.logits);
    let mut rollout = HardRollout::new(1, h, w, c.periodic, &circuit);
    let mut total = 0.0;
    let mut counted = 0;
    for t in 0..steps {
        let masks = c.fire_rate.map(|r| FireMasks::draw(1, 1, h * w, r, &mut rng));
        rollout.set_state(&state);
        rollout.step(&circuit, &truth, masks.as_ref(), 0);
        state = rollout.state();
        let (top, left) = (rng.random_range(0..h), rng.random_range(0..w));
        for r in top..(top + 10).min(h) {
            for col in left..(left + 10).min(w) {
                for ch in 0..c.channels {
                    state.set(0, r, col, ch, 0.0);
                }
            }
        }
        if t >= steps / 2 {
            total += accuracy(&state, &target, &c.target_channels);
            counted += 1;
        }
        after_step();
    }
    let mean = total / counted.max(1) as f64;
    CheckRow {
        test: "robustness (async)".into(),
        grid: format!("{h}x{w}"),
        steps,
        accuracy: mean,
        note: with_phase_note(
            c.task,
            mean,
            "random 10x10 block reset after every step; mean over the second half".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_note_only_for_checkerboards_below_half() {
        assert_eq!(
            with_phase_note(TaskKind::Checkerboard, 0.9, "x".into()),
            "x"
        );
        assert_eq!(
            with_phase_note(TaskKind::CheckerboardAsync, 0.25, String::new()),
            "the other phase of the checkerboard: 75.00%"
        );
        assert_eq!(with_phase_note(TaskKind::Gol, 0.1, "n".into()), "n");
        assert!(with_phase_note(TaskKind::Checkerboard, 0.0, "d".into())
            .starts_with("d; the other phase"));
    }
}
