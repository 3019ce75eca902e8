//! Gathering a cell's 3x3 neighbourhood by shifts: on bit-packed lanes by whole-word
//! shifts, on float rows by shifted copies.
//!
//! Lane `l` sees lane `l + d` at a patch position, where the offset `d` takes one value for
//! cells away from the border and at most three others where a periodic grid wraps (a row,
//! a column, or both). So the patch row of a position is a few copies of the state shifted
//! by whole offsets, each kept where its offset applies (a mask per offset): a handful of
//! word operations per 64 lanes instead of 64 table lookups. Cells with no neighbour there
//! (outside a zero-padded grid) belong to no mask and read 0. The soft rollout gathers its
//! float rows by the same shifts ([`PatchShifts::shifts`]), a tile's lanes being part of
//! one mask word.

use crate::kernels::simd::multiversioned;

use crate::automaton::geometry::{Geometry, NO_LANE};
use crate::model::config::PATCH;

/// Most shifts a patch position takes: the offset inside the grid, and where a periodic
/// grid wraps, across a row, a column, or both.
pub const MAX_SHIFTS: usize = 4;

/// The lanes of one patch position that see the lane `offset` away, as a bit mask.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shift {
    offset: isize,
    lanes: Vec<u64>,
}

/// For each patch position, the shifts that gather it; built from the geometry's
/// neighbour table, so that it reads exactly what that table says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchShifts {
    positions: [Vec<Shift>; PATCH],
    margin: usize,
}

impl PatchShifts {
    pub fn new(geometry: &Geometry) -> Self {
        let words = geometry.padded_lanes.div_ceil(64);
        let positions: [Vec<Shift>; PATCH] = std::array::from_fn(|p| {
            let mut shifts: Vec<Shift> = Vec::new();
            for (lane, seen) in geometry.neighbors.iter().enumerate() {
                if seen[p] == NO_LANE {
                    continue;
                }
                let offset = seen[p] as isize - lane as isize;
                let at = match shifts.iter().position(|s| s.offset == offset) {
                    Some(at) => at,
                    None => {
                        shifts.push(Shift {
                            offset,
                            lanes: vec![0; words],
                        });
                        shifts.len() - 1
                    }
                };
                shifts[at].lanes[lane / 64] |= 1 << (lane % 64);
            }
            assert!(
                shifts.len() <= MAX_SHIFTS,
                "patch position {p} takes {} shifts: a grid's wrapping gives at most {MAX_SHIFTS}",
                shifts.len()
            );
            shifts
        });
        let margin = positions
            .iter()
            .flatten()
            .map(|s| s.offset.unsigned_abs().div_ceil(64) + 1)
            .max()
            .unwrap_or(0);
        PatchShifts { positions, margin }
    }

    /// Position `p`'s shifts: each offset `d` with the lanes (one bit each, 64 to a word)
    /// that see the lane `d` away there. A lane belongs to at most one of them.
    pub fn shifts(&self, p: usize) -> impl Iterator<Item = (isize, &[u64])> {
        self.positions[p]
            .iter()
            .map(|s| (s.offset, s.lanes.as_slice()))
    }

    /// Zero words that a channel's packed lanes need on each side, so that every shifted
    /// read stays inside its buffer.
    pub fn margin(&self) -> usize {
        self.margin
    }

    /// Fills `row` with words `first..first + row.len()` of patch position `p`, reading
    /// one channel's lanes from `lanes`: its words with [`margin`](Self::margin) zero
    /// words on each side.
    #[inline]
    pub fn gather(&self, p: usize, first: usize, lanes: &[u64], row: &mut [u64]) {
        gather_words(&self.positions[p], self.margin, first, lanes, row);
    }
}

multiversioned! {
    /// [`PatchShifts::gather`] for one position's shifts; a word-wise loop the compiler
    /// vectorizes.
    fn gather_words(shifts: &[Shift], margin: usize, first: usize, lanes: &[u64], row: &mut [u64])
        => gather_words_body
}

#[inline(always)]
fn gather_words_body(
    shifts: &[Shift],
    margin: usize,
    first: usize,
    lanes: &[u64],
    row: &mut [u64],
) {
    row.fill(0);
    for shift in shifts {
        let (words, bit) = (
            shift.offset.div_euclid(64),
            shift.offset.rem_euclid(64) as u32,
        );
        let start = (margin + first).wrapping_add_signed(words);
        let low = &lanes[start..][..row.len()];
        let high = &lanes[start + 1..][..row.len()];
        let mask = &shift.lanes[first..][..row.len()];
        for (((out, &lo), &hi), &m) in row.iter_mut().zip(low).zip(high).zip(mask) {
            // `(hi << 1) << (63 - bit)` is `hi << (64 - bit)`, and 0 when `bit` is 0.
            *out |= ((lo >> bit) | ((hi << 1) << (63 - bit))) & m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Every lane's gathered bit is the bit of the lane the neighbour table names.
    #[test]
    fn shifts_read_what_the_neighbour_table_says() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for (batch, h, w, periodic) in [
            (2, 16, 16, false),
            (1, 64, 64, true),
            (3, 5, 7, true),
            (512, 3, 3, true),
            (1, 1, 1, true),
            (2, 1, 9, false),
        ] {
            let g = Geometry::new(batch, h, w, periodic, 512);
            let words = g.padded_lanes / 64;
            let state: Vec<u64> = (0..words).map(|_| rng.random()).collect();
            let shifts = PatchShifts::new(&g);
            let margin = vec![0; shifts.margin()];
            let lanes = [&margin[..], &state, &margin].concat();
            for p in 0..PATCH {
                let mut row = vec![0; words];
                shifts.gather(p, 0, &lanes, &mut row);
                for lane in 0..words * 64 {
                    let seen = g.neighbors[lane][p];
                    let expected =
                        seen != NO_LANE && (state[seen as usize / 64] >> (seen % 64)) & 1 == 1;
                    let got = (row[lane / 64] >> (lane % 64)) & 1 == 1;
                    assert_eq!(got, expected, "{batch}x{h}x{w} p{p} lane {lane}");
                }
            }
        }
    }
}
