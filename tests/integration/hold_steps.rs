//! Hold steps: the rollout runs past the task's steps and the soft loss sums every state
//! from the task's step on, so that a pattern must persist rather than pass.

use logicars::model::task::TaskKind;
use logicars::tasks::{preset, preset_with, Override};
use logicars::train::{EpochMetrics, Trainer};

use crate::overrides;

/// The small coloured G with the paper's recipe and `changes`, for 3 epochs.
fn history(changes: &[&str]) -> Vec<EpochMetrics> {
    let changes = overrides(&["epochs=3", "recipe=paper"], changes);
    let (config, settings) = preset_with(TaskKind::ColoredG, true, &changes).unwrap();
    let mut trainer = Trainer::from_seed(config, settings).unwrap();
    (1..=3).map(|e| trainer.epoch(e).unwrap()).collect()
}

/// Holding the 15 steps' target for 5 more trains as a 20-step task whose loss sums its
/// last 6 states: the same soft losses, bit for bit; the hard loss adds step 15's bits.
#[test]
fn holding_is_a_longer_rollout_whose_loss_sums_the_held_states_scored_at_both_ends() {
    let held = history(&["hold-steps=5"]);
    let longer = history(&["steps=20", "loss-steps=6"]);
    let soft = |h: &[EpochMetrics]| h.iter().map(|m| m.metrics.soft_loss).collect::<Vec<_>>();
    assert_eq!(soft(&held), soft(&longer), "the same training");
    let plain = history(&[]);
    assert_ne!(held[0].metrics.soft_loss, plain[0].metrics.soft_loss);
    // The hard loss counts the task's step and the end: at the first epoch (one model
    // for all three) the plain run's wrong bits at step 15 plus the longer run's at 20.
    let (h, l, p) = (held[0].metrics, longer[0].metrics, plain[0].metrics);
    assert!(l.hard_loss > 0.0 && p.hard_loss > 0.0);
    assert_eq!(h.hard_loss, l.hard_loss + p.hard_loss);
    assert!((h.accuracy - (l.accuracy + p.accuracy) / 2.0).abs() < 1e-12);
}

#[test]
fn game_of_life_has_nothing_to_hold() {
    let (mut config, mut settings) = preset(TaskKind::Gol, true);
    let change: Override = "hold-steps=2".parse().unwrap();
    change.apply(&mut config, &mut settings);
    let err = Trainer::from_seed(config, settings).err().unwrap();
    assert!(
        err.to_string().starts_with("--hold-steps asks the target"),
        "{err}"
    );
}

/// With `hold-from`, the epochs before its share run as without hold steps and those after
/// as with them; the kept model is one the hold phase scored, and a run resumed within
/// the phase goes on as one never stopped.
#[test]
fn the_hold_phase_starts_at_its_share_and_resumes_exactly() {
    let changes = overrides(
        &["epochs=4", "recipe=paper", "hold-steps=5", "hold-from=0.5"],
        &[],
    );
    let (config, settings) = preset_with(TaskKind::ColoredG, true, &changes).unwrap();
    let mut trainer = Trainer::from_seed(config.clone(), settings.clone()).unwrap();
    let phased: Vec<EpochMetrics> = (1..=3).map(|e| trainer.epoch(e).unwrap()).collect();
    let plain = history(&[]);
    assert_eq!(phased[..2], plain[..2], "no hold in the first half");
    assert_ne!(phased[2], plain[2]);
    assert_eq!(
        trainer.best().unwrap().epoch,
        3,
        "the best is the hold phase's"
    );
    let (state, model) = (trainer.state(), trainer.model.clone());
    let fourth = trainer.epoch(4).unwrap();
    let mut resumed = Trainer::resume(model, settings, state).unwrap();
    assert_eq!(resumed.epoch(4).unwrap(), fourth);
}
