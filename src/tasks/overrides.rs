//! Changes to a preset written as `key=value`, as `logicars sweep --set` takes them; the
//! train command's flags go through the same [`Override::apply`].

use std::str::FromStr;

use crate::error::OverrideError;
use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::parametrization::Parametrization;
use crate::model::recipe::{Recipe, RecipeName};

/// One change to a preset's model or training settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Override {
    Epochs(usize),
    Batch(usize),
    LearningRate(f32),
    Steps(usize),
    Periodic(bool),
    /// A whole recipe; apply it before the recipe fields below.
    Recipe(RecipeName),
    /// Also resets the pass-through strength to the parametrization's default.
    Parametrization(Parametrization),
    PassThrough(f32),
    WeightDecay(f32),
    Epsilon(f32),
    Warmup(usize),
    Cosine(bool),
    Discreteness(f32),
    /// Must lie in 0..=1.
    StraightThrough(f32),
    /// Must lie in 0..=1.
    Hardening(f32),
    LossSteps(usize),
    /// Must not be negative.
    GateNoise(f32),
    /// Must be above 0.
    Sharpen(f32),
    /// Must lie in 0..=1.
    HardGates(f32),
    CurriculumSize(usize),
    /// Must lie in 0..=1.
    CurriculumShare(f32),
    /// At least 1.
    Starts(usize),
}

impl Override {
    /// The keys [`Override::from_str`] accepts.
    pub const KEYS: [&'static str; 22] = [
        "epochs",
        "batch",
        "lr",
        "steps",
        "periodic",
        "recipe",
        "parametrization",
        "pass-through",
        "weight-decay",
        "epsilon",
        "warmup",
        "cosine",
        "discreteness",
        "straight-through",
        "hardening",
        "loss-steps",
        "gate-noise",
        "sharpen",
        "hard-gates",
        "curriculum-size",
        "curriculum-share",
        "starts",
    ];

    pub fn apply(self, config: &mut ModelConfig, settings: &mut TrainSettings) {
        let recipe = &mut settings.recipe;
        match self {
            Override::Epochs(n) => settings.epochs = n,
            Override::Batch(n) => settings.batch = n,
            Override::LearningRate(x) => settings.learning_rate = x,
            Override::Steps(n) => config.steps = n,
            Override::Periodic(p) => config.periodic = p,
            Override::Recipe(name) => {
                *recipe = Recipe::named(name, config.task, (config.height, config.width))
            }
            Override::Parametrization(p) => {
                recipe.parametrization = p;
                recipe.pass_through = p.default_pass_through();
            }
            Override::PassThrough(x) => recipe.pass_through = x,
            Override::WeightDecay(x) => recipe.weight_decay = x,
            Override::Epsilon(x) => recipe.epsilon = x,
            Override::Warmup(n) => recipe.warmup = n,
            Override::Cosine(on) => recipe.cosine = on,
            Override::Discreteness(x) => recipe.discreteness = x,
            Override::StraightThrough(x) => recipe.straight_through = x,
            Override::Hardening(x) => recipe.hardening = x,
            Override::LossSteps(k) => recipe.loss_steps = k,
            Override::GateNoise(x) => recipe.gate_noise = x,
            Override::Sharpen(x) => recipe.sharpen = x,
            Override::HardGates(x) => recipe.hard_gates = x,
            Override::CurriculumSize(n) => recipe.curriculum_size = n,
            Override::CurriculumShare(x) => recipe.curriculum_share = x,
            Override::Starts(n) => recipe.starts = n,
        }
        config.parametrization = settings.recipe.parametrization;
    }
}

impl FromStr for Override {
    type Err = OverrideError;

