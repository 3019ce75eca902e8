//! The training knobs: every setting of a preset that `logicars train` takes as a flag
//! (`--lr 0.1`) and `logicars sweep --set` as `key=value` (`lr=0.1`), each defined once
//! in [`KNOBS`]. The flags, the `--set` keys, their help and `docs/knobs.md` all come from
//! that table, and so does each knob's range: [`validate`] judges the values of a run once,
//! wherever they came from.

use std::fmt;
use std::str::FromStr;

use crate::error::{ConfigError, OverrideError};
use crate::model::ca_rule::{CaRule, MAX_STATES};
use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::parametrization::Parametrization;
use crate::model::recipe::RecipeName;
use crate::model::task::TaskKind;
use crate::tasks::use_rule;

#[cfg(test)]
mod tests;

/// A field of a preset that a knob sets, reached through the model and its training.
pub type Field<T> = for<'a> fn(&'a mut ModelConfig, &'a mut TrainSettings) -> &'a mut T;

/// What a knob sets, and so which values it takes.
#[derive(Clone, Copy)]
pub enum Target {
    /// A whole number.
    Count(Field<usize>),
    /// A number (`f32`).
    Number(Field<f32>),
    /// `true` or `false`.
    Switch(Field<bool>),
    /// A whole recipe, made for the model's task and grid; apply it before the recipe's
    /// fields.
    Recipe,
    /// How gates are parametrized; also resets the pass-through strength to the
    /// parametrization's default.
    Parametrization,
    /// The rule a `rule` model learns; also sets its channels and widths ([`use_rule`]).
    Rule,
}

/// One training knob: its `--set` key (also its `train` flag, `--KEY`), the name of its
/// value in `--help`, its help (one sentence, without a closing period, as `--help`
/// shows it), the field it sets and the values it accepts.
#[derive(Clone, Copy)]
pub struct Knob {
    pub key: &'static str,
    pub value_name: &'static str,
    pub help: &'static str,
    pub target: Target,
    pub range: Range,
}

/// The values of its kind a knob accepts. No range holds NaN or an infinity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// Every value of its kind: a switch, a name, a whole number from 0.
    Any,
    /// A whole number from 1.
    AtLeastOne,
    /// A finite number from 0.
    AtLeastZero,
    /// A finite number above 0.
    AboveZero,
    /// A number from 0 to 1: a share of the run's epochs.
    ShareOfRun,
    /// A number from 0 to 1: a share of the gates.
    ShareOfGates,
}

impl Range {
    /// The range as errors and docs/knobs.md name it.
    pub fn describe(self) -> &'static str {
        match self {
            Range::Any => "any",
            Range::AtLeastOne => "at least 1",
            Range::AtLeastZero => "a finite number from 0",
            Range::AboveZero => "a finite number above 0",
            Range::ShareOfRun => "a share of the run from 0 to 1",
            Range::ShareOfGates => "a share of the gates from 0 to 1",
        }
    }

    /// Whether the range holds `value`.
    pub fn admits(self, value: KnobValue) -> bool {
        let number = match value {
            KnobValue::Count(n) => return self != Range::AtLeastOne || n >= 1,
            KnobValue::Number(x) => x,
            _ => return true,
        };
        number.is_finite()
            && match self {
                Range::Any => true,
                Range::AtLeastOne => number >= 1.0,
                Range::AtLeastZero => number >= 0.0,
                Range::AboveZero => number > 0.0,
                Range::ShareOfRun | Range::ShareOfGates => (0.0..=1.0).contains(&number),
            }
    }
}

/// Checks every setting of a run, wherever it came from (`train` flags, `sweep --set`, a
/// model file's training block), so that all refuse the same value with the same line:
/// first each knob's range, in table order, then what the recipe asks of the task.
pub fn validate(config: &ModelConfig, settings: &TrainSettings) -> Result<(), ConfigError> {
    for knob in KNOBS {
        let value = knob.value(config, settings);
        if !knob.range.admits(value) {
            return Err(ConfigError::OutOfRange {
                what: knob.key,
                expected: knob.range.describe(),
                got: value.to_string(),
            });
        }
    }
    settings.validate_combination(config)
}

