//! Whether a trained model is *exact*: right on inputs it did not train on. A training batch
//! entirely right does not pin a rule down (two grids of the checkerboard leave room for
//! wrong rules), so a run's kept model is scored on every input the task has where there
//! are few enough (Game of Life's 512 boards), or else on fixed probes, each the grids of
//! one `logicars eval` command:
//! - the checkerboard: 16 fresh grids of the training size, and 4 fresh grids of about 4x
//!   its side for 4x its steps (the reference 16x16 in 20 steps: 64x64 for 80 steps), as
//!   the paper's test of a larger grid. The side is 4x, or the next one that differs from
//!   the training side by a multiple of 4, so that a rule anchoring its squares on the
//!   far border draws the target's phase there as it did in training;
//! - the asynchronous checkerboard: the same, the training-size grids under the fire masks
//!   of three seeds (its 14x14 in 50 steps: 58x58 for 200 steps; the pattern spreads from
//!   the border at about the fire rate's cells per step, so a right rule draws 64x64 in
//!   about 250 steps, not 80);
//! - the growing tasks (pattern, lizard, coloured G), two measures. **Grows**: the target at
//!   the training step, the paper's criterion, on the training grid and (the pattern and the
//!   lizard, grown from the centre) on a grid of twice the side, the paper's test of a larger
//!   grid. **Holds**: grows, and the target still there at twice and four times the steps
//!   on the grid of twice the side, where a pattern grown from the centre has room: on its
//!   own wrapping grid (the lizard's 20x20) a rule could keep the drawing only by leaning on
//!   the wrap, which a grid of any other size does not have. The coloured G is grown in
//!   from the border, which is part of its drawing: it holds when it is still right at
//!   twice the steps on its own grid.
//!   A task's exact check is *holds* ([`CRITERION`]): the paper asks only that the lizard
//!   grows, but a drawing that fades is not a rule a user can keep.

use std::borrow::Cow;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::automaton::frames::Damage;
use crate::automaton::grid::Grids;
use crate::evaluate::hard::{score_damaged, HardEvaluator};
use crate::model::config::ModelConfig;
use crate::model::network::Model;
use crate::model::task::TaskKind;
use crate::tasks;

/// The grids of the first probe: `logicars eval --model M --seed 99 --batch 16`.
pub const FRESH_GRIDS: usize = 16;
pub const FRESH_SEED: u64 = 99;
/// The checkerboard tasks' larger probe: its grids, and the factor on the training grid's
/// side and steps.
pub const LARGE_GRIDS: usize = 4;
pub const LARGE_FACTOR: usize = 4;
/// Seeds of the asynchronous task's probes: each draws its own grids and fire masks.
pub const ASYNC_SEEDS: [u64; 3] = [FRESH_SEED, FRESH_SEED + 1, FRESH_SEED + 2];

/// One set of inputs a model is scored on: the grids (and fire masks) of
/// `logicars eval --seed SEED --batch BATCH --size HxW --steps STEPS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub seed: u64,
    pub batch: usize,
    pub size: (usize, usize),
    pub steps: usize,
    /// What the probe measures: whether the rule draws its target, keeps it drawn, or
    /// draws it again after damage.
    pub measure: Measure,
    /// The block zeroed after some of the steps (the *regrows* probe).
    pub damage: Option<Damage>,
}

/// The questions the fresh check asks of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Measure {
    /// Right at the task's own steps (every task's probes but a growing task's last).
    Grows,
    /// Right at twice and four times the steps too, where it has room: a growing pattern
    /// that stays.
    Holds,
    /// Right again at four times the steps after the paper's damage
    /// ([`regrowth_damage`]): a growing pattern that heals. Reported, never part of a
    /// task's exactness.
    Regrows,
}

impl Measure {
    pub fn name(self) -> &'static str {
        match self {
            Measure::Grows => "grows",
            Measure::Holds => "holds",
            Measure::Regrows => "regrows",
        }
    }
}

