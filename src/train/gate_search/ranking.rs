//! The order in which the search tries ops: by the change in the hard circuit's wrong
//! bits that a gradient predicts, most promising first.
//!
//! A gate's output is `k0 + k1*a + k2*b + k3*a*b` in its op's coefficients (see
//! [`crate::model::gates::Op::coefficients`]), which is exact on bits; so is the wrong
//! bits' count written as `sum s (1 - 2y) + y` over the scored states `s` and their
//! targets `y`. Through the hard circuit, the gradient of that count on a gate's four
//! coefficients, dotted with the change of coefficients from its op to another, is the
//! change in wrong bits the new op's outputs make, each output's effect taken as the
//! chain rule through the gates has it (to first order: as if it were the only one to
//! change). One rollout and its backward rank every gate's every op.

use crate::automaton::geometry::Geometry;
use crate::automaton::soft::{ActivationMemory, SoftRollout};
use crate::evaluate::loss::wrong_bits_gradient;
use crate::kernels::parameters::{Forward, SoftParams};
use crate::kernels::soft::TILE;
use crate::model::circuit::{Circuit, GateOrder};
use crate::model::gates::{NUM_OPS, OPS};
use crate::model::network::Model;

use super::Probe;

/// Every gate's gradient, through its hard circuit, of the wrong target bits at the
/// task's step and at twice it, on its four coefficients.
pub(super) fn coefficient_gradients(model: &Model, probe: &Probe) -> Vec<[f64; 4]> {
    let c = &model.config;
    let gates = model.gate_count();
    let circuit = Circuit::compile_in(model, GateOrder::SharedInputs);
    let geometry = Geometry::new(1, c.height, c.width, c.periodic, TILE);
    let steps = 2 * probe.steps;
    let mut soft = SoftRollout::new(
        geometry,
        &circuit,
        steps,
        gates,
        ActivationMemory::Recompute,
    );
    let mut params = SoftParams::new(c.parametrization, gates);
    params.update(&model.logits, Forward::StraightThrough(1.0), &[]);
    soft.set_initial(&probe.init);
    soft.forward(&circuit, &params.coefs, None);
    // `grads[j]` is on the state after step `steps - j`: the last and the task's.
    let mut grads = vec![vec![0.0; soft.final_state().len()]; probe.steps + 1];
    for j in [0, probe.steps] {
        wrong_bits_gradient(c.channels, &c.target_channels, &probe.target, &mut grads[j]);
    }
    let mut coef_grads = vec![[0.0; 4]; gates];
    soft.backward(&circuit, &params.coefs, &grads, None, &mut coef_grads);
    coef_grads
}

/// Every (predicted change, gate, other op), ordered by the change in wrong bits that
/// the gate's coefficient gradient predicts, lowest first; equal predictions from the
/// outputs back, then by op.
pub(super) fn ranked_ops(model: &Model, grads: &[[f64; 4]]) -> Vec<(f64, usize, usize)> {
    let coefficients = OPS.map(|op| op.coefficients());
    let mut ranked: Vec<(f64, usize, usize)> = Vec::with_capacity(grads.len() * NUM_OPS);
    for (g, grad) in grads.iter().enumerate() {
        let now = coefficients[model.hard_op(g)];
        for (op, new) in coefficients.iter().enumerate() {
            if new != &now {
                let change = (0..4).map(|k| grad[k] * f64::from(new[k] - now[k])).sum();
                ranked.push((change, g, op));
            }
        }
    }
    ranked.sort_by(|x, y| x.0.total_cmp(&y.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2)));
    ranked
}
