//! When in a run each part of a recipe applies: the learning rate and the sharpness of
//! each epoch, the hardness of its forward, the curriculum, the hold, the pool and the
//! give-up epoch. Everything here is a function of the epoch and the run's length, so a
//! resumed run and a sweep's run see the same schedule.

use super::Recipe;

impl Recipe {
    /// How far the forward of `epoch` (1-based) of `epochs` has moved from the soft
    /// gates (0) to the hard ops (1): 0, then rising over the hardening share, then 1
    /// over the straight-through share at the end.
    pub fn hardness(&self, epoch: usize, epochs: usize) -> f32 {
        let share = |s: f32| (epochs as f64 * f64::from(s)).round();
        let hard_from = epochs as f64 - share(self.straight_through);
        let ramp = share(self.hardening);
        let epoch = epoch as f64;
        if self.straight_through > 0.0 && epoch > hard_from {
            1.0
        } else if ramp > 0.0 && epoch > hard_from - ramp {
            ((epoch - (hard_from - ramp)) / (ramp + 1.0)) as f32
        } else {
            0.0
        }
    }

    /// Whether `epoch` (1-based) of `epochs` trains on the curriculum (smaller grids or
    /// shorter rollouts than the task's).
    pub fn in_curriculum(&self, epoch: usize, epochs: usize) -> bool {
        self.has_curriculum() && epoch <= self.curriculum_epochs(epochs)
    }

    /// Whether `epoch` (1-based), inside the curriculum, trains on its grids or
    /// rollouts: every one, or with [`curriculum_alternate`](Self::curriculum_alternate)
    /// the odd ones (the even ones train on the task's).
    pub fn on_curriculum_grids(&self, epoch: usize) -> bool {
        !self.curriculum_alternate || epoch % 2 == 1
    }

    /// The epochs of a run of `epochs` that train on the curriculum, its first ones (0:
    /// no curriculum).
    pub fn curriculum_epochs(&self, epochs: usize) -> usize {
        match self.has_curriculum() {
            true => (epochs as f64 * f64::from(self.curriculum_share)).round() as usize,
            false => 0,
        }
    }

    /// Whether the run chooses among its starts after `epoch` (1-based) of `epochs`: at
    /// the [`starts_share`](Self::starts_share) of the run, or else when the curriculum
    /// ends.
    pub fn chooses_start_after(&self, epoch: usize, epochs: usize) -> bool {
        if self.starts_share > 0.0 {
            let last = (epochs as f64 * f64::from(self.starts_share)).round() as usize;
            return epoch >= last.max(1);
        }
        !self.in_curriculum(epoch + 1, epochs)
    }

    /// Whether `epoch` (1-based) of `epochs` runs the hold steps.
    pub fn holds_at(&self, epoch: usize, epochs: usize) -> bool {
        self.hold_steps > 0 && epoch >= self.first_hold_epoch(epochs)
    }

    /// The epoch at which an attempt far from its target gives up ([`Self::give_up`]):
    /// the first of a hold that begins inside the run (a rule that cannot grow its
    /// pattern will not learn to keep it), or the run's middle when the recipe has no
    /// hold or holds from the first epoch (the coloured G), where giving up at the
    /// hold's first epoch would judge an untrained model.
    pub fn give_up_epoch(&self, epochs: usize) -> usize {
        self.hold_begins_inside(epochs)
            .unwrap_or_else(|| first_epoch_after(0.5, epochs))
    }

    /// The first epoch that runs the hold steps (when the recipe has them).
    pub fn first_hold_epoch(&self, epochs: usize) -> usize {
        first_epoch_after(self.hold_from, epochs)
    }

    /// The first epoch of a hold that begins inside a run of `epochs`, after epochs
    /// without it (none when the recipe has no hold, or holds from the first epoch).
    pub fn hold_begins_inside(&self, epochs: usize) -> Option<usize> {
        let first = self.first_hold_epoch(epochs);
        (self.hold_steps > 0 && first > 1).then_some(first)
    }

    /// Whether `epoch` (1-based) of `epochs` draws its batch from the sample pool.
    pub fn pools_at(&self, epoch: usize, epochs: usize) -> bool {
        self.pool > 0 && epoch >= first_epoch_after(self.pool_from, epochs)
    }

    /// Whether the recipe's starts have a time to be chosen among (a share of the run,
    /// or a curriculum's end).
    pub fn starts_can_be_chosen(&self) -> bool {
        self.starts_share > 0.0 || self.has_curriculum()
    }

    /// Whether the recipe has a curriculum: a share of the run on smaller grids, on
    /// shorter rollouts, on synchronous ones, or several of these.
    pub fn has_curriculum(&self) -> bool {
        let eases = self.curriculum_size > 0 || self.curriculum_steps > 0 || self.curriculum_sync;
        eases && self.curriculum_share > 0.0
    }

    /// Whether an attempt goes on to larger grids once its batch is right.
    pub fn has_finish(&self) -> bool {
        self.finish_size > 0
    }

    /// The factor on the gates' parameters in the soft rollout of `epoch` (1-based) of
    /// `epochs`: `sharpen^((epoch - 1) / (epochs - 1))`.
    pub fn sharpness(&self, epoch: usize, epochs: usize) -> f32 {
        if self.sharpen == 1.0 || epochs <= 1 {
            return 1.0;
        }
        let progress = (epoch.saturating_sub(1)) as f64 / (epochs - 1) as f64;
        f64::from(self.sharpen).powf(progress.min(1.0)) as f32
    }

