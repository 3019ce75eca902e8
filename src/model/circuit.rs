//! A model flattened into one list of gates for a single cell step.
//!
//! Rows `0..channels*9` hold the cell's patch (row `c*9 + p` = channel `c` at patch
//! position `p`); gate `i` writes row `input_rows + i`. Gates come in topological order:
//! perception for every (channel, kernel), then the update layers. The last `channels`
//! rows are the cell's new state. Wires of the first update layer point straight at the
//! rows that the update-input index of `docs/semantics.md` names, so nothing is copied.

use crate::model::config::PATCH;
use crate::model::network::{Layer, Model};
use crate::model::wiring::PATCH_CENTRE;

/// One gate of the flat circuit: the rows it reads and the parameter (logits) it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateRef {
    pub a: u32,
    pub b: u32,
    pub param: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Circuit {
    pub channels: usize,
    pub input_rows: usize,
    pub gates: Vec<GateRef>,
}

/// The order of the gates within each update layer (a layer's gates are independent, so
/// any order computes the same values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateOrder {
    /// The model's own order: what netlists and analyses name.
    Model,
    /// Gates that share an input row one after the other, for the rollouts (see
    /// [`shared_input_order`]).
    SharedInputs,
}

impl Circuit {
    /// The circuit with every layer in the model's order.
    pub fn compile(model: &Model) -> Self {
        Self::compile_in(model, GateOrder::Model)
    }

    /// The circuit with the update layers' gates in `order`.
    pub fn compile_in(model: &Model, order: GateOrder) -> Self {
        Self::compile_with_inputs(model, order).0
    }

    /// [`Circuit::compile_in`], with the rows that each update layer's inputs sit at
    /// (`[l][j]`: input `j` of update layer `l`), so that a gate can be rewired in place.
    pub fn compile_with_inputs(model: &Model, order: GateOrder) -> (Self, Vec<Vec<u32>>) {
        let config = &model.config;
        let channels = config.channels;
        let kernels = config.kernels;
        let input_rows = channels * PATCH;
        let mut gates = Vec::with_capacity(config.gates_per_cell_step());
        // last_rows[c][k] = rows of the last perception layer's outputs for channel c, kernel k.
        let mut last_rows = vec![vec![Vec::new(); kernels]; channels];
        for (c, per_channel) in last_rows.iter_mut().enumerate() {
            for (k, last) in per_channel.iter_mut().enumerate() {
                let mut rows: Vec<u32> =
                    (0..PATCH as u32).map(|p| (c * PATCH) as u32 + p).collect();
                for (l, layer) in model.perceive.iter().enumerate() {
                    let reads = layer_reads(layer, &rows);
                    let order: Vec<usize> = (0..reads.len()).collect();
                    let params = |g| model.perceive_gate(l, k, g) as u32;
                    rows = push_layer(&mut gates, input_rows, &reads, &order, params);
                }
                *last = rows;
            }
        }
        let outputs = config.perception_outputs();
        let mut rows: Vec<u32> = (0..config.update_inputs())
            .map(|j| {
                if j < channels {
                    (j * PATCH) as u32 + PATCH_CENTRE
                } else {
                    let j = j - channels;
                    let (c, s, k) = (
                        j / (outputs * kernels),
                        (j / kernels) % outputs,
                        j % kernels,
                    );
                    last_rows[c][k][s]
                }
            })
            .collect();
        let mut inputs = Vec::with_capacity(model.update.len());
        for (l, layer) in model.update.iter().enumerate() {
            let reads = layer_reads(layer, &rows);
            // The last layer keeps its order: its rows are the cell's new channels.
            let order = match order {
                GateOrder::SharedInputs if l + 1 < model.update.len() => shared_input_order(&reads),
                _ => (0..reads.len()).collect(),
            };
            let params = |g| model.update_gate(l, g) as u32;
            let outputs = push_layer(&mut gates, input_rows, &reads, &order, params);
            inputs.push(std::mem::replace(&mut rows, outputs));
        }
        let circuit = Circuit {
            channels,
            input_rows,
            gates,
        };
        (circuit, inputs)
    }

    /// Rows of the whole activation table of one cell.
    pub fn rows(&self) -> usize {
        self.input_rows + self.gates.len()
    }

    /// The row holding the new value of channel `c`.
    pub fn output_row(&self, c: usize) -> usize {
        self.rows() - self.channels + c
    }
}

