//! Hard rollout: the argmax circuit on bits, 512 lanes per tile, 64 per word.

use rayon::prelude::*;

use crate::automaton::geometry::{Geometry, NO_LANE};
use crate::automaton::grid::Grids;
use crate::automaton::masks::FireMasks;
use crate::kernels::hard::{self as kernel, TruthMasks, HARD_TILE, WORDS};
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;

pub struct HardRollout {
    geometry: Geometry,
    channels: usize,
    /// Tile-blocked bits, one byte each: `[tile][channel][HARD_TILE]`.
    state: Vec<u8>,
    next: Vec<u8>,
    bits: Vec<Vec<u64>>,
}

impl HardRollout {
    pub fn new(
        batch: usize,
        height: usize,
        width: usize,
        periodic: bool,
        circuit: &Circuit,
    ) -> Self {
        let geometry = Geometry::new(batch, height, width, periodic, HARD_TILE);
        let tiles = geometry.tiles();
        let len = tiles * circuit.channels * HARD_TILE;
        HardRollout {
            channels: circuit.channels,
            state: vec![0; len],
            next: vec![0; len],
            bits: vec![vec![0; circuit.rows() * WORDS]; tiles],
            geometry,
        }
    }

    fn index(&self, channel: usize, lane: usize) -> usize {
        hard_index(self.channels, channel, lane)
    }

    /// Loads grids; values of 0.5 and above are 1.
    pub fn set_state(&mut self, grids: &Grids) {
        assert_eq!(
            grids.batch * grids.cells(),
            self.geometry.lanes,
            "grids match the geometry"
        );
        self.state.fill(0);
        for lane in 0..self.geometry.lanes {
            for c in 0..self.channels {
                let i = self.index(c, lane);
                self.state[i] = (grids.values[lane * self.channels + c] >= 0.5) as u8;
            }
        }
    }

    /// The current state as grids of 0.0 and 1.0.
    pub fn state(&self) -> Grids {
        let g = &self.geometry;
        let mut grids = Grids::zeros(g.batch, g.height, g.width, self.channels);
        for lane in 0..g.lanes {
            for c in 0..self.channels {
                grids.values[lane * self.channels + c] = self.state[self.index(c, lane)] as f32;
            }
        }
        grids
    }

    /// Bit of (channel, lane) in the current state.
    pub fn bit(&self, channel: usize, lane: usize) -> bool {
        self.state[self.index(channel, lane)] == 1
    }

    /// Runs one step; `step` indexes `masks`.
    pub fn step(
        &mut self,
        circuit: &Circuit,
        truth: &[TruthMasks],
        masks: Option<&FireMasks>,
        step: usize,
    ) {
        let channels = self.channels;
        let geometry = &self.geometry;
        let state = &self.state;
        self.next
            .par_chunks_mut(channels * HARD_TILE)
            .zip(self.bits.par_iter_mut())
            .enumerate()
            .for_each(|(tile, (next, bits))| {
                pack_patch(geometry, channels, tile, state, bits);
                kernel::forward(&circuit.gates, truth, circuit.input_rows, bits);
                for c in 0..channels {
                    let out = &bits[circuit.output_row(c) * WORDS..][..WORDS];
                    for i in 0..HARD_TILE {
                        let lane = tile * HARD_TILE + i;
                        let fires = masks.is_none_or(|m| m.fires(step, lane));
                        let at = c * HARD_TILE + i;
                        next[at] = if fires {
                            ((out[i / 64] >> (i % 64)) & 1) as u8
                        } else {
                            state[tile * channels * HARD_TILE + at]
                        };
                    }
                }
            });
        std::mem::swap(&mut self.state, &mut self.next);
    }

    /// Runs `steps` steps from the current state.
    pub fn run(
        &mut self,
        circuit: &Circuit,
        truth: &[TruthMasks],
        masks: Option<&FireMasks>,
        steps: usize,
    ) {
        for t in 0..steps {
            self.step(circuit, truth, masks, t);
        }
    }
}

fn hard_index(channels: usize, channel: usize, lane: usize) -> usize {
    (lane / HARD_TILE) * channels * HARD_TILE + channel * HARD_TILE + lane % HARD_TILE
}

/// Packs what each lane of a tile sees into the patch rows, 64 lanes per word.
fn pack_patch(geometry: &Geometry, channels: usize, tile: usize, state: &[u8], bits: &mut [u64]) {
    for c in 0..channels {
        for p in 0..PATCH {
            let row = &mut bits[(c * PATCH + p) * WORDS..][..WORDS];
            for (w, word) in row.iter_mut().enumerate() {
                let mut packed = 0u64;
                for s in 0..64 {
                    let n = geometry.neighbors[tile * HARD_TILE + w * 64 + s][p];
                    if n != NO_LANE {
                        packed |= (state[hard_index(channels, c, n as usize)] as u64) << s;
                    }
                }
                *word = packed;
            }
        }
    }
}