/// A knob's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KnobValue {
    Count(usize),
    Number(f32),
    Switch(bool),
    Recipe(RecipeName),
    Parametrization(Parametrization),
    /// A rule (`None` for a task that learns none).
    Rule(Option<CaRule>),
}

/// Every training knob, in the order the `train` flags apply (a recipe before its fields,
/// the parametrization before the pass-through it resets).
pub static KNOBS: &[Knob] = &[
    Knob {
        key: "epochs",
        value_name: "EPOCHS",
        help: "Epochs (optimizer steps) [default: the preset's]",
        target: Target::Count(|_, s| &mut s.epochs),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "batch",
        value_name: "BATCH",
        help: "Grids per batch [default: the preset's]",
        target: Target::Count(|_, s| &mut s.batch),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "lr",
        value_name: "LR",
        help: "Learning rate [default: the preset's]",
        target: Target::Number(|_, s| &mut s.learning_rate),
        range: Range::AboveZero,
    },
    Knob {
        key: "steps",
        value_name: "STEPS",
        help: "Steps per rollout [default: the preset's]",
        target: Target::Count(|c, _| &mut c.steps),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "periodic",
        value_name: "PERIODIC",
        help: "Wrap around at the border, true or false [default: the preset's]",
        target: Target::Switch(|c, _| &mut c.periodic),
        range: Range::Any,
    },
    Knob {
        key: "recipe",
        value_name: "RECIPE",
        help: "The training recipe [default: converge]; the flags below change single fields \
               of it",
        target: Target::Recipe,
        range: Range::Any,
    },
    Knob {
        key: "parametrization",
        value_name: "PARAMETRIZATION",
        help: "How gates are parametrized: softmax (16 op logits) or input-wise (4 corner \
               logits) [default: the recipe's]",
        target: Target::Parametrization,
        range: Range::Any,
    },
    Knob {
        key: "pass-through",
        value_name: "PASS_THROUGH",
        help: "Pass-through strength of fresh gates [default: the parametrization's: 10 for \
               softmax, 3 for input-wise]",
        target: Target::Number(|_, s| &mut s.recipe.pass_through),
        range: Range::AtLeastZero,
    },
    Knob {
        key: "weight-decay",
        value_name: "WEIGHT_DECAY",
        help: "AdamW's decoupled weight decay [default: the recipe's, 0.01]",
        target: Target::Number(|_, s| &mut s.recipe.weight_decay),
        range: Range::AtLeastZero,
    },
    Knob {
        key: "epsilon",
        value_name: "EPSILON",
        help: "AdamW's epsilon [default: the recipe's, 1e-8]",
        target: Target::Number(|_, s| &mut s.recipe.epsilon),
        range: Range::AboveZero,
    },
    Knob {
        key: "warmup",
        value_name: "WARMUP",
        help: "Epochs of linear learning-rate warm-up [default: the recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.warmup),
        range: Range::Any,
    },
    Knob {
        key: "cosine",
        value_name: "COSINE",
        help: "Decay the learning rate to a tenth along a half cosine, true or false \
               [default: the recipe's, false]",
        target: Target::Switch(|_, s| &mut s.recipe.cosine),
        range: Range::Any,
    },
    Knob {
        key: "discreteness",
        value_name: "DISCRETENESS",
        help: "Weight of the penalty on gates that are not yet one op, which closes the gap \
               between soft and hard loss [default: the recipe's]",
        target: Target::Number(|_, s| &mut s.recipe.discreteness),
        range: Range::AtLeastZero,
    },
    Knob {
        key: "straight-through",
        value_name: "SHARE",
        help: "Share of the run, at its end, that runs the hard circuit forward and takes \
               gradients through the soft gates (straight-through), 0 to 1 [default: the \
               recipe's]",
        target: Target::Number(|_, s| &mut s.recipe.straight_through),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "hardening",
        value_name: "SHARE",
        help: "Share of the run, before the straight-through share, over which the forward \
               moves linearly from the soft gates to the hard ops, 0 to 1 [default: the \
               recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.hardening),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "loss-steps",
        value_name: "K",
        help: "Sum the soft loss over the states after the last K steps, not only the last \
               [default: the recipe's, 1]",
        target: Target::Count(|_, s| &mut s.recipe.loss_steps),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "gate-noise",
        value_name: "SCALE",
        help: "Scale of the noise added to every gate's parameters each epoch (Gumbel for \
               softmax gates, logistic for input-wise ones); with --straight-through 1 each \
               epoch trains one sampled circuit [default: the recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.gate_noise),
        range: Range::AtLeastZero,
    },
    Knob {
        key: "sharpen",
        value_name: "FACTOR",
        help: "Multiply the gates' parameters in the soft rollout by a factor rising from 1 \
               to FACTOR over the run (a temperature falling to 1/FACTOR), so the soft gates \
               approach the hard ops [default: the recipe's, 1]",
        target: Target::Number(|_, s| &mut s.recipe.sharpen),
        range: Range::AboveZero,
    },
    Knob {
        key: "hard-gates",
        value_name: "SHARE",
        help: "Share of the gates, drawn afresh each epoch, that run their hard op in the \
               soft rollout (straight-through) while the rest stay soft [default: the \
               recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.hard_gates),
        range: Range::ShareOfGates,
    },
    Knob {
        key: "hold-steps",
        value_name: "K",
        help: "Run the rollout K steps past the task's and sum the soft loss over every \
               state from the task's step on, so the target must hold; the hard loss counts \
               the wrong bits at the task's step and at the end (not gol) [default: the \
               recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.hold_steps),
        range: Range::Any,
    },
    Knob {
        key: "hold-from",
        value_name: "SHARE",
        help: "Share of the run after which the --hold-steps apply, 0 to 1; before it the \
               rollout stops at the task's step [default: the recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.hold_from),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "stillness",
        value_name: "WEIGHT",
        help: "Add to the soft loss WEIGHT times the squared change of the channels the \
               target does not name between consecutive states it sums (the hold steps), \
               so that a held pattern is a state that stays [default: the recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.stillness),
        range: Range::AtLeastZero,
    },
    Knob {
        key: "on-weight",
        value_name: "WEIGHT",
        help: "Count the squared error of every bit the target wants on WEIGHT times in \
               the soft loss, so that leaving every cell off pays less on a drawing that \
               is mostly empty [default: the recipe's, 1]",
        target: Target::Number(|_, s| &mut s.recipe.on_weight),
        range: Range::AboveZero,
    },
    Knob {
        key: "per-grid-masks",
        value_name: "PER_GRID",
        help: "Draw the asynchronous fire masks per grid of the batch, true or false, \
               rather than one draw every grid shares [default: the recipe's, false]",
        target: Target::Switch(|_, s| &mut s.recipe.per_grid_masks),
        range: Range::Any,
    },
    Knob {
        key: "unit-states",
        value_name: "UNIT",
        help: "Clamp every soft state to [0, 1], true or false, passing the gradient through \
               unchanged, so that f32 rounding cannot grow over a rollout longer than the \
               circuit was trained on [default: the recipe's, false]",
        target: Target::Switch(|_, s| &mut s.recipe.unit_states),
        range: Range::Any,
    },
    Knob {
        key: "curriculum-size",
        value_name: "SIDE",
        help: "Train the first --curriculum-share of the run on square grids of this side, \
               then at the task's size; 0 for none (checkerboard tasks: smaller grids; \
               pattern and lizard: larger ones, the target in their centre, so the rule \
               learns to grow it on an open plane as well as on the task's wrapping grid) \
               [default: the recipe's]",
        target: Target::Count(|_, s| &mut s.recipe.curriculum_size),
        range: Range::Any,
    },
    Knob {
        key: "curriculum-steps",
        value_name: "STEPS",
        help: "Train the first --curriculum-share of the run on rollouts of this many steps, \
               fewer than the task's, then on the task's; 0 for the task's [default: the \
               recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.curriculum_steps),
        range: Range::Any,
    },
    Knob {
        key: "curriculum-share",
        value_name: "SHARE",
        help: "Share of the run, at its start, on the curriculum's smaller grids or shorter \
               rollouts, 0 to 1 [default: the recipe's]",
        target: Target::Number(|_, s| &mut s.recipe.curriculum_share),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "curriculum-sync",
        value_name: "SYNC",
        help: "Run the curriculum's rollouts synchronously, every cell updating each step, \
               true or false; asynchronous tasks only [default: the recipe's, false]",
        target: Target::Switch(|_, s| &mut s.recipe.curriculum_sync),
        range: Range::Any,
    },
    Knob {
        key: "curriculum-alternate",
        value_name: "ALTERNATE",
        help: "During the curriculum, train every other epoch on the task's own grids \
               (odd epochs the curriculum's, even ones the task's), so that a rule learns \
               both with one optimizer; true or false [default: the recipe's, false]",
        target: Target::Switch(|_, s| &mut s.recipe.curriculum_alternate),
        range: Range::Any,
    },
    Knob {
        key: "finish-size",
        value_name: "SIDE",
        help: "Once an attempt's batch is right, train the rest of it on square grids of \
               this side, larger than the task's, the target in their centre (pattern, \
               lizard): there the rule cannot lean on the task's grid wrapping, as the \
               larger grids of the exact check cannot; the kept model is still chosen on \
               the task's grid; 0 for none [default: the recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.finish_size),
        range: Range::Any,
    },
    Knob {
        key: "starts",
        value_name: "N",
        help: "Train this many models, each wired and initialised from its own seed, side by \
               side until --starts-share of the run (or the curriculum's end) and go on with \
               the one that leads then (or the first whose hard circuit is perfect) \
               [default: the recipe's]",
        target: Target::Count(|_, s| &mut s.recipe.starts),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "starts-share",
        value_name: "SHARE",
        help: "Share of the run after which the run chooses among its --starts, 0 to 1; 0: \
               at the curriculum's end [default: the recipe's, 0]",
        target: Target::Number(|_, s| &mut s.recipe.starts_share),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "parity-kernels",
        value_name: "KERNELS",
        help: "Perception kernels (the first ones) whose gates start as XOR rather than \
               pass-through, so that each starts out computing the parity of the \
               neighbours, which no gradient finds from pass-through gates [default: the \
               recipe's: 1 for rule, 0 for the rest]",
        target: Target::Count(|_, s| &mut s.recipe.parity_kernels),
        range: Range::Any,
    },
    Knob {
        key: "search-circuits",
        value_name: "CIRCUITS",
        help: "After the last epoch, if the kept model is not exact, search for single gate \
               changes that get fewer target bits wrong at the task's step and at twice it, \
               trying at most CIRCUITS candidates, those the gradient ranks best first; \
               growing tasks only (their rollouts start from one fixed state) [default: \
               the recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.search_circuits),
        range: Range::Any,
    },
    Knob {
        key: "rewire-layers",
        value_name: "LAYERS",
        help: "In the last LAYERS update layers, the gate search also tries moving an input \
               of a gate to another output of the layer before, ranked with the ops by the \
               change their gradient predicts; needs --search-circuits [default: the \
               recipe's, 0]",
        target: Target::Count(|_, s| &mut s.recipe.rewire_layers),
        range: Range::Any,
    },
    Knob {
        key: "attempts",
        value_name: "N",
        help: "Attempts the run may make: when an attempt's kept model is not exact at its \
               end, train again from a new seed derived from (seed, attempt), and keep the \
               best model of all (exact first); 1: one attempt [default: the recipe's]",
        target: Target::Count(|_, s| &mut s.recipe.attempts),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "attempt",
        value_name: "K",
        help: "The attempt to start at: with --attempts 1, trains attempt K of the seed \
               alone, as the run that reached it trained it [default: 1]",
        target: Target::Count(|_, s| &mut s.attempt),
        range: Range::AtLeastOne,
    },
    Knob {
        key: "stall",
        value_name: "EPOCHS",
        help: "Stop an attempt that is not the run's last once its hard loss has not reached \
               a new low for EPOCHS epochs (counted after the curriculum, or within a hold \
               that begins inside the run), and go on to the next; 0: never [default: the \
               recipe's]",
        target: Target::Count(|_, s| &mut s.recipe.stall),
        range: Range::Any,
    },
    Knob {
        key: "give-up",
        value_name: "BITS",
        help: "End an attempt that is not the run's last when a hold that begins inside the \
               run begins (else half the run) unless its hard loss has been below BITS \
               target bits, and go on to the next: one still far from its target then \
               seldom ends exact; 0: never [default: the recipe's]",
        target: Target::Count(|_, s| &mut s.recipe.give_up),
        range: Range::Any,
    },
    Knob {
        key: "pool",
        value_name: "STATES",
        help: "Train from a sample pool of this many states (growing tasks): each batch is \
               drawn from states the model produced earlier and written back after its \
               rollout, so the rule learns to keep its pattern; 0: every batch from the seed \
               [default: 0]",
        target: Target::Count(|_, s| &mut s.recipe.pool),
        range: Range::Any,
    },
    Knob {
        key: "pool-reseed",
        value_name: "STATES",
        help: "Of each batch drawn from the pool, the states farthest from the target that \
               the seed replaces [default: 1]",
        target: Target::Count(|_, s| &mut s.recipe.pool_reseed),
        range: Range::Any,
    },
    Knob {
        key: "pool-damage",
        value_name: "STATES",
        help: "Of each batch drawn from the pool, the states nearest the target that get a \
               block of half the grid's side zeroed at a random place, so the rule learns \
               to regrow [default: 0]",
        target: Target::Count(|_, s| &mut s.recipe.pool_damage),
        range: Range::Any,
    },
    Knob {
        key: "pool-from",
        value_name: "SHARE",
        help: "Share of the run after which batches come from the --pool, 0 to 1; before \
               it every batch starts from the seed, so the pattern is learned to grow \
               first [default: 0]",
        target: Target::Number(|_, s| &mut s.recipe.pool_from),
        range: Range::ShareOfRun,
    },
    Knob {
        key: "rule",
        value_name: "RULE",
        help: "rule: the rule to learn, B3/S23 (Life-like), B2/S/C3 or 345/2/4 \
               (Generations, at most 4 states), wireworld, or a name such as highlife or \
               brians-brain [default: B3/S23]",
        target: Target::Rule,
        range: Range::Any,
    },
];

