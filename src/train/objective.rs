//! The one computation that training and the gradient checks share: run the soft and the
//! hard rollout of a batch, score both against the target with [`crate::evaluate`]'s
//! scoring (which evaluation shares), and (when asked) backpropagate the soft loss to
//! every logit.

use std::sync::Arc;

use crate::automaton::geometry::Geometry;
use crate::automaton::grid::Grids;
use crate::automaton::hard_run::HardRun;
use crate::automaton::masks::FireMasks;
use crate::automaton::soft::{ActivationMemory, SoftRollout};
use crate::evaluate::hard;
use crate::evaluate::loss::stillness_loss;
use crate::evaluate::soft::SoftScoring;
use crate::kernels::parameters::{Forward, SoftParams};
use crate::kernels::soft::TILE;
use crate::kernels::subnormals::Flushing;
use crate::model::circuit::Circuit;
use crate::model::gates::NUM_OPS;
use crate::model::network::Model;
use crate::train::error::Overflow;

/// How well a model does on one batch.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Metrics {
    /// Sum of squared errors of the target channels at the last step, soft gates.
    pub soft_loss: f64,
    /// Wrong target bits at the last step, hard gates.
    pub hard_loss: f64,
    /// Share of target bits the hard rollout gets right.
    pub accuracy: f64,
}

/// Whether [`Objective::run`] also computes the gradient of the soft loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gradient {
    Skip,
    Compute,
}

/// The rollouts of one batch shape and every buffer they reuse, so that running the
/// objective again (once per epoch) allocates nothing but the hard op table.
pub struct Objective {
    /// Shared with the hard rollout while it runs beside the soft one.
    circuit: Arc<Circuit>,
    params: SoftParams,
    forward: Forward,
    soft: SoftRollout,
    /// Out only while [`Objective::run`] runs it beside the soft rollout.
    hard: Option<HardRun>,
    steps: usize,
    /// The loss is summed over the states after the last this many steps.
    loss_steps: usize,
    /// A step before the last whose hard state is scored too (a hold's task step).
    hard_also_at: Option<usize>,
    /// Weight of the hidden channels' stillness between consecutive loss states (0:
    /// none; [`Objective::set_stillness`]).
    stillness: f32,
    /// Weight of the target's on bits in the soft loss ([`Objective::set_on_weight`]).
    on_weight: f32,
    /// `loss_grads[j]`: the loss's gradient on the state after step `steps - j`.
    loss_grads: Vec<Vec<f32>>,
    coef_grads: Vec<[f64; 4]>,
    logit_grads: Vec<[f32; NUM_OPS]>,
    /// Noise added to the logits of the soft rollout (empty: none), the factor on the
    /// sum, and the result.
    noise: Vec<[f32; NUM_OPS]>,
    sharpness: f32,
    perturbed: Vec<[f32; NUM_OPS]>,
    /// Gates whose hard op the soft rollout runs (empty: none).
    hard_gates: Vec<bool>,
}

impl Objective {
    /// Buffers for `model` on batches of `batch` grids of `height x width`, rolled out
    /// for `steps` steps.
    pub fn new(
        model: &Model,
        batch: usize,
        (height, width): (usize, usize),
        steps: usize,
        memory: ActivationMemory,
    ) -> Self {
        let periodic = model.config.periodic;
        let mut hard = HardRun::new(model, batch, (height, width));
        hard.release_ops();
        let circuit = Arc::clone(hard.circuit());
        let geometry = Geometry::new(batch, height, width, periodic, TILE);
        let gates = model.gate_count();
        let soft = SoftRollout::new(geometry, &circuit, steps, gates, memory);
        Objective {
            params: SoftParams::new(model.config.parametrization, gates),
            forward: Forward::Soft,
            loss_steps: 1,
            stillness: 0.0,
            on_weight: 1.0,
            hard_also_at: None,
            loss_grads: vec![vec![0.0; soft.final_state().len()]],
            coef_grads: vec![[0.0; 4]; gates],
            logit_grads: vec![[0.0; NUM_OPS]; gates],
            noise: Vec::new(),
            sharpness: 1.0,
            perturbed: Vec::new(),
            hard_gates: Vec::new(),
            soft,
            hard: Some(hard),
            steps,
            circuit,
        }
    }

    /// Which gates the next runs' soft rollout uses (soft until told otherwise).
    pub fn set_forward(&mut self, forward: Forward) {
        self.forward = forward;
    }

    /// Adds `noise` (one entry per gate, or empty for none) to the logits that the next
    /// runs' soft rollout and gradient use; the hard rollout keeps the model's own. The
    /// gradient on the perturbed logits is the gradient on the logits.
    pub fn set_noise(&mut self, noise: &[[f32; NUM_OPS]]) {
        self.noise.clear();
        self.noise.extend_from_slice(noise);
    }

