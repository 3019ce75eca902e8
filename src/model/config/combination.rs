//! The checks of what a recipe asks of its task, once each knob is in its range: a
//! curriculum the task can shrink to, a pool for a growing task, a finish on a larger grid.

use super::{ModelConfig, TrainSettings};
use crate::error::ConfigError;

impl TrainSettings {
    /// Checks what the recipe asks of the task (a curriculum the task can shrink to, a
    /// pool for a growing task...), once each knob is in its range
    /// ([`crate::tasks::knobs::validate`] checks both).
    pub fn validate_combination(&self, config: &ModelConfig) -> Result<(), ConfigError> {
        self.validate_curriculum(config)?;
        self.validate_pool(config)?;
        self.validate_finish(config)?;
        match self.recipe.parity_kernels > config.kernels {
            true => Err(ConfigError::ParityKernels {
                got: self.recipe.parity_kernels,
                kernels: config.kernels,
            }),
            false => Ok(()),
        }
    }

    /// A finish is for tasks grown from the centre, on a grid larger than the task's, and
    /// for one model whose kept parameters are never reset (its switch is the kept
    /// model's batch being right, which a resumed run reads from its checkpoint).
    fn validate_finish(&self, config: &ModelConfig) -> Result<(), ConfigError> {
        let r = &self.recipe;
        if !r.has_finish() {
            return Ok(());
        }
        let side = r.finish_size;
        if !config.task.grows_from_centre() {
            let task = config.task.name();
            return Err(ConfigError::FinishTask { task });
        }
        let (height, width) = (config.height, config.width);
        if side <= height || side <= width {
            return Err(ConfigError::FinishSize {
                side,
                height,
                width,
            });
        }
        let other = [
            (r.starts > 1, "starts"),
            (r.pool > 0, "pool"),
            (r.hold_steps > 0, "hold-steps"),
        ];
        match other.into_iter().find(|&(set, _)| set) {
            Some((_, knob)) => Err(ConfigError::FinishWith { knob }),
            None => Ok(()),
        }
    }

    /// A sample pool is for tasks grown from one fixed state, holds a batch, and trains
    /// one model on grids of one size: the task's, or a curriculum's that covers the
    /// whole run with the task's steps.
    fn validate_pool(&self, config: &ModelConfig) -> Result<(), ConfigError> {
        let r = &self.recipe;
        if r.pool == 0 {
            return match r.pool_from {
                0.0 => Ok(()),
                share => Err(ConfigError::PoolFromWithoutPool { share }),
            };
        }
        if !config.task.grows_image() {
            return Err(ConfigError::PoolTask {
                task: config.task.name(),
            });
        }
        let batch = self.batch;
        if r.pool < batch {
            return Err(ConfigError::PoolTooSmall {
                pool: r.pool,
                batch,
            });
        }
        if r.pool_reseed + r.pool_damage > batch {
            let (reseed, damage) = (r.pool_reseed, r.pool_damage);
            return Err(ConfigError::PoolBatch {
                batch,
                reseed,
                damage,
            });
        }
        if r.starts > 1 {
            return Err(ConfigError::PoolWithStarts { starts: r.starts });
        }
        let whole_run = r.curriculum_share == 1.0 && !r.curriculum_alternate;
        if r.has_curriculum() && (!whole_run || r.curriculum_steps > 0) {
            return Err(ConfigError::PoolWithCurriculum);
        }
        Ok(())
    }

    /// A curriculum of smaller grids needs a task defined at any size and grids smaller
    /// than the task's, one of shorter rollouts fewer steps than the task's; several
    /// starts need a time to choose among them (a share, or the curriculum's end).
    fn validate_curriculum(&self, config: &ModelConfig) -> Result<(), ConfigError> {
        if self.recipe.hold_steps > 0 && config.task.learns_rule() {
            return Err(ConfigError::HoldSteps);
        }
        if self.recipe.search_circuits > 0 && !config.task.grows_image() {
            return Err(ConfigError::GateSearchTask {
                task: config.task.name(),
            });
        }
        let layers = self.recipe.rewire_layers;
        if layers > 0 && self.recipe.search_circuits == 0 {
            return Err(ConfigError::RewireWithoutSearch { layers });
        }
        let starts = self.recipe.starts;
        if starts > 1 && !self.recipe.starts_can_be_chosen() {
            return Err(ConfigError::StartsWithoutCurriculum { starts });
        }
        if self.recipe.curriculum_sync && config.fire_rate.is_none() {
            let task = config.task.name();
            return Err(ConfigError::CurriculumSyncTask { task });
        }
        if !self.recipe.has_curriculum() {
            return match self.recipe.curriculum_alternate {
                true => Err(ConfigError::AlternateWithoutCurriculum),
                false => Ok(()),
            };
        }
        let steps = self.recipe.curriculum_steps;
        if steps >= config.steps {
            let task_steps = config.steps;
            return Err(ConfigError::CurriculumSteps { steps, task_steps });
        }
        let side = self.recipe.curriculum_size;
        if side == 0 {
            return Ok(());
        }
        let task = config.task;
        let (height, width) = (config.height, config.width);
        if task.grows_from_centre() {
            return match side > height && side > width {
                true => Ok(()),
                false => Err(ConfigError::CurriculumGrowSize {
                    side,
                    height,
                    width,
                }),
            };
        }
        let Some(period) = task.any_size_period() else {
            return Err(ConfigError::CurriculumTask { task: task.name() });
        };
        if !task.shrinks_to((height, width), side) {
            return Err(ConfigError::CurriculumSize {
                side,
                height,
                width,
                period,
            });
        }
        Ok(())
    }
}
