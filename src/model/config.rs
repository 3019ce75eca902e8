//! What a model is: everything needed to build and run it, saved in the model file.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::model::ca_rule::CaRule;
use crate::model::observed_rule::{LearnedRule, ObservedRule};
use crate::model::parametrization::Parametrization;
use crate::model::pattern::PatternTarget;
use crate::model::recipe::Recipe;
use crate::model::task::TaskKind;

/// The most channels a cell may have.
pub const MAX_CHANNELS: usize = 128;
/// Bounds on the other sizes a config (from flags or a file) may give, far above any
/// model of the paper, so that sizes multiply without overflow; memory is checked apart.
pub const MAX_SIDE: usize = 1 << 16;
pub const MAX_STEPS: usize = 1 << 20;
pub const MAX_KERNELS: usize = 1 << 10;
pub const MAX_LAYERS: usize = 1 << 8;
pub const MAX_LAYER_GATES: usize = 1 << 20;
/// Patch positions a cell perceives (its 3x3 neighbourhood).
pub const PATCH: usize = 9;

/// Checks a number of steps to run, from a model file or a command's `--steps`:
/// 1..=[`MAX_STEPS`].
pub fn check_steps(steps: usize) -> Result<(), ConfigError> {
    match steps {
        0 => Err(ConfigError::NoSteps),
        1..=MAX_STEPS => Ok(()),
        got => Err(ConfigError::TooLarge {
            what: "steps",
            got,
            max: MAX_STEPS,
        }),
    }
}

/// Reads an `Option` whose key must be present (serde reads a missing one as `None`).
fn required<'de, D, T>(de: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(de)
}

/// The architecture and the automaton a model runs in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// The task the model was trained for; it defines the initial states and the target.
    pub task: TaskKind,
    /// Bits per cell.
    pub channels: usize,
    pub height: usize,
    pub width: usize,
    /// Wrap around at the border (else the outside reads 0).
    pub periodic: bool,
    /// Steps of one rollout.
    pub steps: usize,
    /// `None`: synchronous steps; `Some(p)`: each cell updates with probability p.
    /// Required in a file (`null` for synchronous), so that a missing key is an error.
    #[serde(deserialize_with = "required")]
    pub fire_rate: Option<f32>,
    /// Perception kernels (each with its own logits, all sharing wires).
    pub kernels: usize,
    /// Gates per perception layer (the input is the 9 patch positions).
    pub perception_layers: Vec<usize>,
    /// Gates per update layer; the last must equal `channels`.
    pub update_layers: Vec<usize>,
    /// Channels that the loss and the accuracy compare with the target.
    pub target_channels: Vec<usize>,
    /// How each gate's parameters choose its op (absent in older files: softmax).
    #[serde(default)]
    pub parametrization: Parametrization,
    /// The image a `pattern` model grows (absent for other tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<PatternTarget>,
    /// The rule a `rule` model learns (absent for other tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<CaRule>,
    /// The rule a `rule` model learns from a recording instead (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<ObservedRule>,
}

impl ModelConfig {
    /// Outputs of the last perception layer (S in `docs/semantics.md`).
    pub fn perception_outputs(&self) -> usize {
        *self.perception_layers.last().unwrap_or(&PATCH)
    }

    /// Width of the update network's input: own channels, then every kernel output.
    pub fn update_inputs(&self) -> usize {
        self.channels + self.channels * self.perception_outputs() * self.kernels
    }

    /// Gates of the model (perception counted once per kernel).
    pub fn gate_count(&self) -> usize {
        self.kernels * self.perception_layers.iter().sum::<usize>()
            + self.update_layers.iter().sum::<usize>()
    }

    /// Gates a cell evaluates per step (perception runs on every channel).
    pub fn gates_per_cell_step(&self) -> usize {
        self.channels * self.kernels * self.perception_layers.iter().sum::<usize>()
            + self.update_layers.iter().sum::<usize>()
    }

