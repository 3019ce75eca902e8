//! Soft (training) evaluation of a circuit on one tile of lanes, forward and backward.
//!
//! Activations are `rows x TILE` floats: a row holds one gate's value in every lane, so a
//! gate is a straight loop over `TILE` lanes: a portable one that the compiler
//! vectorizes for the baseline, and intrinsics for AVX2 and AVX-512
//! ([`SimdLevel`](crate::kernels::simd::SimdLevel)). Every multiply-add that is fused is
//! written as `mul_add` and every sum has a fixed order, so every level gives the same
//! bits as the scalar references ([`reference`](mod@reference)).
//!
//! This module holds the gate loops, shared by every level, and chooses the lane kernel
//! they run with at run time.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
pub mod lanes;
mod portable;
pub mod reference;
#[cfg(test)]
mod tests;
#[cfg(target_arch = "x86_64")]
mod vector;

pub use lanes::{live_lanes, BLOCK, TILE};

use crate::kernels::plan::{BackwardPlan, ForwardRows};
use crate::kernels::simd::multiversioned;
use crate::model::circuit::GateRef;
use lanes::{GateBackward, GateForward, InputRows, Lanes};
use portable::Portable;

fn row_mut(table: &mut [f32], r: usize) -> &mut Lanes {
    (&mut table[r * TILE..(r + 1) * TILE])
        .try_into()
        .expect("row inside the table")
}

/// Calls `$f::<K, LIVE>(args)` with `$live` (lanes, 1 to 4 [`BLOCK`]s) as the constant
/// `LIVE`, so that a full tile's lane loops keep the fixed trip count they were tuned
/// with and a tile of padding runs only its blocks that hold a real lane.
macro_rules! with_live {
    ($live:expr, $f:ident::<$k:ty>($($arg:expr),* $(,)?)) => {
        match $live {
            live if live == BLOCK => $f::<$k, BLOCK>($($arg),*),
            live if live == 2 * BLOCK => $f::<$k, { 2 * BLOCK }>($($arg),*),
            live if live == 3 * BLOCK => $f::<$k, { 3 * BLOCK }>($($arg),*),
            live if live == TILE => $f::<$k, TILE>($($arg),*),
            live => panic!("a tile runs 1 to 4 blocks of {BLOCK} lanes, not {live} lanes"),
        }
    };
}

multiversioned! {
    /// Runs the gates of `rows` on a tile's first `live` lanes ([`live_lanes`]); the
    /// input rows of `acts` must hold the patch. The other lanes are left as they were.
    ///
    /// # Panics
    /// If `acts` is shorter than the rows written, `live` is not 1 to 4 [`BLOCK`]s, or
    /// (for [`ForwardRows::Every`]) a gate reads a row at or after its own.
    pub fn forward / forward_at(
        rows: ForwardRows<'_>,
        coefs: &[[f32; 4]],
        acts: &mut [f32],
        live: usize,
    ) => forward_live::<Portable>,
        avx2 => forward_live::<avx2::Avx2>,
        avx512 => forward_live::<avx512::Avx512>
}

#[inline(always)]
fn forward_live<K: GateForward>(
    rows: ForwardRows<'_>,
    coefs: &[[f32; 4]],
    acts: &mut [f32],
    live: usize,
) {
    with_live!(live, forward_with::<K>(rows, coefs, acts));
}

/// The two layouts of [`forward`], shared by every level; `K` does one gate's lanes.
#[inline(always)]
fn forward_with<K: GateForward, const LIVE: usize>(
    rows: ForwardRows<'_>,
    coefs: &[[f32; 4]],
    acts: &mut [f32],
) {
    let (table, _) = acts.as_chunks_mut::<TILE>();
    match rows {
        ForwardRows::Every { gates, input_rows } => {
            assert!(
                table.len() >= input_rows + gates.len(),
                "the table holds every row"
            );
            let steps = gates.iter().zip(input_rows..).inspect(|(gate, out)| {
                assert!(
                    (gate.a as usize) < *out && (gate.b as usize) < *out,
                    "gates read rows before their own"
                );
            });
            // SAFETY: checked above: every row is in the table, and each gate reads
            // only rows before the one it writes.
            unsafe { forward_gates::<K, LIVE>(steps, coefs, table) }
        }
        ForwardRows::Plan(plan) => {
            assert!(
                table.len() >= plan.rows(),
                "the table holds the plan's rows"
            );
            // SAFETY: every slot of a plan is below `plan.rows()` and a gate's output
            // slot is none of its inputs' (plan invariants); the table is long enough.
            unsafe { forward_gates::<K, LIVE>(plan.steps(), coefs, table) }
        }
    }
}

