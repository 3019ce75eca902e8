//! A search over single gate changes that finishes a model training left a few bits from
//! its target. Gradient steps on the soft circuit move every gate a little; a hard
//! circuit one or two wrong bits from a growing target often needs one gate to compute
//! another of its 16 functions, which no soft step takes it to (the soft/hard gap).
//!
//! The candidates are many (16 ops for each of thousands of gates), each a whole rollout,
//! so the search tries first the changes that a gradient through the hard circuit says
//! lower the count ([`ranking`]), and stops at a budget of rollouts. Besides ops, it can
//! try the gates' other wires in the last update layers (`rewire_layers`): one input
//! moved to another output of the layer before, which changes the gate's output only
//! where the two rows differ.
//!
//! Only the growing tasks qualify: every rollout starts from one fixed state, so the
//! states the search scores (the task's step, and twice it where the task's exact check
//! asks that the pattern holds) are the states training rolled out, and nothing it learns
//! is taken from the check.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::automaton::grid::Grids;
use crate::automaton::hard_run::HardRun;
use crate::evaluate::loss::hard_errors;
use crate::model::circuit::{Circuit, GateOrder};
use crate::model::config::ModelConfig;
use crate::model::gates::{NUM_OPS, OPS};
use crate::model::network::Model;
use crate::model::recipe::Recipe;
use crate::tasks;

mod ranking;

use ranking::{Candidate, Change};

/// What a search did.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GateSearch {
    /// Target bits wrong before and after, summed over the two scored states.
    pub wrong_before: u64,
    pub wrong_after: u64,
    /// Gates given another op.
    pub changed: usize,
    /// Gates given another wire.
    pub rewired: usize,
    /// Circuits rolled out (each a candidate change).
    pub tried: usize,
}

/// How far a search goes: at most `budget` candidate circuits rolled out (0: no search),
/// and the update layers, counted from the last, whose gates it may also rewire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SearchPlan {
    pub budget: usize,
    pub rewire_layers: usize,
}

impl SearchPlan {
    /// The search a recipe asks for after its last epoch.
    pub fn of(recipe: &Recipe) -> Self {
        SearchPlan {
            budget: recipe.search_circuits,
            rewire_layers: recipe.rewire_layers,
        }
    }
}

/// The fixed start and the target of a growing task's rollouts.
struct Probe {
    init: Grids,
    target: Grids,
    steps: usize,
    /// The states scored: after `steps` and after `2 * steps`, as the exact check asks
    /// that a pattern holds ([`crate::evaluate::fresh::CRITERION`]).
    scored: usize,
}

impl Probe {
    /// A growing task's.
    fn of(c: &ModelConfig) -> Self {
        // A growing task's start draws nothing from the generator.
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let init = tasks::eval_init(c, 1, c.height, c.width, &mut rng);
        Probe {
            target: tasks::target(c, &init, c.steps),
            init,
            steps: c.steps,
            scored: 2,
        }
    }
}

/// Searches for single gate changes that get fewer target bits wrong at the task's step
/// (and at twice it, where the task's exact check asks the pattern to hold) and no more
/// at the task's step than the model had ([`Bound`]), keeping each one found, until none
/// are wrong, no change helps, or `plan.budget` circuits were rolled out. Each round
/// ranks every gate's other ops, and every other wire of the gates in the last
/// `plan.rewire_layers` update layers, by the change in error their gradient predicts
/// ([`ranking`]) and tries those predicted to lower it, best first; then the other wires,
/// from the outputs back; then the other ops.
/// A round ends at the first change that lowers the count. None, and the model untouched,
/// for no budget or a task whose rollouts start from random grids (see the module's docs).
/// `progress` hears of the circuits rolled out so far.
pub fn search_gates(
    model: &mut Model,
    plan: SearchPlan,
    mut progress: impl FnMut(usize),
) -> Option<GateSearch> {
    let c = &model.config;
    if plan.budget == 0 || !c.task.grows_image() {
        return None;
    }
    let probe = Probe::of(c);
    let mut runs: Vec<HardRun> = (0..rayon::current_num_threads())
        .map(|_| HardRun::new(model, 1, (c.height, c.width)))
        .collect();
    let (wrong, at_task_step) =
        wrong_within(&mut runs[0], model, &probe, Bound::NONE).expect("no bound refuses a count");
    let (circuit, inputs) = Circuit::compile_with_inputs(model, GateOrder::SharedInputs);
    let at = circuit_index_of_gates(model, &circuit);
    let rewirable = rewirable_gates(model, plan.rewire_layers);
    let mut searcher = Searcher {
        model,
        runs,
        probe,
        rows: Rows { at, inputs },
        budget: plan.budget,
        task_step_most: at_task_step,
        search: GateSearch {
            wrong_before: wrong,
            wrong_after: wrong,
            changed: 0,
            rewired: 0,
            tried: 0,
        },
    };
    searcher.rounds(rewirable, &mut progress);
    Some(searcher.search)
}

