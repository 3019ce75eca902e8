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

mod table;
#[cfg(test)]
mod tests;

pub use table::KNOBS;

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
            // The recipe decides the lizard's grid and steps (fitted to its target by
            // the default, the paper's otherwise): the fit every run makes once its flags
            // are applied sets them ([`super::preset_with`]).
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
