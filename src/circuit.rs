//! A model flattened into one list of gates for a single cell step.
//!
//! Rows `0..channels*9` hold the cell's patch (row `c*9 + p` = channel `c` at patch
//! position `p`); gate `i` writes row `input_rows + i`. Gates come in topological order:
//! perception for every (channel, kernel), then the update layers. The last `channels`
//! rows are the cell's new state. Wires of the first update layer point straight at the
//! rows REFERENCE.md's update-input index names, so nothing is copied.

use crate::config::PATCH;
use crate::model::Model;
use crate::wiring::PATCH_CENTRE;

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