    /// Checks everything that does not depend on wiring; wiring checks its own widths.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let channels = self.channels;
        if channels == 0 || channels > MAX_CHANNELS {
            return Err(ConfigError::Channels {
                got: channels,
                max: MAX_CHANNELS,
            });
        }
        if self.height == 0 || self.width == 0 {
            return Err(ConfigError::EmptyGrid {
                height: self.height,
                width: self.width,
            });
        }
        let over = |what: &'static str, got: usize, max: usize| {
            (got > max).then_some(ConfigError::TooLarge { what, got, max })
        };
        let sizes = [
            over("height", self.height, MAX_SIDE),
            over("width", self.width, MAX_SIDE),
            check_steps(self.steps).err(),
            over("kernels", self.kernels, MAX_KERNELS),
        ];
        if let Some(e) = sizes.into_iter().flatten().next() {
            return Err(e);
        }
        if let Some(rate) = self.fire_rate {
            if !(rate > 0.0 && rate <= 1.0) {
                return Err(ConfigError::FireRate(rate));
            }
        }
        if self.kernels == 0 {
            return Err(ConfigError::NoKernels);
        }
        self.validate_layers()?;
        if self.target_channels.is_empty() {
            return Err(ConfigError::NoTargetChannel);
        }
        if let Some(&channel) = self.target_channels.iter().find(|&&c| c >= channels) {
            return Err(ConfigError::TargetChannel { channel, channels });
        }
        self.validate_pattern()?;
        self.validate_rule()
    }

    /// The rule the model learns: Life for `gol`, its own for `rule`, none for others.
    pub fn ca_rule(&self) -> Option<CaRule> {
        match self.task {
            TaskKind::Gol => Some(CaRule::LIFE),
            _ => self.rule,
        }
    }

    /// The rule the model learns: named ([`ModelConfig::ca_rule`]) or observed.
    pub fn learned_rule(&self) -> Option<LearnedRule<'_>> {
        match (self.ca_rule(), &self.observed) {
            (Some(rule), _) => Some(LearnedRule::Named(rule)),
            (None, Some(observed)) => Some(LearnedRule::Observed(observed)),
            (None, None) => None,
        }
    }

    /// A `rule` model carries one rule, named or observed, its states in the first
    /// channels, all of them compared with the target; other tasks carry none.
    fn validate_rule(&self) -> Result<(), ConfigError> {
        let carried = usize::from(self.rule.is_some()) + usize::from(self.observed.is_some());
        match (carried, self.task == TaskKind::Rule) {
            (1, true) | (0, false) => {}
            (0, true) => return Err(ConfigError::MissingRule),
            (2, true) => return Err(ConfigError::TwoRules),
            _ => {
                return Err(ConfigError::UnexpectedRule {
                    task: self.task.name(),
                })
            }
        }
        if self.observed.as_ref().is_some_and(|o| !o.is_valid()) {
            return Err(ConfigError::ObservedTable);
        }
        let Some(rule) = self.learned_rule().filter(|_| self.task == TaskKind::Rule) else {
            return Ok(());
        };
        let channels: Vec<usize> = (0..rule.channels()).collect();
        if self.channels < channels.len() || self.target_channels != channels {
            return Err(ConfigError::RuleChannels {
                states: rule.states(),
                channels: channels.len(),
            });
        }
        Ok(())
    }

    fn validate_layers(&self) -> Result<(), ConfigError> {
        match self.perception_layers.first() {
            Some(8) => {}
            Some(&w) => return Err(ConfigError::FirstPerceptionWidth(w)),
            None => return Err(ConfigError::NoPerception),
        }
        if self.perception_layers.contains(&0) || self.update_layers.contains(&0) {
            return Err(ConfigError::EmptyLayer);
        }
        for layers in [&self.perception_layers, &self.update_layers] {
            if layers.len() > MAX_LAYERS {
                let (what, got, max) = ("layers", layers.len(), MAX_LAYERS);
                return Err(ConfigError::TooLarge { what, got, max });
            }
            if let Some(&got) = layers.iter().find(|&&w| w > MAX_LAYER_GATES) {
                let (what, max) = ("gates in a layer", MAX_LAYER_GATES);
                return Err(ConfigError::TooLarge { what, got, max });
            }
        }
        match self.update_layers.last() {
            Some(&last) if last == self.channels => Ok(()),
            Some(&got) => Err(ConfigError::LastUpdateWidth {
                channels: self.channels,
                got,
            }),
            None => Err(ConfigError::NoUpdate),
        }
    }

    fn validate_pattern(&self) -> Result<(), ConfigError> {
        match (&self.pattern, self.task.grows_image()) {
            (None, true) => Err(ConfigError::MissingPattern),
            (Some(_), false) => Err(ConfigError::UnexpectedPattern {
                task: self.task.name(),
            }),
            (None, false) => Ok(()),
            (Some(p), true) => {
                p.validate()?;
                if (p.height, p.width) != (self.height, self.width) {
                    return Err(ConfigError::PatternSize {
                        height: self.height,
                        width: self.width,
                        target_height: p.height,
                        target_width: p.width,
                    });
                }
                if self.target_channels.len() != p.channels() {
                    return Err(ConfigError::PatternChannels {
                        target: p.channels(),
                        set: self.target_channels.len(),
                    });
                }
                Ok(())
            }
        }
    }
}

