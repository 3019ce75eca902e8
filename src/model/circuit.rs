//! A model flattened into one list of gates for a single cell step.
//!
//! Rows `0..channels*9` hold the cell's patch (row `c*9 + p` = channel `c` at patch
//! position `p`); gate `i` writes row `input_rows + i`. Gates come in topological order:
//! perception for every (channel, kernel), then the update layers. The last `channels`
//! rows are the cell's new state. Wires of the first update layer point straight at the
//! rows that the update-input index of `docs/semantics.md` names, so nothing is copied.

use crate::model::config::PATCH;
use crate::model::network::Model;
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

impl Circuit {
    pub fn compile(model: &Model) -> Self {
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
                    let first = (input_rows + gates.len()) as u32;
                    for g in 0..layer.width() {
                        gates.push(GateRef {
                            a: rows[layer.wires.a[g] as usize],
                            b: rows[layer.wires.b[g] as usize],
                            param: model.perceive_gate(l, k, g) as u32,
                        });
                    }
                    rows = (first..first + layer.width() as u32).collect();
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
        for (l, layer) in model.update.iter().enumerate() {
            let first = (input_rows + gates.len()) as u32;
            for g in 0..layer.width() {
                gates.push(GateRef {
                    a: rows[layer.wires.a[g] as usize],
                    b: rows[layer.wires.b[g] as usize],
                    param: model.update_gate(l, g) as u32,
                });
            }
            rows = (first..first + layer.width() as u32).collect();
        }
        Circuit {
            channels,
            input_rows,
            gates,
        }
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
