//! What a trained circuit is made of: gate histograms, active gates, pruned size.

use serde::Serialize;

use crate::model::gates::{Op, NUM_OPS, OPS};
use crate::model::network::Model;
use crate::views::netlist::Netlist;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModuleStats {
    pub module: String,
    /// Gates of the model (perception counted once per kernel, as the paper does).
    pub gates: usize,
    /// Gates other than the pass-throughs A and B.
    pub active: usize,
    /// Active gates per op name, in op order, zeros left out.
    pub histogram: Vec<(String, usize)>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    pub perception: ModuleStats,
    pub update: ModuleStats,
    /// The paper's count: active gates of the whole model.
    pub active_gates: usize,
    /// Gates of one cell update (perception runs on every channel) before pruning.
    pub cell_gates: usize,
    /// The same after pruning: what a hardware cell needs.
    pub pruned_cell_gates: usize,
    /// Channels the target depends on.
    pub live_channels: Vec<usize>,
}

fn module_stats(module: &str, ops: impl Iterator<Item = usize>) -> ModuleStats {
    let mut counts = [0usize; NUM_OPS];
    let mut gates = 0;
    for op in ops {
        counts[op] += 1;
        gates += 1;
    }
    let histogram: Vec<(String, usize)> = (0..NUM_OPS)
        .filter(|&i| !Op::is_pass_through(i) && counts[i] > 0)
        .map(|i| (OPS[i].name.to_string(), counts[i]))
        .collect();
    ModuleStats {
        module: module.into(),
        gates,
        active: histogram.iter().map(|(_, n)| n).sum(),
        histogram,
    }
}

pub fn analyze(model: &Model) -> Analysis {
    let op = |g: usize| model.hard_op(g);
    let perception_gates = model
        .perceive
        .iter()
        .flat_map(|l| l.first_gate..l.first_gate + l.width() * model.config.kernels);
    let update_gates = model
        .update
        .iter()
        .flat_map(|l| l.first_gate..l.first_gate + l.width());
    let perception = module_stats("perception", perception_gates.map(op));
    let update = module_stats("update", update_gates.map(op));
    let full = Netlist::from_model(model);
    let pruned = full.pruned(&model.config.target_channels);
    Analysis {
        active_gates: perception.active + update.active,
        perception,
        update,
        cell_gates: full.gates.len(),
        pruned_cell_gates: pruned.gates.len(),
        live_channels: full.live_channels(&model.config.target_channels),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::task::TaskKind;
    use crate::tasks::preset;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn counts_by_hand_on_a_small_model() {
        let (mut config, _) = preset(TaskKind::Checkerboard, true);
        config.parametrization = crate::model::parametrization::Parametrization::Softmax;
        let mut model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
        // Two perception gates become XOR, one update gate AND; the rest stay A.
        for (g, op) in [(0, 6), (1, 6), (model.update_gate(2, 0), 1)] {
            model.logits[g] = [0.0; 16];
            model.logits[g][op] = 5.0;
        }
        let a = analyze(&model);
        assert_eq!(a.perception.gates, 4 * 14);
        assert_eq!(a.perception.histogram, vec![("XOR".to_string(), 2)]);
        assert_eq!(a.update.histogram, vec![("AND".to_string(), 1)]);
        assert_eq!(a.active_gates, 3);
        assert!(a.pruned_cell_gates <= a.cell_gates);
    }
}
