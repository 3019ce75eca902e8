//! How a model is trained beyond its task's hyperparameters: the gate parametrization,
//! the initialisation and the optimizer's schedule. Recorded in the model file.

mod schedule;

use serde::{Deserialize, Serialize};

use crate::model::parametrization::Parametrization;
use crate::model::task::TaskKind;

/// The named recipes; flags can change any field afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecipeName {
    /// The paper's notebook exactly: softmax gates, pass-through logit 10, AdamW with
    /// weight decay 0.01, constant learning rate.
    Paper,
    /// Input-wise gates (a sigmoid per input pair) with the paper's other settings.
    InputWise,
    /// The settings measured to converge most often on each task (`docs/recipes.md`):
    /// the checkerboard with input-wise gates, weight decay 0.1, smaller grids first and
    /// four starts chosen among at their end, Game of Life with a share of hard gates,
    /// the coloured G with 70% hard gates, 15 hold steps and 8-step rollouts first; the
    /// others as the paper.
    Converge,
}

impl RecipeName {
    pub const ALL: [RecipeName; 3] = [
        RecipeName::Converge,
        RecipeName::Paper,
        RecipeName::InputWise,
    ];

    /// The recipe of a run that names none.
    pub const DEFAULT: RecipeName = RecipeName::Converge;

    pub fn name(self) -> &'static str {
        match self {
            RecipeName::Paper => "paper",
            RecipeName::InputWise => "input-wise",
            RecipeName::Converge => "converge",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }

    pub fn summary(self) -> &'static str {
        match self {
            RecipeName::Paper => "the paper's notebook exactly (softmax over 16 ops per gate)",
            RecipeName::InputWise => "input-wise gates: a sigmoid per input pair, 4 per gate",
            RecipeName::Converge => "the settings that converge most often on each task (default)",
        }
    }
}