    /// Makes the gates flagged in `hard` (one flag per gate, or empty for none) run their
    /// hard op in the next runs' soft rollout, straight-through: the forward is the hard
    /// op's, the gradient still maps through the soft gate. With noise, the hard op is
    /// that of the noisy parameters.
    pub fn set_hard_gates(&mut self, hard: &[bool]) {
        self.hard_gates.clear();
        self.hard_gates.extend_from_slice(hard);
    }

    /// Multiplies the (noisy) logits of the next runs' soft rollout by `sharpness`: a
    /// softmax or sigmoid temperature of `1 / sharpness` (1 unless told otherwise). The
    /// hard ops are those of the model's own logits either way.
    pub fn set_sharpness(&mut self, sharpness: f32) {
        self.sharpness = sharpness;
    }

    /// Clamps the soft rollout's states to [0, 1] when `on`, gradient passed through
    /// ([`SoftRollout::keep_states_in_unit`]; off unless told otherwise).
    pub fn keep_states_in_unit(&mut self, on: bool) {
        self.soft.keep_states_in_unit(on);
    }

    /// Sums the soft loss over the states after the last `k` steps (at least 1, at most
    /// the rollout's steps; 1 unless told otherwise). The hard loss stays the last step's.
    pub fn set_loss_steps(&mut self, k: usize) {
        self.loss_steps = k.clamp(1, self.steps);
        let len = self.soft.final_state().len();
        self.loss_grads.resize(self.loss_steps, vec![0.0; len]);
    }

    /// Adds to the soft loss `weight` times the squared change of the hidden channels
    /// between each two consecutive states the loss sums ([`stillness_loss`]; 0 unless
    /// told otherwise), so that a held target is held by a state that stays.
    pub fn set_stillness(&mut self, weight: f32) {
        self.stillness = weight;
    }

    /// Counts the squared error of each bit the target wants on `weight` times in the
    /// soft loss (1, the notebook's loss, unless told otherwise); the hard loss still
    /// counts wrong bits.
    pub fn set_on_weight(&mut self, weight: f32) {
        self.on_weight = weight;
    }

    /// Scores `logits` on one batch. With [`Gradient::Compute`] and a finite soft loss,
    /// [`Objective::logit_grads`] then holds the soft loss's gradient on every logit.
    pub fn run(
        &mut self,
        model: &Model,
        init: &Grids,
        target: &Grids,
        masks: Option<&FireMasks>,
        gradient: Gradient,
    ) -> Metrics {
        let _flushing = Flushing::begin();
        let (soft_loss, (hard_loss, accuracy)) = match gradient {
            Gradient::Compute => {
                // The hard rollout is one thread's work for small grids: beside the soft
                // gradient, whose tiles the other threads take meanwhile, it costs no wait.
                let mut hard = self.hard.take().expect("the hard rollout is in place");
                let scoring = self.scoring();
                let both = rayon::join(
                    || self.soft_gradient(model, init, target, masks),
                    || hard_score(&mut hard, model, (init, target), masks, scoring),
                );
                self.hard = Some(hard);
                both
            }
            Gradient::Skip => (
                self.soft_loss(model, init, target, masks, None),
                self.hard_score(model, init, target, masks),
            ),
        };
        Metrics {
            soft_loss,
            hard_loss,
            accuracy,
        }
    }

    /// Where the last soft rollout overflowed, if a state it kept did.
    pub fn overflow(&self) -> Option<Overflow> {
        let steps = self.soft.steps();
        let step = self.soft.first_non_finite_step()?;
        Some(Overflow { step, steps })
    }

    /// The soft loss of one batch and, when it is finite, its gradient on every logit
    /// ([`Objective::logit_grads`]), without the hard rollout.
    pub fn soft_gradient(
        &mut self,
        model: &Model,
        init: &Grids,
        target: &Grids,
        masks: Option<&FireMasks>,
    ) -> f64 {
        let soft_loss = self.soft_loss(model, init, target, masks, None);
        if soft_loss.is_finite() {
            self.backward(masks);
        }
        soft_loss
    }

    /// The soft rollout and its loss; leaves the loss's gradient on the last states in
    /// `loss_grads` for [`Objective::backward`]. Without an observer of each step, each
    /// grid steps on its own ([`SoftRollout::forward`]).
    fn soft_loss(
        &mut self,
        model: &Model,
        init: &Grids,
        target: &Grids,
        masks: Option<&FireMasks>,
        after_step: Option<&mut dyn FnMut(usize)>,
    ) -> f64 {
        if self.noise.is_empty() && self.sharpness == 1.0 {
            self.params
                .update(&model.logits, self.forward, &self.hard_gates);
        } else {
            self.perturb(&model.logits);
            self.params
                .update(&self.perturbed, self.forward, &self.hard_gates);
        }
        let scoring = SoftScoring {
            config: &model.config,
            circuit: &self.circuit,
            coefs: &self.params.coefs,
            on_weight: self.on_weight,
        };
        let soft = &mut self.soft;
        let loss = scoring.loss(soft, init, target, masks, after_step, &mut self.loss_grads);
        loss + self.stillness_term(model, init.batch * init.cells())
    }

