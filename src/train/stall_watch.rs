//! The watch that ends an attempt early: its hard loss no longer improves, or it is
//! still far from the target when the hold begins. Its time then goes to the next
//! attempt, which is more likely to be exact than the rest of this one.

use crate::model::config::TrainSettings;
use crate::train::ending::Ending;
use crate::train::trainer::EpochMetrics;

/// Watches an attempt for a hard loss that no longer improves, or that is still far from
/// the target when the recipe's give-up epoch comes, so that an attempt that is going
/// nowhere gives its time to the next. The stall count starts when the recipe's
/// curriculum ends (its epochs train on other grids or rollouts), or when a hold that
/// begins inside the run begins (its hard loss also counts the hold's last state, so the
/// lowest before it is no measure: the lowest restarts there), and restarts at every
/// epoch whose hard loss is below every earlier one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StallWatch {
    /// Epochs without a new lowest hard loss after which the attempt stops (0: never).
    limit: usize,
    /// The last epoch of the curriculum, or the last before a hold that begins inside
    /// the run (0: neither).
    counts_from: usize,
    /// The first epoch of a hold that begins inside the run, where the lowest restarts
    /// (0: none).
    hold_from: usize,
    /// The hard loss the attempt must have been below before `give_up_before`
    /// ([`crate::model::recipe::Recipe::give_up`]; 0: no such bound).
    give_up: usize,
    give_up_before: usize,
    lowest: f64,
    /// The epoch of the lowest hard loss so far.
    lowest_at: usize,
}

impl StallWatch {
    /// The watch of an attempt with `settings`, which has run the epochs of `history`:
    /// the watch of the last attempt of a run never stops it (its time has no other use).
    pub fn new(settings: &TrainSettings, history: &[EpochMetrics]) -> Self {
        let r = &settings.recipe;
        let last = settings.attempt >= settings.last_attempt();
        let hold_from = r.hold_begins_inside(settings.epochs).unwrap_or(0);
        let mut watch = StallWatch {
            limit: if last { 0 } else { r.stall },
            counts_from: r
                .curriculum_epochs(settings.epochs)
                .max(hold_from.saturating_sub(1)),
            hold_from,
            give_up: if last { 0 } else { r.give_up },
            give_up_before: r.give_up_epoch(settings.epochs),
            lowest: f64::INFINITY,
            lowest_at: 0,
        };
        history.iter().for_each(|m| {
            watch.observe(m);
        });
        watch
    }

