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

    /// Runs another wiring of the same shape (another start's); its ops follow at the
    /// next [`HardRun::set_ops`].
    pub fn set_circuit(&mut self, circuit: Arc<Circuit>) {
        self.circuit = circuit;
    }

    /// Takes the hard ops of `model`'s logits (after they changed, as in training).
    pub fn set_ops(&mut self, model: &Model) {
        self.truth = hard_truth(model.config.parametrization, &model.logits);
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

    /// The current state as grids.
    pub fn state(&self) -> Grids {
        self.rollout.state()
    }

    /// The rollout itself, to read single bits.
    pub fn rollout(&self) -> &HardRollout {
        &self.rollout
    }
}