/// A recipe's settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// The recipe these settings started from.
    pub name: RecipeName,
    pub parametrization: Parametrization,
    /// How strongly a fresh gate passes its first input through
    /// ([`Parametrization::pass_through`]).
    pub pass_through: f32,
    /// Perception kernels, the first ones, whose gates start as XOR rather than
    /// pass-through ([`crate::model::network::Model::start_parity_kernels`]): each then
    /// starts out computing the parity of the neighbours (0: none). Parity is what no
    /// gradient finds from pass-through gates: no part of it smaller than the whole
    /// predicts it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub parity_kernels: usize,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
    /// AdamW's epsilon: gradients far below it barely move a parameter.
    #[serde(default = "adam_epsilon")]
    pub epsilon: f32,
    /// Epochs over which the learning rate rises linearly to its value (0: none).
    pub warmup: usize,
    /// Decay the learning rate to a tenth along a half cosine over the run.
    pub cosine: bool,
    /// Weight `lambda` of the penalty on gates that are not yet one op
    /// ([`Parametrization::discreteness`]), added to the loss per gate (0: none).
    #[serde(default)]
    pub discreteness: f32,
    /// Share of the run, at its end, whose steps run the hard circuit forward and take
    /// gradients through the relaxation (straight-through; 0: none, 1: the whole run).
    #[serde(default)]
    pub straight_through: f32,
    /// Share of the run, before the straight-through share, over which the forward
    /// moves linearly from the soft gates to the hard ops (0: switch at once).
    #[serde(default)]
    pub hardening: f32,
    /// The soft loss is summed over the states after the last this many steps (1: the
    /// last state only, as the paper).
    #[serde(default = "one")]
    pub loss_steps: usize,
    /// Scale of the noise added to every gate's parameters, drawn afresh each epoch,
    /// before the soft rollout ([`Parametrization::noise`]; 0: none). With a
    /// straight-through forward each epoch trains one circuit sampled from the soft gates.
    #[serde(default)]
    pub gate_noise: f32,
    /// Factor on the gates' parameters in the soft rollout, rising geometrically from 1
    /// at the first epoch to this at the last: a softmax (or sigmoid) temperature that
    /// falls from 1 to its inverse, so the soft gates approach the hard ops (1: none).
    #[serde(default = "unit")]
    pub sharpen: f32,
    /// Share of the gates, drawn afresh each epoch, that run their hard op in the soft
    /// rollout (straight-through for those gates) while the rest stay soft, so the soft
    /// circuit learns to work with any of its gates discrete (0: none).
    #[serde(default)]
    pub hard_gates: f32,
    /// Side of the square grids that the first [`curriculum_share`](Self::curriculum_share)
    /// of the run trains on before the task's own size (0: none). A rule that builds the
    /// pattern from the corners is found far sooner where the corners are near.
    #[serde(default)]
    pub curriculum_size: usize,
    /// Steps of the rollouts that the first [`curriculum_share`](Self::curriculum_share)
    /// of the run trains on, fewer than the task's (0: the task's). For the growing
    /// tasks, whose grid has one size: a shorter rollout is cheaper and its gradient
    /// passes through fewer steps, and a pattern drawn early is then held to the task's
    /// step by the rest of the run.
    #[serde(default)]
    pub curriculum_steps: usize,
    /// Share of the run, at its start, that trains on the curriculum's smaller grids
    /// (or shorter rollouts).
    #[serde(default)]
    pub curriculum_share: f32,
    /// Run the curriculum's rollouts synchronously, every cell updating each step
    /// (asynchronous tasks only). The synchronous checkerboard is learned on most seeds;
    /// a rule found that way may then only have to learn to wait for slow neighbours.
    #[serde(default)]
    pub curriculum_sync: bool,
    /// During the curriculum, train every other epoch (the even ones) on the task's own
    /// grids: a rule that must hold the lizard both on its wrapping 20x20 grid and where
    /// it has room learns from both in turn, with one optimizer state.
    #[serde(default, skip_serializing_if = "is_false")]
    pub curriculum_alternate: bool,
    /// Side of the square grids that an attempt trains on once its batch is right, for
    /// the rest of its epochs (0: none; tasks grown from the centre, larger than the
    /// task's grid). On such a grid the pattern grows with no wrap for a rule to lean on,
    /// as on the larger grids of the exact check; the kept model is still chosen on the
    /// task's grid.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub finish_size: usize,
    /// Models, each wired and initialised from its own seed, that train side by side
    /// through the curriculum; the run goes on with the one that leads at its end, or
    /// with the first whose hard circuit is perfect before then (1: the run's own only).
    /// Whether a run leaves the plateau where every output is 0.5 in time is set by its
    /// wiring and initial parameters, and shows by the curriculum's end.
    #[serde(default = "one")]
    pub starts: usize,
    /// Share of the run after which it chooses among its starts (0: at the curriculum's
    /// end). Without a curriculum the starts are compared at the task's own size: what
    /// tells a good start from a bad one (a lower soft loss) shows long before the end.
    #[serde(default)]
    pub starts_share: f32,
    /// Steps the rollout runs on after the task's, over which the target must hold: the
    /// soft loss is summed over every state from the task's step to the last (0: none).
    /// A pattern trained at one step only is often right at that step alone.
    #[serde(default)]
    pub hold_steps: usize,
    /// Share of the run after which the hold steps apply (0: from the start). Before it
    /// the rollout stops at the task's step: the pattern is learned first, at the cost
    /// of the shorter rollout, and made to persist after.
    #[serde(default)]
    pub hold_from: f32,
    /// Weight of a term of the soft loss that asks the hidden channels to stay still
    /// from each state the loss sums to the next (0: none). The hold steps ask only the
    /// target channels to stay right, and a rule can pass them with hidden channels
    /// still on the move, which then spoil the pattern a few steps later; a state that
    /// is still in every channel is kept for good.
    #[serde(default)]
    pub stillness: f32,
    /// Weight of the target's on bits in the soft loss: the squared error of a bit the
    /// target wants on counts this many times (1: the notebook's loss). A drawing with
    /// few cells on, on a grid with room around it, is mostly off bits; the squared loss
    /// then pays a rule that leaves every cell off, and large drawings can stay there.
    #[serde(default = "unit")]
    pub on_weight: f32,
    /// Draw the asynchronous fire masks per grid of the batch, not one draw the grids
    /// share (the notebook's, which trains with one grid), so that a batch of several
    /// grids trains under several masks.
    #[serde(default)]
    pub per_grid_masks: bool,
    /// Clamp every soft state to [0, 1], the gradient passed through unchanged: f32
    /// rounding leaves soft states a few ulps outside it, which a circuit rolled out
    /// past the steps it was trained on (a late hold) can amplify until it overflows.
    #[serde(default)]
    pub unit_states: bool,
    /// The most candidate circuits a search over single gate changes rolls out after the
    /// last epoch, when the kept model is not exact ([`crate::train::gate_search`];
    /// growing tasks only; 0: none).
    #[serde(default)]
    pub search_circuits: usize,
    /// The search's setting in files written before it had a budget (it counted passes
    /// over the gates): read so that those files load, and otherwise unused.
    #[serde(default, rename = "gate_search", skip_serializing)]
    pub gate_search_passes: usize,
    /// The update layers, counted from the last, whose gates the search also rewires
    /// where no other op lowers the count (0: ops only).
    #[serde(default)]
    pub rewire_layers: usize,
    /// Attempts a run may make: when an attempt's kept model is not exact at its end,
    /// the run trains again from the next attempt's seed
    /// ([`crate::train::attempts`]; 1: one attempt, the run as it always was).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub attempts: usize,
    /// Epochs without a new lowest hard loss (counted after the curriculum, or within a
    /// hold that begins inside the run) after which an attempt that is not the run's last
    /// stops and gives its time to the next (0: never).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stall: usize,
    /// An attempt that is not the run's last ends before its
    /// [give-up epoch](Self::give_up_epoch) unless its hard loss has been below this many
    /// target bits at some epoch before:
    /// an attempt that is still far from its target when the hold begins seldom ends
    /// exact, and the later epochs cost the most (0: never).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub give_up: usize,
    /// States in the sample pool ([`crate::train::pool`]; growing tasks only; 0: none,
    /// every batch starts from the seed).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pool: usize,
    /// Of each batch drawn from the pool, the states farthest from the target that the
    /// seed replaces.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub pool_reseed: usize,
    /// Of each batch drawn from the pool, the states nearest the target that get a block
    /// of half the grid's side zeroed before training.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pool_damage: usize,
    /// Share of the run after which batches come from the pool (0: from the start).
    /// Before it every batch starts from the seed: the pattern is learned to grow
    /// first, and to be kept after, as [`Self::hold_from`] does for the hold steps.
    #[serde(default, skip_serializing_if = "is_zero_share")]
    pub pool_from: f32,
}