    /// Looks at the next epoch; returns how the attempt ends there, if it does
    /// ([`Ending::Stalled`] or [`Ending::GaveUp`]).
    pub fn observe(&mut self, m: &EpochMetrics) -> Option<Ending> {
        if m.epoch == self.hold_from {
            self.lowest = f64::INFINITY;
        }
        if m.metrics.hard_loss < self.lowest {
            self.lowest = m.metrics.hard_loss;
            self.lowest_at = m.epoch;
        }
        let since = m.epoch.saturating_sub(self.lowest_at.max(self.counts_from));
        let far = self.give_up > 0
            && m.epoch + 1 == self.give_up_before
            && self.lowest >= self.give_up as f64;
        let stalled = self.limit > 0 && m.epoch > self.counts_from && since >= self.limit;
        match (far, stalled) {
            (true, _) => Some(Ending::GaveUp),
            (false, true) => Some(Ending::Stalled),
            (false, false) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::task::TaskKind;
    use crate::tasks::preset;
    use crate::train::objective::Metrics;

    fn epoch(epoch: usize, hard_loss: f64) -> EpochMetrics {
        EpochMetrics {
            epoch,
            metrics: Metrics {
                soft_loss: 1.0,
                hard_loss,
                accuracy: 0.5,
            },
        }
    }

    #[test]
    fn a_stall_counts_epochs_since_the_lowest_hard_loss_after_the_curriculum() {
        let (_, mut s) = preset(TaskKind::Gol, true);
        s.recipe.attempts = 2;
        s.recipe.stall = 3;
        let mut watch = StallWatch::new(&s, &[]);
        let losses = [9.0, 5.0, 6.0, 5.0, 7.0, 4.0, 4.0, 4.0];
        let stalled: Vec<bool> = losses
            .iter()
            .enumerate()
            .map(|(i, &l)| watch.observe(&epoch(i + 1, l)).is_some())
            .collect();
        // Lowest at 2 (5.0; the equal 5.0 at 4 is no new lowest), stalled at 5; lowest
        // again at 6, stalled at 9 (past the end here).
        let expected = [false, false, false, false, true, false, false, false];
        assert_eq!(stalled, expected);
        // Rebuilt from a history, it stands where the watch that saw it stands.
        let history: Vec<EpochMetrics> = (0..4).map(|i| epoch(i + 1, losses[i])).collect();
        let mut rebuilt = StallWatch::new(&s, &history);
        assert_eq!(rebuilt.observe(&epoch(5, 7.0)), Some(Ending::Stalled));
        // The last attempt is never stopped.
        let mut last = StallWatch::new(&s.for_attempt(2), &[]);
        assert!((1..50).all(|e| last.observe(&epoch(e, 9.0)).is_none()));
    }

    /// The first epoch of a run with `s` at which a fresh watch ends the attempt, and how.
    fn first_ending(s: &TrainSettings, losses: &dyn Fn(usize) -> f64) -> Option<(usize, Ending)> {
        let mut watch = StallWatch::new(s, &[]);
        (1..=s.epochs).find_map(|e| watch.observe(&epoch(e, losses(e))).map(|end| (e, end)))
    }

    /// The pattern's settings for the first of two attempts of 100 epochs, its hold
    /// from half the run (epoch 51).
    fn first_of_two_pattern_attempts() -> TrainSettings {
        let (_, mut s) = preset(TaskKind::Pattern, true);
        s.recipe.attempts = 2;
        (s.epochs, s.recipe.hold_from) = (100, 0.5);
        s
    }

    #[test]
    fn an_attempt_gives_up_before_the_hold_when_never_below_its_bound() {
        let mut s = first_of_two_pattern_attempts();
        s.recipe.give_up = 3;
        // The pattern's hold begins at epoch 51: the watch decides after epoch 50.
        assert_eq!(s.recipe.give_up_epoch(s.epochs), 51);
        let ends = |losses: &dyn Fn(usize) -> f64, s: &TrainSettings| {
            first_ending(s, losses).map(|(e, _)| e)
        };
        // Never below 3 bits: it ends after epoch 50, and not before.
        assert_eq!(ends(&|_| 3.0, &s), Some(50));
        let mut watch = StallWatch::new(&s, &[]);
        let ending = |e| (e == 50).then_some(Ending::GaveUp);
        assert!((1..=50).all(|e| watch.observe(&epoch(e, 3.0)) == ending(e)));
        // Below 3 bits once, at epoch 20, however high later: it goes on.
        assert_eq!(ends(&|e| if e == 20 { 2.0 } else { 40.0 }, &s), None);
        // Below 3 bits only from epoch 51 on is too late.
        assert_eq!(ends(&|e| if e > 50 { 0.0 } else { 9.0 }, &s), Some(50));
        // The last attempt never gives up, nor does a recipe without the bound.
        assert_eq!(ends(&|_| 9.0, &s.for_attempt(2)), None);
        s.recipe.give_up = 0;
        assert_eq!(ends(&|_| 9.0, &s), None);
        // Without a hold, the watch decides at half the run.
        let (_, mut g) = preset(TaskKind::Gol, true);
        (g.recipe.attempts, g.recipe.give_up, g.epochs) = (2, 1, 10);
        assert_eq!(ends(&|_| 5.0, &g), Some(5));
        // Nor with a hold from the first epoch (the coloured G's): its first epoch would
        // judge an untrained model.
        let (_, mut c) = preset(TaskKind::ColoredG, true);
        (c.recipe.attempts, c.recipe.give_up, c.epochs) = (2, 10, 10);
        assert!(c.recipe.holds_at(1, c.epochs));
        assert_eq!(c.recipe.give_up_epoch(c.epochs), 6);
        assert_eq!(ends(&|_| 12.0, &c), Some(5));
        assert_eq!(ends(&|e| if e == 3 { 9.0 } else { 12.0 }, &c), None);
    }

    #[test]
    fn a_stall_counts_from_a_hold_that_begins_inside_the_run_and_its_own_lowest() {
        let mut s = first_of_two_pattern_attempts();
        s.recipe.stall = 5;
        // The pattern's hold begins at epoch 51, where its hard loss also counts the
        // hold's last state: 2 bits before it, 8 and more in it.
        assert_eq!(s.recipe.first_hold_epoch(s.epochs), 51);
        // Flat before the hold: no stall there; flat in it: stalled 5 epochs after it
        // began, although 8 bits never beat the 2 before it.
        let flat = |e| if e < 51 { 2.0 } else { 8.0 };
        assert_eq!(first_ending(&s, &flat), Some((56, Ending::Stalled)));
        // A new lowest of the hold's own restarts the count.
        let better = |e| match e {
            ..=50 => 2.0,
            51..=53 => 8.0,
            _ => 6.0,
        };
        assert_eq!(first_ending(&s, &better), Some((59, Ending::Stalled)));
        // Without a stall limit the hold runs to its end.
        s.recipe.stall = 0;
        assert_eq!(first_ending(&s, &flat), None);
    }

    #[test]
    fn a_stall_waits_for_the_curriculum_to_end() {
        let (_, mut s) = preset(TaskKind::Checkerboard, true);
        s.recipe.attempts = 2;
        s.recipe.stall = 5;
        s.epochs = 100;
        // The checkerboard's curriculum is the first 40% of the run.
        let mut watch = StallWatch::new(&s, &[]);
        let first_stall = (1..=100).find(|&e| watch.observe(&epoch(e, 10.0)).is_some());
        assert_eq!(first_stall, Some(45));
    }
}
