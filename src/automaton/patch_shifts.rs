//! Gathering a cell's 3x3 neighbourhood on bit-packed lanes by whole-word shifts.
//!
//! Lane `l` sees lane `l + d` at a patch position, where the offset `d` takes one value for
//! cells away from the border and at most three others where a periodic grid wraps (a row,
//! a column, or both). So the patch row of a position is a few copies of the state shifted
//! by whole offsets, each kept where its offset applies (a mask per offset): a handful of
//! word operations per 64 lanes instead of 64 table lookups. Cells with no neighbour there
//! (outside a zero-padded grid) belong to no mask and read 0.

use crate::automaton::geometry::{Geometry, NO_LANE};
use crate::model::config::PATCH;

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
}

impl PatchShifts {
    pub fn new(geometry: &Geometry) -> Self {
        let words = geometry.padded_lanes.div_ceil(64);
        let positions = std::array::from_fn(|p| {
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
            shifts
        });
        PatchShifts { positions }
    }

    /// Word `word` (lanes `64 * word ..`) of patch position `p`, where `state(w)` is word
    /// `w` of one channel of the state (0 outside it).
    #[inline]
    pub fn gather(&self, p: usize, word: usize, state: impl Fn(isize) -> u64) -> u64 {
        let mut out = 0;
        for shift in &self.positions[p] {
            let mask = shift.lanes[word];
            if mask != 0 {
                out |= bits_from(&state, 64 * word as isize + shift.offset) & mask;
            }
        }
        out
    }
}

/// The 64 bits starting at bit `start` of the words `state(w)`.
#[inline]
fn bits_from(state: &impl Fn(isize) -> u64, start: isize) -> u64 {
    let (word, bit) = (start.div_euclid(64), start.rem_euclid(64) as u32);
    let low = state(word);
    if bit == 0 {
        low
    } else {
        (low >> bit) | (state(word + 1) << (64 - bit))
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
            let read = |w: isize| usize::try_from(w).ok().and_then(|w| state.get(w)).copied();
            let shifts = PatchShifts::new(&g);
            for p in 0..PATCH {
                for word in 0..words {
                    let got = shifts.gather(p, word, |w| read(w).unwrap_or(0));
                    for bit in 0..64 {
                        let seen = g.neighbors[word * 64 + bit][p];
                        let expected =
                            seen != NO_LANE && (state[seen as usize / 64] >> (seen % 64)) & 1 == 1;
                        assert_eq!((got >> bit) & 1 == 1, expected, "{batch}x{h}x{w} p{p}");
                    }
                }
            }
        }
    }
}
