//! Hard rollout: the argmax circuit on bits, 512 lanes per tile, 64 per word; the state
//! is kept packed the same way, and patches are gathered by word shifts.

use rayon::prelude::*;

use crate::automaton::geometry::Geometry;
use crate::automaton::grid::Grids;
use crate::automaton::masks::FireMasks;
use crate::automaton::patch_shifts::PatchShifts;
use crate::kernels::hard::{self as kernel, TruthMasks, HARD_TILE, WORDS};
use crate::kernels::table::{table, Table};
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;

pub struct HardRollout {
    geometry: Geometry,
    channels: usize,
    /// Packed lanes of each channel, 64 per word, with `shifts.margin()` zero words on
    /// each side: channel `c` at `[c * stride ..][..stride]`.
    state: Vec<u64>,
    next: Vec<u64>,
    stride: usize,
    shifts: PatchShifts,
    /// Each tile's circuit rows (patch, then gates).
    bits: Vec<Table<u64>>,
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
        let shifts = PatchShifts::new(&geometry);
        let stride = tiles * WORDS + 2 * shifts.margin();
        let len = circuit.channels * stride;
        HardRollout {
            channels: circuit.channels,
            state: vec![0; len],
            next: vec![0; len],
            stride,
            shifts,
            bits: (0..tiles)
                .map(|_| table(0, circuit.rows() * WORDS))
                .collect(),
            geometry,
        }
    }

    /// Word and bit of (channel, lane) in the state.
    fn index(&self, channel: usize, lane: usize) -> (usize, u32) {
        let word = channel * self.stride + self.shifts.margin() + lane / 64;
        (word, (lane % 64) as u32)
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
                let (word, bit) = self.index(c, lane);
                let on = grids.values[lane * self.channels + c] >= 0.5;
                self.state[word] |= u64::from(on) << bit;
            }
        }
    }

    /// The current state as grids of 0.0 and 1.0.
    pub fn state(&self) -> Grids {
        let g = &self.geometry;
        let mut grids = Grids::zeros(g.batch, g.height, g.width, self.channels);
        for lane in 0..g.lanes {
            for c in 0..self.channels {
                grids.values[lane * self.channels + c] = f32::from(u8::from(self.bit(c, lane)));
            }
        }
        grids
    }

    /// Bit of (channel, lane) in the current state.
    pub fn bit(&self, channel: usize, lane: usize) -> bool {
        let (word, bit) = self.index(channel, lane);
        (self.state[word] >> bit) & 1 == 1
    }

    /// Runs one step; `step` indexes `masks`.
    pub fn step(
        &mut self,
        circuit: &Circuit,
        truth: &[TruthMasks],
        masks: Option<&FireMasks>,
        step: usize,
    ) {
        let (channels, stride) = (self.channels, self.stride);
        let (state, shifts) = (&self.state, &self.shifts);
        self.bits
            .par_iter_mut()
            .enumerate()
            .for_each(|(tile, bits)| {
                for c in 0..channels {
                    let lanes = &state[c * stride..][..stride];
                    for p in 0..PATCH {
                        let row = &mut bits[(c * PATCH + p) * WORDS..][..WORDS];
                        shifts.gather(p, tile * WORDS, lanes, row);
                    }
                }
                kernel::forward(&circuit.gates, truth, circuit.input_rows, bits);
            });
        // Cells that do not fire keep their old bits.
        let margin = shifts.margin();
        for (tile, bits) in self.bits.iter().enumerate() {
            for w in 0..WORDS {
                let word = tile * WORDS + w;
                let fires = masks.map_or(u64::MAX, |m| m.fire_bits(step, word * 64));
                for c in 0..channels {
                    let at = c * stride + margin + word;
                    let out = bits[circuit.output_row(c) * WORDS + w];
                    self.next[at] = (out & fires) | (state[at] & !fires);
                }
            }
        }
        std::mem::swap(&mut self.state, &mut self.next);
    }

    /// Ors into `met[gate.param]` the input pairs each gate met at the last step, one bit
    /// per pair `(a, b)` at bit `2a + b`, as a truth table indexes them. Lanes past the
    /// grids' end may add pairs no cell met, never hide one.
    pub fn pairs_met(&self, circuit: &Circuit, met: &mut [u8]) {
        for bits in &self.bits {
            for (i, gate) in circuit.gates.iter().enumerate() {
                let row = |r: u32| &bits[r as usize * WORDS..][..WORDS];
                let (a, b) = (row(gate.a), row(gate.b));
                debug_assert!(circuit.input_rows + i > gate.a.max(gate.b) as usize);
                let mut seen = [0u64; 4];
                for (&x, &y) in a.iter().zip(b) {
                    seen[0] |= !x & !y;
                    seen[1] |= !x & y;
                    seen[2] |= x & !y;
                    seen[3] |= x & y;
                }
                met[gate.param as usize] |= (0..4).fold(0, |m, c| m | u8::from(seen[c] != 0) << c);
            }
        }
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
