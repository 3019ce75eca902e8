//! The gather and scatter in AVX-512: each 16 lanes of a row are assembled in a register
//! from every move that touches them (masked loads, a masked add for the scatter) and
//! stored once. The lane loops of [`gather`](super::gather) and
//! [`scatter`](super::scatter) instead write a row once per move, a masked pass over
//! memory each; a patch row takes two to four, and on the wide tasks those stores were
//! most of the gather's time. Each lane gets the same value, its adds in the same
//! (patch) order, so the bits are the same.

use std::arch::x86_64::{
    _mm512_mask_add_ps, _mm512_mask_loadu_ps, _mm512_maskz_loadu_ps, _mm512_setzero_ps,
    _mm512_storeu_ps,
};

use arrayvec::ArrayVec;

use super::{Move, Moves, MAX_SHIFTS};
use crate::kernels::soft::TILE;
use crate::model::config::PATCH;

/// Lanes per register.
const WIDTH: usize = 16;
/// Registers per row.
const CHUNKS: usize = TILE / WIDTH;

/// The part of a move that touches one register of a row: `row` numbers the register
/// (in the order they are written), `k` the move's lanes there, and `base` the index of
/// the source lane that the register's lane 0 would read, for channel 0.
struct ChunkMove {
    row: usize,
    k: u16,
    base: isize,
}

type ChunkMoves = ArrayVec<ChunkMove, { PATCH * 2 * MAX_SHIFTS * CHUNKS }>;

/// `m`'s part of register `j`, if it has lanes there; `base` is its source index for
/// tile lane 0.
fn chunk(m: &Move, j: usize, base: isize, row: usize) -> Option<ChunkMove> {
    let k = (m.tile_lanes() >> (j * WIDTH)) as u16;
    (k != 0).then(|| ChunkMove {
        row,
        k,
        base: base + (j * WIDTH) as isize - m.seg.dst.start as isize,
    })
}

/// Checks that every lane a chunk move reads, for each of `channels` channels `stride`
/// apart, is inside a source of `len` floats.
fn check_sources(moves: &ChunkMoves, channels: usize, stride: usize, len: usize) {
    for m in moves {
        let first = m.base + m.k.trailing_zeros() as isize;
        let last = m.base + ((channels - 1) * stride) as isize + 15 - m.k.leading_zeros() as isize;
        assert!(
            first >= 0 && last < len as isize,
            "a move reads lanes {first}..={last} of a source of {len}"
        );
    }
}

/// [`gather_patch`](super::gather_patch) with AVX-512.
#[inline(always)]
pub(super) fn gather_patch(
    moves: &Moves,
    channels: usize,
    first: usize,
    state: &[f32],
    acts: &mut [f32],
) {
    let tile_len = channels * TILE;
    let mut chunks = ChunkMoves::new();
    for p in 0..PATCH {
        for j in 0..CHUNKS {
            for m in moves.iter().filter(|m| m.p == p) {
                let base = ((m.seg.src_tile - first) * tile_len + m.seg.src_start) as isize;
                chunks.extend(chunk(m, j, base, p * CHUNKS + j));
            }
        }
    }
    check_sources(&chunks, channels, TILE, state.len());
    assert!(
        acts.len() >= channels * PATCH * TILE,
        "the table holds the patch"
    );
    // SAFETY: this runs only inside `multiversioned!`'s AVX-512 wrapper, which checked
    // the CPU; every lane read is in `state` and every row written in `acts` (checked).
    unsafe { gather_rows(&chunks, channels, state, acts) }
}

/// # Safety
/// The CPU has AVX-512F; the chunk moves read inside `state` for every channel, and
/// `acts` holds `channels * PATCH` rows.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn gather_rows(chunks: &ChunkMoves, channels: usize, state: &[f32], acts: &mut [f32]) {
    let mut at = 0;
    for row in 0..PATCH * CHUNKS {
        let end = at + chunks[at..].iter().take_while(|m| m.row == row).count();
        let group = &chunks[at..end];
        at = end;
        // Channel by channel, the same moves: the sources are consecutive rows.
        let (p, j) = (row / CHUNKS, row % CHUNKS);
        for c in 0..channels {
            let src = state.as_ptr().wrapping_add(c * TILE);
            // SAFETY: the caller's promise: the lanes of `k` are in `state`; the row is
            // in `acts`.
            unsafe {
                let mut v = _mm512_setzero_ps();
                for m in group {
                    v = _mm512_mask_loadu_ps(v, m.k, src.wrapping_offset(m.base));
                }
                let out = acts.as_mut_ptr().add((c * PATCH + p) * TILE + j * WIDTH);
                _mm512_storeu_ps(out, v);
            }
        }
    }
}

/// [`scatter_tile`](super::scatter) with AVX-512: `kept` has a bit for each lane whose
/// cell did not fire (it passes on its `next` gradient); `next` is the tile's rows of
/// the next state's gradient, `patch_grads` the window's.
#[inline(always)]
pub(super) fn scatter_tile(
    moves: &Moves,
    channels: usize,
    (first, kept): (usize, u64),
    (patch_grads, next): (&[f32], &[f32]),
    out: &mut [f32],
) {
    let patch_len = channels * PATCH * TILE;
    let mut chunks = ChunkMoves::new();
    for j in 0..CHUNKS {
        for m in moves {
            let base = (m.seg.src_tile - first) * patch_len + m.p * TILE + m.seg.src_start;
            chunks.extend(chunk(m, j, base as isize, j));
        }
    }
    check_sources(&chunks, channels, PATCH * TILE, patch_grads.len());
    assert!(
        next.len() >= channels * TILE && out.len() >= channels * TILE,
        "the tile's rows are there"
    );
    // SAFETY: as in `gather_patch`.
    unsafe { scatter_rows(&chunks, channels, kept, (patch_grads, next), out) }
}

/// # Safety
/// The CPU has AVX-512F; the chunk moves read inside `patch_grads` for every channel,
/// and `next` and `out` hold `channels` rows.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
unsafe fn scatter_rows(
    chunks: &ChunkMoves,
    channels: usize,
    kept: u64,
    (patch_grads, next): (&[f32], &[f32]),
    out: &mut [f32],
) {
    for c in 0..channels {
        let src = patch_grads.as_ptr().wrapping_add(c * PATCH * TILE);
        let next = next[c * TILE..].as_ptr();
        let g = out[c * TILE..].as_mut_ptr();
        let mut moves = chunks.iter().peekable();
        for j in 0..CHUNKS {
            // SAFETY: the caller's promise: the lanes of `k` are in `patch_grads`; the
            // rows are in `next` and `out`.
            unsafe {
                let mut acc =
                    _mm512_maskz_loadu_ps((kept >> (j * WIDTH)) as u16, next.add(j * WIDTH));
                while let Some(m) = moves.next_if(|m| m.row == j) {
                    let v = _mm512_maskz_loadu_ps(m.k, src.wrapping_offset(m.base));
                    acc = _mm512_mask_add_ps(acc, m.k, acc, v);
                }
                _mm512_storeu_ps(g.add(j * WIDTH), acc);
            }
        }
    }
}
