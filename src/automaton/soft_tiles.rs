//! What a soft rollout does to one tile, on a window of tile-blocked buffers: the tiles
//! `first..` of a run of tiles that read only each other, so that each run can step on
//! its own thread with no barrier between steps (see [`Geometry::tile_runs`]).

use std::ops::Range;

use rayon::prelude::*;

use crate::automaton::masks::FireMasks;
use crate::automaton::patch_shifts::PatchShifts;
use crate::kernels::parameters::GATES_PER_JOB;
use crate::kernels::plan::{BackwardPlan, ForwardRows};
use crate::kernels::simd::multiversioned;
use crate::kernels::soft::TILE;
use crate::model::circuit::Circuit;
use crate::model::config::PATCH;

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

multiversioned! {
    /// Fills rows `c*9 + p` of a tile's activations with what each lane sees; `state` is
    /// the window of tiles `first..` and `tiles` is `(tile, first)`. Each position is a
    /// few shifted copies of the state's channel rows ([`PatchShifts`]), each kept where
    /// its offset applies: whole-row copies instead of a table lookup per lane, which
    /// the wider instruction sets do as masked moves.
    pub(super) fn gather_patch(
        shifts: &PatchShifts,
        channels: usize,
        tiles: (usize, usize),
        state: &[f32],
        acts: &mut [f32],
    ) => gather_patch_body
}

#[inline(always)]
fn gather_patch_body(
    shifts: &PatchShifts,
    channels: usize,
    (tile, first): (usize, usize),
    state: &[f32],
    acts: &mut [f32],
) {
    let tile_len = channels * TILE;
    // Which lanes each copy takes depends on the position, not the channel: found once
    // for all channels.
    for p in 0..PATCH {
        for c in 0..channels {
            acts[(c * PATCH + p) * TILE..][..TILE].fill(0.0);
        }
        for (offset, lanes) in shifts.shifts(p) {
            let seen = tile_bits(lanes, tile);
            for seg in segments(tile, offset) {
                // The lanes of this segment that see the offset; their source is in the
                // window (a run reads only its own tiles).
                let mask = seg.lanes(seen >> seg.dst.start);
                if mask == 0 {
                    continue;
                }
                let src_start = (seg.src_tile - first) * tile_len + seg.src_start;
                for c in 0..channels {
                    let out = &mut acts[(c * PATCH + p) * TILE..][..TILE];
                    let src = &state[src_start + c * TILE..];
                    select_lanes(&mut out[seg.dst.clone()], src, mask, |o, v| *o = v);
                }
            }
        }
    }
}

/// Writes a tile's new state: the circuit's output (in `acts`, laid out as `rows`) where
/// the cell fires, else the old value; `prev` is the window of tiles `first..`.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_outputs(
    circuit: &Circuit,
    rows: ForwardRows<'_>,
    (tile, first): (usize, usize),
    step: usize,
    acts: &[f32],
    prev: &[f32],
    next_tile: &mut [f32],
    masks: Option<&FireMasks>,
) {
    let tile_len = circuit.channels * TILE;
    for c in 0..circuit.channels {
        let out = &acts[rows.slot(circuit.output_row(c)) * TILE..][..TILE];
        let old = &prev[(tile - first) * tile_len + c * TILE..][..TILE];
        let new = &mut next_tile[c * TILE..][..TILE];
        for i in 0..TILE {
            let fires = masks.is_none_or(|m| m.fires(step, tile * TILE + i));
            new[i] = if fires { out[i] } else { old[i] };
        }
    }
}

/// Seeds a tile's output gradient rows with the gradient of the next state (the kernel
/// reads no other row before writing it); a cell that did not fire at step `t` passes
/// no gradient through its gates. `next_grads` is the window of tiles `first..`.
pub(super) fn seed_output_grads(
    circuit: &Circuit,
    plan: &BackwardPlan,
    (tile, first): (usize, usize),
    t: usize,
    masks: Option<&FireMasks>,
    next_grads: &[f32],
    grads: &mut [f32],
) {
    let tile_len = circuit.channels * TILE;
    for c in 0..circuit.channels {
        let seed = &mut grads[plan.gradient_slot(circuit.output_row(c)) * TILE..][..TILE];
        let from = &next_grads[(tile - first) * tile_len + c * TILE..][..TILE];
        for i in 0..TILE {
            let fires = masks.is_none_or(|m| m.fires(t, tile * TILE + i));
            seed[i] = if fires { from[i] } else { 0.0 };
        }
    }
}

/// Gradient of the state before step `t` on a window of tiles `first..`: what cells
/// that did not fire pass on from `next_grads`, plus what every reader's patch received,
/// summed in patch order. The readers at a position are the gathering's shifts run
/// backwards, so each is a whole-row masked add.
pub(super) fn scatter_patch_grads(
    shifts: &PatchShifts,
    channels: usize,
    (t, first): (usize, usize),
    masks: Option<&FireMasks>,
    grads: (&[f32], &[f32]),
    state_grads: &mut [f32],
) {
    state_grads
        .par_chunks_mut(channels * TILE)
        .enumerate()
        .for_each(|(i, out)| {
            scatter_tile(shifts, channels, (t, first + i, first), masks, grads, out)
        });
}

multiversioned! {
    /// [`scatter_patch_grads`] for one tile (`at` is `(t, tile, first)`), which the wider
    /// instruction sets do as masked adds.
    fn scatter_tile(
        shifts: &PatchShifts,
        channels: usize,
        at: (usize, usize, usize),
        masks: Option<&FireMasks>,
        grads: (&[f32], &[f32]),
        out: &mut [f32],
    ) => scatter_tile_body
}