/// The side of the `converge` recipe's curriculum: the largest square that sees the task's
/// pattern as the grid does (0: none fits), of at most half the grid's side for the
/// synchronous checkerboard. The asynchronous one takes the next side down: a rule
/// learned on much smaller grids under random firing does not carry over (on 6x6 its
/// soft loss reaches 0.03 and its 14x14 batch stays 80 bits wrong).
fn curriculum_side(task: TaskKind, height: usize, width: usize) -> usize {
    let largest = match task {
        TaskKind::CheckerboardAsync => height.min(width),
        _ => height.min(width) / 2,
    };
    (1..=largest)
        .rev()
        .find(|&s| task.shrinks_to((height, width), s))
        .unwrap_or(0)
}

/// The `converge` recipe's budget of attempts for `task`: enough that a run ends exact
/// from nine seeds in ten at the rate one attempt measures (`docs/recipes.md`, "Attempts"):
/// about 0.94 for the checkerboard, 1 for Game of Life, 0.4 to 0.55 for the asynchronous
/// checkerboard and 0.65 for the coloured G. A larger budget costs nothing to a run whose
/// early attempt is exact; it only bounds the time of the rare run that finds none. The
/// pattern's and the lizard's: one attempt is exact about half the time on the untuned
/// 16x16 glyphs and a quarter of the time on the lizard, so 6 attempts end exact on about
/// 98% and 82% of runs (eight in ten asked for); a run that finds none then takes about
/// 15 minutes at 16x16, 27 on the lizard and most of 1.5 hours at 32x32. A rule's
/// attempts are seconds each and its rate 0.4 to 1 on the Life-like rules measured
/// (`docs/recipes.md`, "Any rule").
fn attempts_for(task: TaskKind) -> usize {
    match task {
        TaskKind::Checkerboard => 3,
        TaskKind::Gol => 2,
        TaskKind::Rule => 6,
        TaskKind::CheckerboardAsync => 8,
        TaskKind::ColoredG => 5,
        TaskKind::Pattern | TaskKind::Lizard => 6,
    }
}

/// The `converge` recipe's parity kernels: one for `rule`, where the parity rules
/// (Replicator, Fredkin) are learned from it and the rules measured lose little time to
/// it (`docs/recipes.md`, "Any rule"); `gol` keeps the paper's initialisation.
fn parity_kernels_for(task: TaskKind) -> usize {
    match task {
        TaskKind::Rule => 1,
        _ => 0,
    }
}

