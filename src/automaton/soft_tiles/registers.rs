//! The gather and scatter in registers, written once over a register of f32 lanes
//! ([`PatchRegister`]: `__m256` for AVX2, `__m512` for AVX-512). Each move is cut into
//! the registers of a row it touches, in the order they are written, with the lanes it
//! fills there; each register is then assembled from its moves (masked loads, masked
//! adds in patch order for the gradient) and stored once, where the lane loops write a
//! row once per move. Each lane gets the same value, its adds in the same order, so the
//! bits are those of the lane loops. These are inlined into `multiversioned!`'s wrapper
//! for each level, which enables its instructions.

use arrayvec::ArrayVec;

use super::{gather_moves, scatter_moves, Move, MAX_SHIFTS};
use crate::automaton::patch_shifts::PatchShifts;
use crate::kernels::soft::TILE;
use crate::model::config::PATCH;

/// A register of [`WIDTH`](Self::WIDTH) f32 lanes and the masked moves the gather and
/// scatter make with it.
///
/// # Safety
/// Each method is an intrinsic of the register's instruction set: it may run only where
/// the CPU has that set. A masked load reads only the lanes of its mask, and `p` must be
/// valid for those.
pub(super) trait PatchRegister: Copy {
    /// Lanes per register, at most 16.
    const WIDTH: usize;
    /// A set of lanes in the form the masked instructions take.
    type Mask: Copy;

    /// The lanes of the low `WIDTH` bits of `k`.
    unsafe fn mask(k: u16) -> Self::Mask;
    unsafe fn zero() -> Self;
    /// `self` with the lanes of `mask` loaded from `p`.
    unsafe fn load_into(self, mask: Self::Mask, p: *const f32) -> Self;
    /// The lanes of `mask` loaded from `p`, zero elsewhere.
    unsafe fn load_or_zero(mask: Self::Mask, p: *const f32) -> Self;
    /// `self + other` on the lanes of `mask`, `self` elsewhere.
    unsafe fn add_where(self, mask: Self::Mask, other: Self) -> Self;
    /// To `WIDTH` floats at `p`, which must be valid for them.
    unsafe fn store(self, p: *mut f32);
}

/// The narrowest register, in lanes (AVX2's 8 floats); it sets the lists' capacity.
const NARROWEST: usize = 8;

/// The part of a move that touches one register of a row: `row` numbers the register
/// (in the order they are written), `k` the move's lanes there, and `base` the index of
/// the source lane that the register's lane 0 would read, for channel 0.
struct ChunkMove {
    row: usize,
    k: u16,
    base: isize,
}

/// The most chunk moves a tile can have: every move cut into the narrowest registers.
const MAX_CHUNK_MOVES: usize = PATCH * 2 * MAX_SHIFTS * TILE / NARROWEST;

/// A tile's moves cut into registers, and each one's lanes as the register's mask.
/// (Filled in place: moving a list copies its whole capacity.)
struct ChunkMoves<R: PatchRegister> {
    moves: ArrayVec<ChunkMove, MAX_CHUNK_MOVES>,
    masks: ArrayVec<R::Mask, MAX_CHUNK_MOVES>,
}

impl<R: PatchRegister> ChunkMoves<R> {
    #[inline(always)]
    fn new() -> Self {
        Self {
            moves: ArrayVec::new(),
            masks: ArrayVec::new(),
        }
    }

    /// Adds `m`'s part of register `j`, if it has lanes there; `base` is its source
    /// index for tile lane 0, `row` the register's number.
    #[inline(always)]
    fn push(&mut self, m: &Move, j: usize, (base, row): (isize, usize)) {
        let k = ((m.tile_lanes() >> (j * R::WIDTH)) & (u64::MAX >> (64 - R::WIDTH))) as u16;
        if k != 0 {
            self.moves.push(ChunkMove {
                row,
                k,
                base: base + (j * R::WIDTH) as isize - m.seg.dst.start as isize,
            });
        }
    }

    /// The masks of every move, once the moves are in; checks that each move reads
    /// inside a source of `len` floats for each of `channels` channels `stride` apart.
    #[inline(always)]
    fn finish(&mut self, channels: usize, stride: usize, len: usize) {
        for m in &self.moves {
            let first = m.base + m.k.trailing_zeros() as isize;
            let last =
                m.base + ((channels - 1) * stride) as isize + 15 - m.k.leading_zeros() as isize;
            assert!(
                first >= 0 && last < len as isize,
                "a move reads lanes {first}..={last} of a source of {len}"
            );
        }
        // SAFETY: `PatchRegister`'s callers run where the CPU has its instructions.
        let masks = self.moves.iter().map(|m| unsafe { R::mask(m.k) });
        self.masks.extend(masks);
    }