#[inline(always)]
fn scatter_tile_body(
    shifts: &PatchShifts,
    channels: usize,
    (t, tile, first): (usize, usize, usize),
    masks: Option<&FireMasks>,
    (patch_grads, next_grads): (&[f32], &[f32]),
    out: &mut [f32],
) {
    let patch_len = channels * PATCH * TILE;
    let tile_len = channels * TILE;
    let i = tile - first;
    for c in 0..channels {
        let g = &mut out[c * TILE..][..TILE];
        let next = &next_grads[i * tile_len + c * TILE..][..TILE];
        for (l, (g, &next)) in g.iter_mut().zip(next).enumerate() {
            let kept = masks.is_some_and(|m| !m.fires(t, tile * TILE + l));
            *g = if kept { next } else { 0.0 };
        }
    }
    // As in the gather, each add's lanes are found once for all channels; a channel's
    // adds still come in patch order.
    for p in 0..PATCH {
        for (offset, lanes) in shifts.shifts(p) {
            for seg in segments(tile, -offset) {
                // The readers of this segment's lanes that see them from here.
                if seg.src_tile * TILE >= lanes.len() * 64 {
                    continue;
                }
                let read = tile_bits(lanes, seg.src_tile);
                let mask = seg.lanes(read >> seg.src_start);
                if mask == 0 {
                    continue;
                }
                let src_start = (seg.src_tile - first) * patch_len + p * TILE + seg.src_start;
                for c in 0..channels {
                    let g = &mut out[c * TILE..][..TILE];
                    let src = &patch_grads[src_start + c * PATCH * TILE..];
                    select_lanes(&mut g[seg.dst.clone()], src, mask, |o, v| *o += v);
                }
            }
        }
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
mod tests {
    use super::*;
    use crate::automaton::geometry::{Geometry, NO_LANE};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Geometries with one tile per grid, several, a tile shared by grids, padding lanes
    /// and periodic wrapping.
    const CASES: [(usize, usize, usize, bool); 6] = [
        (2, 16, 16, false),
        (1, 16, 16, true),
        (3, 10, 10, false),
        (2, 5, 7, true),
        (1, 3, 3, true),
        (2, 8, 8, false),
    ];

    fn random(len: usize, rng: &mut ChaCha8Rng) -> Vec<f32> {
        (0..len).map(|_| rng.random_range(-1.0..1.0)).collect()
    }

    /// The runs of a geometry, each as (first tile, tiles).
    fn runs(g: &Geometry) -> Vec<(usize, usize)> {
        g.tile_runs().iter().map(|r| (r.start, r.len())).collect()
    }

    /// Every gathered value is the one the neighbour table names, bit for bit.
    #[test]
    fn the_gathered_patch_is_what_the_neighbour_table_names() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let channels = 2;
        for (batch, h, w, periodic) in CASES {
            let g = Geometry::new(batch, h, w, periodic, TILE);
            let shifts = PatchShifts::new(&g);
            let state = random(g.tiles() * channels * TILE, &mut rng);
            for (first, tiles) in runs(&g) {
                let window = &state[first * channels * TILE..][..tiles * channels * TILE];
                for tile in first..first + tiles {
                    let mut acts = vec![f32::NAN; channels * PATCH * TILE];
                    gather_patch(&shifts, channels, (tile, first), window, &mut acts);
                    for c in 0..channels {
                        for p in 0..PATCH {
                            for i in 0..TILE {
                                let n = g.neighbors[tile * TILE + i][p];
                                let expected = match n {
                                    NO_LANE => 0.0,
                                    n => state[state_index(channels, c, n as usize)],
                                };
                                let got = acts[(c * PATCH + p) * TILE + i];
                                assert_eq!(
                                    got.to_bits(),
                                    expected.to_bits(),
                                    "{batch}x{h}x{w} tile {tile} c{c} p{p} lane {i}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every lane's gradient is what its readers' patches received, added in patch order
    /// after what a cell that did not fire keeps, bit for bit.
    #[test]
    fn the_scattered_gradient_sums_what_the_reader_table_names_in_patch_order() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let channels = 2;
        for (batch, h, w, periodic) in CASES {
            let g = Geometry::new(batch, h, w, periodic, TILE);
            let shifts = PatchShifts::new(&g);
            let patch_len = channels * PATCH * TILE;
            let tile_len = channels * TILE;
            let patch = random(g.tiles() * patch_len, &mut rng);
            let next = random(g.tiles() * tile_len, &mut rng);
            let fire = FireMasks::draw(2, batch, h * w, 0.6, &mut rng);
            for masks in [None, Some(&fire)] {
                for (first, tiles) in runs(&g) {
                    let mut out = vec![f32::NAN; tiles * tile_len];
                    let grads = (
                        &patch[first * patch_len..][..tiles * patch_len],
                        &next[first * tile_len..][..tiles * tile_len],
                    );
                    scatter_patch_grads(&shifts, channels, (1, first), masks, grads, &mut out);
                    for lane in first * TILE..(first + tiles) * TILE {
                        let kept = masks.is_some_and(|m| !m.fires(1, lane));
                        for c in 0..channels {
                            let at = state_index(channels, c, lane);
                            let mut expected = if kept { next[at] } else { 0.0 };
                            for (p, &r) in g.readers[lane].iter().enumerate() {
                                if r != NO_LANE {
                                    let r = r as usize;
                                    expected += patch[(r / TILE) * patch_len
                                        + (c * PATCH + p) * TILE
                                        + r % TILE];
                                }
                            }
                            let got = out[at - first * tile_len];
                            assert_eq!(
                                got.to_bits(),
                                expected.to_bits(),
                                "{batch}x{h}x{w} lane {lane} c{c}"
                            );
                        }
                    }
                }
            }
        }
    }
}
