//! Lanes: every (batch element, cell) pair, and who reads whom.
//!
//! Lane `l = b * H * W + row * W + col`. Lanes are padded to whole tiles; padding lanes
//! read nothing and are read by nobody.

use std::ops::Range;

/// Marks a missing neighbour (outside a zero-padded grid, or a padding lane).
pub const NO_LANE: u32 = u32::MAX;

/// Patch position `p` is the offset (p / 3 - 1, p % 3 - 1) in (rows, columns).
pub fn patch_offset(p: usize) -> (isize, isize) {
    (p as isize / 3 - 1, p as isize % 3 - 1)
}

#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    pub batch: usize,
    pub height: usize,
    pub width: usize,
    pub periodic: bool,
    /// Real lanes.
    pub lanes: usize,
    /// Lanes rounded up to whole tiles.
    pub padded_lanes: usize,
    pub tile: usize,
    /// `neighbors[l][p]`: the lane that lane `l` sees at patch position `p`.
    pub neighbors: Vec<[u32; 9]>,
    /// `readers[l][p]`: the lane that sees lane `l` at patch position `p`.
    pub readers: Vec<[u32; 9]>,
}

impl Geometry {
    pub fn new(batch: usize, height: usize, width: usize, periodic: bool, tile: usize) -> Self {
        let lanes = batch * height * width;
        let padded_lanes = lanes.div_ceil(tile) * tile;
        let mut neighbors = vec![[NO_LANE; 9]; padded_lanes];
        let mut readers = vec![[NO_LANE; 9]; padded_lanes];
        let (h, w) = (height as isize, width as isize);
        for lane in 0..lanes {
            let b = lane / (height * width);
            let (row, col) = (((lane / width) % height) as isize, (lane % width) as isize);
            for p in 0..9 {
                let (dr, dc) = patch_offset(p);
                let (r, c) = (row + dr, col + dc);
                let (r, c) = if periodic {
                    (r.rem_euclid(h), c.rem_euclid(w))
                } else if r < 0 || c < 0 || r >= h || c >= w {
                    continue;
                } else {
                    (r, c)
                };
                let seen = b * height * width + (r * w + c) as usize;
                neighbors[lane][p] = seen as u32;
                readers[seen][p] = lane as u32;
            }
        }
        Geometry {
            batch,
            height,
            width,
            periodic,
            lanes,
            padded_lanes,
            tile,
            neighbors,
            readers,
        }
    }

    pub fn tiles(&self) -> usize {
        self.padded_lanes / self.tile
    }

    /// The real lanes of `tile`: all but in the last tile, whose others are padding.
    pub fn real_lanes(&self, tile: usize) -> usize {
        self.lanes.saturating_sub(tile * self.tile).min(self.tile)
    }

    /// The tiles cut into runs of consecutive tiles whose lanes see only lanes of the
    /// same run: one run per grid when every grid fills whole tiles, else fewer. A run
    /// can be stepped from start to end without waiting for the others.
    pub fn tile_runs(&self) -> Vec<Range<usize>> {
        let tiles = self.tiles();
        // The lowest and highest tile that a tile's lanes see.
        let (mut low, mut high): (Vec<usize>, Vec<usize>) = (0..tiles).map(|t| (t, t)).unzip();
        for (lane, seen) in self.neighbors.iter().enumerate() {
            for &n in seen.iter().filter(|&&n| n != NO_LANE) {
                let (t, n) = (lane / self.tile, n as usize / self.tile);
                low[t] = low[t].min(n);
                high[t] = high[t].max(n);
            }
        }
        // A cut before tile t is clean when nothing before it sees t.. and nothing from
        // t on sees ..t.
        let mut lowest_after = vec![tiles; tiles + 1];
        for t in (0..tiles).rev() {
            lowest_after[t] = lowest_after[t + 1].min(low[t]);
        }
        let mut runs = Vec::new();
        let (mut start, mut highest_before) = (0, 0);
        for t in 1..=tiles {
            highest_before = highest_before.max(high[t - 1]);
            if t == tiles || (highest_before < t && lowest_after[t] >= t) {
                runs.push(start..t);
                start = t;
            }
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_that_fill_whole_tiles_are_runs_of_their_own() {
        // 16x16 = 4 tiles of 64 per grid, three grids.
        let g = Geometry::new(3, 16, 16, true, 64);
        assert_eq!(g.tile_runs(), vec![0..4, 4..8, 8..12]);
        // 10x10 = 100 lanes: grids share tiles, so all tiles are one run.
        let g = Geometry::new(3, 10, 10, false, 64);
        assert_eq!(g.tile_runs(), vec![0..5]);
        // 8x8 without wrapping: a grid is one tile.
        let g = Geometry::new(2, 8, 8, false, 64);
        assert_eq!(g.tile_runs(), vec![0..1, 1..2]);
        // One grid of 4x32 rows: row 2 (tile 1) sees row 1 (tile 0) and wraps to row 0.
        let g = Geometry::new(1, 4, 32, true, 64);
        assert_eq!(g.tile_runs(), vec![0..2]);
    }

    #[test]
    fn zero_padded_corner_sees_four_cells() {
        let g = Geometry::new(1, 3, 3, false, 64);
        let seen: Vec<u32> = g.neighbors[0]
            .iter()
            .copied()
            .filter(|&n| n != NO_LANE)
            .collect();
        assert_eq!(seen, vec![0, 1, 3, 4]);
        assert_eq!(g.neighbors[4], [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn periodic_wraps_and_readers_invert_neighbors() {
        let g = Geometry::new(2, 3, 4, true, 16);
        assert_eq!(g.padded_lanes, 32);
        // Lane 12 is batch 1, (0,0); its upper-left neighbour wraps to (2,3).
        assert_eq!(g.neighbors[12][0], 12 + 2 * 4 + 3);
        for l in 0..g.lanes {
            for p in 0..9 {
                let n = g.neighbors[l][p];
                assert_eq!(g.readers[n as usize][p], l as u32);
            }
        }
        assert!(g.neighbors[30].iter().all(|&n| n == NO_LANE));
    }
}
