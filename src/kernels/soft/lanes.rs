//! A tile's lanes, and what a soft backward gate kernel does with them: the layout and
//! the contract that the portable kernel and the hand-written ones share.

/// Lanes per tile. Tiles are the unit of parallel work and of gradient reduction, so the
/// number is fixed: results must not depend on the thread count.
///
/// 64 lanes keep a reference checkerboard tile (4680 rows) at 1.2 MB of activations.
pub const TILE: usize = 64;
/// Partial sums per coefficient gradient: lane `l` adds to partial `l % PARTIALS`, and
/// the partials are then summed as a tree
/// ([`sum_partials`](super::reference::sum_partials)). 16 is one AVX-512 register of
/// f32, two AVX2 ones.
pub const PARTIALS: usize = 16;

/// One row of a tile: a gate's value (or gradient) in every lane.
pub type Lanes = [f32; TILE];

/// Lanes a tile runs in blocks of. A grid's cells rarely fill their last tile (the
/// lizard's 400 fill 6.25 tiles, the asynchronous checkerboard's 196 3.06): the kernels
/// run only the blocks that hold a real lane. A block is one period of the partial sums,
/// so a skipped block of padding, whose gradients are zeros, would only have added zeros
/// to them: the bits are the same.
pub const BLOCK: usize = PARTIALS;
const _: () = assert!(
    TILE == 4 * BLOCK,
    "the kernels take 1 to 4 blocks as a constant"
);

/// The lanes a tile with `real` real lanes runs: whole blocks, at least one.
pub fn live_lanes(real: usize) -> usize {
    real.clamp(1, TILE).div_ceil(BLOCK) * BLOCK
}

/// Where a gate's input gradients go.
pub enum InputRows<'r> {
    /// Inputs `a` and `b` read different rows.
    Apart(&'r mut Lanes, &'r mut Lanes),
    /// Both read one row: `a`'s gradient goes first, then `b`'s is added (the store
    /// flag of `b` is always false: the first gradient the row receives is `a`'s).
    Shared(&'r mut Lanes),
}

/// One gate's backward over the first `LIVE` lanes of a tile (a multiple of [`BLOCK`]):
/// `g*(c1 + c3*b)` into `a`'s gradient row and `g*(c2 + c3*a)` into `b`'s, each stored (if
/// `store.0` / `store.1`) or added; returns the four coefficient gradients as partial sums
/// (lane `l` into partial `l % PARTIALS`),
/// which [`sum`](Self::sum) adds as a halving tree
/// ([`sum_partials`](super::reference::sum_partials)). Every implementation gives the
/// same bits.
///
/// The two are apart so that the gate loop can sum one gate's partials while the next
/// gate's lanes run: the tree is a long chain of dependent steps at the gate's tail.
pub trait GateBackward {
    /// A gate's partial sums, as the kernel holds them (in registers).
    type Partials: Copy;

    /// Whether the gate loop sums a gate's partials only once the next gate's lanes
    /// run: where the registers hold both gates' partials (AVX-512 has 32), and not
    /// where they would spill (AVX2's and SSE2's 16; on AVX2 the spills cost about 7%
    /// of a training run's instructions).
    const DEFER_SUM: bool;

    fn gate<const LIVE: usize>(
        c: &[f32; 4],
        a: &Lanes,
        b: &Lanes,
        g: &Lanes,
        rows: InputRows<'_>,
        store: (bool, bool),
    ) -> Self::Partials;

    /// The four coefficient gradients: each one's partials summed as a halving tree.
    fn sum(partials: Self::Partials) -> [f32; 4];
}

/// One gate's forward over the first `LIVE` lanes of a tile (a multiple of [`BLOCK`]):
/// `out = soft_gate(c, a, b)` in each lane
/// (`(c0 + c2*b) + a*(c1 + c3*b)`, three fused multiply-adds). Every implementation
/// gives the same bits.
pub trait GateForward {
    fn gate<const LIVE: usize>(c: &[f32; 4], a: &Lanes, b: &Lanes, out: &mut Lanes);
}

/// Implements [`GateBackward`] for `$kernel` with intrinsics functions
/// `$lanes::<LIVE, STORE_A, STORE_B>(c, a, b, g, ga, gb)`, which takes the gradient rows
/// as pointers (equal for a shared row, which then takes `a`'s gradient first and adds
/// `b`'s) and returns `$partials`, and `$sum(partials)`; both must be called only where
/// the CPU has their features. `$defer` is [`GateBackward::DEFER_SUM`].
#[cfg(target_arch = "x86_64")]
macro_rules! gate_backward_by_pointers {
    ($kernel:ty, $lanes:ident, $partials:ty, $sum:ident, defer $defer:literal, $level:literal) => {
        impl GateBackward for $kernel {
            type Partials = $partials;
            const DEFER_SUM: bool = $defer;

            #[inline(always)]
            fn gate<const LIVE: usize>(
                c: &[f32; 4],
                a: &Lanes,
                b: &Lanes,
                g: &Lanes,
                rows: InputRows<'_>,
                store: (bool, bool),
            ) -> $partials {
                let (ga, gb) = match rows {
                    InputRows::Apart(ga, gb) => (ga.as_mut_ptr(), gb.as_mut_ptr()),
                    InputRows::Shared(row) => {
                        let p = row.as_mut_ptr();
                        (p, p)
                    }
                };
                // SAFETY: this runs only inside `multiversioned!`'s wrapper for this
                // level ($level), which checked the CPU; `ga` and `gb` point to rows of
                // TILE floats that nothing else reads or writes meanwhile.
                unsafe {
                    match store {
                        (true, true) => $lanes::<LIVE, true, true>(c, a, b, g, ga, gb),
                        (true, false) => $lanes::<LIVE, true, false>(c, a, b, g, ga, gb),
                        (false, true) => $lanes::<LIVE, false, true>(c, a, b, g, ga, gb),
                        (false, false) => $lanes::<LIVE, false, false>(c, a, b, g, ga, gb),
                    }
                }
            }

            #[inline(always)]
            fn sum(partials: $partials) -> [f32; 4] {
                // SAFETY: as above, only inside the wrapper for $level.
                unsafe { $sum(partials) }
            }
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(super) use gate_backward_by_pointers;
