//! Analytic gradients of whole rollouts against central finite differences.

use logicars::automaton::grid::Grids;
use logicars::automaton::masks::FireMasks;
use logicars::automaton::soft::ActivationMemory;
use logicars::model::config::ModelConfig;
use logicars::model::gates::NUM_OPS;
use logicars::model::network::Model;
use logicars::model::parametrization::Parametrization;
use logicars::model::task::TaskKind;
use logicars::train::{loss_and_gradient, loss_and_gradient_over, Gradient, Objective};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A tiny model on 2 x 6 x 7 = 84 lanes (two tiles, so the cross-tile scatter is
/// exercised): 2 channels, 2 kernels, perception [8, 4, 2], update [8, 4, 2].
fn tiny_config(steps: usize, fire_rate: Option<f32>, periodic: bool) -> ModelConfig {
    ModelConfig {
        task: TaskKind::Checkerboard,
        channels: 2,
        height: 6,
        width: 7,
        periodic,
        steps,
        fire_rate,
        kernels: 2,
        perception_layers: vec![8, 4, 2],
        update_layers: vec![8, 4, 2],
        target_channels: vec![0, 1],
        parametrization: Parametrization::Softmax,
        pattern: None,
        rule: None,
        observed: None,
    }
}

/// Random logits (so no gate is saturated), soft random inputs and targets.
fn tiny_case(config: ModelConfig, seed: u64) -> (Model, Grids, Grids) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = Model::new(config, &mut rng).unwrap();
    for logits in &mut model.logits {
        for l in logits.iter_mut() {
            *l = rng.random_range(-1.5..1.5);
        }
    }
    let c = &model.config;
    let mut init = Grids::zeros(2, c.height, c.width, c.channels);
    for v in &mut init.values {
        *v = rng.random();
    }
    let mut target = Grids::zeros(2, c.height, c.width, c.target_channels.len());
    for v in &mut target.values {
        *v = rng.random_range(0..2) as f32;
    }
    (model, init, target)
}

/// Compares every logit's analytic gradient with a central difference (h = 1e-2, f32
/// forward, so agreement is checked to a relative 2% plus an absolute floor).
fn check(
    model: Model,
    init: Grids,
    target: Grids,
    masks: Option<FireMasks>,
    memory: ActivationMemory,
) {
    check_over(model, init, target, masks, memory, 1);
}

/// [`check`] for a loss summed over the states after the last `loss_steps` steps.
fn check_over(
    model: Model,
    init: Grids,
    target: Grids,
    masks: Option<FireMasks>,
    memory: ActivationMemory,
    loss_steps: usize,
) {
    check_with(&model, |model| {
        loss_and_gradient_over(model, &init, &target, masks.as_ref(), memory, loss_steps)
    });
}

/// Compares the gradient that `loss_and_gradient` gives for `model` with central
/// differences of its loss.
fn check_with(model: &Model, loss_and_gradient: impl Fn(&Model) -> (f64, Vec<[f32; NUM_OPS]>)) {
    let (_, analytic) = loss_and_gradient(model);
    let mut worst: f64 = 0.0;
    let mut checked = 0;
    for (gate, gate_grads) in analytic.iter().enumerate() {
        for (op, &got) in gate_grads.iter().enumerate() {
            let h = 1e-2f32;
            let mut up = model.clone();
            up.logits[gate][op] += h;
            let mut down = model.clone();
            down.logits[gate][op] -= h;
            let (lu, _) = loss_and_gradient(&up);
            let (ld, _) = loss_and_gradient(&down);
            let numeric = (lu - ld) / (2.0 * h as f64);
            let got = got as f64;
            if numeric.abs() > 0.05 {
                worst = worst.max((got - numeric).abs() / numeric.abs());
            }
            assert!(
                (got - numeric).abs() <= 0.02 * numeric.abs() + 2e-3,
                "gate {gate} op {op}: analytic {got} vs numeric {numeric}"
            );
            checked += 1;
        }
    }
    assert!(checked > 300, "checked {checked} logits");
    eprintln!("worst relative error (|gradient| > 0.05) {worst:.2e} over {checked} logits");
    assert!(worst < 5e-3, "large gradients must agree closely: {worst}");
}

