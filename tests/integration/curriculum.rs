//! A recipe's curriculum trains on other grids first (smaller for the checkerboards, larger
//! for the tasks grown from the centre), while every epoch's hard loss and accuracy still
//! score the circuit at the task's own size.

use logicars::model::config::{ModelConfig, TrainSettings};
use logicars::model::pattern::PatternTarget;
use logicars::model::task::TaskKind;
use logicars::tasks::{preset, preset_with, use_target};

use crate::overrides;
use logicars::train::Trainer;

/// The paper's recipe on the checkerboard, with `changes`.
fn trainer(changes: &[&str]) -> Trainer {
    trainer_of(TaskKind::Checkerboard, false, changes)
}

/// The lizard's reduced preset with the paper's recipe and `changes`.
fn lizard(changes: &[&str]) -> Trainer {
    trainer_of(TaskKind::Lizard, true, changes)
}

/// Ten epochs of `task`'s preset (`small` or not) with the paper's recipe and `changes`.
fn trainer_of(task: TaskKind, small: bool, changes: &[&str]) -> Trainer {
    let (config, settings) = settings_of(task, small, changes);
    Trainer::from_seed(config, settings).unwrap()
}

/// The model config and settings of [`trainer_of`].
fn settings_of(task: TaskKind, small: bool, changes: &[&str]) -> (ModelConfig, TrainSettings) {
    let changes = overrides(&["epochs=10", "recipe=paper"], changes);
    preset_with(task, small, &changes).unwrap()
}

#[test]
fn the_curriculum_trains_small_and_scores_at_the_tasks_size() {
    let mut plain = trainer(&[]);
    let mut small = trainer(&["curriculum-size=8", "curriculum-share=0.2"]);
    let (plain_first, small_first) = (plain.epoch(1).unwrap(), small.epoch(1).unwrap());
    // The same seed draws the same 16x16 batch first, and the model before the first
    // step is the same: the hard scores agree to the bit.
    assert_eq!(small_first.metrics.hard_loss, plain_first.metrics.hard_loss);
    assert_eq!(small_first.metrics.accuracy, plain_first.metrics.accuracy);
    // The soft loss is the 8x8 batch's: at most one per target bit of its 2 x 64 cells,
    // where a fresh paper model's 16x16 rollout, still a copy of random bits, is near 256.
    let small_cells = 2.0 * 64.0;
    assert!(
        small_first.metrics.soft_loss <= small_cells,
        "{small_first:?}"
    );
    assert!(
        plain_first.metrics.soft_loss > 1.5 * small_cells,
        "{plain_first:?}"
    );
    // After the curriculum's two epochs, the soft loss is the task's size again; the
    // parameters differ, so only its scale can be compared.
    small.epoch(2).unwrap();
    let third = small.epoch(3).unwrap();
    assert!(third.metrics.soft_loss > 1.5 * small_cells, "{third:?}");
}

#[test]
fn a_larger_curriculum_grid_grows_the_lizard_in_its_centre_and_scores_at_the_tasks_size() {
    let mut plain = lizard(&[]);
    let mut wide = lizard(&["curriculum-size=26", "curriculum-share=0.2"]);
    // The lizard's target drawn in the centre of a 26x26 one (3 cells of margin), the
    // task's grid made that size: the seed sits in its centre too.
    let (mut config, settings) = settings_of(TaskKind::Lizard, true, &[]);
    let lizard = config.pattern.clone().unwrap();
    let mut bits = vec![0u8; 26 * 26];
    for (row, col) in (0..20).flat_map(|r| (0..20).map(move |c| (r, c))) {
        bits[(row + 3) * 26 + col + 3] = u8::from(lizard.bit(row, col, 0));
    }
    let padded = PatternTarget {
        height: 26,
        width: 26,
        rgb: false,
        bits,
    };
    use_target(&mut config, padded).unwrap();
    let mut on_26 = Trainer::from_seed(config, settings).unwrap();
    let [plain_first, wide_first, on_26_first] =
        [&mut plain, &mut wide, &mut on_26].map(|t| t.epoch(1).unwrap().metrics);
    assert_eq!(wide_first.soft_loss, on_26_first.soft_loss);
    assert_ne!(wide_first.soft_loss, plain_first.soft_loss);
    assert_eq!(wide_first.hard_loss, plain_first.hard_loss);
    assert_eq!(wide_first.accuracy, plain_first.accuracy);
}

