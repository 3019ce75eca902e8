//! The order in which the search tries changes: by the change in the hard circuit's
//! wrong bits that a gradient predicts, most promising first.
//!
//! A gate's output is `k0 + k1*a + k2*b + k3*a*b` in its op's coefficients (see
//! [`crate::model::gates::Op::coefficients`]), which is exact on bits; so is the wrong
//! bits' count written as `sum s (1 - 2y) + y` over the scored states `s` and their
//! targets `y`. One rollout of the hard circuit and its backward from that count give,
//! to first order (each gate's new outputs taken through the gates after it as the chain
//! rule has it, as if it alone changed), the change that every candidate makes:
//! - another op: the gate's coefficient gradient dotted with the change of coefficients;
//! - another wire, input `a` moved from row `a` to row `s` of the layer before: the
//!   gate's output changes by `(k1 + k3*b)(s - a)` in each cell at each step, so the
//!   change is that times the gradient on the gate's output, summed over cells and steps
//!   (likewise for `b`, with `k2 + k3*a`). The backward keeps the rewirable layers'
//!   output gradients for this ([`RolloutPlans::keeping`]).

use std::ops::Range;
use std::sync::{Arc, Mutex};

use crate::automaton::geometry::Geometry;
use crate::automaton::soft::{ActivationMemory, BackwardTap, RolloutPlans, SoftRollout};
use crate::evaluate::loss::wrong_bits_gradient;
use crate::kernels::parameters::{Forward, SoftParams};
use crate::kernels::plan::BackwardPlan;
use crate::kernels::soft::TILE;
use crate::kernels::subnormals::Flushing;
use crate::model::circuit::{Circuit, GateOrder};
use crate::model::gates::{NUM_OPS, OPS};
use crate::model::network::Model;

use super::{circuit_index_of_gates, Probe};

/// One candidate change of a gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    /// The gate computes op `op`.
    Op(usize),
    /// The gate's input `a` (`b` when false) reads output `source` of the layer before.
    Wire { a: bool, source: u32 },
}

/// A change of gate `gate`, and the change in wrong bits the gradient predicts for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Candidate {
    pub predicted: f64,
    pub gate: usize,
    pub change: Change,
}

impl Candidate {
    fn group(&self) -> Group {
        match (self.predicted < 0.0, self.change) {
            (true, _) => Group::Helping,
            (false, Change::Wire { .. }) => Group::Wires,
            (false, Change::Op(_)) => Group::Ops,
        }
    }

    /// The order of equal predictions: from the outputs back, ops before wires, `a`'s
    /// wires before `b`'s, each by index.
    fn tie_order(&self) -> (std::cmp::Reverse<usize>, usize, usize) {
        let (kind, index) = match self.change {
            Change::Op(op) => (0, op),
            Change::Wire { a: true, source } => (1, source as usize),
            Change::Wire { a: false, source } => (2, source as usize),
        };
        (std::cmp::Reverse(self.gate), kind, index)
    }
}

/// Every other op of every gate and every other wire of the gates in `rewirable`, ordered
/// by the change in wrong bits that the gradient predicts, lowest first. A wire is one
/// input that the gate's op reads moved to another output of the layer before, other than
/// the gate's two inputs.
pub(super) fn ranked_changes(
    model: &Model,
    probe: &Probe,
    rewirable: Range<usize>,
) -> Vec<Candidate> {
    let (circuit, inputs) = Circuit::compile_with_inputs(model, GateOrder::SharedInputs);
    let index = circuit_index_of_gates(model, &circuit);
    let c = &model.config;
    let geometry = Geometry::new(1, c.height, c.width, c.periodic, TILE);
    let wires = WireTap::new(
        model,
        (&circuit, &inputs, &index),
        geometry.tiles(),
        rewirable,
    );
    let grads = backward_from_wrong_bits(model, probe, (&circuit, geometry), &wires);
    let mut ranked = op_candidates(model, &grads);
    ranked.extend(wires.candidates(model));
    ranked.sort_by(|x, y| {
        let by_prediction = match x.group() {
            Group::Wires => std::cmp::Ordering::Equal,
            _ => x.predicted.total_cmp(&y.predicted),
        };
        x.group()
            .cmp(&y.group())
            .then(by_prediction)
            .then(x.tie_order().cmp(&y.tie_order()))
    });
    ranked
}