#[test]
fn synchronous_rollout_gradient_matches_finite_differences() {
    let (model, init, target) = tiny_case(tiny_config(3, None, false), 11);
    check(model, init, target, None, ActivationMemory::Recompute);
}

#[test]
fn input_wise_rollout_gradient_matches_finite_differences() {
    let config = ModelConfig {
        parametrization: Parametrization::InputWise,
        ..tiny_config(3, None, true)
    };
    let (model, init, target) = tiny_case(config, 15);
    check(model, init, target, None, ActivationMemory::Recompute);
}

#[test]
fn loss_over_the_last_steps_has_the_gradient_of_finite_differences() {
    let (model, init, target) = tiny_case(tiny_config(4, None, true), 16);
    let (one, _) = loss_and_gradient(&model, &init, &target, None, ActivationMemory::Recompute);
    let (three, _) =
        loss_and_gradient_over(&model, &init, &target, None, ActivationMemory::Recompute, 3);
    assert!(
        three > one,
        "two more states add to the loss: {three} vs {one}"
    );
    check_over(model, init, target, None, ActivationMemory::Store, 3);
}

/// The hidden channels' stillness between the loss states adds to the loss, and its
/// gradient (through both states of each pair) is that of finite differences.
#[test]
fn stillness_has_the_gradient_of_finite_differences() {
    let config = ModelConfig {
        channels: 3,
        target_channels: vec![0],
        update_layers: vec![8, 4, 3],
        ..tiny_config(4, None, true)
    };
    let (mut model, init, target) = tiny_case(config, 18);
    // Sharper gates than tiny_case's and a large weight: the hidden channels of a tiny
    // random model are nearly still by step 2, and their term must count here.
    model.logits.iter_mut().flatten().for_each(|l| *l *= 4.0);
    let (init, target) = (&init, &target);
    let still = |weight: f32| {
        move |model: &Model| {
            let shape = (init.height, init.width);
            let memory = ActivationMemory::Store;
            let mut objective = Objective::new(model, init.batch, shape, 4, memory);
            objective.set_loss_steps(3);
            objective.set_stillness(weight);
            let metrics = objective.run(model, init, target, None, Gradient::Compute);
            (metrics.soft_loss, objective.logit_grads().to_vec())
        }
    };
    let (without, plain) = still(0.0)(&model);
    let (with, stilled) = still(1e4)(&model);
    assert!(
        with > without,
        "the hidden channels move: {with} vs {without}"
    );
    let moved = plain.iter().flatten().zip(stilled.iter().flatten());
    let change = moved.map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    assert!(change > 0.05, "the stillness moves the gradient: {change}");
    check_with(&model, still(1e4));
}

/// Weighting the target's on bits raises the loss of a target with bits on, moves the
/// gradient, and keeps it that of finite differences over two loss states.
#[test]
fn weighted_on_bits_have_the_gradient_of_finite_differences() {
    let (model, init, target) = tiny_case(tiny_config(3, None, true), 19);
    let (init, target) = (&init, &target);
    let weighted = |weight: f32, loss_steps: usize| {
        move |model: &Model| {
            let shape = (init.height, init.width);
            let memory = ActivationMemory::Recompute;
            let mut objective = Objective::new(model, init.batch, shape, 3, memory);
            objective.set_loss_steps(loss_steps);
            objective.set_on_weight(weight);
            let metrics = objective.run(model, init, target, None, Gradient::Compute);
            (metrics.soft_loss, objective.logit_grads().to_vec())
        }
    };
    let (plain, plain_grads) = weighted(1.0, 1)(&model);
    let memory = ActivationMemory::Recompute;
    let (notebook, _) = loss_and_gradient(&model, init, target, None, memory);
    assert_eq!(
        plain.to_bits(),
        notebook.to_bits(),
        "weight 1 is the notebook's loss"
    );
    let (heavier, heavier_grads) = weighted(2.0, 1)(&model);
    assert!(heavier > plain, "on bits weigh more: {heavier} vs {plain}");
    let moved = plain_grads
        .iter()
        .flatten()
        .zip(heavier_grads.iter().flatten());
    let change = moved.map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    assert!(change > 0.05, "the weight moves the gradient: {change}");
    check_with(&model, weighted(2.0, 2));
}