/// The gate loop of [`forward`]: each `(gate, out)` writes row `out` of `table`.
///
/// # Safety
/// Every row named is in `table`, and no gate's `out` is one of the rows it reads.
#[inline(always)]
unsafe fn forward_gates<'g, K: GateForward, const LIVE: usize>(
    steps: impl Iterator<Item = (&'g GateRef, usize)>,
    coefs: &[[f32; 4]],
    table: &mut [Lanes],
) {
    let rows = table.as_mut_ptr();
    for (gate, out) in steps {
        // SAFETY: the caller's promise: three rows in the table, the written one apart.
        let (a, b, out) = unsafe {
            (
                &*rows.add(gate.a as usize),
                &*rows.add(gate.b as usize),
                &mut *rows.add(out),
            )
        };
        K::gate::<LIVE>(&coefs[gate.param as usize], a, b, out);
    }
}

/// How many gates ahead backward asks the cache for the activation rows a gate reads:
/// it walks a tile's rows backwards, over megabytes (3.4 MB for a lizard tile), where
/// no hardware prefetcher follows. Measured on training runs: 16 ahead made the
/// checkerboard, the coloured G and the lizard 3 to 4% faster, 32 no better; the same
/// in forward, whose rows were just written and sit in L2, made them slower.
const PREFETCH_AHEAD: usize = 16;