/// The measure a model must pass to be exact: *holds*, for every task (for tasks that
/// do not grow a pattern the same as *grows*). A grown pattern that fades a few steps
/// later is not a rule anyone can use, so the lizard too is exact only when it stays.
pub const CRITERION: Measure = Measure::Holds;

impl Probe {
    /// The `logicars eval` flags that score the same grids.
    pub fn eval_flags(&self) -> String {
        let (h, w) = self.size;
        let damage = match self.damage {
            Some(d) => format!(" --damage {}", d.flag()),
            None => String::new(),
        };
        format!(
            "--seed {} --batch {} --size {h}x{w} --steps {}{damage}",
            self.seed, self.batch, self.steps
        )
    }
}

/// The probes of a model of `config` (none when the task has every input scored).
pub fn probes(config: &ModelConfig) -> Vec<Probe> {
    let own = (config.height, config.width);
    let at = |seed, batch, size, steps| Probe {
        seed,
        batch,
        size,
        steps,
        measure: Measure::Grows,
        damage: None,
    };
    let holds = |probe: Probe| Probe {
        measure: Measure::Holds,
        ..probe
    };
    let large = at(
        FRESH_SEED,
        LARGE_GRIDS,
        (larger_side(own.0), larger_side(own.1)),
        LARGE_FACTOR * config.steps,
    );
    match config.task {
        TaskKind::Gol | TaskKind::Rule => Vec::new(),
        TaskKind::Checkerboard => vec![at(FRESH_SEED, FRESH_GRIDS, own, config.steps), large],
        TaskKind::CheckerboardAsync => ASYNC_SEEDS
            .iter()
            .map(|&seed| at(seed, FRESH_GRIDS, own, config.steps))
            .chain([large])
            .collect(),
        TaskKind::Pattern | TaskKind::Lizard | TaskKind::ColoredG => {
            let mut grows = vec![at(FRESH_SEED, 1, own, config.steps)];
            if config.task.grows_from_centre() {
                grows.push(at(FRESH_SEED, 1, hold_grid(config), config.steps));
            }
            let held = hold_factors(config.task)
                .iter()
                .map(|&factor| holds(at(FRESH_SEED, 1, hold_grid(config), factor * config.steps)));
            let regrows = Probe {
                measure: Measure::Regrows,
                damage: Some(regrowth_damage(config)),
                ..at(
                    FRESH_SEED,
                    1,
                    hold_grid(config),
                    REGROWTH_FACTOR * config.steps,
                )
            };
            grows.into_iter().chain(held).chain([regrows]).collect()
        }
    }
}

/// The factors on the task's steps at which a grown pattern must still be right to hold:
/// twice and four times for a pattern grown from the centre; twice for the coloured G,
/// whose default recipe was measured against that definition and keeps it.
pub fn hold_factors(task: TaskKind) -> &'static [usize] {
    match task.grows_from_centre() {
        true => &[2, 4],
        false => &[2],
    }
}

/// The factor on the task's steps at which a damaged pattern must be right again.
pub const REGROWTH_FACTOR: usize = 4;

/// The paper's damage to a grown pattern, on its [`hold_grid`]: a centred block of half
/// the training grid's side (at most the paper's 20) zeroed after each step from the
/// task's to twice it, so that it must grow back within the next twice the task's steps.
pub fn regrowth_damage(config: &ModelConfig) -> Damage {
    damage_of_side(config, PAPER_BLOCK)
}

/// The side of the paper's healing block.
pub const PAPER_BLOCK: usize = 20;

/// [`regrowth_damage`] with a block of at most `block` a side (`logicars check --block`).
pub fn damage_of_side(config: &ModelConfig, block: usize) -> Damage {
    let side = block.min(config.height / 2).min(config.width / 2).max(1);
    let (h, w) = hold_grid(config);
    Damage::centred(side, side, config.steps, 2 * config.steps, h, w)
        .expect("half the training grid fits its hold grid")
}

/// The grid on which a grown pattern is held: for one grown from the centre, twice its
/// training grid's side, where it has room (neither its growth nor anything it sends out
/// meets itself across the border within the training steps); the coloured G's own grid,
/// whose border is part of its drawing.
pub fn hold_grid(config: &ModelConfig) -> (usize, usize) {
    match config.task.grows_from_centre() {
        true => (2 * config.height, 2 * config.width),
        false => (config.height, config.width),
    }
}