fn unit() -> f32 {
    1.0
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

fn is_zero_share(x: &f32) -> bool {
    *x == 0.0
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn adam_epsilon() -> f32 {
    1e-8
}

impl Recipe {
    /// The recipe `name` for a model of `task` on grids of `height x width` (the
    /// `converge` recipe differs by task).
    pub fn named(name: RecipeName, task: TaskKind, (height, width): (usize, usize)) -> Self {
        let paper = Self::papers(name);
        let input_wise = Recipe {
            parametrization: Parametrization::InputWise,
            pass_through: Parametrization::InputWise.default_pass_through(),
            ..paper
        };
        match (name, task) {
            (RecipeName::Paper, _) => paper,
            (RecipeName::InputWise, _) => input_wise,
            (RecipeName::Converge, TaskKind::Checkerboard | TaskKind::CheckerboardAsync) => {
                let side = curriculum_side(task, height, width);
                Recipe {
                    weight_decay: 0.1,
                    curriculum_size: side,
                    curriculum_share: 0.4,
                    // The starts are chosen among at the curriculum's end.
                    starts: if side > 0 { 4 } else { 1 },
                    attempts: attempts_for(task),
                    // An asynchronous attempt that will not be exact shows it: its hard
                    // loss stops falling (often at 0 on its one grid) long before its end.
                    stall: if task == TaskKind::CheckerboardAsync {
                        150
                    } else {
                        0
                    },
                    ..input_wise
                }
            }
            (RecipeName::Converge, TaskKind::Gol | TaskKind::Rule) => Recipe {
                hard_gates: 0.3,
                attempts: attempts_for(task),
                parity_kernels: parity_kernels_for(task),
                ..paper
            },
            // Hard gates draw the G; fifteen steps past its fifteen keep it there; rollouts
            // of 8 steps over the first 30% of the run find it sooner; a search after the
            // last epoch, in about what the 2x bound on a run's cost leaves, finishes some
            // runs that end a few bits off.
            (RecipeName::Converge, TaskKind::ColoredG) => Recipe {
                hard_gates: 0.7,
                hold_steps: 15,
                curriculum_steps: 8,
                curriculum_share: 0.3,
                search_circuits: 15_000,
                rewire_layers: 2,
                attempts: attempts_for(task),
                ..paper
            },
            // Half the gates hard draws a glyph as it draws the lizard. Fitted to the
            // target (`tasks::pattern_geometry`), the loss asks for the drawing at every
            // state from the first that can draw it (the loss steps), so the spare steps
            // are a hold learned from the first epoch; over the last two thirds of the run
            // the rollout goes on for as many steps again (the hold steps), so that the
            // pattern stays; the search finishes attempts that end a few bits off. On its
            // grid the pattern has room, so it needs no finish grid. The lizard is grown
            // and kept as any pattern is: trained on the paper's 20x20 torus for its 12
            // steps alone, it grew in about one attempt in six and faded after
            // (`docs/recipes.md`, "Lizard").
            (RecipeName::Converge, TaskKind::Pattern | TaskKind::Lizard) => Recipe {
                hard_gates: 0.5,
                hold_from: 0.3333,
                search_circuits: 15_000,
                rewire_layers: 2,
                attempts: attempts_for(task),
                ..paper
            },
        }
    }

    /// Whether this recipe's hold steps are its model's steps and its grid is fitted to
    /// its target (`tasks::pattern_geometry`): the `converge` recipe of the tasks grown
    /// from a centre cell, the pattern and the lizard.
    pub fn holds_as_long_as_it_grows(&self, task: TaskKind) -> bool {
        self.name == RecipeName::Converge && task.grows_from_centre()
    }

    /// The paper's settings, under `name`: every recipe starts from them.
    fn papers(name: RecipeName) -> Self {
        Recipe {
            name,
            parametrization: Parametrization::Softmax,
            pass_through: Parametrization::Softmax.default_pass_through(),
            parity_kernels: 0,
            weight_decay: 0.01,
            epsilon: adam_epsilon(),
            warmup: 0,
            cosine: false,
            discreteness: 0.0,
            straight_through: 0.0,
            hardening: 0.0,
            loss_steps: 1,
            gate_noise: 0.0,
            sharpen: unit(),
            hard_gates: 0.0,
            curriculum_size: 0,
            curriculum_steps: 0,
            curriculum_share: 0.0,
            curriculum_sync: false,
            curriculum_alternate: false,
            finish_size: 0,
            starts: 1,
            starts_share: 0.0,
            hold_steps: 0,
            hold_from: 0.0,
            stillness: 0.0,
            on_weight: unit(),
            per_grid_masks: false,
            unit_states: false,
            search_circuits: 0,
            gate_search_passes: 0,
            rewire_layers: 0,
            attempts: 1,
            stall: 0,
            give_up: 0,
            pool: 0,
            pool_reseed: 1,
            pool_damage: 0,
            pool_from: 0.0,
        }
    }
}

#[cfg(test)]
mod tests;
