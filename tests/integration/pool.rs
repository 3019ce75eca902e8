//! The sample pool's phases: before `--pool-from` a pool run trains as a run without a
//! pool (every batch from the seed), and from it its batches come from the pool, on the
//! task's grids or on those of a curriculum that covers the whole run.

use std::ops::ControlFlow;

use logicars::model::task::TaskKind;
use logicars::tasks::preset_with;

use crate::overrides;
use logicars::train::{run, EpochMetrics, Trainer};

/// The soft losses of a short small-lizard run on the paper's recipe (its 20x20 torus)
/// with `changes`.
fn soft_losses(changes: &[&str]) -> Vec<f64> {
    let changes = overrides(&["epochs=10", "recipe=paper"], changes);
    let (config, settings) = preset_with(TaskKind::Lizard, true, &changes).unwrap();
    let mut history: Vec<EpochMetrics> = Vec::new();
    let trainer = Trainer::from_seed(config, settings).unwrap();
    let (_, _, error) = run(trainer, |_, m| {
        history.push(*m);
        ControlFlow::Continue(())
    });
    assert!(error.is_none());
    history.iter().map(|m| m.metrics.soft_loss).collect()
}

#[test]
fn before_its_pool_phase_a_pool_run_trains_as_one_without_a_pool() {
    let plain = soft_losses(&["batch=2"]);
    let pooled = soft_losses(&["batch=2", "pool=4", "pool-from=0.5"]);
    assert_eq!(plain[..5], pooled[..5], "epochs 1 to 5 start from the seed");
    assert_ne!(
        plain[5..],
        pooled[5..],
        "epochs 6 to 10 start from the pool"
    );
    let from_the_start = soft_losses(&["batch=2", "pool=4"]);
    assert_eq!(plain[0], from_the_start[0], "the pool starts full of seeds");
    assert_ne!(plain[1..5], from_the_start[1..5]);
}

#[test]
fn a_pool_on_a_larger_curriculum_grid_feeds_its_batches() {
    let larger = ["batch=2", "curriculum-size=24", "curriculum-share=1"];
    let plain = soft_losses(&larger);
    let pooled = soft_losses(&[&larger[..], &["pool=4", "pool-from=0.5"]].concat());
    assert_eq!(plain[..5], pooled[..5], "epochs 1 to 5 start from the seed");
    assert_ne!(
        plain[5..],
        pooled[5..],
        "epochs 6 to 10 start from the pool's 24x24 states"
    );
}