/// [`LARGE_FACTOR`] times `side`, or the next side that differs from it by a multiple of
/// 4 (the checkerboard's period): 16 gives 64, 14 gives 58.
pub fn larger_side(side: usize) -> usize {
    let grown = LARGE_FACTOR * side;
    grown + (4 - (grown - side) % 4) % 4
}

/// How a model did on one probe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeScore {
    pub probe: Probe,
    pub wrong: f64,
    pub bits: f64,
}

/// What [`fresh_check`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct FreshCheck {
    /// Whether the inputs were every input the task has (then there are no probes).
    pub every_input: bool,
    /// The inputs scored: every input, or the grids of all probes.
    pub grids: usize,
    /// The probes scored, in order (a check that stops at the first wrong one has fewer).
    pub scores: Vec<ProbeScore>,
    /// The measure the model must pass to be exact ([`CRITERION`]).
    pub criterion: Measure,
    /// The share of target bits right over the probes of the criterion.
    pub accuracy: f64,
}

impl FreshCheck {
    /// Every bit of the criterion's probes right: the model is exact.
    pub fn exact(&self) -> bool {
        self.accuracy == 1.0
    }

    /// Whether every probe of `measure` and of the measures before it is right (every
    /// measure of a task checked on all its inputs is its exactness). *Regrows* counts
    /// its own probe alone: a rule may heal a pattern it does not hold.
    pub fn passes(&self, measure: Measure) -> bool {
        let counts = |m: Measure| match measure {
            Measure::Regrows => m == Measure::Regrows,
            _ => m <= measure,
        };
        match self.every_input {
            true => self.exact(),
            false => self
                .scores
                .iter()
                .filter(|s| counts(s.probe.measure))
                .all(|s| s.wrong == 0.0),
        }
    }

    /// Whether the check scored `measure` (a check that stops early has not).
    pub fn scored(&self, measure: Measure) -> bool {
        self.scores.iter().any(|s| s.probe.measure == measure)
    }

    /// Whether the task grows a pattern, so that *grows* and *holds* differ.
    pub fn has_holds(&self) -> bool {
        self.scores
            .iter()
            .any(|s| s.probe.measure == Measure::Holds)
    }
}

/// Scores `model` on every input its task has, where there are few enough, or else on
/// each of its [`probes`].
pub fn fresh_check(model: &Model) -> FreshCheck {
    check(model, false)
}

/// Whether `model` is exact, stopping at the first probe it gets wrong (cheapest first):
/// for checks during training.
pub fn is_exact(model: &Model) -> bool {
    check(model, true).exact()
}

fn check(model: &Model, stop_at_wrong: bool) -> FreshCheck {
    let model = &with_every_transition(model);
    if let Some(init) = tasks::exhaustive_init(&model.config) {
        return FreshCheck {
            every_input: true,
            grids: init.batch,
            scores: Vec::new(),
            criterion: CRITERION,
            accuracy: accuracy_on(model, &init),
        };
    }
    let criterion = CRITERION;
    let mut scores = Vec::new();
    for probe in probes(&model.config) {
        if stop_at_wrong && probe.measure > criterion {
            break;
        }
        let score = score_probe(model, probe);
        scores.push(score);
        if stop_at_wrong && score.wrong > 0.0 {
            break;
        }
    }
    let counted = scores.iter().filter(|s| s.probe.measure <= criterion);
    let wrong: f64 = counted.clone().map(|s| s.wrong).sum();
    let bits: f64 = counted.map(|s| s.bits).sum();
    FreshCheck {
        every_input: false,
        grids: scores.iter().map(|s| s.probe.batch).sum(),
        criterion,
        accuracy: 1.0 - wrong / bits,
        scores,
    }
}

