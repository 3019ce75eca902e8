//! What a soft rollout does to one tile, on a window of tile-blocked buffers: the tiles
//! `first..` of a run of tiles that read only each other, so that each run can step on
//! its own thread with no barrier between steps (see [`Geometry::tile_runs`]).
//!
//! [`gather`] fills a tile's patch and writes its new state (forward); [`firing`] does
//! the same for an asynchronous step's firing cells packed into fewer tiles; [`scatter`]
//! seeds its gradients and sends the patch's gradient back to the cells read (backward); the
//! moves both make of the patch's shifts, and the lane selection of their lane loops,
//! are here; [`registers`](mod@registers) makes the same moves in AVX2's
//! ([`avx2`](mod@avx2)) and AVX-512's ([`avx512`](mod@avx512)) registers.
//!
//! [`Geometry::tile_runs`]: crate::automaton::geometry::Geometry::tile_runs

use std::ops::Range;

use arrayvec::ArrayVec;
use rayon::prelude::*;

use crate::automaton::patch_shifts::{PatchShifts, MAX_SHIFTS};
use crate::kernels::parameters::GATES_PER_JOB;
use crate::kernels::soft::TILE;
use crate::model::config::PATCH;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod firing;
mod gather;
#[cfg(target_arch = "x86_64")]
mod registers;
mod scatter;

pub(super) use firing::{
    firing_lanes, gather_lanes, packed_places, scatter_packed_tile, seed_packed_grads, tile_span,
    write_firing_tile,
};
#[cfg(test)]
use gather::gather_patch_at;
pub(super) use gather::{gather_patch, write_outputs};
#[cfg(test)]
use scatter::scatter_patch_grads_at;
pub(super) use scatter::{scatter_one_tile, scatter_patch_grads, seed_output_grads};

#[inline]
pub fn state_index(channels: usize, channel: usize, lane: usize) -> usize {
    (lane / TILE) * channels * TILE + channel * TILE + lane % TILE
}

/// Splits a tile-blocked buffer (`per_tile` items per tile) into one window per run.
pub(super) fn split_runs<'a, T>(
    mut buffer: &'a mut [T],
    runs: &[Range<usize>],
    per_tile: usize,
) -> Vec<&'a mut [T]> {
    runs.iter()
        .map(|run| {
            let (window, rest) = std::mem::take(&mut buffer).split_at_mut(run.len() * per_tile);
            buffer = rest;
            window
        })
        .collect()
}

/// The state in slot `from` to read and the one in slot `to` to write (`from != to`).
pub(super) fn prev_and_next<'a>(
    slots: &'a mut [&mut [f32]],
    (from, to): (usize, usize),
) -> (&'a [f32], &'a mut [f32]) {
    if from < to {
        let (before, after) = slots.split_at_mut(to);
        (&*before[from], &mut *after[0])
    } else {
        let (before, after) = slots.split_at_mut(from);
        (&*after[0], &mut *before[to])
    }
}

/// A tile's lanes `dst` whose lane `tile*TILE + i + offset` is lane `src_start + (i -
/// dst.start)` of tile `src_tile`: a tile shifted by `offset` lanes covers at most two.
struct Segment {
    dst: Range<usize>,
    src_tile: usize,
    src_start: usize,
}

impl Segment {
    /// `bits` (bit 0 for lane `dst.start`) cut to the segment's lanes.
    fn lanes(&self, bits: u64) -> u64 {
        bits & (u64::MAX >> (64 - self.dst.len()))
    }
}

/// One masked whole-row move of a tile's patch work at patch position `p`: the lanes
/// of `seg` whose bit is set in `mask` (bit 0 for lane `seg.dst.start`). A tile's moves
/// depend on the geometry, not on the channel: found once, they serve every channel.
struct Move {
    p: usize,
    seg: Segment,
    mask: u64,
}

impl Move {
    /// The move's lanes as bits of the tile (bit `i` for lane `i`).
    fn tile_lanes(&self) -> u64 {
        self.mask << self.seg.dst.start
    }
}

/// A tile's moves, in patch order: at most two segments for each shift of a position.
type Moves = ArrayVec<Move, { PATCH * 2 * MAX_SHIFTS }>;

