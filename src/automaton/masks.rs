//! Which cells fire at each asynchronous step.

use rand::{Rng, RngExt};

/// The fire rate of the paper's asynchronous runs, also used to run a synchronous model
/// asynchronously (its robustness experiment does).
pub const PAPER_FIRE_RATE: f32 = 0.6;

/// One draw per (step, cell), shared by the cell's channels and by every grid of the batch,
/// as the paper's notebook does (its rollout is vectorised over the batch with one key);
/// or, drawn [per grid](FireMasks::draw_per_grid), one per (step, lane), so that a batch
/// of several grids trains under several masks. Soft and hard rollouts of one epoch share
/// the masks.
#[derive(Debug, Clone, PartialEq)]
pub struct FireMasks {
    /// Cells of one grid.
    pub cells: usize,
    /// Real lanes: `batch * cells`.
    pub lanes: usize,
    /// Lanes of one step's draws: `cells` when the grids share them, `lanes` when each
    /// grid has its own.
    pub period: usize,
    /// `fires[t * period + lane % period]`.
    pub fires: Vec<bool>,
}

impl FireMasks {
    /// A cell fires when its uniform draw in [0, 1) is `<= fire_rate`, the notebook's test.
    pub fn draw(
        steps: usize,
        batch: usize,
        cells: usize,
        fire_rate: f32,
        rng: &mut impl Rng,
    ) -> Self {
        Self::with_period(steps, batch, cells, cells, fire_rate, rng)
    }

    /// Like [`FireMasks::draw`], with a draw for every cell of every grid.
    pub fn draw_per_grid(
        steps: usize,
        batch: usize,
        cells: usize,
        fire_rate: f32,
        rng: &mut impl Rng,
    ) -> Self {
        Self::with_period(steps, batch, cells, batch * cells, fire_rate, rng)
    }

    fn with_period(
        steps: usize,
        batch: usize,
        cells: usize,
        period: usize,
        fire_rate: f32,
        rng: &mut impl Rng,
    ) -> Self {
        let fires = (0..steps * period)
            .map(|_| rng.random::<f32>() <= fire_rate)
            .collect();
        FireMasks {
            cells,
            lanes: batch * cells,
            period,
            fires,
        }
    }

    /// The same masks for a batch of `batch` grids (every grid shares them; masks drawn
    /// per grid are not shared).
    pub fn for_batch(&self, batch: usize) -> Self {
        assert_eq!(
            self.period, self.cells,
            "masks drawn per grid are not shared"
        );
        FireMasks {
            lanes: batch * self.cells,
            ..self.clone()
        }
    }

    /// Does the cell of `lane` (lane = grid * cells + cell) take its new state at `step`?
    /// Padding lanes (beyond the real ones) always fire; nobody reads them.
    #[inline]
    pub fn fires(&self, step: usize, lane: usize) -> bool {
        lane >= self.lanes || self.fires[step * self.period + lane % self.period]
    }

    /// [`fires`](Self::fires) for the 64 lanes from `first`, lane `first + i` in bit `i`:
    /// one division for a tile's lanes instead of one per lane, for the loops that read
    /// a tile's masks once per channel.
    pub fn fire_bits(&self, step: usize, first: usize) -> u64 {
        let draws = &self.fires[step * self.period..][..self.period];
        let mut at = first % self.period;
        (0..64).fold(0, |bits, i| {
            let fires = first + i >= self.lanes || draws[at];
            at = if at + 1 == self.period { 0 } else { at + 1 };
            bits | (u64::from(fires) << i)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn every_grid_of_a_batch_shares_the_mask_of_each_step() {
        let masks = FireMasks::draw(3, 4, 25, 0.6, &mut ChaCha8Rng::seed_from_u64(1));
        assert_eq!(masks.fires.len(), 3 * 25);
        for step in 0..3 {
            let first: Vec<bool> = (0..25).map(|cell| masks.fires(step, cell)).collect();
            for grid in 1..4 {
                let other: Vec<bool> = (0..25)
                    .map(|cell| masks.fires(step, grid * 25 + cell))
                    .collect();
                assert_eq!(other, first, "step {step}, grid {grid}");
            }
        }
        let steps: Vec<Vec<bool>> = (0..3)
            .map(|t| (0..25).map(|c| masks.fires(t, c)).collect())
            .collect();
        assert!(
            steps[0] != steps[1] || steps[1] != steps[2],
            "fresh draw per step"
        );
        assert!(masks.fires(0, 100), "padding lanes fire");
    }

    #[test]
    fn masks_drawn_per_grid_differ_between_grids() {
        let masks = FireMasks::draw_per_grid(2, 3, 25, 0.6, &mut ChaCha8Rng::seed_from_u64(1));
        assert_eq!(masks.fires.len(), 2 * 3 * 25);
        for step in 0..2 {
            let grid = |g: usize| -> Vec<bool> {
                (0..25).map(|c| masks.fires(step, g * 25 + c)).collect()
            };
            assert_ne!(grid(0), grid(1), "step {step}");
            assert_ne!(grid(1), grid(2), "step {step}");
            // Lane `l` of step `t` is draw `t * 75 + l`.
            for lane in 0..75 {
                assert_eq!(masks.fires(step, lane), masks.fires[step * 75 + lane]);
            }
        }
        assert!(masks.fires(1, 75), "padding lanes fire");
    }

    /// Shared and per-grid masks, words that start mid-grid, wrap past a grid's end and
    /// run into the padding: every bit is the lane's `fires`.
    #[test]
    fn fire_bits_are_each_lanes_fires() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let shared = FireMasks::draw(3, 4, 25, 0.5, &mut rng);
        let per_grid = FireMasks::draw_per_grid(3, 4, 25, 0.5, &mut rng);
        for masks in [&shared, &per_grid] {
            for step in 0..3 {
                for first in [0, 7, 25, 64, 90] {
                    let bits = masks.fire_bits(step, first);
                    for i in 0..64 {
                        let fires = masks.fires(step, first + i);
                        assert_eq!(
                            (bits >> i) & 1 == 1,
                            fires,
                            "step {step}, lane {}",
                            first + i
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_rate_is_inclusive_and_roughly_kept() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        assert!(FireMasks::draw(10, 1, 100, 1.0, &mut rng)
            .fires
            .iter()
            .all(|&f| f));
        assert!(FireMasks::draw(10, 1, 100, 0.0, &mut rng)
            .fires
            .iter()
            .all(|&f| !f));
        let masks = FireMasks::draw(100, 1, 100, 0.6, &mut rng);
        let share = masks.fires.iter().filter(|&&f| f).count() as f64 / 10_000.0;
        assert!((share - 0.6).abs() < 0.02, "{share}");
    }
}
