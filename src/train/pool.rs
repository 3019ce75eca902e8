//! A sample pool for growing tasks (the Growing Neural Cellular Automata line of work,
//! Mordvintsev et al. 2020, experiments 2 and 3): training batches start from states the
//! model itself produced in earlier epochs, not always from the seed, so the rule learns
//! its pattern as a fixed point (it must keep what it grew) and, with damage, as an
//! attractor (it must regrow what was cut).
//!
//! Each epoch draws the batch's states from the pool without replacement, puts the seed in
//! place of the `reseed` states farthest from the target (so that growing from the seed is
//! never forgotten), zeroes a block in the `damage` states nearest it, trains on the batch,
//! and writes back the hard circuit's state after the task's steps from each drawn state.
//! The circuit is binary, so the pool holds bits.

use rand::seq::index;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::automaton::grid::Grids;
use crate::automaton::hard_run::HardRun;
use crate::evaluate::hard::HardEvaluator;
use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::network::Model;
use crate::tasks;

/// The pool: `size` states of `height x width x channels` bits, each packed into
/// `words` 64-bit words.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplePool {
    height: usize,
    width: usize,
    channels: usize,
    words: usize,
    bits: Vec<u64>,
}

/// A pool as checkpoints keep it: its states' packed bits, state after state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolState {
    pub bits: Vec<u64>,
}

/// An epoch's batch from the pool: its states and where each came from.
pub struct Drawn {
    pub grids: Grids,
    pub slots: Vec<usize>,
}

impl SamplePool {
    /// `size` copies of `seed`, a batch of one grid.
    pub fn new(size: usize, seed: &Grids) -> Self {
        let values = seed.height * seed.width * seed.channels;
        let mut pool = SamplePool {
            height: seed.height,
            width: seed.width,
            channels: seed.channels,
            words: values.div_ceil(64),
            bits: Vec::new(),
        };
        pool.bits = vec![0; size * pool.words];
        for slot in 0..size {
            pool.store(slot, seed, 0);
        }
        pool
    }

    pub fn size(&self) -> usize {
        self.bits.len() / self.words
    }

    pub fn state(&self) -> PoolState {
        PoolState {
            bits: self.bits.clone(),
        }
    }

    /// The pool `state` holds, for grids like `seed`; `None` if its length does not fit
    /// `size` of them.
    pub fn restore(size: usize, seed: &Grids, state: PoolState) -> Option<Self> {
        let mut pool = Self::new(size, seed);
        (state.bits.len() == pool.bits.len()).then(|| {
            pool.bits = state.bits;
            pool
        })
    }

    /// The epoch's batch: `batch` states drawn from `rng`; the seed in place of the
    /// `reseed` states with the most target bits wrong (`wrong`), and a block of half the
    /// side zeroed, at a place drawn from `rng`, in the `damage` states with the fewest.
    pub fn draw(
        &self,
        (batch, reseed, damage): (usize, usize, usize),
        seed: &Grids,
        wrong: impl Fn(&Grids, usize) -> f64,
        rng: &mut ChaCha8Rng,
    ) -> Drawn {
        let slots = index::sample(rng, self.size(), batch).into_vec();
        let mut grids = Grids::zeros(batch, self.height, self.width, self.channels);
        for (b, &slot) in slots.iter().enumerate() {
            self.load(slot, &mut grids, b);
        }
        // Farthest from the target first; ties keep the drawn order.
        let mut order: Vec<usize> = (0..batch).collect();
        let scores: Vec<f64> = order.iter().map(|&b| wrong(&grids, b)).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        for &b in &order[..reseed] {
            copy_grid(seed, 0, &mut grids, b);
        }
        let side = (self.height.min(self.width) / 2).max(1);
        for &b in &order[batch - damage..] {
            let top = rng.random_range(0..=self.height - side);
            let left = rng.random_range(0..=self.width - side);
            for r in top..top + side {
                for c in left..left + side {
                    for k in 0..self.channels {
                        grids.set(b, r, c, k, 0.0);
                    }
                }
            }
        }
        Drawn { grids, slots }
    }

    /// Writes grid `b` of `finals` back to where drawn state `b` came from.
    pub fn write_back(&mut self, slots: &[usize], finals: &Grids) {
        for (b, &slot) in slots.iter().enumerate() {
            self.store(slot, finals, b);
        }
    }

    fn store(&mut self, slot: usize, grids: &Grids, b: usize) {
        let words = &mut self.bits[slot * self.words..(slot + 1) * self.words];
        words.fill(0);
        for (i, &v) in grid_values(grids, b).iter().enumerate() {
            if v >= 0.5 {
                words[i / 64] |= 1 << (i % 64);
            }
        }
    }

    fn load(&self, slot: usize, grids: &mut Grids, b: usize) {
        let words = &self.bits[slot * self.words..(slot + 1) * self.words];
        let per_grid = self.height * self.width * self.channels;
        let values = &mut grids.values[b * per_grid..(b + 1) * per_grid];
        for (i, v) in values.iter_mut().enumerate() {
            *v = f32::from(u8::from(words[i / 64] >> (i % 64) & 1 == 1));
        }
    }
}

