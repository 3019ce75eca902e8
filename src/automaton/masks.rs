//! Which cells fire at each asynchronous step.

use rand::{Rng, RngExt};

/// `fires[t * lanes + lane]`: does the cell of `lane` take its new state at step `t`.
/// One draw per cell (shared by its channels); soft and hard rollouts of one epoch share it.
#[derive(Debug, Clone, PartialEq)]
pub struct FireMasks {
    pub lanes: usize,
    pub fires: Vec<bool>,
}

impl FireMasks {
    pub fn draw(steps: usize, lanes: usize, fire_rate: f32, rng: &mut impl Rng) -> Self {
        let fires = (0..steps * lanes)
            .map(|_| rng.random::<f32>() < fire_rate)
            .collect();
        FireMasks { lanes, fires }
    }

    /// Padding lanes (beyond the real ones) always fire; nobody reads them.
    #[inline]
    pub fn fires(&self, step: usize, lane: usize) -> bool {
        lane >= self.lanes || self.fires[step * self.lanes + lane]
    }
}