/// The copies that fill `tile`'s patch: each position's shifted copies of the state,
/// each kept on the lanes where its offset applies. Lanes of no copy (outside a
/// zero-padded grid, padding) read zero.
fn gather_moves(shifts: &PatchShifts, tile: usize) -> Moves {
    let mut moves = Moves::new();
    for p in 0..PATCH {
        for (offset, lanes) in shifts.shifts(p) {
            let seen = tile_bits(lanes, tile);
            for seg in segments(tile, offset) {
                let mask = seg.lanes(seen >> seg.dst.start);
                if mask != 0 {
                    moves.push(Move { p, seg, mask });
                }
            }
        }
    }
    moves
}

/// The adds that send `tile`'s readers' patch gradients back to it, in patch order: the
/// gathering's shifts run backwards. A lane takes at most one add per position.
fn scatter_moves(shifts: &PatchShifts, tile: usize) -> Moves {
    let mut moves = Moves::new();
    for p in 0..PATCH {
        for (offset, lanes) in shifts.shifts(p) {
            for seg in segments(tile, -offset) {
                // The readers of this segment's lanes that see them from here.
                if seg.src_tile * TILE >= lanes.len() * 64 {
                    continue;
                }
                let read = tile_bits(lanes, seg.src_tile);
                let mask = seg.lanes(read >> seg.src_start);
                if mask != 0 {
                    moves.push(Move { p, seg, mask });
                }
            }
        }
    }
    moves
}

/// The (one or two) segments of `tile` shifted by `offset` lanes; none that would start
/// before lane 0.
fn segments(tile: usize, offset: isize) -> impl Iterator<Item = Segment> {
    let start = (tile * TILE) as isize + offset;
    let (src_tile, rem) = (
        start.div_euclid(TILE as isize),
        start.rem_euclid(TILE as isize),
    );
    let split = TILE - rem as usize;
    [
        (src_tile, rem as usize, 0..split),
        (src_tile + 1, 0, split..TILE),
    ]
    .into_iter()
    .filter(|(src_tile, _, dst)| *src_tile >= 0 && !dst.is_empty())
    .map(|(src_tile, src_start, dst)| Segment {
        dst,
        src_tile: src_tile as usize,
        src_start,
    })
}

/// Tile `tile`'s bits of a lane mask (64 lanes to a word; a tile is a part of one).
fn tile_bits(lanes: &[u64], tile: usize) -> u64 {
    const _: () = assert!(64 % TILE == 0, "a tile's lanes are part of one mask word");
    let word = lanes[tile * TILE / 64] >> (tile * TILE % 64);
    word & (u64::MAX >> (64 - TILE))
}

/// `op(out[i], src[i])` for the lanes `i` whose bit is set in `mask` (no bit beyond
/// `out`): a plain loop the compiler vectorizes when every bit is set, a blend when most
/// are, and one lane per set bit when few are (small periodic grids, whose wrapping
/// splits a position among several shifts).
#[inline(always)]
fn select_lanes(out: &mut [f32], src: &[f32], mask: u64, op: impl Fn(&mut f32, f32)) {
    let src = &src[..out.len()];
    let set = mask.count_ones() as usize;
    if set == out.len() {
        for (o, &v) in out.iter_mut().zip(src) {
            op(o, v);
        }
    } else if 2 * set >= out.len() {
        for (i, (o, &v)) in out.iter_mut().zip(src).enumerate() {
            let mut new = *o;
            op(&mut new, v);
            *o = if (mask >> i) & 1 != 0 { new } else { *o };
        }
    } else {
        let mut bits = mask;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            op(&mut out[i], src[i]);
            bits &= bits - 1;
        }
    }
}

/// Adds every tile's coefficient gradients in tile order, whatever the thread count, so
/// the sum is the same on any machine; blocks of parameters are shared among threads.
pub(super) fn sum_in_tile_order(tile_coef_grads: &[Vec<[f64; 4]>], coef_grads: &mut [[f64; 4]]) {
    coef_grads
        .par_chunks_mut(GATES_PER_JOB)
        .enumerate()
        .for_each(|(block, totals)| {
            let first = block * GATES_PER_JOB;
            for tile_grads in tile_coef_grads {
                let tile_grads = &tile_grads[first..][..totals.len()];
                for (total, g) in totals.iter_mut().zip(tile_grads) {
                    for k in 0..4 {
                        total[k] += g[k];
                    }
                }
            }
        });
}

#[cfg(test)]
mod tests;