/// The task whose grids a run's pool holds: the curriculum's when the recipe has one
/// (a pool is allowed only with a curriculum that covers the whole run), else the task's.
pub fn pool_config(config: &ModelConfig, settings: &TrainSettings) -> ModelConfig {
    settings
        .curriculum_config(config)
        .unwrap_or_else(|| config.clone())
}

/// The state a growing task starts from, one grid (it draws nothing from a generator).
pub fn seed_state(c: &ModelConfig) -> Grids {
    let mut unused = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
    tasks::eval_init(c, 1, c.height, c.width, &mut unused)
}

/// The target bits of grid `b` of `grids`, as it is, that differ from `target` (the
/// task's, one grid).
pub fn wrong_bits(c: &ModelConfig, target: &Grids, grids: &Grids, b: usize) -> f64 {
    let mut wrong = 0;
    for r in 0..grids.height {
        for col in 0..grids.width {
            for (t, &channel) in c.target_channels.iter().enumerate() {
                let on = grids.get(b, r, col, channel) >= 0.5;
                wrong += usize::from(on != (target.get(0, r, col, t) >= 0.5));
            }
        }
    }
    wrong as f64
}

/// `model`'s hard state after the task's steps from each grid of `init`: what a pool
/// gets back.
pub fn hard_finals(model: &Model, init: &Grids) -> Grids {
    let mut run = HardRun::new(model, init.batch, (init.height, init.width));
    run.set_state(init);
    for t in 0..model.config.steps {
        run.step(None, t);
    }
    run.state()
}

/// The wrong target bits and accuracy of `model`'s hard rollout from the seed: a pool
/// run's epoch metrics, so that its hard loss measures growing from the seed whatever
/// the batch held.
pub fn seed_score(model: &Model) -> (f64, f64) {
    let c = &model.config;
    let mut hard = HardEvaluator::new(model, 1, (c.height, c.width), c.steps);
    hard.score(&seed_state(c), None, |_| {})
}

fn grid_values(grids: &Grids, b: usize) -> &[f32] {
    let per_grid = grids.height * grids.width * grids.channels;
    &grids.values[b * per_grid..(b + 1) * per_grid]
}

fn copy_grid(from: &Grids, a: usize, to: &mut Grids, b: usize) {
    let per_grid = to.height * to.width * to.channels;
    to.values[b * per_grid..(b + 1) * per_grid].copy_from_slice(grid_values(from, a));
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    fn seed() -> Grids {
        let mut g = Grids::zeros(1, 4, 4, 2);
        g.set(0, 2, 2, 0, 1.0);
        g.set(0, 2, 2, 1, 1.0);
        g
    }

    /// Cells of channel 0 on in grid `b`.
    fn on(grids: &Grids, b: usize) -> f64 {
        (0..4)
            .flat_map(|r| (0..4).map(move |c| (r, c)))
            .filter(|&(r, c)| grids.get(b, r, c, 0) == 1.0)
            .count() as f64
    }

    #[test]
    fn states_written_back_are_drawn_again_bit_for_bit() {
        let mut pool = SamplePool::new(3, &seed());
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let drawn = pool.draw((3, 0, 0), &seed(), on, &mut rng);
        let mut finals = drawn.grids.clone();
        finals.set(1, 0, 3, 1, 1.0);
        pool.write_back(&drawn.slots, &finals);
        let again = pool.draw((3, 0, 0), &seed(), on, &mut rng);
        let slot = drawn.slots[1];
        let b = again.slots.iter().position(|&s| s == slot).unwrap();
        assert_eq!(again.grids.get(b, 0, 3, 1), 1.0);
        assert_eq!(on(&again.grids, b), 1.0, "and the rest as it was");
        let restored = SamplePool::restore(3, &seed(), pool.state()).unwrap();
        assert_eq!(restored, pool);
        assert!(SamplePool::restore(4, &seed(), pool.state()).is_none());
    }

    #[test]
    fn the_farthest_are_reseeded_and_the_nearest_damaged() {
        let mut pool = SamplePool::new(2, &seed());
        // Slot 0 grows: every cell of channel 0 on (16 wrong, say); slot 1 keeps the seed.
        let mut grown = Grids::zeros(2, 4, 4, 2);
        for r in 0..4 {
            for c in 0..4 {
                grown.set(0, r, c, 0, 1.0);
            }
        }
        copy_grid(&seed(), 0, &mut grown, 1);
        pool.write_back(&[0, 1], &grown);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let drawn = pool.draw((2, 1, 0), &seed(), on, &mut rng);
        for b in 0..2 {
            assert_eq!(on(&drawn.grids, b), 1.0, "the grown state became the seed");
        }
        // Damage zeroes a 2x2 block of the nearest state (the all-on one, when it is the
        // nearest by the measure): 12 cells stay on.
        let drawn = pool.draw((2, 0, 1), &seed(), |g, b| -on(g, b), &mut rng);
        let grown_at = drawn.slots.iter().position(|&s| s == 0).unwrap();
        assert_eq!(on(&drawn.grids, grown_at), 12.0);
    }
}