    /// The stillness term of the last soft rollout over its first `lanes` lanes, its
    /// gradient added to `loss_grads` (`loss_grads[j]` and `[j + 1]` are the states after
    /// and before step `steps - j`).
    fn stillness_term(&mut self, model: &Model, lanes: usize) -> f64 {
        if self.stillness == 0.0 {
            return 0.0;
        }
        let config = &model.config;
        let mut loss = 0.0;
        for j in 0..self.loss_grads.len().saturating_sub(1) {
            let step = self.steps - j;
            let states = (self.soft.state(step - 1), self.soft.state(step));
            let (after, before) = self.loss_grads.split_at_mut(j + 1);
            loss += stillness_loss(
                states,
                config.channels,
                &config.target_channels,
                lanes,
                self.stillness,
                &mut before[0],
                &mut after[j],
            );
        }
        loss
    }

    /// The hard rollout's wrong bits and accuracy on one batch, without the soft one.
    pub fn hard_score(
        &mut self,
        model: &Model,
        init: &Grids,
        target: &Grids,
        masks: Option<&FireMasks>,
    ) -> (f64, f64) {
        let scoring = self.scoring();
        let hard = self.hard.as_mut().expect("the hard rollout is in place");
        hard_score(hard, model, (init, target), masks, scoring)
    }

    /// Also scores the hard rollout's state after `step` steps (a hold's task step), so
    /// that a hard loss of 0 is the target right there and at the end.
    pub fn score_hard_also_at(&mut self, step: Option<usize>) {
        self.hard_also_at = step;
    }

    /// The hard rollout's length and the states it scores.
    fn scoring(&self) -> hard::Scoring {
        hard::Scoring {
            steps: self.steps,
            also_at: self.hard_also_at,
        }
    }

    /// Backpropagates the last soft loss to every logit.
    fn backward(&mut self, masks: Option<&FireMasks>) {
        self.coef_grads.fill([0.0; 4]);
        self.soft.backward(
            &self.circuit,
            &self.params.coefs,
            &self.loss_grads,
            masks,
            &mut self.coef_grads,
        );
        self.params
            .logit_grads(&self.coef_grads, &mut self.logit_grads);
        if self.sharpness != 1.0 {
            let s = self.sharpness;
            self.logit_grads.iter_mut().flatten().for_each(|g| *g *= s);
        }
    }

    /// `perturbed = sharpness * (logits + noise)`, the soft rollout's parameters.
    fn perturb(&mut self, logits: &[[f32; NUM_OPS]]) {
        let s = self.sharpness;
        self.perturbed.clear();
        self.perturbed
            .extend(logits.iter().enumerate().map(|(gate, l)| {
                let noise = self.noise.get(gate).copied().unwrap_or([0.0; NUM_OPS]);
                std::array::from_fn(|i| (l[i] + noise[i]) * s)
            }));
    }

    /// The gradient of the last [`Gradient::Compute`] run.
    pub fn logit_grads(&self) -> &[[f32; NUM_OPS]] {
        &self.logit_grads
    }

    /// The gradient, to add terms of the loss that do not depend on the rollout.
    pub fn logit_grads_mut(&mut self) -> &mut [[f32; NUM_OPS]] {
        &mut self.logit_grads
    }
}

/// `model`'s hard circuit (wired as `hard` runs) scored on one batch: its ops are taken
/// anew, since the logits change between runs.
fn hard_score(
    hard: &mut HardRun,
    model: &Model,
    (init, target): (&Grids, &Grids),
    masks: Option<&FireMasks>,
    scoring: hard::Scoring,
) -> (f64, f64) {
    hard.set_ops(model);
    let channels = &model.config.target_channels;
    let score = hard::score(hard, init, target, channels, masks, scoring, |_| {});
    hard.release_ops();
    score
}

/// Soft loss of one rollout and its gradient on every logit: the whole training
/// computation for one batch, without the optimizer. Used by gradient checks.
pub fn loss_and_gradient(
    model: &Model,
    init: &Grids,
    target: &Grids,
    masks: Option<&FireMasks>,
    memory: ActivationMemory,
) -> (f64, Vec<[f32; NUM_OPS]>) {
    loss_and_gradient_over(model, init, target, masks, memory, 1)
}

/// [`loss_and_gradient`] with the loss summed over the states after the last
/// `loss_steps` steps ([`Objective::set_loss_steps`]); `target` is the last step's.
pub fn loss_and_gradient_over(
    model: &Model,
    init: &Grids,
    target: &Grids,
    masks: Option<&FireMasks>,
    memory: ActivationMemory,
    loss_steps: usize,
) -> (f64, Vec<[f32; NUM_OPS]>) {
    let shape = (init.height, init.width);
    let mut objective = Objective::new(model, init.batch, shape, model.config.steps, memory);
    objective.set_loss_steps(loss_steps);
    let metrics = objective.run(model, init, target, masks, Gradient::Compute);
    (metrics.soft_loss, objective.logit_grads().to_vec())
}