/// Where each gate of `model` is in `circuit`'s gates (the rollouts' order).
fn circuit_index_of_gates(model: &Model, circuit: &Circuit) -> Vec<usize> {
    let mut at = vec![usize::MAX; model.gate_count()];
    for (index, gate) in circuit.gates.iter().enumerate() {
        at[gate.param as usize] = index;
    }
    at
}

/// Where the search finds each update gate in the run's circuit (`at[gate]`) and the
/// rows each update layer's inputs sit at (`inputs[layer][input]`).
struct Rows {
    at: Vec<usize>,
    inputs: Vec<Vec<u32>>,
}

/// A candidate change, ready to roll out: the gate's new op, or the gate's input rows
/// in the run's circuit with the wire it moves.
#[derive(Clone, Copy)]
enum Trial {
    Op {
        gate: usize,
        op: usize,
    },
    Wire {
        /// The gate's update layer and its place there.
        place: (usize, usize),
        /// The gate's wires (outputs of the layer before) once moved.
        moved: (u32, u32),
        /// The gate's place in the run's circuit, and the rows it reads there once moved
        /// and as it is.
        index: usize,
        rows: (u32, u32),
        kept_rows: (u32, u32),
    },
}

impl Trial {
    /// Makes `run` roll out the change.
    fn apply(&self, run: &mut HardRun) {
        match *self {
            Trial::Op { gate, op } => run.set_op_to(gate, op),
            Trial::Wire { index, rows, .. } => run.rewire(index, rows),
        }
    }

    /// Makes `run` roll out `model`'s circuit again.
    fn undo(&self, run: &mut HardRun, model: &Model) {
        match *self {
            Trial::Op { gate, .. } => run.set_op(model, gate),
            Trial::Wire {
                index, kept_rows, ..
            } => run.rewire(index, kept_rows),
        }
    }
}

struct Searcher<'m> {
    model: &'m mut Model,
    /// One run per thread, each the model's circuit between trials: the candidates a
    /// round would roll out next are rolled out side by side, and the results taken in
    /// the round's order, so the search is the one that rolls them out one by one.
    runs: Vec<HardRun>,
    probe: Probe,
    rows: Rows,
    budget: usize,
    /// The most bits a kept change may leave wrong at the task's step: as many as the
    /// model had there when the search began (see [`Bound`]).
    task_step_most: u64,
    search: GateSearch,
}