impl Knob {
    /// The knob of a `--set` key.
    pub fn named(key: &str) -> Option<&'static Knob> {
        KNOBS.iter().find(|knob| knob.key == key)
    }

    /// This knob set to `text`; only the kind of value is checked here (a number, a
    /// recipe name...), its range by [`validate`]. On error, what was expected.
    pub fn parse(&'static self, text: &str) -> Result<Override, String> {
        let value = match self.target {
            Target::Count(_) => text.parse().ok().map(KnobValue::Count),
            Target::Number(_) => text.parse().ok().map(KnobValue::Number),
            Target::Switch(_) => text.parse().ok().map(KnobValue::Switch),
            Target::Recipe => RecipeName::from_name(text).map(KnobValue::Recipe),
            Target::Parametrization => {
                Parametrization::from_name(text).map(KnobValue::Parametrization)
            }
            Target::Rule if text == "none" => Some(KnobValue::Rule(None)),
            Target::Rule => text.parse().ok().map(|rule| KnobValue::Rule(Some(rule))),
        }
        .ok_or_else(|| self.expected())?;
        Ok(Override { knob: self, value })
    }

    /// The kind of value this knob takes, as in "expected a number".
    pub fn expected(&self) -> String {
        let one_of = |names: &[&str]| match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        match self.target {
            Target::Count(_) => "a whole number".into(),
            Target::Number(_) => "a number".into(),
            Target::Switch(_) => "true or false".into(),
            Target::Recipe => one_of(&RecipeName::ALL.map(RecipeName::name)),
            Target::Parametrization => one_of(&Parametrization::ALL.map(Parametrization::name)),
            Target::Rule => format!(
                "a rule such as B3/S23, B2/S/C3 or wireworld, of at most {MAX_STATES} states"
            ),
        }
    }

    /// Every value the knob accepts, its kind and range together, as docs/knobs.md
    /// lists it.
    pub fn accepts(&self) -> String {
        match (self.target, self.range) {
            (Target::Count(_), Range::AtLeastOne) => "a whole number from 1".into(),
            (Target::Count(_), _) => "a whole number from 0".into(),
            (Target::Number(_), range) => range.describe().into(),
            _ => self.expected(),
        }
    }

    /// This knob's value in a model and its training, e.g. a preset's default.
    pub fn value(&self, config: &ModelConfig, settings: &TrainSettings) -> KnobValue {
        let (mut config, mut settings) = (config.clone(), settings.clone());
        let (c, s) = (&mut config, &mut settings);
        match self.target {
            Target::Count(field) => KnobValue::Count(*field(c, s)),
            Target::Number(field) => KnobValue::Number(*field(c, s)),
            Target::Switch(field) => KnobValue::Switch(*field(c, s)),
            Target::Recipe => KnobValue::Recipe(s.recipe.name),
            Target::Parametrization => KnobValue::Parametrization(s.recipe.parametrization),
            Target::Rule => KnobValue::Rule(c.rule),
        }
    }
}

