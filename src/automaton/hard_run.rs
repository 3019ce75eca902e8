//! A model's hard rollout, ready to step: the one way from a model to a running bit
//! circuit (its wiring compiled, each gate's argmax op as truth masks, the rollout's
//! buffers sized for one batch shape).

use std::sync::Arc;

use crate::automaton::grid::Grids;
use crate::automaton::hard::HardRollout;
use crate::automaton::masks::FireMasks;
use crate::kernels::hard::TruthMasks;
use crate::kernels::parameters::hard_truth;
use crate::model::circuit::{Circuit, GateOrder};
use crate::model::network::Model;

/// A model's circuit, its hard ops and a rollout of one batch shape.
pub struct HardRun {
    /// Shared with a soft rollout of the same wiring, when one runs beside it.
    circuit: Arc<Circuit>,
    truth: Vec<TruthMasks>,
    rollout: HardRollout,
}

impl HardRun {
    /// `model`'s hard rollout on batches of `batch` grids of `height x width`.
    pub fn new(model: &Model, batch: usize, (height, width): (usize, usize)) -> Self {
        let circuit = Circuit::compile_in(model, GateOrder::SharedInputs);
        let periodic = model.config.periodic;
        let rollout = HardRollout::new(batch, height, width, periodic, &circuit);
        HardRun {
            truth: hard_truth(model.config.parametrization, &model.logits),
            circuit: Arc::new(circuit),
            rollout,
        }
    }

    /// The compiled wiring the rollout runs.
    pub fn circuit(&self) -> &Arc<Circuit> {
        &self.circuit
    }

    /// Makes circuit gate `index` read rows `reads`, in place: a search that tries one
    /// gate's wires at a time would otherwise compile the whole circuit for each.
    pub fn rewire(&mut self, index: usize, (a, b): (u32, u32)) {
        let gate = &mut Arc::make_mut(&mut self.circuit).gates[index];
        (gate.a, gate.b) = (a, b);
    }

    /// Takes the hard ops of `model`'s logits (after they changed, as in training).
    pub fn set_ops(&mut self, model: &Model) {
        self.truth = hard_truth(model.config.parametrization, &model.logits);
    }

    /// Takes the hard op of gate `g` alone, after only its logits changed: a search
    /// that tries one gate's ops at a time would otherwise rebuild every gate's table
    /// for each candidate.
    pub fn set_op(&mut self, model: &Model, g: usize) {
        self.set_op_to(g, model.hard_op(g));
    }

    /// Gives gate `g` the hard op `op`, whatever the model's logits say (a search tries a
    /// change here before it makes it in the model).
    pub fn set_op_to(&mut self, g: usize, op: usize) {
        self.truth[g] = TruthMasks::of_op(op);
    }

    /// Lets the hard ops go until the next [`HardRun::set_ops`]. A trainer keeps one
    /// run per start and sets the ops afresh before each epoch's rollout, so holding
    /// them in between would only add a table per start to the run's peak memory
    /// (measured: about 250 KiB of the reference run's, with its four starts).
    pub fn release_ops(&mut self) {
        self.truth = Vec::new();
    }

    /// Loads grids; values of 0.5 and above are 1.
    pub fn set_state(&mut self, grids: &Grids) {
        self.rollout.set_state(grids);
    }

    /// Runs one step; `step` indexes `masks`.
    pub fn step(&mut self, masks: Option<&FireMasks>, step: usize) {
        self.rollout.step(&self.circuit, &self.truth, masks, step);
    }

    /// Ors into `met[g]` the input pairs gate `g` met at the last step (see
    /// [`HardRollout::pairs_met`]).
    pub fn pairs_met(&self, met: &mut [u8]) {
        self.rollout.pairs_met(&self.circuit, met);
    }

    /// The current state as grids.
    pub fn state(&self) -> Grids {
        self.rollout.state()
    }

    /// The rollout itself, to read single bits.
    pub fn rollout(&self) -> &HardRollout {
        &self.rollout
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::model::gates::{NUM_OPS, OPS};
    use crate::model::parametrization::Parametrization;
    use crate::model::task::TaskKind;
    use crate::tasks::{self, preset};

    /// A reduced checkerboard model with the paper's gates (one logit per op, so raising
    /// one picks it) and `batch` start grids of `side x side`.
    fn paper_gates(seed: u64, batch: usize, side: usize, steps: usize) -> (Model, Grids) {
        let (mut config, _) = preset(TaskKind::Checkerboard, true);
        config.parametrization = Parametrization::Softmax;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let model = Model::new(config, &mut rng).unwrap();
        let (init, _) = tasks::eval_batch(&model.config, batch, (side, side), steps, &mut rng);
        (model, init)
    }

    /// Setting each changed gate's op alone runs the circuit that setting every op runs.
    #[test]
    fn one_gate_set_alone_runs_as_all_set() {
        let (mut model, init) = paper_gates(5, 2, 8, 4);
        let mut one = HardRun::new(&model, 2, (8, 8));
        let mut all = HardRun::new(&model, 2, (8, 8));
        let rolled = |run: &mut HardRun| {
            run.set_state(&init);
            (0..4).for_each(|t| run.step(None, t));
            run.state()
        };
        let before = rolled(&mut all);
        let mut changed = 0;
        for g in (0..model.gate_count()).step_by(3) {
            let op = (model.hard_op(g) + 5) % NUM_OPS;
            model.logits[g][op] += 100.0;
            one.set_op(&model, g);
            changed += 1;
        }
        all.set_ops(&model);
        let after = rolled(&mut all);
        assert!(
            changed > 0 && after != before,
            "the changes must change the rollout"
        );
        assert_eq!(rolled(&mut one), after);
    }

    /// An op that agrees with a gate's own on every input pair the gate met runs the
    /// same rollout, for every gate: the pairs met hide none. And some gates meet fewer
    /// than all four pairs, so the pairs tell ops apart that a rollout need not try.
    #[test]
    fn ops_that_agree_on_the_pairs_met_run_the_same_rollout() {
        let (mut model, init) = paper_gates(8, 1, 6, 3);
        let mut run = HardRun::new(&model, 1, (6, 6));
        let mut met = vec![0u8; model.gate_count()];
        run.set_state(&init);
        for t in 0..3 {
            run.step(None, t);
            run.pairs_met(&mut met);
        }
        let before = run.state();
        let on = |op: usize, met: u8| OPS[op].truth_bits() & met;
        let mut same = 0;
        for g in 0..model.gate_count() {
            let (kept, op) = (model.logits[g], model.hard_op(g));
            for other in (0..NUM_OPS).filter(|&o| o != op && on(o, met[g]) == on(op, met[g])) {
                model.logits[g][other] += 100.0;
                run.set_op(&model, g);
                run.set_state(&init);
                (0..3).for_each(|t| run.step(None, t));
                assert_eq!(run.state(), before, "gate {g}: op {other} for {op}");
                model.logits[g] = kept;
                same += 1;
            }
            run.set_op(&model, g);
        }
        assert!(met.iter().any(|&m| m != 0b1111) && same > 0, "{same}");
    }
}
