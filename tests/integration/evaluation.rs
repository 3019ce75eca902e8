//! `evaluate` keeps only the latest state, yet scores a model exactly as the training
//! objective does, and reports every step of each rollout.

use logicars::automaton::masks::FireMasks;
use logicars::automaton::soft::ActivationMemory;
use logicars::evaluate::{evaluate, Rollout, SoftLoss};
use logicars::model::task::TaskKind;
use logicars::tasks::{self, preset};
use logicars::train::{fresh_model, Gradient, Objective};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Scores of the training objective and of `evaluate` on the same grids.
fn both(task: TaskKind, steps: usize) {
    let (config, settings) = preset(task, true);
    let model = fresh_model(config, &settings).unwrap();
    let c = &model.config;
    let mut rng = ChaCha8Rng::seed_from_u64(steps as u64);
    let (batch, h, w) = (3, 10, 7);
    let init = tasks::eval_init(c, batch, h, w, &mut rng);
    let masks = c
        .fire_rate
        .map(|r| FireMasks::draw(steps, batch, h * w, r, &mut rng));
    let target = tasks::target(c, &init, steps);
    let memory = ActivationMemory::Recompute;
    let mut objective = Objective::new(&model, batch, (h, w), steps, memory);
    let kept = objective.run(&model, &init, &target, masks.as_ref(), Gradient::Skip);

    let mut seen = Vec::new();
    let streamed = evaluate(
        &model,
        &init,
        steps,
        masks.as_ref(),
        SoftLoss::Compute,
        |r, t| {
            seen.push((r, t));
        },
    );
    assert_eq!(
        streamed.soft_loss,
        Some(kept.soft_loss),
        "{task:?}, {steps} steps"
    );
    assert_eq!(streamed.hard_loss, kept.hard_loss);
    assert_eq!(streamed.accuracy, kept.accuracy);
    let expected: Vec<_> = [Rollout::Soft, Rollout::Hard]
        .into_iter()
        .flat_map(|r| (0..steps).map(move |t| (r, t)))
        .collect();
    assert_eq!(seen, expected, "each step of each rollout, in order");

    let hard = evaluate(
        &model,
        &init,
        steps,
        masks.as_ref(),
        SoftLoss::Skip,
        |_, _| {},
    );
    assert_eq!(hard.soft_loss, None);
    assert_eq!(
        (hard.hard_loss, hard.accuracy),
        (kept.hard_loss, kept.accuracy)
    );
}

#[test]
fn evaluation_matches_the_training_objective() {
    // Odd and even step counts end in either of the two kept states.
    for steps in [1, 2, 7] {
        both(TaskKind::Checkerboard, steps);
        both(TaskKind::CheckerboardAsync, steps);
    }
}
