//! A search over single gate changes that finishes a model training left a few bits from
//! its target. Gradient steps on the soft circuit move every gate a little; a hard
//! circuit one or two wrong bits from a growing target often needs one gate to compute
//! another of its 16 functions, which no soft step takes it to (the soft/hard gap).
//!
//! Where no op of a gate lowers the count, the search can also try the gate's other
//! wires in the last update layers (`rewire_layers`): one input moved to another output
//! of the layer before, which changes the gate's output only where the two rows differ.
//!
//! Only the growing tasks qualify: every rollout starts from one fixed state, so the
//! states the search scores (the task's step and twice it, where the exact check looks)
//! are the states training rolled out, and nothing it learns is taken from the check.

use std::sync::Arc;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::automaton::grid::Grids;
use crate::automaton::hard_run::HardRun;
use crate::evaluate::loss::hard_errors;
use crate::model::circuit::{Circuit, GateOrder};
use crate::model::gates::{NUM_OPS, OPS};
use crate::model::network::Model;
use crate::model::recipe::Recipe;
use crate::tasks;

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

/// How far a search goes: its passes over the gates, and the update layers, counted
/// from the last, whose gates it may also rewire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SearchPlan {
    pub passes: usize,
    pub rewire_layers: usize,
}

impl SearchPlan {
    /// The search a recipe asks for after its last epoch.
    pub fn of(recipe: &Recipe) -> Self {
        SearchPlan {
            passes: recipe.gate_search,
            rewire_layers: recipe.rewire_layers,
        }
    }
}

/// The fixed start and the target of a growing task's rollouts.
struct Probe {
    init: Grids,
    target: Grids,
    steps: usize,
}

/// Goes over `model`'s gates from the outputs back at most `plan.passes` times, giving a
/// gate the first other op that gets fewer target bits wrong at the task's step and at
/// twice it (else, in the last `plan.rewire_layers` update layers, the first other wire
/// that does), and stops once none are wrong or a pass changes nothing. None, and the
/// model untouched, for no passes or a task whose rollouts start from random grids (see
/// the module's docs). `progress` hears of each gate searched, as (pass, gates searched
/// in it): a pass over a large circuit takes tens of seconds.
pub fn search_gates(
    model: &mut Model,
    plan: SearchPlan,
    mut progress: impl FnMut(usize, usize),
) -> Option<GateSearch> {
    let passes = plan.passes;
    let c = &model.config;
    if passes == 0 || !c.task.grows_image() {
        return None;
    }
    // A growing task's start draws nothing from the generator.
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let init = tasks::eval_init(c.task, 1, c.height, c.width, c.channels, &mut rng);
    let probe = Probe {
        target: tasks::target(c, &init, c.steps),
        init,
        steps: c.steps,
    };
    let mut run = HardRun::new(model, 1, (c.height, c.width));
    let wrong_before = wrong_below(&mut run, model, &probe, u64::MAX).unwrap_or(u64::MAX);
    let mut met = pairs_met(&mut run, &probe, model.gate_count());
    let mut search = GateSearch {
        wrong_before,
        wrong_after: wrong_before,
        changed: 0,
        rewired: 0,
        tried: 0,
    };
    let gates = model.gate_count();
    let rewirable = rewirable_gates(model, plan.rewire_layers);
    for pass in 0..passes {
        let before = search.wrong_after;
        for g in (0..gates).rev() {
            progress(pass, gates - g);
            if search.wrong_after == 0 {
                return Some(search);
            }
            let better = if let Some(wrong) =
                first_better_op(model, &mut run, &probe, (g, met[g]), &mut search)
            {
                search.changed += 1;
                Some(wrong)
            } else if g >= rewirable.start {
                let wrong = first_better_wire(model, &mut run, &probe, g, &mut search);
                search.rewired += usize::from(wrong.is_some());
                wrong
            } else {
                None
            };
            if let Some(wrong) = better {
                search.wrong_after = wrong;
                met = pairs_met(&mut run, &probe, model.gate_count());
            }
        }
        if search.wrong_after == before {
            break;
        }
    }
    Some(search)
}

/// The input pairs each gate meets in the rollout the search scores, a bit per pair (see
/// [`HardRun::pairs_met`]).
fn pairs_met(run: &mut HardRun, probe: &Probe, gates: usize) -> Vec<u8> {
    let mut met = vec![0; gates];
    run.set_state(&probe.init);
    for t in 0..2 * probe.steps {
        run.step(None, t);
        run.pairs_met(&mut met);
    }
    met
}