impl Searcher<'_> {
    fn done(&self) -> bool {
        self.done_after(0)
    }

    /// Rounds of candidate changes, each ending at the first that lowers the count.
    fn rounds(&mut self, rewirable: std::ops::Range<usize>, progress: &mut impl FnMut(usize)) {
        while !self.done() {
            let met = self.pairs_met();
            let ranked = ranking::ranked_changes(self.model, &self.probe, rewirable.clone());
            if !self.first_better(&ranked, &met, progress) {
                return;
            }
        }
    }

    /// Tries the candidates in order, keeping the first with fewer wrong bits than the
    /// search has. Ops that agree on every input pair a gate meets (`met`) run the same
    /// rollout, so one op of each such class is rolled out, and none of the current op's
    /// class: the gate's outputs, hence the whole rollout, would be the same.
    ///
    /// The next candidates are picked as if each one before were no better (the only
    /// case in which the later ones count), one per run, and rolled out together.
    fn first_better(
        &mut self,
        candidates: &[Candidate],
        met: &[u8],
        progress: &mut impl FnMut(usize),
    ) -> bool {
        let on_met = |op: usize, g: usize| OPS[op].truth_bits() & met[g];
        let mut rolled: Vec<u16> = (0..met.len())
            .map(|g| 1 << on_met(self.model.hard_op(g), g))
            .collect();
        let mut next = candidates.iter();
        loop {
            let mut batch = Vec::with_capacity(self.runs.len());
            while batch.len() < self.runs.len() && !self.done_after(batch.len()) {
                let Some(&Candidate { gate, change, .. }) = next.next() else {
                    break;
                };
                let trial = match change {
                    Change::Op(op) => {
                        let class = 1 << on_met(op, gate);
                        if rolled[gate] & class != 0 || !self.reachable(gate, op) {
                            continue;
                        }
                        rolled[gate] |= class;
                        Trial::Op { gate, op }
                    }
                    Change::Wire { a, source } => self.wire_trial(gate, a, source),
                };
                batch.push(trial);
            }
            if batch.is_empty() {
                return false;
            }
            let results = self.roll_out(&batch);
            for (trial, wrong) in batch.iter().zip(results) {
                progress(self.search.tried);
                self.search.tried += 1;
                if let Some(wrong) = wrong {
                    self.keep(trial, wrong);
                    return true;
                }
            }
        }
    }

    /// Whether the search would be done once `more` candidates were rolled out with no
    /// better one among them.
    fn done_after(&self, more: usize) -> bool {
        self.search.wrong_after == 0 || self.search.tried + more >= self.budget
    }

    /// Whether raising `op`'s logit above the gate's others makes it the gate's hard op
    /// (not where the logits are too large for the step to change them).
    fn reachable(&self, g: usize, op: usize) -> bool {
        let mut logits = self.model.logits[g];
        logits[op] = raised(&logits);
        self.model.config.parametrization.hard_op(&logits) == op
    }

    /// Moving input `a` (`b` when false) of gate `g` to output `source` of the layer
    /// before.
    fn wire_trial(&self, g: usize, a: bool, source: u32) -> Trial {
        let (l, i) = self
            .model
            .update_place(g)
            .expect("a rewirable gate updates");
        let wires = &self.model.update[l].wires;
        let kept = (wires.a[i], wires.b[i]);
        let moved = if a {
            (source, kept.1)
        } else {
            (kept.0, source)
        };
        let rows = &self.rows.inputs[l];
        let reads = |(a, b): (u32, u32)| (rows[a as usize], rows[b as usize]);
        Trial::Wire {
            place: (l, i),
            moved,
            index: self.rows.at[g],
            rows: reads(moved),
            kept_rows: reads(kept),
        }
    }

    /// The wrong bits of each trial's rollout, where fewer than the search has and no
    /// more at the task's step than when it began: trial `k` on run `k`, side by side.
    fn roll_out(&mut self, batch: &[Trial]) -> Vec<Option<u64>> {
        let (model, probe) = (&*self.model, &self.probe);
        let bound = Bound {
            total: self.search.wrong_after,
            task_step: self.task_step_most,
        };
        self.runs[..batch.len()]
            .par_iter_mut()
            .zip(batch)
            .map(|(run, trial)| {
                trial.apply(run);
                let wrong = wrong_within(run, model, probe, bound);
                trial.undo(run, model);
                wrong.map(|(total, _)| total)
            })
            .collect()
    }

    /// Keeps a trial that got `wrong` bits wrong: in the model, and in every run.
    fn keep(&mut self, trial: &Trial, wrong: u64) {
        match *trial {
            Trial::Op { gate, op } => {
                let logits = &mut self.model.logits[gate];
                logits[op] = raised(logits);
                self.search.changed += 1;
            }
            Trial::Wire {
                place: (l, i),
                moved,
                ..
            } => {
                let wires = &mut self.model.update[l].wires;
                (wires.a[i], wires.b[i]) = moved;
                self.search.rewired += 1;
            }
        }
        for run in &mut self.runs {
            trial.apply(run);
        }
        self.search.wrong_after = wrong;
    }

    /// The input pairs each gate meets in the rollout the search scores, a bit per pair
    /// (see [`HardRun::pairs_met`]).
    fn pairs_met(&mut self) -> Vec<u8> {
        let mut met = vec![0; self.model.gate_count()];
        let run = &mut self.runs[0];
        run.set_state(&self.probe.init);
        for t in 0..self.probe.scored * self.probe.steps {
            run.step(None, t);
            run.pairs_met(&mut met);
        }
        met
    }
}

/// The logit that makes an op the gate's hard op: one above the gate's largest.
fn raised(logits: &[f32; NUM_OPS]) -> f32 {
    logits.iter().copied().fold(f32::MIN, f32::max) + 1.0
}

/// The gates of the last `layers` update layers (the last layers' gates come last).
fn rewirable_gates(model: &Model, layers: usize) -> std::ops::Range<usize> {
    let gates = model.gate_count();
    let first = model.update.len().saturating_sub(layers);
    match model.update.get(first) {
        Some(layer) if layers > 0 => layer.first_gate..gates,
        _ => gates..gates,
    }
}

/// What a kept change may leave wrong: fewer bits than `total` over the states scored,
/// and no more than `task_step` at the task's step. The second keeps the search from
/// trading the drawing at the task's step for fewer wrong bits at twice it: a 32x32
/// model 86 bits off at its step was otherwise searched to every cell off, which gets
/// fewer bits wrong at twice the step than a drawing that does not hold.
#[derive(Debug, Clone, Copy)]
struct Bound {
    total: u64,
    task_step: u64,
}

impl Bound {
    const NONE: Bound = Bound {
        total: u64::MAX,
        task_step: u64::MAX,
    };
}

/// The wrong target bits of `model`'s hard rollout at the states the probe scores, and
/// at the task's step alone, if within `bound` (a rollout past it by the task's step
/// stops there). The run's ops must be `model`'s.
fn wrong_within(
    run: &mut HardRun,
    model: &Model,
    probe: &Probe,
    bound: Bound,
) -> Option<(u64, u64)> {
    let channels = &model.config.target_channels;
    run.set_state(&probe.init);
    let (mut wrong, mut at_task_step) = (0, 0);
    for half in 0..probe.scored {
        for t in 0..probe.steps {
            run.step(None, half * probe.steps + t);
        }
        wrong += hard_errors(run.rollout(), channels, &probe.target).0;
        if half == 0 {
            at_task_step = wrong;
        }
        if wrong >= bound.total || at_task_step > bound.task_step {
            return None;
        }
    }
    Some((wrong, at_task_step))
}

#[cfg(test)]
mod tests;