/// A knob set to a value: one change to a preset, from a `train` flag or a `--set`.
#[derive(Clone, Copy)]
pub struct Override {
    knob: &'static Knob,
    value: KnobValue,
}

impl Override {
    /// The `recipe` knob set to `name`, for code that picks a recipe.
    pub fn recipe(name: RecipeName) -> Self {
        let knob = KNOBS
            .iter()
            .find(|knob| matches!(knob.target, Target::Recipe))
            .expect("the table has a recipe knob");
        Override {
            knob,
            value: KnobValue::Recipe(name),
        }
    }

    pub fn knob(&self) -> &'static Knob {
        self.knob
    }

    pub fn value(&self) -> KnobValue {
        self.value
    }

    /// Sets the knob's field; the model's parametrization follows the recipe's.
    pub fn apply(self, config: &mut ModelConfig, settings: &mut TrainSettings) {
        match (self.knob.target, self.value) {
            (Target::Count(field), KnobValue::Count(n)) => *field(config, settings) = n,
            (Target::Number(field), KnobValue::Number(x)) => *field(config, settings) = x,
            (Target::Switch(field), KnobValue::Switch(on)) => *field(config, settings) = on,
            // The recipe also decides a growing task's grid and steps (the lizard's fitted
            // to its target by the default, the paper's otherwise): that is left to the
            // fit every run makes once all its flags are applied
            // ([`super::pattern_geometry::fit`]), which knows which of them were given.
            (Target::Recipe, KnobValue::Recipe(name)) => {
                settings.recipe = super::recipe_for(name, config);
            }
            (Target::Parametrization, KnobValue::Parametrization(p)) => {
                settings.recipe.parametrization = p;
                settings.recipe.pass_through = p.default_pass_through();
            }
            // Another task keeps the rule (and a rule model none) so that validation
            // refuses it.
            (Target::Rule, KnobValue::Rule(rule)) => match (config.task, rule) {
                (TaskKind::Rule, Some(rule)) => use_rule(config, rule).expect("a rule model"),
                _ => config.rule = rule,
            },
            _ => unreachable!(
                "an override holds a value its knob takes ({})",
                self.knob.key
            ),
        }
        config.parametrization = settings.recipe.parametrization;
    }
}