/// The rows each gate of `layer` reads, its inputs being `rows`.
fn layer_reads(layer: &Layer, rows: &[u32]) -> Vec<(u32, u32)> {
    (0..layer.width())
        .map(|g| {
            let (a, b) = (layer.wires.a[g] as usize, layer.wires.b[g] as usize);
            (rows[a], rows[b])
        })
        .collect()
}

/// Appends a layer's gates (gate `g` reads `reads[g]` and uses parameter `params(g)`) in
/// `order`; returns the row each gate writes.
fn push_layer(
    gates: &mut Vec<GateRef>,
    input_rows: usize,
    reads: &[(u32, u32)],
    order: &[usize],
    params: impl Fn(usize) -> u32,
) -> Vec<u32> {
    let first = (input_rows + gates.len()) as u32;
    let mut row_of = vec![0; reads.len()];
    for (position, &g) in order.iter().enumerate() {
        let (a, b) = reads[g];
        gates.push(GateRef {
            a,
            b,
            param: params(g),
        });
        row_of[g] = first + position as u32;
    }
    row_of
}

/// An order of a layer's gates (given the rows each reads) in which each gate shares an
/// input row with the one before it wherever it can, so that the row is still in the L1
/// cache: a layer's rows are twice that cache on a 64-lane tile.
///
/// Training results stay the same bit for bit. Backward adds a row's gradient
/// contributions in reverse gate order, and of a layer that rows of only the layer before
/// feed (the compiler's layers) they are each row's first contributions: two give the
/// same sum in either order (addition commutes), three or more may not, so the readers
/// of a row read more than twice keep their order among themselves.
pub fn shared_input_order(reads: &[(u32, u32)]) -> Vec<usize> {
    let rows = reads.iter().map(|&(a, b)| a.max(b) as usize + 1).max();
    let mut readers = vec![Vec::new(); rows.unwrap_or(0)];
    for (g, &(a, b)) in reads.iter().enumerate() {
        readers[a as usize].push(g);
        readers[b as usize].push(g);
    }
    // A gate may go once every earlier reader of each of its rows read more than twice
    // has gone.
    let mut done = vec![false; reads.len()];
    let ready = |g: usize, done: &[bool]| {
        let (a, b) = reads[g];
        [a, b].iter().all(|row| {
            let r = &readers[*row as usize];
            r.len() <= 2 || r.iter().take_while(|&&o| o != g).all(|&o| done[o])
        })
    };
    let mut order = Vec::with_capacity(reads.len());
    // Every gate before `start` has gone, so `start` is ready when not gone yet.
    for start in 0..reads.len() {
        let mut next = Some(start).filter(|&g| !done[g]);
        while let Some(g) = next {
            done[g] = true;
            order.push(g);
            // Another ready reader of this gate's `b` row, else of its `a` row.
            let (a, b) = reads[g];
            next = [b, a]
                .iter()
                .flat_map(|&row| &readers[row as usize])
                .copied()
                .find(|&other| !done[other] && ready(other, &done));
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::config::ModelConfig;
    use crate::model::parametrization::Parametrization;
    use crate::model::task::TaskKind;
    use crate::model::wiring::Wires;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// C = 2 channels, K = 3 kernels, perception [8, 4, 2] (S = 2): 14 gates per
    /// (channel, kernel) block, blocks in order (c, k), so block (c, k) starts at row
    /// 2*9 + (c*3 + k)*14 and its last layer's output s sits at +12+s.
    #[test]
    fn update_inputs_follow_the_reference_order() {
        let config = ModelConfig {
            task: TaskKind::Checkerboard,
            channels: 2,
            height: 4,
            width: 4,
            periodic: false,
            steps: 1,
            fire_rate: None,
            kernels: 3,
            perception_layers: vec![8, 4, 2],
            update_layers: vec![14, 8, 4, 2],
            target_channels: vec![0],
            parametrization: Parametrization::Softmax,
            pattern: None,
            rule: None,
            observed: None,
        };
        assert_eq!(config.update_inputs(), 2 + 2 * 2 * 3);
        let mut model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
        // Gate j of the first update layer reads input j (a) and input 0 (b).
        model.update[0].wires = Wires {
            a: (0..14).collect(),
            b: vec![0; 14],
        };
        let circuit = Circuit::compile(&model);
        let first_update = 2 * 3 * 14;
        let reads = |j: usize| circuit.gates[first_update + j].a;
        // Own channels: patch position 4 of channel c.
        assert_eq!(reads(0), 4);
        assert_eq!(reads(1), 9 + 4);
        // index = C + c*(S*K) + s*K + k
        let block = |c: u32, k: u32| 18 + (c * 3 + k) * 14;
        assert_eq!(reads(2), block(0, 0) + 12); // c0 s0 k0
        assert_eq!(reads(3), block(0, 1) + 12); // c0 s0 k1
        assert_eq!(reads(4), block(0, 2) + 12); // c0 s0 k2
        assert_eq!(reads(5), block(0, 0) + 13); // c0 s1 k0
        assert_eq!(reads(8), block(1, 0) + 12); // c1 s0 k0
        assert_eq!(reads(13), block(1, 2) + 13); // c1 s1 k2
                                                 // Perception of channel 1, kernel 2 reads channel 1's patch and uses kernel 2's logits.
        let (c, k) = (1, 2);
        let g = circuit.gates[(c * 3 + k) * 14];
        assert!((9..18).contains(&g.a) && g.b == 9 + 4);
        assert_eq!(g.param as usize, model.perceive_gate(0, 2, 0));
        // The last C rows are the update network's outputs.
        assert_eq!(circuit.output_row(1), circuit.rows() - 1);
        assert_eq!(circuit.rows(), 18 + 84 + 14 + 8 + 4 + 2);
    }
}

#[cfg(test)]
mod order_tests {
    use super::*;
    use crate::automaton::geometry::Geometry;
    use crate::automaton::grid::Grids;
    use crate::automaton::soft::{ActivationMemory, SoftRollout};
    use crate::kernels::soft::TILE;
    use crate::model::gates::{coefficient_table, soft_coefficients, softmax};
    use crate::model::task::TaskKind;
    use crate::tasks::preset;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Rows 0..4, each read twice: the gates form the cycle 0-1-2-3-0, and the order
    /// walks it, each gate sharing a row with the one before.
    #[test]
    fn gates_follow_their_shared_rows() {
        let reads = [(0, 1), (2, 3), (1, 2), (3, 0)];
        let order = shared_input_order(&reads);
        assert_eq!(order, vec![0, 2, 1, 3]);
    }

    /// Row 9 is read by gates 0, 2 and 4: gate 0 shares row 5 with gate 4, but 4 must
    /// wait for 2; the rest moves to follow shared rows.
    #[test]
    fn readers_of_a_row_read_three_times_keep_their_order() {
        let reads = [(9, 5), (6, 7), (9, 8), (7, 8), (5, 9)];
        assert_eq!(shared_input_order(&reads), vec![0, 2, 3, 1, 4]);
    }

    /// The reference checkerboard's circuit in either order gives the same states and the
    /// same coefficient gradients, bit for bit, over a few steps on two grids.
    #[test]
    fn the_rollout_is_the_same_in_either_order() {
        let (mut config, settings) = preset(TaskKind::Checkerboard, false);
        (config.height, config.width, config.steps) = (8, 8, 3);
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
        let model = Model::new(config.clone(), &mut rng).unwrap();
        let params = model.gate_count();
        // Random mixtures of the 16 ops, so that states stay in [0, 1].
        let table = coefficient_table();
        let coefs: Vec<[f32; 4]> = (0..params)
            .map(|_| soft_coefficients(&softmax(&std::array::from_fn(|_| rng.random())), &table))
            .collect();
        let mut init = Grids::zeros(2, 8, 8, config.channels);
        init.values.iter_mut().for_each(|v| *v = rng.random());
        let run = |order| {
            let circuit = Circuit::compile_in(&model, order);
            let geometry = Geometry::new(2, 8, 8, false, TILE);
            let mut rollout =
                SoftRollout::new(geometry, &circuit, 3, params, ActivationMemory::Recompute);
            rollout.set_initial(&init);
            rollout.forward(&circuit, &coefs, None);
            let loss = vec![rollout.final_state().iter().map(|v| v - 0.5).collect()];
            let mut grads = vec![[0.0; 4]; params];
            rollout.backward(&circuit, &coefs, &loss, None, &mut grads);
            (circuit.gates, rollout.final_state().to_vec(), grads)
        };
        let (model_order, states, grads) = run(GateOrder::Model);
        let (shared_order, shared_states, shared_grads) = run(GateOrder::SharedInputs);
        assert_ne!(model_order, shared_order, "the orders differ");
        assert_eq!(states, shared_states);
        assert_eq!(grads, shared_grads);
    }
}