    /// Parses `key=value`, e.g. `lr=0.1` or `recipe=paper`.
    fn from_str(text: &str) -> Result<Self, OverrideError> {
        let (key, value) = text.split_once('=').ok_or_else(|| OverrideError::Syntax {
            text: text.to_string(),
        })?;
        let bad = |expected: &'static str| OverrideError::Value {
            key: key.to_string(),
            value: value.to_string(),
            expected,
        };
        let count = || value.parse::<usize>().map_err(|_| bad("a whole number"));
        let positive_count = |what| Some(count()?).filter(|&k| k >= 1).ok_or_else(|| bad(what));
        let number = || value.parse::<f32>().map_err(|_| bad("a number"));
        let flag = || value.parse::<bool>().map_err(|_| bad("true or false"));
        let number_where = |ok: fn(f32) -> bool, what: &'static str| {
            Some(number()?).filter(|&x| ok(x)).ok_or_else(|| bad(what))
        };
        let share_of = |what| number_where(|x| (0.0..=1.0).contains(&x), what);
        let share = || share_of("a share of the run from 0 to 1");
        Ok(match key {
            "epochs" => Override::Epochs(count()?),
            "batch" => Override::Batch(count()?),
            "lr" => Override::LearningRate(number()?),
            "steps" => Override::Steps(count()?),
            "periodic" => Override::Periodic(flag()?),
            "recipe" => Override::Recipe(
                RecipeName::from_name(value).ok_or_else(|| bad("paper or input-wise"))?,
            ),
            "parametrization" => Override::Parametrization(
                Parametrization::from_name(value).ok_or_else(|| bad("softmax or input-wise"))?,
            ),
            "pass-through" => Override::PassThrough(number()?),
            "weight-decay" => Override::WeightDecay(number()?),
            "epsilon" => Override::Epsilon(number()?),
            "warmup" => Override::Warmup(count()?),
            "cosine" => Override::Cosine(flag()?),
            "discreteness" => Override::Discreteness(number()?),
            "straight-through" => Override::StraightThrough(share()?),
            "hardening" => Override::Hardening(share()?),
            "loss-steps" => {
                Override::LossSteps(positive_count("a whole number of steps, at least 1")?)
            }
            "gate-noise" => {
                Override::GateNoise(number_where(|x| x >= 0.0, "a scale of at least 0")?)
            }
            "sharpen" => Override::Sharpen(number_where(
                |x| x > 0.0 && x.is_finite(),
                "a factor above 0",
            )?),
            "hard-gates" => Override::HardGates(share_of("a share of the gates from 0 to 1")?),
            "curriculum-size" => Override::CurriculumSize(count()?),
            "curriculum-share" => Override::CurriculumShare(share()?),
            "starts" => Override::Starts(positive_count("a whole number of starts, at least 1")?),
            _ => {
                return Err(OverrideError::Key {
                    key: key.to_string(),
                    keys: Override::KEYS.join(", "),
                })
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::task::TaskKind;
    use crate::tasks::preset;

    #[test]
    fn overrides_change_only_their_field() {
        let (config, settings) = preset(TaskKind::Checkerboard, false);
        let (mut c, mut s) = (config.clone(), settings.clone());
        for text in [
            "lr=0.1",
            "recipe=input-wise",
            "pass-through=2.5",
            "warmup=10",
            "hard-gates=0.25",
        ] {
            text.parse::<Override>().unwrap().apply(&mut c, &mut s);
        }
        assert_eq!(s.learning_rate, 0.1);
        assert_eq!(s.recipe.name, RecipeName::InputWise);
        assert_eq!(c.parametrization, Parametrization::InputWise);
        assert_eq!(s.recipe.pass_through, 2.5);
        assert_eq!(s.recipe.warmup, 10);
        assert_eq!(s.recipe.hard_gates, 0.25);
        assert_eq!(
            (s.epochs, s.batch, s.seed),
            (settings.epochs, settings.batch, settings.seed)
        );
        assert_eq!(c.update_layers, config.update_layers);
    }

    #[test]
    fn bad_overrides_say_what_was_expected() {
        let err = |t: &str| t.parse::<Override>().unwrap_err().to_string();
        assert_eq!(err("lr"), "'lr': expected key=value, e.g. lr=0.1");
        assert_eq!(err("lr=fast"), "lr=fast: expected a number");
        assert_eq!(
            err("recipe=magic"),
            "recipe=magic: expected paper or input-wise"
        );
        assert_eq!(
            err("hard-gates=2"),
            "hard-gates=2: expected a share of the gates from 0 to 1"
        );
        assert!(err("speed=1").starts_with("unknown key 'speed' (one of epochs, batch,"));
    }
}