impl fmt::Debug for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.knob.key, self.value)
    }
}

impl PartialEq for Override {
    fn eq(&self, other: &Self) -> bool {
        self.knob.key == other.knob.key && self.value == other.value
    }
}

impl FromStr for Override {
    type Err = OverrideError;

    /// Parses `key=value`, e.g. `lr=0.1` or `recipe=paper`.
    fn from_str(text: &str) -> Result<Self, OverrideError> {
        let (key, value) = text.split_once('=').ok_or_else(|| OverrideError::Syntax {
            text: text.to_string(),
        })?;
        let knob = Knob::named(key).ok_or_else(|| OverrideError::Key {
            key: key.to_string(),
            keys: keys().join(", "),
        })?;
        knob.parse(value).map_err(|expected| OverrideError::Value {
            key: key.to_string(),
            value: value.to_string(),
            expected,
        })
    }
}

/// Every `--set` key, in table order.
pub fn keys() -> Vec<&'static str> {
    KNOBS.iter().map(|knob| knob.key).collect()
}

impl fmt::Display for KnobValue {
    /// As `--set` takes it; tiny numbers in exponent form (`1e-8`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            KnobValue::Count(n) => write!(f, "{n}"),
            KnobValue::Number(x) if x != 0.0 && x.abs() < 1e-3 => write!(f, "{x:e}"),
            KnobValue::Number(x) => write!(f, "{x}"),
            KnobValue::Switch(on) => write!(f, "{on}"),
            KnobValue::Recipe(name) => f.write_str(name.name()),
            KnobValue::Parametrization(p) => f.write_str(p.name()),
            KnobValue::Rule(Some(rule)) => write!(f, "{rule}"),
            KnobValue::Rule(None) => f.write_str("none"),
        }
    }
}