    /// The learning rate of `epoch` (1-based) of `epochs`, for a base rate `lr`.
    pub fn learning_rate(&self, lr: f32, epoch: usize, epochs: usize) -> f32 {
        let mut rate = lr;
        if epoch <= self.warmup {
            rate *= epoch as f32 / (self.warmup + 1) as f32;
        }
        if self.cosine && epochs > 1 {
            let progress = (epoch - 1) as f32 / (epochs - 1) as f32;
            let floor = 0.1;
            rate *= floor + (1.0 - floor) * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos());
        }
        rate
    }
}

/// The first epoch (1-based) after `share` of a run of `epochs`.
fn first_epoch_after(share: f32, epochs: usize) -> usize {
    (epochs as f64 * f64::from(share)).round() as usize + 1
}

#[cfg(test)]
mod tests {
    use crate::model::recipe::{Recipe, RecipeName};
    use crate::model::task::TaskKind;

    #[test]
    fn the_papers_schedule_is_constant() {
        let paper = Recipe::named(RecipeName::Paper, TaskKind::Checkerboard, (16, 16));
        for epoch in [1, 2, 250, 500] {
            assert_eq!(paper.learning_rate(0.05, epoch, 500), 0.05);
        }
    }

    #[test]
    fn warmup_rises_and_cosine_falls_to_a_tenth() {
        let recipe = Recipe {
            warmup: 3,
            cosine: true,
            ..Recipe::named(RecipeName::Paper, TaskKind::Checkerboard, (16, 16))
        };
        let rates: Vec<f32> = (1..=101)
            .map(|e| recipe.learning_rate(1.0, e, 101))
            .collect();
        assert!((rates[0] - 0.25).abs() < 1e-6, "{}", rates[0]);
        assert!((rates[2] - 0.75 * recipe.learning_rate(1.0, 4, 101)).abs() < 0.01);
        assert!((rates[50] - 0.55).abs() < 1e-6, "half way: {}", rates[50]);
        assert!((rates[100] - 0.1).abs() < 1e-6, "end: {}", rates[100]);
        assert!(rates[3..].windows(2).all(|w| w[1] <= w[0]));
    }

    #[test]
    fn sharpening_rises_geometrically_from_one() {
        let paper = Recipe::named(RecipeName::Paper, TaskKind::Checkerboard, (16, 16));
        assert_eq!(paper.sharpness(250, 500), 1.0, "off by default");
        let recipe = Recipe {
            sharpen: 16.0,
            ..paper
        };
        let at = |epoch| recipe.sharpness(epoch, 5);
        assert_eq!(
            [at(1), at(2), at(3), at(4), at(5)],
            [1.0, 2.0, 4.0, 8.0, 16.0]
        );
    }

    /// Files written while the search counted passes (`gate_search`) still load, and
    /// the passes do not become a budget; files written now say `search_circuits`.

    #[test]
    fn the_curriculum_takes_the_start_of_the_run() {
        let mut recipe = Recipe::named(RecipeName::InputWise, TaskKind::Checkerboard, (16, 16));
        recipe.curriculum_share = 0.3;
        assert!(
            !recipe.in_curriculum(1, 10),
            "no size or steps, no curriculum"
        );
        let epochs_in = |r: &Recipe| {
            (1..=10)
                .filter(|&e| r.in_curriculum(e, 10))
                .collect::<Vec<_>>()
        };
        recipe.curriculum_size = 8;
        assert_eq!(epochs_in(&recipe), [1, 2, 3]);
        recipe.curriculum_size = 0;
        recipe.curriculum_steps = 5;
        assert_eq!(
            epochs_in(&recipe),
            [1, 2, 3],
            "shorter rollouts alone are one too"
        );
        assert!(!recipe.chooses_start_after(2, 10) && recipe.chooses_start_after(3, 10));
    }

    #[test]
    fn an_alternating_curriculum_keeps_its_grids_for_the_odd_epochs() {
        let mut recipe = Recipe::named(RecipeName::Paper, TaskKind::Lizard, (20, 20));
        assert!((1..=4).all(|e| recipe.on_curriculum_grids(e)));
        recipe.curriculum_alternate = true;
        let odd: Vec<_> = (1..=6).filter(|&e| recipe.on_curriculum_grids(e)).collect();
        assert_eq!(odd, [1, 3, 5]);
    }

    #[test]
    fn straight_through_takes_the_end_of_the_run() {
        let mut recipe = Recipe::named(RecipeName::InputWise, TaskKind::Checkerboard, (16, 16));
        let hard = |r: &Recipe| {
            (1..=10)
                .filter(|&e| r.hardness(e, 10) == 1.0)
                .collect::<Vec<_>>()
        };
        assert!(hard(&recipe).is_empty());
        recipe.straight_through = 0.3;
        assert_eq!(hard(&recipe), [8, 9, 10]);
        recipe.hardening = 0.3;
        let ramp: Vec<f32> = (4..=7).map(|e| recipe.hardness(e, 10)).collect();
        assert_eq!(ramp, [0.0, 0.25, 0.5, 0.75]);
        assert_eq!(hard(&recipe), [8, 9, 10]);
        recipe.straight_through = 1.0;
        assert_eq!(hard(&recipe).len(), 10);
    }
}