#[test]
fn sharpened_gates_have_the_gradient_of_finite_differences() {
    for parametrization in [Parametrization::Softmax, Parametrization::InputWise] {
        let config = ModelConfig {
            parametrization,
            ..tiny_config(3, None, true)
        };
        let (model, init, target) = tiny_case(config, 17);
        let (init, target) = (&init, &target);
        let sharpened = |sharpness: f32| {
            move |model: &Model| {
                let shape = (init.height, init.width);
                let memory = ActivationMemory::Recompute;
                let mut objective = Objective::new(model, init.batch, shape, 3, memory);
                objective.set_sharpness(sharpness);
                let metrics = objective.run(model, init, target, None, Gradient::Compute);
                (metrics.soft_loss, objective.logit_grads().to_vec())
            }
        };
        let (plain, _) = sharpened(1.0)(&model);
        let (sharp, _) = sharpened(2.0)(&model);
        assert!(
            plain != sharp,
            "{parametrization:?}: sharpening changes the loss"
        );
        check_with(&model, sharpened(2.0));
    }
}

#[test]
fn stored_activations_give_the_same_gradient() {
    let (model, init, target) = tiny_case(tiny_config(3, None, true), 12);
    let (l1, g1) = loss_and_gradient(&model, &init, &target, None, ActivationMemory::Recompute);
    let (l2, g2) = loss_and_gradient(&model, &init, &target, None, ActivationMemory::Store);
    assert_eq!(l1, l2);
    assert_eq!(g1, g2);
}

#[test]
fn asynchronous_periodic_rollout_gradient_matches_finite_differences() {
    check_asynchronous(tiny_config(4, Some(0.6), true), 13, 3);
}

#[test]
fn masks_drawn_per_grid_give_the_gradient_of_finite_differences() {
    check_asynchronous_with(tiny_config(4, Some(0.6), false), 15, 4, true);
}

/// [`check`] of `config` (which fires at rate 0.6) under masks drawn from `mask_seed`.
fn check_asynchronous(config: ModelConfig, seed: u64, mask_seed: u64) {
    check_asynchronous_with(config, seed, mask_seed, false);
}

/// [`check_asynchronous`], the masks drawn per grid (the two grids fire differently)
/// when `per_grid`.
fn check_asynchronous_with(config: ModelConfig, seed: u64, mask_seed: u64, per_grid: bool) {
    let cells = config.height * config.width;
    let (model, init, target) = tiny_case(config.clone(), seed);
    let mut rng = ChaCha8Rng::seed_from_u64(mask_seed);
    let masks = match per_grid {
        true => FireMasks::draw_per_grid(config.steps, 2, cells, 0.6, &mut rng),
        false => FireMasks::draw(config.steps, 2, cells, 0.6, &mut rng),
    };
    assert!(masks.fires.contains(&false) && masks.fires.contains(&true));
    let grid =
        |g: usize| -> Vec<bool> { (0..cells).map(|c| masks.fires(0, g * cells + c)).collect() };
    assert_eq!(grid(0) != grid(1), per_grid, "per grid: {per_grid}");
    check(
        model,
        init,
        target,
        Some(masks),
        ActivationMemory::Recompute,
    );
}