/// Tries each other op of gate `g`, keeping the first with fewer wrong bits than the
/// search has; returns its wrong bits, or none and the gate as it was. Ops that agree on
/// every input pair the gate meets (`met`) run the same rollout, so one op of each such
/// class is rolled out, and none of the current op's class: the gate's outputs, hence the
/// whole rollout, would be the same.
fn first_better_op(
    model: &mut Model,
    run: &mut HardRun,
    probe: &Probe,
    (g, met): (usize, u8),
    search: &mut GateSearch,
) -> Option<u64> {
    let kept = model.logits[g];
    let op = model.hard_op(g);
    let top = kept.iter().copied().fold(f32::MIN, f32::max);
    let on_met = |op: usize| OPS[op].truth_bits() & met;
    let mut rolled = 1u16 << on_met(op);
    for other in 0..NUM_OPS {
        if rolled & 1 << on_met(other) != 0 {
            continue;
        }
        model.logits[g] = kept;
        model.logits[g][other] = top + 1.0;
        if model.hard_op(g) != other {
            continue;
        }
        rolled |= 1 << on_met(other);
        run.set_op(model, g);
        search.tried += 1;
        if let Some(wrong) = wrong_below(run, model, probe, search.wrong_after) {
            return Some(wrong);
        }
    }
    model.logits[g] = kept;
    run.set_op(model, g);
    None
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

/// Tries moving each input of gate `g` that its op reads to each other output of the
/// layer before, keeping the first move with fewer wrong bits than the search has;
/// returns its wrong bits, or none and the gate's wires as they were. A move onto the
/// gate's other input is not tried (the gate would read one row twice).
fn first_better_wire(
    model: &mut Model,
    run: &mut HardRun,
    probe: &Probe,
    g: usize,
    search: &mut GateSearch,
) -> Option<u64> {
    let l = model
        .update
        .iter()
        .rposition(|layer| layer.first_gate <= g)
        .expect("a rewirable gate is an update gate");
    let i = g - model.update[l].first_gate;
    let sources = match l {
        0 => model.config.update_inputs(),
        _ => model.update[l - 1].width(),
    };
    let op = &OPS[model.hard_op(g)];
    let wires = &model.update[l].wires;
    let kept = (wires.a[i], wires.b[i]);
    let inputs = [(op.depends_on_a(), true), (op.depends_on_b(), false)];
    let recompile = |model: &Model, run: &mut HardRun| {
        run.set_circuit(Arc::new(Circuit::compile_in(
            model,
            GateOrder::SharedInputs,
        )));
    };
    for (read, is_a) in inputs {
        if !read {
            continue;
        }
        for source in 0..sources as u32 {
            if source == kept.0 || source == kept.1 {
                continue;
            }
            let wires = &mut model.update[l].wires;
            (wires.a[i], wires.b[i]) = if is_a {
                (source, kept.1)
            } else {
                (kept.0, source)
            };
            recompile(model, run);
            search.tried += 1;
            if let Some(wrong) = wrong_below(run, model, probe, search.wrong_after) {
                return Some(wrong);
            }
        }
    }
    let wires = &mut model.update[l].wires;
    (wires.a[i], wires.b[i]) = kept;
    recompile(model, run);
    None
}

/// The wrong target bits of `model`'s hard rollout at the task's step and at twice it,
/// if fewer than `limit` (a rollout already at `limit` by the task's step stops there).
/// The run's ops must be `model`'s.
fn wrong_below(run: &mut HardRun, model: &Model, probe: &Probe, limit: u64) -> Option<u64> {
    let channels = &model.config.target_channels;
    run.set_state(&probe.init);
    let mut wrong = 0;
    for half in 0..2 {
        for t in 0..probe.steps {
            run.step(None, half * probe.steps + t);
        }
        wrong += hard_errors(run.rollout(), channels, &probe.target).0;
        if wrong >= limit {
            return None;
        }
    }
    Some(wrong)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::evaluate::fresh::fresh_check;
    use crate::model::task::TaskKind;
    use crate::tasks::preset;

    /// A search of `passes` passes over the gates' ops alone.
    fn ops_only(passes: usize) -> SearchPlan {
        SearchPlan {
            passes,
            rewire_layers: 0,
        }
    }

    /// The target bits the exact check finds wrong (at the task's step and at twice it).
    fn wrong(model: &Model) -> u64 {
        let c = &model.config;
        let bits = (2 * c.height * c.width * c.target_channels.len()) as f64;
        ((1.0 - fresh_check(model).accuracy) * bits).round() as u64
    }

    fn fresh(task: TaskKind) -> Model {
        let (config, _) = preset(task, true);
        Model::new(config, &mut ChaCha8Rng::seed_from_u64(3)).unwrap()
    }

    /// The bits the search counts are those the exact check counts, before and after;
    /// every change it keeps lowers them, and a pass of changes finds some on a fresh
    /// model of the reduced lizard.
    #[test]
    fn the_search_lowers_the_wrong_bits_that_the_check_counts() {
        let mut model = fresh(TaskKind::Lizard);
        let before = wrong(&model);
        let search = search_gates(&mut model, ops_only(1), |_, _| {}).expect("the lizard grows");
        assert_eq!(search.wrong_before, before);
        assert_eq!(search.wrong_after, wrong(&model));
        assert!(search.changed > 0, "{search:?}");
        assert!(search.wrong_after < before, "{search:?}");
        assert!(search.tried >= search.changed);
    }

    /// A wire of the last layer moved so that more bits are wrong, in a model whose ops
    /// no single change improved: the search that may also rewire that layer gets fewer
    /// bits wrong than the ops alone, by rewiring; the model's wires are then those it
    /// scored (the check agrees), the layers before untouched, no gate reading one row
    /// twice.
    #[test]
    fn rewiring_undoes_a_wire_moved_wrong() {
        let mut model = fresh(TaskKind::Lizard);
        search_gates(&mut model, ops_only(20), |_, _| {}).unwrap();
        let settled = wrong(&model);
        let last = model.update.len() - 1;
        let width = model.update[last].width();
        let sources = model.update[last - 1].width() as u32;
        let mut found = None;
        'gates: for i in 0..width {
            let (a, b) = (model.update[last].wires.a[i], model.update[last].wires.b[i]);
            for source in (0..sources).filter(|&s| s != a && s != b) {
                let mut moved = model.clone();
                moved.update[last].wires.a[i] = source;
                if wrong(&moved) > settled {
                    found = Some(moved);
                    break 'gates;
                }
            }
        }
        let moved = found.expect("some move makes it worse");
        let worse = wrong(&moved);
        let mut by_ops = moved.clone();
        let ops = search_gates(&mut by_ops, ops_only(3), |_, _| {}).unwrap();
        let mut rewired = moved.clone();
        let plan = SearchPlan {
            passes: 3,
            rewire_layers: 1,
        };
        let search = search_gates(&mut rewired, plan, |_, _| {}).unwrap();
        assert_eq!((ops.wrong_before, search.wrong_before), (worse, worse));
        assert!(search.rewired > 0, "{search:?}");
        assert!(search.wrong_after < ops.wrong_after, "{search:?} {ops:?}");
        assert_eq!(search.wrong_after, wrong(&rewired));
        for (layer, before) in rewired.update.iter().zip(&moved.update).take(last) {
            assert_eq!(layer.wires, before.wires, "only the last layer is rewired");
        }
        let w = &rewired.update[last].wires;
        assert!(w.a.iter().zip(&w.b).all(|(a, b)| a != b));
    }

    /// The search is deterministic: the same model searched twice gives the same gates.
    #[test]
    fn the_search_is_deterministic() {
        let (mut a, mut b) = (fresh(TaskKind::Lizard), fresh(TaskKind::Lizard));
        assert_eq!(
            search_gates(&mut a, ops_only(1), |_, _| {}),
            search_gates(&mut b, ops_only(1), |_, _| {})
        );
        assert_eq!(a, b);
    }

    /// No passes, or a task whose rollouts start from random grids: no search, and the
    /// model as it was.
    #[test]
    fn no_search_without_passes_or_a_fixed_start() {
        for (task, passes) in [(TaskKind::Lizard, 0), (TaskKind::Checkerboard, 1)] {
            let mut model = fresh(task);
            let before = model.clone();
            assert_eq!(
                search_gates(&mut model, ops_only(passes), |_, _| {}),
                None,
                "{task:?}"
            );
            assert_eq!(model, before);
        }
    }
}