/// Asks the cache for the first `LIVE` lanes of `rows[r]` for each `r` of `read`: a hint,
/// which reads nothing and cannot fault, whatever the row.
#[inline(always)]
fn prefetch_rows<const LIVE: usize>(rows: *const Lanes, read: [u32; 2]) {
    #[cfg(target_arch = "x86_64")]
    for r in read {
        let row = rows.wrapping_add(r as usize).cast::<i8>();
        for byte in (0..LIVE * size_of::<f32>()).step_by(64) {
            // SAFETY: a prefetch reads no memory and never faults, whatever the address.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    row.wrapping_add(byte),
                );
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (rows, read);
}

multiversioned! {
    /// Backpropagates through the gates of the circuit that `plan` was made for, in
    /// reverse order, on a tile's first `live` lanes ([`live_lanes`]: the others are
    /// padding, whose gradients would be zeros, and are neither read nor written).
    ///
    /// `tables` is `(patch, grads)`. `grads` has the plan's
    /// [`gradient_rows`](BackwardPlan::gradient_rows): on entry
    /// the slots of the circuit's outputs hold their gradient; no other slot is read
    /// before it is written. On exit `patch` (the plan's
    /// [`input_rows`](BackwardPlan::input_rows) rows) holds the patch gradient; it is
    /// only written, never read first. Each gate's coefficient gradients are summed over
    /// the tile's lanes ([`sum_partials`](reference::sum_partials)) and added to
    /// `coef_grads`.
    pub fn backward / backward_at(
        plan: &BackwardPlan,
        coefs: &[[f32; 4]],
        acts: &[f32],
        tables: (&mut [f32], &mut [f32]),
        coef_grads: &mut [[f64; 4]],
        live: usize,
    ) => backward_live::<Portable>,
        avx2 => backward_live::<avx2::Avx2>,
        avx512 => backward_live::<avx512::Avx512>
}

#[inline(always)]
fn backward_live<K: GateBackward>(
    plan: &BackwardPlan,
    coefs: &[[f32; 4]],
    acts: &[f32],
    tables: (&mut [f32], &mut [f32]),
    coef_grads: &mut [[f64; 4]],
    live: usize,
) {
    with_live!(
        live,
        backward_with::<K>(plan, coefs, acts, tables, coef_grads)
    );
}

/// The gate loop of [`backward`], shared by every level; `K` does one gate's lanes.
#[inline(always)]
fn backward_with<K: GateBackward, const LIVE: usize>(
    plan: &BackwardPlan,
    coefs: &[[f32; 4]],
    acts: &[f32],
    (patch, grads): (&mut [f32], &mut [f32]),
    coef_grads: &mut [[f64; 4]],
) {
    let (acts_rows, _) = acts.as_chunks::<TILE>();
    let (patch_rows, _) = patch.as_chunks_mut::<TILE>();
    let (slots, _) = grads.as_chunks_mut::<TILE>();
    let inputs = plan.input_rows();
    assert!(
        acts_rows.len() >= plan.rows_read(),
        "the table holds every row read"
    );
    assert!(
        patch_rows.len() >= inputs,
        "the patch table holds every input row"
    );
    assert!(
        slots.len() >= plan.gradient_rows(),
        "the gradient table holds every slot"
    );
    assert!(
        coefs.len() >= plan.params_read(),
        "every parameter has coefficients"
    );
    let mut sums = CoefSums::<K>::new(coef_grads);
    let acts_rows = acts_rows.as_ptr();
    let patch_rows = patch_rows.as_mut_ptr();
    // Gate rows' slots are numbered from `inputs` (the plan's numbering over both
    // tables): offset once here, so a slot is one add, as in a single table. Wrapping
    // arithmetic keeps the pointer's provenance; every slot it is added to lands
    // inside the table again.
    let gate_slots = slots.as_mut_ptr().wrapping_sub(inputs);
    let slot = |s: u32| -> *mut Lanes {
        let s = s as usize;
        if s < inputs {
            patch_rows.wrapping_add(s)
        } else {
            gate_slots.wrapping_add(s)
        }
    };
    let steps = plan.steps();
    for (i, step) in steps.iter().enumerate() {
        if let Some(ahead) = steps.get(i + PREFETCH_AHEAD) {
            prefetch_rows::<LIVE>(acts_rows, [ahead.a, ahead.b]);
        }
        // SAFETY: checked above: every row, slot and parameter named is in its table;
        // the plan gives a gate's output a slot apart from its inputs', and two
        // different live rows never share a slot.
        let (a, b, g, rows, c) = unsafe {
            let (ga, gb) = (slot(step.ga), slot(step.gb));
            let rows = if ga == gb {
                InputRows::Shared(&mut *ga)
            } else {
                InputRows::Apart(&mut *ga, &mut *gb)
            };
            (
                &*acts_rows.add(step.a as usize),
                &*acts_rows.add(step.b as usize),
                &*gate_slots.wrapping_add(step.g as usize),
                rows,
                coefs.get_unchecked(step.param()),
            )
        };
        let partials = K::gate::<LIVE>(c, a, b, g, rows, step.store());
        sums.push(step.param(), partials);
    }
    sums.finish();
    for &r in plan.unread_inputs() {
        row_mut(patch, r)[..LIVE].fill(0.0);
    }
}

/// Adds each gate's coefficient sums to the totals in gate order; where the kernel defers
/// them ([`GateBackward::DEFER_SUM`]), a gate's partials are summed once the next gate's
/// lanes are under way.
struct CoefSums<'c, K: GateBackward> {
    totals: &'c mut [[f64; 4]],
    pending: Option<(usize, K::Partials)>,
}

impl<'c, K: GateBackward> CoefSums<'c, K> {
    fn new(totals: &'c mut [[f64; 4]]) -> Self {
        CoefSums {
            totals,
            pending: None,
        }
    }

    #[inline(always)]
    fn push(&mut self, param: usize, partials: K::Partials) {
        let ready = match K::DEFER_SUM {
            true => self.pending.replace((param, partials)),
            false => Some((param, partials)),
        };
        if let Some((param, partials)) = ready {
            self.add(param, partials);
        }
    }

    #[inline(always)]
    fn add(&mut self, param: usize, partials: K::Partials) {
        for (total, sum) in self.totals[param].iter_mut().zip(K::sum(partials)) {
            *total += f64::from(sum);
        }
    }

    /// Adds the last gate's sums.
    #[inline(always)]
    fn finish(mut self) {
        if let Some((param, partials)) = self.pending.take() {
            self.add(param, partials);
        }
    }
}