/// The three parts of a round, in order. A first-order prediction of 0 is the rule
/// rather than the exception in a hard circuit (most changes alter a gate's output only
/// where no gradient reaches it), and a change predicted not to help can still help
/// through higher orders, so after the changes predicted to help the round tries the
/// wires that are left (which finished more misses than the ops did), from the outputs
/// back, and then the other ops as predicted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Helping,
    Wires,
    Ops,
}

/// Rolls `circuit` out from the probe's start with every gate at its hard op and goes
/// back from the wrong target bits at the states the probe scores, showing `wires`
/// every step; returns every gate's gradient on its four coefficients.
fn backward_from_wrong_bits(
    model: &Model,
    probe: &Probe,
    (circuit, geometry): (&Circuit, Geometry),
    wires: &WireTap,
) -> Vec<[f64; 4]> {
    let _flushing = Flushing::begin();
    let c = &model.config;
    let gates = model.gate_count();
    let steps = probe.scored * probe.steps;
    let mut soft = SoftRollout::new(geometry, circuit, steps, gates, ActivationMemory::Recompute);
    soft.swap_plans(&mut Arc::new(RolloutPlans::keeping(
        circuit,
        wires.kept_from,
    )));
    let mut params = SoftParams::new(c.parametrization, gates);
    params.update(&model.logits, Forward::StraightThrough(1.0), &[]);
    soft.set_initial(&probe.init);
    soft.forward(circuit, &params.coefs, None);
    // `grads[j]` is on the state after step `steps - j`: each scored state.
    let mut grads = vec![vec![0.0; soft.final_state().len()]; steps - probe.steps + 1];
    for j in (0..probe.scored).map(|k| k * probe.steps) {
        wrong_bits_gradient(c.channels, &c.target_channels, &probe.target, &mut grads[j]);
    }
    let mut coef_grads = vec![[0.0; 4]; gates];
    let pass = (&params.coefs[..], None);
    soft.backward_tapped(circuit, pass, &grads, &mut coef_grads, Some(wires));
    coef_grads
}

/// Every gate's other ops, each predicted by the gate's coefficient gradient.
fn op_candidates(model: &Model, grads: &[[f64; 4]]) -> Vec<Candidate> {
    let coefficients = OPS.map(|op| op.coefficients());
    let mut ops = Vec::with_capacity(grads.len() * NUM_OPS);
    for (gate, grad) in grads.iter().enumerate() {
        let now = coefficients[model.hard_op(gate)];
        for (op, new) in coefficients.iter().enumerate() {
            if new != &now {
                let predicted = (0..4).map(|k| grad[k] * f64::from(new[k] - now[k])).sum();
                let change = Change::Op(op);
                ops.push(Candidate {
                    predicted,
                    gate,
                    change,
                });
            }
        }
    }
    ops
}

/// A rewirable gate as the tap sees it.
struct Rewirable {
    gate: usize,
    /// Its output row, and the rows of its inputs `a` and `b`.
    row: usize,
    reads: (usize, usize),
    /// Its op's coefficients.
    k: [f32; 4],
    /// Its update layer, and the layer's inputs it reads (its wires).
    layer: usize,
    wired: (u32, u32),
    /// Where its sums start in a tile's: one per input of its layer for `a`, then as many
    /// for `b`.
    offset: usize,
}

/// Sums, per tile, the gradient on each rewirable gate's output times the change each
/// other wire makes to it: `sum g (k1 + k3*b)(s - a)` for input `a` moved to row `s`.
/// A tile's steps come in a fixed order and the tiles are summed in tile order, so the
/// sums do not depend on the threads.
struct WireTap {
    gates: Vec<Rewirable>,
    /// Per update layer, the rows of its inputs: the sources a gate may be moved to.
    sources: Vec<Vec<usize>>,
    /// The length of a tile's sums.
    len: usize,
    /// The first row whose gradient backward keeps: the rewirable gates' rows are after.
    kept_from: usize,
    per_tile: Vec<Mutex<Vec<f64>>>,
}