/// Scores one probe, a few grids at a time: the hard rollout's memory grows with the
/// grids, and a training run checks its model while it still holds its own buffers.
pub(crate) fn score_probe(model: &Model, probe: Probe) -> ProbeScore {
    let c = &model.config;
    let mut rng = ChaCha8Rng::seed_from_u64(probe.seed);
    let (init, masks) = tasks::eval_batch(c, probe.batch, probe.size, probe.steps, &mut rng);
    if let Some(damage) = &probe.damage {
        let (wrong, _) = score_damaged(model, &init, probe.steps, masks.as_ref(), damage, |_| {});
        let (h, w) = probe.size;
        let bits = (probe.batch * h * w * c.target_channels.len()) as f64;
        return ProbeScore { probe, wrong, bits };
    }
    let at_once = GRIDS_AT_ONCE.min(probe.batch);
    let mut hard = HardEvaluator::new(model, at_once, probe.size, probe.steps);
    let masks = masks.map(|m| m.for_batch(at_once));
    let wrong: f64 = (0..probe.batch)
        .step_by(at_once)
        .map(|first| {
            let grids = init.sub_batch(first, at_once);
            hard.score(&grids, masks.as_ref(), |_| {}).0
        })
        .sum();
    let (h, w) = probe.size;
    ProbeScore {
        probe,
        wrong,
        bits: (probe.batch * h * w * c.target_channels.len()) as f64,
    }
}

/// Grids per rollout of a probe; they divide every probe's batch.
const GRIDS_AT_ONCE: usize = 2;
const _: () = assert!(FRESH_GRIDS.is_multiple_of(GRIDS_AT_ONCE));
const _: () = assert!(LARGE_GRIDS.is_multiple_of(GRIDS_AT_ONCE));

/// The share of target bits right over every input the task has, where there are few
/// enough to try them all (Game of Life's 512 boards); none for other tasks.
pub fn every_input_accuracy(model: &Model) -> Option<f64> {
    Some(accuracy_on(model, &tasks::exhaustive_init(&model.config)?))
}

/// Whether the model is right on every input the task has, where there are few enough
/// to try them all (a rule's boards, Game of Life's 512); true for other tasks. The
/// boards go in pieces, stopping at the first piece with a wrong cell: during training
/// most models asked are wrong early, and a 4-state rule has 262,144 boards. The pieces
/// share one evaluator: a training run asks at many epochs, and the circuit's rows for a
/// piece are megabytes that a fresh allocation would fault in each time.
pub fn all_boards_right(model: &Model) -> bool {
    let Some(count) = tasks::exhaustive_count(&model.config) else {
        return true;
    };
    let (config, steps) = (&model.config, model.config.steps);
    let shape = (config.height, config.width);
    let piece = BOARDS_AT_ONCE.min(count);
    let mut evaluator = HardEvaluator::new(model, piece, shape, steps);
    (0..count).step_by(piece).all(|first| {
        let boards = tasks::exhaustive_boards(config, first..(first + piece).min(count));
        if boards.batch != piece {
            // The last piece, shorter.
            evaluator = HardEvaluator::new(model, boards.batch, shape, steps);
        }
        evaluator.score(&boards, None, |_| {}).1 == 1.0
    })
}

/// Boards per piece of [`all_boards_right`]: about 8 MB of circuit rows for a 4-state
/// rule's model.
const BOARDS_AT_ONCE: usize = 1024;

/// The model as the fresh check tries it: a rule learned from a recording is tried on
/// every neighbourhood the recording showed, its held-out transitions' included (right on
/// all of them, it gives every held-out frame's next frame).
fn with_every_transition(model: &Model) -> Cow<'_, Model> {
    match &model.config.observed {
        Some(observed) => {
            let mut model = model.clone();
            model.config.observed = Some(observed.every_transition());
            Cow::Owned(model)
        }
        None => Cow::Borrowed(model),
    }
}

/// The hard circuit's accuracy on `init` at the task's steps (a synchronous task).
fn accuracy_on(model: &Model, init: &Grids) -> f64 {
    let shape = (init.height, init.width);
    let steps = model.config.steps;
    HardEvaluator::new(model, init.batch, shape, steps)
        .score(init, None, |_| {})
        .1
}

#[cfg(test)]
mod tests;
