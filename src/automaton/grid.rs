//! A batch of grids in the layout users see: `[batch][row][col][channel]`.

use rand::{Rng, RngExt};

/// Cell states of a batch of grids, row-major, channels innermost.
#[derive(Debug, Clone, PartialEq)]
pub struct Grids {
    pub batch: usize,
    pub height: usize,
    pub width: usize,
    pub channels: usize,
    pub values: Vec<f32>,
}

impl Grids {
    pub fn zeros(batch: usize, height: usize, width: usize, channels: usize) -> Self {
        Grids {
            batch,
            height,
            width,
            channels,
            values: vec![0.0; batch * height * width * channels],
        }
    }

    /// The `count` grids from grid `first` on.
    pub fn sub_batch(&self, first: usize, count: usize) -> Self {
        let per_grid = self.height * self.width * self.channels;
        Grids {
            batch: count,
            values: self.values[first * per_grid..(first + count) * per_grid].to_vec(),
            ..*self
        }
    }

    /// Every bit drawn uniformly at random.
    pub fn random_bits(
        batch: usize,
        height: usize,
        width: usize,
        channels: usize,
        rng: &mut impl Rng,
    ) -> Self {
        let mut grids = Self::zeros(batch, height, width, channels);
        for v in &mut grids.values {
            *v = if rng.random::<bool>() { 1.0 } else { 0.0 };
        }
        grids
    }

    pub fn cells(&self) -> usize {
        self.height * self.width
    }

    pub fn index(&self, b: usize, row: usize, col: usize, channel: usize) -> usize {
        ((b * self.height + row) * self.width + col) * self.channels + channel
    }

    pub fn get(&self, b: usize, row: usize, col: usize, channel: usize) -> f32 {
        self.values[self.index(b, row, col, channel)]
    }

    pub fn set(&mut self, b: usize, row: usize, col: usize, channel: usize, value: f32) {
        let i = self.index(b, row, col, channel);
        self.values[i] = value;
    }
}