/// The seed attempt `attempt` (1-based) of a run seeded `seed` trains from: the run's
/// own for attempt 1; the others are drawn from a stream of their own (the starts use
/// another), so that the attempts of nearby seeds do not overlap.
pub fn attempt_seed(seed: u64, attempt: usize) -> u64 {
    if attempt <= 1 {
        return seed;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(4);
    (2..attempt).for_each(|_| {
        rng.next_u64();
    });
    rng.next_u64()
}

/// How one training run goes (not saved with the model).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainSettings {
    pub epochs: usize,
    pub batch: usize,
    pub learning_rate: f32,
    pub seed: u64,
    pub recipe: Recipe,
    /// Which attempt of the run these settings train (1-based): attempt 1 trains from
    /// the seed, attempt `k` from [`attempt_seed`]`(seed, k)`. A run tries the recipe's
    /// number of attempts from this one on (absent in a file: 1).
    #[serde(default = "first_attempt", skip_serializing_if = "is_first_attempt")]
    pub attempt: usize,
}

fn first_attempt() -> usize {
    1
}

fn is_first_attempt(attempt: &usize) -> bool {
    *attempt == 1
}

impl TrainSettings {
    /// The seed this attempt wires, initialises and draws its batches from.
    pub fn attempt_seed(&self) -> u64 {
        attempt_seed(self.seed, self.attempt)
    }

    /// The last attempt the run may try.
    pub fn last_attempt(&self) -> usize {
        self.attempt
            .saturating_add(self.recipe.attempts.saturating_sub(1))
    }

    /// The settings of attempt `attempt` of the same run: the run from that attempt on,
    /// with the attempts it has left (so its last attempt stays the run's).
    pub fn for_attempt(&self, attempt: usize) -> TrainSettings {
        let mut settings = self.clone();
        settings.recipe.attempts = self.last_attempt().saturating_sub(attempt) + 1;
        settings.attempt = attempt;
        settings
    }

    /// Steps of a training rollout of `config`, holding or not: the task's, and the
    /// recipe's hold steps when `hold`.
    pub fn rollout_steps(&self, config: &ModelConfig, hold: bool) -> usize {
        config.steps + self.held_steps(hold)
    }

    /// States whose soft loss a training rollout sums, holding or not: the recipe's loss
    /// steps, and one per hold step when `hold`.
    pub fn loss_states(&self, hold: bool) -> usize {
        self.recipe.loss_steps + self.held_steps(hold)
    }

    fn held_steps(&self, hold: bool) -> usize {
        if hold {
            self.recipe.hold_steps
        } else {
            0
        }
    }

    /// The model config of the finish's grids, when the recipe has one
    /// ([`Recipe::finish_size`](crate::model::recipe::Recipe::finish_size)).
    pub fn finish_config(&self, config: &ModelConfig) -> Option<ModelConfig> {
        let side = self.recipe.finish_size;
        self.recipe.has_finish().then(|| ModelConfig {
            height: side,
            width: side,
            ..config.clone()
        })
    }

    /// The model config of the curriculum's grids and rollouts (the task's where the
    /// curriculum keeps them), when the recipe has a curriculum.
    pub fn curriculum_config(&self, config: &ModelConfig) -> Option<ModelConfig> {
        let r = &self.recipe;
        let or_task = |value: usize, task: usize| if value > 0 { value } else { task };
        r.has_curriculum().then(|| ModelConfig {
            height: or_task(r.curriculum_size, config.height),
            width: or_task(r.curriculum_size, config.width),
            steps: or_task(r.curriculum_steps, config.steps),
            fire_rate: config.fire_rate.filter(|_| !r.curriculum_sync),
            ..config.clone()
        })
    }
}

mod combination;
#[cfg(test)]
mod tests;
