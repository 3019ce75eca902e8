//! The hard circuit of one cell update as a netlist, and its pruning.
//!
//! Inputs are the cell's 3x3xC neighbourhood: input `c*9 + p` is channel `c` at patch
//! position `p` (row-major, 4 = the cell). Pruning removes pass-through gates (A, B) by
//! wiring their consumers to the passed input, and every gate that cannot influence a
//! *live* channel: a target channel, or a channel that a live channel reads (over any
//! number of steps). Outputs of other channels are left out, since they never change
//! what the target channels show.

use crate::automaton::grid::Grids;
use crate::automaton::hard_run::HardRun;
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;
use crate::model::gates::{Op, OPS};
use crate::model::network::Model;

/// Where a gate input or an output comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Signal {
    /// Neighbourhood bit `c*9 + p`.
    Input(u32),
    Gate(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetGate {
    /// Index into [`OPS`].
    pub op: u8,
    pub a: Signal,
    pub b: Signal,
}

impl NetGate {
    /// The inputs the op's output actually depends on (TRUE reads none, NOT A only `a`).
    pub fn read_inputs(&self) -> impl Iterator<Item = Signal> {
        let op = &OPS[self.op as usize];
        [(op.depends_on_a(), self.a), (op.depends_on_b(), self.b)]
            .into_iter()
            .filter_map(|(reads, s)| reads.then_some(s))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Netlist {
    pub channels: usize,
    /// Gates in topological order: a gate reads only inputs and earlier gates.
    pub gates: Vec<NetGate>,
    /// `(channel, signal)` of every computed output.
    pub outputs: Vec<(usize, Signal)>,
}

impl Netlist {
    /// The model's whole hard circuit, unpruned.
    pub fn from_model(model: &Model) -> Self {
        let circuit = Circuit::compile(model);
        let inputs = circuit.input_rows as u32;
        let signal = |row: u32| {
            if row < inputs {
                Signal::Input(row)
            } else {
                Signal::Gate(row - inputs)
            }
        };
        let gates = circuit
            .gates
            .iter()
            .map(|g| NetGate {
                op: model.hard_op(g.param as usize) as u8,
                a: signal(g.a),
                b: signal(g.b),
            })
            .collect();
        let outputs = (0..circuit.channels)
            .map(|c| (c, signal(circuit.output_row(c) as u32)))
            .collect();
        Netlist {
            channels: circuit.channels,
            gates,
            outputs,
        }
    }

    pub fn inputs(&self) -> usize {
        self.channels * PATCH
    }

    /// Gates that are not pass-throughs.
    pub fn active_gates(&self) -> usize {
        self.gates
            .iter()
            .filter(|g| !Op::is_pass_through(g.op as usize))
            .count()
    }

    /// Evaluates every output for one neighbourhood (`inputs[c*9 + p]`).
    pub fn eval(&self, inputs: &[bool]) -> Vec<(usize, bool)> {
        let mut values = Vec::with_capacity(self.gates.len());
        let read = |s: Signal, values: &[bool]| match s {
            Signal::Input(i) => inputs[i as usize],
            Signal::Gate(g) => values[g as usize],
        };
        for g in &self.gates {
            let (a, b) = (read(g.a, &values), read(g.b, &values));
            values.push(OPS[g.op as usize].truth[(a as usize) * 2 + b as usize]);
        }
        self.outputs
            .iter()
            .map(|&(c, s)| (c, read(s, &values)))
            .collect()
    }

    /// Channels the target channels depend on, over any number of steps.
    pub fn live_channels(&self, target_channels: &[usize]) -> Vec<usize> {
        let reads: Vec<Vec<bool>> = self
            .outputs
            .iter()
            .map(|&(_, s)| {
                let mut seen = vec![false; self.channels];
                for i in self.cone_inputs(s) {
                    seen[i as usize / PATCH] = true;
                }
                seen
            })
            .collect();
        let mut live = vec![false; self.channels];
        let mut stack: Vec<usize> = target_channels.to_vec();
        while let Some(c) = stack.pop() {
            if std::mem::replace(&mut live[c], true) {
                continue;
            }
            if let Some(o) = self.outputs.iter().position(|&(ch, _)| ch == c) {
                stack.extend((0..self.channels).filter(|&d| reads[o][d] && !live[d]));
            }
        }
        (0..self.channels).filter(|&c| live[c]).collect()
    }

    /// Inputs that a signal's cone reads.
    fn cone_inputs(&self, s: Signal) -> Vec<u32> {
        let mut inputs = Vec::new();
        let mut seen = vec![false; self.gates.len()];
        let mut stack = vec![s];
        while let Some(s) = stack.pop() {
            match s {
                Signal::Input(i) => inputs.push(i),
                Signal::Gate(g) => {
                    if !std::mem::replace(&mut seen[g as usize], true) {
                        stack.extend(self.gates[g as usize].read_inputs());
                    }
                }
            }
        }
        inputs
    }

    /// Pass-throughs bypassed, dead gates and outputs of non-live channels removed.
    pub fn pruned(&self, target_channels: &[usize]) -> Netlist {
        let alias = self.pass_through_aliases();
        let live = self.live_channels(target_channels);
        let outputs: Vec<(usize, Signal)> = self
            .outputs
            .iter()
            .filter(|(c, _)| live.contains(c))
            .map(|&(c, s)| (c, resolve(s, &alias)))
            .collect();
        let needed = self.needed_gates(&outputs, &alias);
        let mut new_index = vec![u32::MAX; self.gates.len()];
        let mut gates = Vec::new();
        // An ignored input may name a removed gate; wire it to input 0 instead (the op
        // does not read it, so any signal gives the same output).
        let remap = |s: Signal, new_index: &[u32]| match resolve(s, &alias) {
            Signal::Gate(g) if new_index[g as usize] == u32::MAX => Signal::Input(0),
            Signal::Gate(g) => Signal::Gate(new_index[g as usize]),
            input => input,
        };
        for (i, g) in self.gates.iter().enumerate() {
            if needed[i] {
                new_index[i] = gates.len() as u32;
                gates.push(NetGate {
                    op: g.op,
                    a: remap(g.a, &new_index),
                    b: remap(g.b, &new_index),
                });
            }
        }
        let outputs = outputs
            .iter()
            .map(|&(c, s)| (c, remap(s, &new_index)))
            .collect();
        Netlist {
            channels: self.channels,
            gates,
            outputs,
        }
    }

    /// What each gate's output really is once pass-through chains are followed: one
    /// forward pass suffices because the gates are in topological order.
    fn pass_through_aliases(&self) -> Vec<Signal> {
        let mut alias: Vec<Signal> = Vec::with_capacity(self.gates.len());
        for (i, g) in self.gates.iter().enumerate() {
            alias.push(match g.op as usize {
                crate::model::gates::PASS_A => resolve(g.a, &alias),
                crate::model::gates::PASS_B => resolve(g.b, &alias),
                _ => Signal::Gate(i as u32),
            });
        }
        alias
    }

    /// The gates the given outputs need, following resolved wires.
    fn needed_gates(&self, outputs: &[(usize, Signal)], alias: &[Signal]) -> Vec<bool> {
        let mut needed = vec![false; self.gates.len()];
        let mut stack: Vec<Signal> = outputs.iter().map(|&(_, s)| s).collect();
        while let Some(s) = stack.pop() {
            if let Signal::Gate(g) = s {
                if !std::mem::replace(&mut needed[g as usize], true) {
                    stack.extend(
                        self.gates[g as usize]
                            .read_inputs()
                            .map(|s| resolve(s, alias)),
                    );
                }
            }
        }
        needed
    }
}

/// A signal with a pass-through gate replaced by what it passes on.
fn resolve(s: Signal, alias: &[Signal]) -> Signal {
    match s {
        Signal::Gate(g) => alias[g as usize],
        input => input,
    }
}

/// The model's own hard step (the bit-sliced rollout, not a netlist) on neighbourhoods
/// `patches[i][c*9 + p]`: the centre of a zero-padded 3x3 grid sees exactly its patch.
/// Returns every channel's new bit; the reference that exports are checked against.
pub fn model_hard_step(model: &Model, patches: &[Vec<bool>]) -> Vec<Vec<bool>> {
    let c = model.config.channels;
    let mut grids = Grids::zeros(patches.len(), 3, 3, c);
    for (b, patch) in patches.iter().enumerate() {
        for ch in 0..c {
            for p in 0..PATCH {
                grids.set(b, p / 3, p % 3, ch, patch[ch * PATCH + p] as u8 as f32);
            }
        }
    }
    // The centre's neighbourhood stays inside the grid, wrapped or not.
    let mut run = HardRun::new(model, patches.len(), (3, 3));
    run.set_state(&grids);
    run.step(None, 0);
    let state = run.state();
    (0..patches.len())
        .map(|b| (0..c).map(|ch| state.get(b, 1, 1, ch) == 1.0).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::task::TaskKind;
    use crate::tasks::preset;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A small model with random hard ops, a third of them pass-throughs.
    fn random_model(seed: u64) -> Model {
        let (config, _) = preset(TaskKind::Checkerboard, true);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut model = Model::new(config, &mut rng).unwrap();
        for logits in &mut model.logits {
            *logits = [0.0; 16];
            let op = if rng.random_bool(0.33) {
                3
            } else {
                rng.random_range(0..16)
            };
            logits[op] = 1.0;
        }
        model
    }

    #[test]
    fn full_and_pruned_netlists_match_the_hard_step() {
        let model = random_model(3);
        let full = Netlist::from_model(&model);
        let pruned = full.pruned(&model.config.target_channels);
        assert!(
            pruned.gates.len() < full.gates.len(),
            "pruning removes something"
        );
        assert!(pruned
            .gates
            .iter()
            .all(|g| !Op::is_pass_through(g.op as usize)));
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let patches: Vec<Vec<bool>> = (0..300)
            .map(|_| (0..full.inputs()).map(|_| rng.random()).collect())
            .collect();
        let want = model_hard_step(&model, &patches);
        for (patch, want) in patches.iter().zip(&want) {
            for (c, got) in full.eval(patch) {
                assert_eq!(got, want[c], "full netlist, channel {c}");
            }
            for (c, got) in pruned.eval(patch) {
                assert_eq!(got, want[c], "pruned netlist, channel {c}");
            }
        }
        assert!(
            pruned.outputs.iter().any(|&(c, _)| c == 0),
            "the target channel is kept"
        );
    }

    #[test]
    fn pass_through_model_prunes_to_wires() {
        // Fresh models are all pass-through A: nothing but wires remains.
        let (config, _) = preset(TaskKind::Checkerboard, true);
        let model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        let pruned = Netlist::from_model(&model).pruned(&[0]);
        assert_eq!(pruned.gates.len(), 0);
        assert!(matches!(pruned.outputs[0].1, Signal::Input(_)));
    }

    #[test]
    fn live_channels_follow_dependencies() {
        // Output 0 reads channel 1's cell; output 1 reads channel 1; output 2 reads channel 2.
        let net = Netlist {
            channels: 3,
            gates: vec![NetGate {
                op: 1,
                a: Signal::Input(9 + 4),
                b: Signal::Input(9 + 3),
            }],
            outputs: vec![
                (0, Signal::Gate(0)),
                (1, Signal::Input(9 + 4)),
                (2, Signal::Input(18 + 4)),
            ],
        };
        assert_eq!(net.live_channels(&[0]), vec![0, 1]);
        assert_eq!(net.pruned(&[0]).outputs.len(), 2);
    }
}