/// Recompute mode steps an asynchronous rollout forward and back on the firing cells
/// only, packed into fewer tiles; store mode runs every cell. Both give the same loss,
/// bit for bit, and the same gradient but for the order of its sums (the firing cells'
/// backward sums the coefficient gradients per packed tile): on a 14x14 torus (two grids in one run of tiles, each grid's
/// lanes split across tiles) and on 16x16 zero-padded grids (a run of four tiles per
/// grid), with masks shared by the grids and drawn per grid, with three channels.
#[test]
fn firing_cells_only_give_the_bits_of_every_cell() {
    for (side, periodic, per_grid) in [(14, true, false), (16, false, true), (14, true, true)] {
        let config = ModelConfig {
            channels: 3,
            height: side,
            width: side,
            update_layers: vec![8, 4, 3],
            ..tiny_config(4, Some(0.6), periodic)
        };
        let (model, init, target) = tiny_case(config.clone(), 18);
        let cells = side * side;
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let masks = match per_grid {
            true => FireMasks::draw_per_grid(config.steps, 2, cells, 0.6, &mut rng),
            false => FireMasks::draw(config.steps, 2, cells, 0.6, &mut rng),
        };
        // Every step's firing cells fill fewer tiles than the grids do.
        let tiles = (2 * cells).div_ceil(64);
        for step in 0..config.steps {
            let firing = (0..2 * cells).filter(|&l| masks.fires(step, l)).count();
            assert!(firing.div_ceil(64) < tiles, "step {step}: {firing} fire");
        }
        let run = |memory| loss_and_gradient(&model, &init, &target, Some(&masks), memory);
        let (l1, g1) = run(ActivationMemory::Recompute);
        let (l2, g2) = run(ActivationMemory::Store);
        assert_eq!(l1.to_bits(), l2.to_bits(), "{side}x{side}");
        let scale = g2.iter().flatten().fold(0.0f32, |m, g| m.max(g.abs()));
        for (a, b) in g1.iter().flatten().zip(g2.iter().flatten()) {
            assert!((a - b).abs() <= 1e-5 * scale, "{side}x{side}: {a} and {b}");
        }
        // The two 14x14 tori share tiles (one run): backward runs the firing cells only.
        // Each zero-padded 16x16 grid is a run of its own, which backward still runs
        // whole, so its bits are those of store mode.
        assert_eq!(g1 != g2, periodic, "{side}x{side}: which backward ran");
    }
}

#[test]
fn gate_wired_twice_to_one_input_gets_both_contributions() {
    let (mut model, init, target) = tiny_case(tiny_config(2, None, false), 14);
    // Wire the first two update gates to a single input each: a == b.
    let w = &mut model.update[0].wires;
    w.b[0] = w.a[0];
    w.b[1] = w.a[1];
    check(model, init, target, None, ActivationMemory::Recompute);
}

/// 2 x 8 x 8 lanes: each grid fills one tile, so each steps on its own (a run of its
/// own) in forward and backward; masks are indexed by lane across both.
#[test]
fn grids_stepped_on_their_own_have_the_gradient_of_finite_differences() {
    let mut config = tiny_config(3, Some(0.6), true);
    (config.height, config.width) = (8, 8);
    check_asynchronous(config, 15, 4);
}

/// The stepwise forward that store mode uses and the forward by runs give the same bits.
#[test]
fn grids_stepped_on_their_own_match_all_grids_in_step() {
    let mut config = tiny_config(3, None, false);
    (config.height, config.width) = (8, 8);
    let (model, init, target) = tiny_case(config, 16);
    let (l1, g1) = loss_and_gradient(&model, &init, &target, None, ActivationMemory::Recompute);
    let (l2, g2) = loss_and_gradient(&model, &init, &target, None, ActivationMemory::Store);
    assert_eq!(l1, l2);
    assert_eq!(g1, g2);
}

#[test]
fn many_channels_have_the_gradient_of_finite_differences() {
    // Many channels, as the lizard's 128 and the G's 64 (the other cases have 2): every
    // perception kernel runs on each, and the update layer reads 70 + 70 rows.
    let config = ModelConfig {
        channels: 70,
        kernels: 1,
        perception_layers: vec![8, 4, 2, 1],
        update_layers: vec![96, 70],
        target_channels: vec![0, 1, 2],
        ..tiny_config(3, None, true)
    };
    let (model, init, target) = tiny_case(config, 21);
    check(model, init, target, None, ActivationMemory::Recompute);
}
