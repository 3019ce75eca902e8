//! With saturated logits the soft rollout is the hard rollout: both paths agree.

use logicars::automaton::geometry::Geometry;
use logicars::automaton::grid::Grids;
use logicars::automaton::hard::HardRollout;
use logicars::automaton::masks::FireMasks;
use logicars::automaton::soft::{state_index, ActivationMemory, SoftRollout};
use logicars::kernels::parameters::{hard_truth, Forward, SoftParams};
use logicars::kernels::soft::TILE;
use logicars::model::circuit::Circuit;
use logicars::model::config::ModelConfig;
use logicars::model::network::Model;
use logicars::model::parametrization::Parametrization;
use logicars::model::task::TaskKind;
use logicars::train::{Gradient, Objective};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A small checkerboard model of three channels.
fn config(periodic: bool, fire_rate: Option<f32>) -> ModelConfig {
    ModelConfig {
        task: TaskKind::Checkerboard,
        channels: 3,
        height: 9,
        width: 11,
        periodic,
        steps: 5,
        fire_rate,
        kernels: 3,
        perception_layers: vec![8, 4, 2],
        update_layers: vec![16, 12, 8, 4, 3],
        target_channels: vec![0],
        parametrization: Parametrization::Softmax,
        pattern: None,
        rule: None,
        observed: None,
    }
}

fn run(periodic: bool, fire_rate: Option<f32>, seed: u64) {
    let config = config(periodic, fire_rate);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = Model::new(config.clone(), &mut rng).unwrap();
    for logits in &mut model.logits {
        *logits = [0.0; 16];
        logits[rng.random_range(1..15)] = 200.0; // exp(-200) is 0 in f32: an exact one-hot, never a constant op
    }
    let batch = 3;
    let init = Grids::random_bits(batch, 9, 11, 3, &mut rng);
    let masks = fire_rate.map(|r| FireMasks::draw(5, batch, 99, r, &mut rng));
    let circuit = Circuit::compile(&model);

    let geometry = Geometry::new(batch, 9, 11, periodic, TILE);
    let mut soft = SoftRollout::new(
        geometry,
        &circuit,
        5,
        model.gate_count(),
        ActivationMemory::Recompute,
    );
    soft.set_initial(&init);
    soft.forward(
        &circuit,
        &SoftParams::from_logits(model.config.parametrization, &model.logits).coefs,
        masks.as_ref(),
    );

    let mut hard = HardRollout::new(batch, 9, 11, periodic, &circuit);
    hard.set_state(&init);
    hard.run(
        &circuit,
        &hard_truth(model.config.parametrization, &model.logits),
        masks.as_ref(),
        5,
    );

    let mut ones = 0;
    for lane in 0..batch * 99 {
        for c in 0..3 {
            let s = soft.final_state()[state_index(3, c, lane)];
            assert!(s == 0.0 || s == 1.0, "soft value {s} is not a bit");
            assert_eq!(s == 1.0, hard.bit(c, lane), "lane {lane} channel {c}");
            ones += (s == 1.0) as usize;
        }
    }
    assert!(
        ones > 0 && ones < batch * 99 * 3,
        "a constant output would prove little"
    );
}

#[test]
fn zero_padded_sync() {
    run(false, None, 1);
}

#[test]
fn periodic_async() {
    run(true, Some(0.6), 2);
}

/// A straight-through forward runs every gate's hard op, whatever its logits: its soft
/// loss counts the hard rollout's wrong bits exactly, and it still has a gradient.
#[test]
fn straight_through_forward_is_the_hard_circuit() {
    for parametrization in Parametrization::ALL {
        let config = ModelConfig {
            parametrization,
            ..logicars::tasks::preset(TaskKind::Checkerboard, true).0
        };
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut model = Model::new(config, &mut rng).unwrap();
        for logits in &mut model.logits {
            logits
                .iter_mut()
                .for_each(|l| *l = rng.random_range(-2.0..2.0));
        }
        let c = &model.config;
        let init = Grids::random_bits(2, c.height, c.width, c.channels, &mut rng);
        let target = logicars::tasks::target(c, &init, c.steps);
        let shape = (c.height, c.width);
        let memory = ActivationMemory::Recompute;
        let mut objective = Objective::new(&model, 2, shape, c.steps, memory);
        objective.set_forward(Forward::StraightThrough(1.0));
        let metrics = objective.run(&model, &init, &target, None, Gradient::Compute);
        assert_eq!(metrics.soft_loss, metrics.hard_loss, "{parametrization:?}");
        assert!(metrics.hard_loss > 0.0, "random gates get some bits wrong");
        let grads = objective.logit_grads().iter().flatten();
        assert!(grads.clone().all(|g| g.is_finite()));
        assert!(grads.clone().any(|&g| g != 0.0), "{parametrization:?}");
    }
}