impl WireTap {
    fn new(
        model: &Model,
        (circuit, inputs, index): (&Circuit, &[Vec<u32>], &[usize]),
        tiles: usize,
        rewirable: Range<usize>,
    ) -> Self {
        let sources: Vec<Vec<usize>> = inputs
            .iter()
            .map(|rows| rows.iter().map(|&r| r as usize).collect())
            .collect();
        let mut gates = Vec::with_capacity(rewirable.len());
        let mut offset = 0;
        for gate in rewirable {
            let (l, i) = model.update_place(gate).expect("a rewirable gate updates");
            let read = &circuit.gates[index[gate]];
            gates.push(Rewirable {
                gate,
                row: circuit.input_rows + index[gate],
                reads: (read.a as usize, read.b as usize),
                k: OPS[model.hard_op(gate)].coefficients(),
                layer: l,
                wired: (model.update[l].wires.a[i], model.update[l].wires.b[i]),
                offset,
            });
            offset += 2 * sources[l].len();
        }
        let kept_from = gates.iter().map(|g| g.row).min().unwrap_or(usize::MAX);
        WireTap {
            gates,
            sources,
            len: offset,
            kept_from,
            per_tile: (0..tiles).map(|_| Mutex::new(vec![0.0; offset])).collect(),
        }
    }

    /// Every other wire of every rewirable gate whose op reads that input, predicted.
    fn candidates(&self, model: &Model) -> Vec<Candidate> {
        let mut sums = vec![0.0; self.len];
        for tile in &self.per_tile {
            for (sum, s) in sums.iter_mut().zip(lock(tile).iter()) {
                *sum += s;
            }
        }
        let mut wires = Vec::new();
        for g in &self.gates {
            let op = &OPS[model.hard_op(g.gate)];
            let wired = g.wired;
            let n = self.sources[g.layer].len();
            for (a, read) in [(true, op.depends_on_a()), (false, op.depends_on_b())] {
                if !read {
                    continue;
                }
                let sums = &sums[g.offset + if a { 0 } else { n }..][..n];
                for (source, &predicted) in (0..n as u32).zip(sums) {
                    if source != wired.0 && source != wired.1 {
                        let change = Change::Wire { a, source };
                        wires.push(Candidate {
                            predicted,
                            gate: g.gate,
                            change,
                        });
                    }
                }
            }
        }
        wires
    }
}

impl BackwardTap for WireTap {
    fn tile(
        &self,
        (_, tile): (usize, usize),
        (acts, grads, live): (&[f32], &[f32], usize),
        plan: &BackwardPlan,
    ) {
        let mut sums = lock(&self.per_tile[tile]);
        let row = |table, r| tile_row(table, r, live);
        for g in &self.gates {
            let Some(slot) = plan.kept_slot(g.row) else {
                continue;
            };
            let out = row(grads, slot);
            if out.iter().all(|&x| x == 0.0) {
                continue;
            }
            let (a, b) = (row(acts, g.reads.0), row(acts, g.reads.1));
            let [_, k1, k2, k3] = g.k;
            let (mut wa, mut wb) = ([0.0f32; TILE], [0.0f32; TILE]);
            for i in 0..live {
                wa[i] = out[i] * (k1 + k3 * b[i]);
                wb[i] = out[i] * (k2 + k3 * a[i]);
            }
            let (wa, wb) = (&wa[..live], &wb[..live]);
            let (now_a, now_b) = (dot(wa, a), dot(wb, b));
            let sources = &self.sources[g.layer];
            let n = sources.len();
            let (for_a, for_b) = sums[g.offset..g.offset + 2 * n].split_at_mut(n);
            for (j, &source) in sources.iter().enumerate() {
                let s = row(acts, source);
                for_a[j] += dot(wa, s) - now_a;
                for_b[j] += dot(wb, s) - now_b;
            }
        }
    }
}

/// The first `live` lanes of row `r` of a `rows x TILE` table: the lanes a tile ran (its
/// padding lanes would add only zeros here).
fn tile_row(table: &[f32], r: usize, live: usize) -> &[f32] {
    &table[r * TILE..][..live]
}

/// A tile's dot product over its live lanes (a multiple of eight), in a fixed order of
/// eight partial sums (the compiler keeps them in one vector register).
fn dot(x: &[f32], y: &[f32]) -> f64 {
    let mut partial = [0.0f32; 8];
    for (x, y) in x.chunks_exact(8).zip(y.chunks_exact(8)) {
        for i in 0..8 {
            partial[i] += x[i] * y[i];
        }
    }
    partial.iter().map(|&p| f64::from(p)).sum()
}

fn lock(sums: &Mutex<Vec<f64>>) -> std::sync::MutexGuard<'_, Vec<f64>> {
    sums.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