#[test]
fn a_finish_trains_on_the_larger_grid_from_the_epoch_after_the_batch_is_right() {
    let mut finish = lizard(&["finish-size=26"]);
    let mut plain = lizard(&[]);
    // Until the kept model's batch is right, the run is the plain one, to the bit.
    let [finish_first, plain_first] = [&mut finish, &mut plain].map(|t| t.epoch(1).unwrap());
    assert_eq!(finish_first, plain_first);
    // The same run with its kept model's batch right (as its checkpoint would say), and
    // the same state under a curriculum on the 26x26 plane for the whole run.
    let mut solved = finish.state();
    solved.best.as_mut().unwrap().hard_loss = 0.0;
    let resumed = |changes: &[&str]| {
        let (_, settings) = settings_of(TaskKind::Lizard, true, changes);
        Trainer::resume(finish.model.clone(), settings, solved.clone()).unwrap()
    };
    let mut finishing = resumed(&["finish-size=26"]);
    let mut on_plane = resumed(&["curriculum-size=26", "curriculum-share=1"]);
    let [finishing_second, on_plane_second, plain_second] =
        [&mut finishing, &mut on_plane, &mut plain].map(|t| t.epoch(2).unwrap().metrics);
    assert_eq!(finishing_second, on_plane_second);
    assert_eq!(
        (finish.finishing_from(), finishing.finishing_from()),
        (None, Some(2))
    );
    assert_ne!(finishing_second.soft_loss, plain_second.soft_loss);
    // Scored at the task's size: the model before the step is the plain run's.
    assert_eq!(finishing_second.hard_loss, plain_second.hard_loss);
}

#[test]
fn a_curriculum_on_a_task_that_cannot_shrink_is_refused() {
    let (config, mut settings) = preset(TaskKind::Gol, false);
    settings.recipe.curriculum_size = 2;
    settings.recipe.curriculum_share = 0.5;
    let err = Trainer::from_seed(config, settings).err().unwrap();
    assert!(err.to_string().contains("which gol is not"), "{err}");
}

#[test]
fn a_curriculum_of_shorter_rollouts_trains_on_them_and_scores_at_the_tasks_steps() {
    let mut plain = lizard(&[]);
    let mut short = lizard(&["curriculum-steps=7", "curriculum-share=0.2"]);
    let mut seven = lizard(&["steps=7"]);
    let [plain_first, short_first, seven_first] =
        [&mut plain, &mut short, &mut seven].map(|t| t.epoch(1).unwrap().metrics);
    // The same seed wires the same model and the lizard always grows from the same
    // cell: the curriculum's epoch is a 7-step run's soft loss, scored at the task's 12.
    assert_eq!(short_first.soft_loss, seven_first.soft_loss);
    assert_ne!(short_first.soft_loss, plain_first.soft_loss);
    assert_eq!(short_first.hard_loss, plain_first.hard_loss);
    assert_eq!(short_first.accuracy, plain_first.accuracy);
}

#[test]
fn a_curriculum_no_shorter_than_the_task_is_refused() {
    let (config, mut settings) = settings_of(TaskKind::Lizard, true, &[]);
    settings.recipe.curriculum_steps = config.steps;
    settings.recipe.curriculum_share = 0.5;
    let err = Trainer::from_seed(config, settings).err().unwrap();
    assert_eq!(
        err.to_string(),
        "the curriculum's rollouts (12 steps) must be shorter than the task's (12 steps)"
    );
}

/// With `curriculum-alternate`, the odd epochs train on the curriculum's grids and the
/// even ones on the task's, to the curriculum's end: the curriculum's objective is kept
/// between its epochs.
#[test]
fn an_alternating_curriculum_trains_its_grids_and_the_tasks_in_turn() {
    let mut alternating = trainer(&[
        "curriculum-size=8",
        "curriculum-share=1",
        "curriculum-alternate=true",
    ]);
    // As above: an 8x8 batch's soft loss is at most its 2 x 64 target bits, a fresh
    // model's 16x16 one near 256.
    let small_cells = 2.0 * 64.0;
    for epoch in 1..=6 {
        let metrics = alternating.epoch(epoch).unwrap().metrics;
        if epoch % 2 == 1 {
            assert!(metrics.soft_loss <= small_cells, "{epoch}: {metrics:?}");
        } else {
            assert!(
                metrics.soft_loss > 1.5 * small_cells,
                "{epoch}: {metrics:?}"
            );
        }
    }
}
