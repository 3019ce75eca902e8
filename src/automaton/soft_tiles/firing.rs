//! Forward on the lanes that fire only: an asynchronous step's firing lanes packed into
//! as few tiles as they fill, each lane's patch gathered by the geometry's neighbour
//! table, and the outputs written back to their cells. A gate's value in a lane does
//! not depend on where the lane sits in a tile, so the new state has the same bits as a
//! step over every lane.

use std::ops::Range;

use crate::automaton::geometry::{Geometry, NO_LANE};
use crate::automaton::masks::FireMasks;
use crate::automaton::soft_tiles::state_index;
use crate::kernels::soft::{live_lanes, TILE};
use crate::model::config::PATCH;

/// The real lanes of `tiles` that fire at `step`, in lane order.
pub(in crate::automaton) fn firing_lanes(
    geometry: &Geometry,
    masks: &FireMasks,
    step: usize,
    tiles: Range<usize>,
) -> Vec<u32> {
    const { assert!(TILE == 64, "a tile's fire bits are one word") };
    tiles
        .flat_map(|tile| {
            let real = u64::MAX.checked_shr((TILE - geometry.real_lanes(tile)) as u32);
            let mut bits = masks.fire_bits(step, tile * TILE) & real.unwrap_or(0);
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    tile * TILE + i
                })
            })
        })
        .map(|lane| u32::try_from(lane).expect("lanes fit in u32"))
        .collect()
}

/// Fills rows `c*9 + p` of a packed tile's activations: its lane `j` sees what cell
/// `lanes[j]` sees in `state`, the window of tiles `first..` (0 where the cell has no
/// neighbour). The kernel's other live lanes ([`live_lanes`]) read 0.
pub(in crate::automaton) fn gather_lanes(
    neighbors: &[[u32; PATCH]],
    (channels, first): (usize, usize),
    lanes: &[u32],
    state: &[f32],
    acts: &mut [f32],
) {
    let base = first * channels * TILE;
    let live = live_lanes(lanes.len());
    for p in 0..PATCH {
        for (j, &lane) in lanes.iter().enumerate() {
            // Channel c of a lane is `c * TILE` past its channel 0.
            let seen = neighbors[lane as usize][p];
            let from = (seen != NO_LANE).then(|| state_index(channels, 0, seen as usize) - base);
            for c in 0..channels {
                acts[(c * PATCH + p) * TILE + j] = from.map_or(0.0, |from| state[from + c * TILE]);
            }
        }
        for c in 0..channels {
            acts[(c * PATCH + p) * TILE..][lanes.len()..live].fill(0.0);
        }
    }
}

/// Writes one tile's new state: its old state, with the outputs of its firing lanes in
/// their places (with `unit`, clamped to [0, 1]). `firing` is the tile's firing lanes,
/// in lane order, and the packed index of the first; `outs` holds, per packed tile,
/// `channels` rows of [`TILE`], packed lane `j` at `[j / TILE][c][j % TILE]`.
pub(in crate::automaton) fn write_firing_tile(
    channels: usize,
    (lanes, first_packed): (&[u32], usize),
    outs: &[f32],
    (prev_tile, next_tile): (&[f32], &mut [f32]),
    unit: bool,
) {
    next_tile.copy_from_slice(prev_tile);
    for (j, &lane) in (first_packed..).zip(lanes) {
        let out = &outs[(j / TILE) * channels * TILE + j % TILE..];
        let i = lane as usize % TILE;
        for c in 0..channels {
            next_tile[c * TILE + i] = out[c * TILE];
        }
    }
    if unit {
        next_tile.iter_mut().for_each(|x| *x = x.clamp(0.0, 1.0));
    }
}

/// Where the firing lanes of `tile` sit in the list of firing lanes (sorted).
pub(in crate::automaton) fn tile_span(lanes: &[u32], tile: usize) -> Range<usize> {
    let below = |end: usize| lanes.partition_point(|&l| (l as usize) < end);
    below(tile * TILE)..below((tile + 1) * TILE)
}

/// Each lane's place among the firing lanes `lanes` (sorted), [`NO_LANE`] for a lane
/// that does not fire: where backward finds the patch gradient of a cell that read.
pub(in crate::automaton) fn packed_places(padded_lanes: usize, lanes: &[u32]) -> Vec<u32> {
    let mut places = vec![NO_LANE; padded_lanes];
    for (j, &lane) in lanes.iter().enumerate() {
        places[lane as usize] = u32::try_from(j).expect("lanes fit in u32");
    }
    places
}

/// Seeds a packed tile's output gradient rows (`slots[c]` is channel `c`'s row) with the
/// gradient of the next state at its firing lanes `lanes`; its other lanes get none.
pub(in crate::automaton) fn seed_packed_grads(
    channels: usize,
    slots: impl Iterator<Item = usize>,
    lanes: &[u32],
    next_grads: &[f32],
    grads: &mut [f32],
) {
    for (c, slot) in slots.enumerate().take(channels) {
        let seed = &mut grads[slot * TILE..][..TILE];
        seed.fill(0.0);
        for (s, &lane) in seed.iter_mut().zip(lanes) {
            *s = next_grads[state_index(channels, c, lane as usize)];
        }
    }
}

/// The gradient of the state before an asynchronous step on one tile, from the packed
/// tiles of that step: a cell that did not fire (`fired` has a bit for each lane that
/// did) passes on its gradient in `next` (the tile's rows of the next state's); then
/// every reader that fired adds what its patch received at each position, in patch
/// order, the order the scatter over every lane adds them in. `places` are the lanes'
/// places among the step's firing lanes ([`packed_places`]); `patch_grads` holds the
/// packed tiles' patch gradients.
pub(in crate::automaton) fn scatter_packed_tile(
    readers: &[[u32; PATCH]],
    (channels, tile, real): (usize, usize, usize),
    (places, fired): (&[u32], u64),
    (patch_grads, next): (&[f32], &[f32]),
    out: &mut [f32],
) {
    for c in 0..channels {
        let rows = c * TILE..(c + 1) * TILE;
        for (l, (g, &n)) in out[rows.clone()].iter_mut().zip(&next[rows]).enumerate() {
            *g = if (fired >> l) & 1 == 0 { n } else { 0.0 };
        }
    }
    let patch_len = channels * PATCH * TILE;
    for i in 0..real {
        for (p, &reader) in readers[tile * TILE + i].iter().enumerate() {
            let Some(&j) = places.get(reader as usize).filter(|&&j| j != NO_LANE) else {
                continue;
            };
            let j = j as usize;
            let src = &patch_grads[(j / TILE) * patch_len + p * TILE + j % TILE..];
            for c in 0..channels {
                out[c * TILE + i] += src[c * PATCH * TILE];
            }
        }
    }
}