    /// Each move with its mask, in order.
    #[inline(always)]
    fn iter(&self) -> impl Iterator<Item = (&ChunkMove, R::Mask)> {
        self.moves.iter().zip(self.masks.iter().copied())
    }
}

/// [`gather_patch`](super::gather_patch) in registers `R`.
#[inline(always)]
pub(super) fn gather_patch<R: PatchRegister>(
    shifts: &PatchShifts,
    channels: usize,
    (tile, first): (usize, usize),
    state: &[f32],
    acts: &mut [f32],
) {
    let (per_row, tile_len) = (TILE / R::WIDTH, channels * TILE);
    let mut chunks = ChunkMoves::<R>::new();
    // The moves come in patch order: each position's moves are one run of them.
    for position in gather_moves(shifts, tile).chunk_by(|a, b| a.p == b.p) {
        for j in 0..per_row {
            for m in position {
                let base = ((m.seg.src_tile - first) * tile_len + m.seg.src_start) as isize;
                chunks.push(m, j, (base, m.p * per_row + j));
            }
        }
    }
    chunks.finish(channels, TILE, state.len());
    assert!(
        acts.len() >= channels * PATCH * TILE,
        "the table holds the patch"
    );
    let mut at = 0;
    for row in 0..PATCH * per_row {
        let end = at
            + chunks.moves[at..]
                .iter()
                .take_while(|m| m.row == row)
                .count();
        let (group, masks) = (&chunks.moves[at..end], &chunks.masks[at..end]);
        at = end;
        // Channel by channel, the same moves: the sources are consecutive rows.
        let (p, j) = (row / per_row, row % per_row);
        for c in 0..channels {
            let src = state.as_ptr().wrapping_add(c * TILE);
            // SAFETY: this runs only inside `multiversioned!`'s wrapper for `R`'s
            // level, which checked the CPU; the lanes of each mask are in `state` and
            // the row is in `acts` (checked).
            unsafe {
                let mut v = R::zero();
                for (m, &mask) in group.iter().zip(masks) {
                    v = v.load_into(mask, src.wrapping_offset(m.base));
                }
                let out = acts.as_mut_ptr().add((c * PATCH + p) * TILE + j * R::WIDTH);
                v.store(out);
            }
        }
    }
}

/// The scatter of one tile in registers `R`: `at` is `(tile, first, kept)`, `kept` a bit
/// for each lane whose cell did not fire (it passes on its `next` gradient); `next` is
/// the tile's rows of the next state's gradient, `patch_grads` the window's.
#[inline(always)]
pub(super) fn scatter_tile<R: PatchRegister>(
    shifts: &PatchShifts,
    channels: usize,
    (tile, first, kept): (usize, usize, u64),
    (patch_grads, next): (&[f32], &[f32]),
    out: &mut [f32],
) {
    let patch_len = channels * PATCH * TILE;
    let mut chunks = ChunkMoves::<R>::new();
    let moves = scatter_moves(shifts, tile);
    for j in 0..TILE / R::WIDTH {
        for m in &moves {
            let base = (m.seg.src_tile - first) * patch_len + m.p * TILE + m.seg.src_start;
            chunks.push(m, j, (base as isize, j));
        }
    }
    chunks.finish(channels, PATCH * TILE, patch_grads.len());
    assert!(
        next.len() >= channels * TILE && out.len() >= channels * TILE,
        "the tile's rows are there"
    );
    let low = u64::MAX >> (64 - R::WIDTH);
    let kept: ArrayVec<R::Mask, { TILE / NARROWEST }> = (0..TILE / R::WIDTH)
        // SAFETY: as in `gather_patch`.
        .map(|j| unsafe { R::mask(((kept >> (j * R::WIDTH)) & low) as u16) })
        .collect();
    for c in 0..channels {
        let src = patch_grads.as_ptr().wrapping_add(c * PATCH * TILE);
        let next = next[c * TILE..].as_ptr();
        let g = out[c * TILE..].as_mut_ptr();
        let mut moves = chunks.iter().peekable();
        for (j, &kept) in kept.iter().enumerate() {
            // SAFETY: as in `gather_patch`: the lanes of each mask are in `patch_grads`;
            // the rows are in `next` and `out`.
            unsafe {
                let mut acc = R::load_or_zero(kept, next.add(j * R::WIDTH));
                while let Some((m, mask)) = moves.next_if(|(m, _)| m.row == j) {
                    let v = R::load_or_zero(mask, src.wrapping_offset(m.base));
                    acc = acc.add_where(mask, v);
                }
                acc.store(g.add(j * R::WIDTH));
            }
        }
    }
}
