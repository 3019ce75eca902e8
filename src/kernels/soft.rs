//! Soft (training) evaluation of a circuit on one tile of lanes, forward and backward.
//!
//! Activations are `rows x TILE` floats: a row holds one gate's value in every lane, so a
//! gate is a straight loop over `TILE` lanes: a portable one that the compiler vectorizes
//! for the baseline, and intrinsics for AVX2 and AVX-512
//! ([`SimdLevel`](crate::kernels::simd::SimdLevel)). Every multiply-add that is fused is
//! written as `mul_add` and every sum has a fixed order, so every level gives the same
//! bits as the scalar references below.

#[cfg(test)]
use crate::kernels::forward_plan::ForwardPlan;
use crate::kernels::forward_plan::ForwardRows;
pub use crate::kernels::lanes::TILE;
use crate::kernels::lanes::{GateBackward, GateForward, InputRows, Lanes, PARTIALS};
use crate::kernels::simd::multiversioned;
use crate::model::circuit::GateRef;
use crate::model::gates::{add_soft_gate_coef_grads, soft_gate, soft_gate_input_grads};

fn row_mut(table: &mut [f32], r: usize) -> &mut Lanes {
    (&mut table[r * TILE..(r + 1) * TILE])
        .try_into()
        .expect("row inside the table")
}

/// What backward does with each gate, found once per circuit so that the gradient table
/// never has to be cleared and stays small: the first gradient a row receives is stored,
/// later ones are added, gates whose output nothing reads are skipped, and a row's
/// gradient lives in a *slot* only from its first reader (in backward order) to its own
/// gate, after which the slot serves another row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackwardPlan {
    /// The gates that backward runs, in the order it runs them (reverse, the skipped
    /// ones left out), with their rows, slots and store flags resolved.
    steps: Vec<BackwardStep>,
    /// Per row: its gradient's slot (input rows keep their own index).
    slots: Vec<u32>,
    /// Slots a gradient table needs.
    slot_count: usize,
    /// Input rows that no gate reads: their gradient is zero.
    unread_inputs: Vec<usize>,
    /// Above every activation row that `steps` reads.
    rows_read: usize,
    /// Above every parameter that `steps` uses.
    params_read: usize,
}

/// One gate as backward's loop runs it, every index looked up beforehand (resolving
/// them per gate took about 30 of the loop's instructions): the activation rows it
/// reads, the gradient slots of its output and its inputs, and its parameter with
/// [`STORE_A`] / [`STORE_B`] in the low bits (24 bytes: the plan is kept per wiring).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BackwardStep {
    a: u32,
    b: u32,
    g: u32,
    ga: u32,
    gb: u32,
    param_flags: u32,
}

/// Bits of [`BackwardStep::param_flags`] that hold the store flags.
const FLAG_BITS: u32 = 2;

impl BackwardStep {
    fn param(&self) -> usize {
        (self.param_flags >> FLAG_BITS) as usize
    }

    fn flags(&self) -> u32 {
        self.param_flags & ((1 << FLAG_BITS) - 1)
    }
}

/// Backward stores (not adds) the gate's gradient on input `a`.
const STORE_A: u32 = 1;
/// Backward stores (not adds) the gate's gradient on input `b`.
const STORE_B: u32 = 2;

/// Hands out gradient slots above the input rows, reusing the most recently freed first
/// (it is the likeliest to be in cache).
struct SlotAllocator {
    free: Vec<u32>,
    count: usize,
}

impl SlotAllocator {
    fn take(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            self.count += 1;
            u32::try_from(self.count - 1).expect("slots fit in u32")
        })
    }
}

impl BackwardPlan {
    /// Bytes the plan holds per gate of its circuit (at most).
    pub const BYTES_PER_GATE: usize = size_of::<BackwardStep>();

    /// The plan for `gates` whose gradient enters through the rows `seeded` (the
    /// circuit's outputs); `input_rows` rows precede the first gate's.
    ///
    /// # Panics
    /// If a parameter index is 2^30 or more (it shares a word with two flags).
    pub fn new(
        gates: &[GateRef],
        input_rows: usize,
        seeded: impl IntoIterator<Item = usize>,
    ) -> Self {
        const NONE: u32 = u32::MAX;
        let mut touched = vec![false; input_rows + gates.len()];
        let mut slots: Vec<u32> = (0..input_rows as u32).collect();
        slots.resize(input_rows + gates.len(), NONE);
        let mut alloc = SlotAllocator {
            free: Vec::new(),
            count: input_rows,
        };
        for r in seeded {
            if !std::mem::replace(&mut touched[r], true) && r >= input_rows {
                slots[r] = alloc.take();
            }
        }
        let mut steps = Vec::with_capacity(gates.len());
        for (i, gate) in gates.iter().enumerate().rev() {
            let row = input_rows + i;
            if !touched[row] {
                continue;
            }
            let mut flags = 0;
            for (input, store) in [(gate.a as usize, STORE_A), (gate.b as usize, STORE_B)] {
                if !std::mem::replace(&mut touched[input], true) {
                    flags |= store;
                    if input >= input_rows {
                        slots[input] = alloc.take();
                    }
                }
            }
            // A row read twice takes `a`'s gradient first (`InputRows::Shared`).
            debug_assert!(gate.a != gate.b || flags & STORE_B == 0);
            assert!(
                gate.param < u32::MAX >> FLAG_BITS,
                "parameter indices fit beside the store flags"
            );
            steps.push(BackwardStep {
                a: gate.a,
                b: gate.b,
                g: slots[row],
                ga: slots[gate.a as usize],
                gb: slots[gate.b as usize],
                param_flags: (gate.param << FLAG_BITS) | flags,
            });
            // Free only now, so that the gate's own slot differs from its inputs'.
            alloc.free.push(slots[row]);
        }
        let unread_inputs = (0..input_rows).filter(|&r| !touched[r]).collect();
        let rows_read = steps.iter().map(|s| s.a.max(s.b) as usize + 1).max();
        let params_read = steps.iter().map(|s| s.param() + 1).max();
        steps.shrink_to_fit();
        BackwardPlan {
            steps,
            slots,
            slot_count: alloc.count,
            unread_inputs,
            rows_read: rows_read.unwrap_or(0),
            params_read: params_read.unwrap_or(0),
        }
    }

    /// Rows a gradient table for this plan needs (the slots).
    pub fn gradient_rows(&self) -> usize {
        self.slot_count
    }

    /// Where row `row`'s gradient lives in the gradient table: its own index for an input
    /// row, a shared slot for a gate's (valid from its first reader to its gate).
    pub fn gradient_slot(&self, row: usize) -> usize {
        self.slots[row] as usize
    }
}

multiversioned! {
    /// Runs the gates of `rows`; the input rows of `acts` must hold the patch.
    ///
    /// # Panics
    /// If `acts` is shorter than the rows written, or (for [`ForwardRows::Every`]) a
    /// gate reads a row at or after its own.
    pub fn forward / forward_at(
        rows: ForwardRows<'_>,
        coefs: &[[f32; 4]],
        acts: &mut [f32],
    ) => forward_with::<Portable>,
        avx2 => forward_with::<super::soft_avx2::Avx2>,
        avx512 => forward_with::<super::soft_avx512::Avx512>
}

/// The two layouts of [`forward`], shared by every level; `K` does one gate's lanes.
#[inline(always)]
fn forward_with<K: GateForward>(rows: ForwardRows<'_>, coefs: &[[f32; 4]], acts: &mut [f32]) {
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
            unsafe { forward_gates::<K>(steps, coefs, table) }
        }
        ForwardRows::Plan(plan) => {
            assert!(
                table.len() >= plan.rows(),
                "the table holds the plan's rows"
            );
            // SAFETY: every slot of a plan is below `plan.rows()` and a gate's output
            // slot is none of its inputs' (plan invariants); the table is long enough.
            unsafe { forward_gates::<K>(plan.steps(), coefs, table) }
        }
    }
}

/// The gate loop of [`forward`]: each `(gate, out)` writes row `out` of `table`.
///
/// # Safety
/// Every row named is in `table`, and no gate's `out` is one of the rows it reads.
#[inline(always)]
unsafe fn forward_gates<'g, K: GateForward>(
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
        K::gate(&coefs[gate.param as usize], a, b, out);
    }
}

multiversioned! {
    /// Backpropagates through the gates of the circuit that `plan` was made for, in
    /// reverse order.
    ///
    /// `grads` has the plan's [`gradient_rows`](BackwardPlan::gradient_rows): on entry
    /// the slots of the circuit's outputs hold their gradient; no other slot is read
    /// before it is written. On exit rows `0..input_rows` hold the patch gradient. Each gate's coefficient gradients are
    /// summed over the tile's lanes ([`sum_partials`]) and added to `coef_grads`.
    pub fn backward / backward_at(
        plan: &BackwardPlan,
        coefs: &[[f32; 4]],
        acts: &[f32],
        grads: &mut [f32],
        coef_grads: &mut [[f64; 4]],
    ) => backward_with::<Portable>,
        avx2 => backward_with::<super::soft_avx2::Avx2>,
        avx512 => backward_with::<super::soft_avx512::Avx512>
}

/// The gate loop of [`backward`], shared by every level; `K` does one gate's lanes.
#[inline(always)]
pub(super) fn backward_with<K: GateBackward>(
    plan: &BackwardPlan,
    coefs: &[[f32; 4]],
    acts: &[f32],
    grads: &mut [f32],
    coef_grads: &mut [[f64; 4]],
) {
    let (acts_rows, _) = acts.as_chunks::<TILE>();
    let (slots, _) = grads.as_chunks_mut::<TILE>();
    assert!(
        acts_rows.len() >= plan.rows_read,
        "the table holds every row read"
    );
    assert!(
        slots.len() >= plan.slot_count,
        "the gradient table holds every slot"
    );
    assert!(
        coefs.len() >= plan.params_read,
        "every parameter has coefficients"
    );
    let mut sums = CoefSums::<K> {
        totals: coef_grads,
        pending: None,
    };
    let (acts_rows, slots) = (acts_rows.as_ptr(), slots.as_mut_ptr());
    for step in &plan.steps {
        // SAFETY: checked above: every row, slot and parameter named is in its table;
        // the plan gives a gate's output a slot apart from its inputs', and two
        // different live rows never share a slot.
        let (a, b, g, rows, c) = unsafe {
            let (ga, gb) = (slots.add(step.ga as usize), slots.add(step.gb as usize));
            let rows = if ga == gb {
                InputRows::Shared(&mut *ga)
            } else {
                InputRows::Apart(&mut *ga, &mut *gb)
            };
            (
                &*acts_rows.add(step.a as usize),
                &*acts_rows.add(step.b as usize),
                &*slots.add(step.g as usize),
                rows,
                coefs.get_unchecked(step.param()),
            )
        };
        let store = (step.flags() & STORE_A != 0, step.flags() & STORE_B != 0);
        let partials = K::gate(c, a, b, g, rows, store);
        sums.push(step.param(), partials);
    }
    sums.finish();
    for &r in &plan.unread_inputs {
        row_mut(grads, r).fill(0.0);
    }
}

/// Adds each gate's coefficient sums to the totals in gate order; where the kernel defers
/// them ([`GateBackward::DEFER_SUM`]), a gate's partials are summed once the next gate's
/// lanes are under way.
struct CoefSums<'c, K: GateBackward> {
    totals: &'c mut [[f64; 4]],
    pending: Option<(usize, K::Partials)>,
}

impl<K: GateBackward> CoefSums<'_, K> {
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

/// The lane loops in plain Rust, vectorized by the compiler for the level it is built for.
struct Portable;

impl GateBackward for Portable {
    type Partials = [[f32; PARTIALS]; 4];
    const DEFER_SUM: bool = false;

    #[inline(always)]
    fn gate(
        c: &[f32; 4],
        a: &Lanes,
        b: &Lanes,
        g: &Lanes,
        rows: InputRows<'_>,
        store: (bool, bool),
    ) -> Self::Partials {
        match rows {
            InputRows::Shared(row) => match store.0 {
                true => portable_lanes(c, a, b, g, &mut OneRow::<true>(row)),
                false => portable_lanes(c, a, b, g, &mut OneRow::<false>(row)),
            },
            InputRows::Apart(ga, gb) => match store {
                (true, true) => portable_lanes(c, a, b, g, &mut TwoRows::<true, true>(ga, gb)),
                (true, false) => portable_lanes(c, a, b, g, &mut TwoRows::<true, false>(ga, gb)),
                (false, true) => portable_lanes(c, a, b, g, &mut TwoRows::<false, true>(ga, gb)),
                (false, false) => portable_lanes(c, a, b, g, &mut TwoRows::<false, false>(ga, gb)),
            },
        }
    }

    #[inline(always)]
    fn sum(partials: Self::Partials) -> [f32; 4] {
        partials.map(sum_partials)
    }
}

impl GateForward for Portable {
    #[inline(always)]
    fn gate(c: &[f32; 4], a: &Lanes, b: &Lanes, out: &mut Lanes) {
        for l in 0..TILE {
            out[l] = soft_gate(c, a[l], b[l]);
        }
    }
}

/// [`Portable`]'s lanes: input gradients to `sink`, coefficient gradients as partial sums.
#[inline(always)]
fn portable_lanes(
    c: &[f32; 4],
    a: &Lanes,
    b: &Lanes,
    g: &Lanes,
    sink: &mut impl InputGrads,
) -> [[f32; PARTIALS]; 4] {
    let (mut p0, mut p1, mut p2, mut p3) = (
        [0.0f32; PARTIALS],
        [0.0; PARTIALS],
        [0.0; PARTIALS],
        [0.0; PARTIALS],
    );
    for chunk in 0..TILE / PARTIALS {
        let lanes = chunk * PARTIALS..(chunk + 1) * PARTIALS;
        let (a, b, g) = (&a[lanes.clone()], &b[lanes.clone()], &g[lanes]);
        for j in 0..PARTIALS {
            let (da, db) = soft_gate_input_grads(c, a[j], b[j], g[j]);
            sink.put(chunk * PARTIALS + j, da, db);
            [p0[j], p1[j], p2[j], p3[j]] =
                add_soft_gate_coef_grads(a[j], b[j], g[j], [p0[j], p1[j], p2[j], p3[j]]);
        }
    }
    [p0, p1, p2, p3]
}

/// Where [`portable_lanes`] puts a lane's input gradients: stored or added.
trait InputGrads {
    fn put(&mut self, l: usize, da: f32, db: f32);
}

struct TwoRows<'r, const STORE_A: bool, const STORE_B: bool>(&'r mut Lanes, &'r mut Lanes);

impl<const STORE_A: bool, const STORE_B: bool> InputGrads for TwoRows<'_, STORE_A, STORE_B> {
    #[inline(always)]
    fn put(&mut self, l: usize, da: f32, db: f32) {
        self.0[l] = if STORE_A { da } else { self.0[l] + da };
        self.1[l] = if STORE_B { db } else { self.1[l] + db };
    }
}

struct OneRow<'r, const STORE: bool>(&'r mut Lanes);

impl<const STORE: bool> InputGrads for OneRow<'_, STORE> {
    #[inline(always)]
    fn put(&mut self, l: usize, da: f32, db: f32) {
        let first = if STORE { da } else { self.0[l] + da };
        self.0[l] = first + db;
    }
}

/// The sum of the partials as a tree: halves added pairwise (`p[j] + p[j + n/2]`) until
/// one is left, which a vector unit does in a few instructions.
#[inline(always)]
fn sum_partials(mut p: [f32; PARTIALS]) -> f32 {
    let mut n = PARTIALS;
    while n > 1 {
        n /= 2;
        for j in 0..n {
            p[j] += p[j + n];
        }
    }
    p[0]
}

/// Scalar reference of [`forward`]: one lane at a time, no tiling tricks.
pub fn forward_reference(
    gates: &[GateRef],
    coefs: &[[f32; 4]],
    input_rows: usize,
    acts: &mut [f32],
) {
    for (i, gate) in gates.iter().enumerate() {
        for l in 0..TILE {
            let a = acts[gate.a as usize * TILE + l];
            let b = acts[gate.b as usize * TILE + l];
            acts[(input_rows + i) * TILE + l] = soft_gate(&coefs[gate.param as usize], a, b);
        }
    }
}

/// Scalar reference of [`backward`]: every gate, one lane at a time, on a gradient table
/// that holds zeros outside the output rows; lane `l`'s coefficient gradient goes to
/// partial `l % PARTIALS`, as in the kernel.
pub fn backward_reference(
    gates: &[GateRef],
    coefs: &[[f32; 4]],
    input_rows: usize,
    acts: &[f32],
    grads: &mut [f32],
    coef_grads: &mut [[f64; 4]],
) {
    for (i, gate) in gates.iter().enumerate().rev() {
        let c = &coefs[gate.param as usize];
        let mut partials = [[0.0f32; 4]; PARTIALS];
        for l in 0..TILE {
            let g = grads[(input_rows + i) * TILE + l];
            let a = acts[gate.a as usize * TILE + l];
            let b = acts[gate.b as usize * TILE + l];
            let (da, db) = soft_gate_input_grads(c, a, b, g);
            grads[gate.a as usize * TILE + l] += da;
            grads[gate.b as usize * TILE + l] += db;
            partials[l % PARTIALS] = add_soft_gate_coef_grads(a, b, g, partials[l % PARTIALS]);
        }
        for k in 0..4 {
            coef_grads[gate.param as usize][k] +=
                f64::from(sum_partials(std::array::from_fn(|j| partials[j][k])));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::simd::SimdLevel;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A random little circuit with a gate wired twice to one row and a shared parameter.
    fn random_case(seed: u64) -> (Vec<GateRef>, Vec<[f32; 4]>, usize, Vec<f32>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let input_rows = 5;
        let mut gates = Vec::new();
        for i in 0..40u32 {
            let rows = input_rows as u32 + i;
            gates.push(GateRef {
                a: rng.random_range(0..rows),
                b: rng.random_range(0..rows),
                param: rng.random_range(0..12),
            });
        }
        gates[7].b = gates[7].a;
        let coefs = (0..12)
            .map(|_| std::array::from_fn(|_| rng.random_range(-1.0..1.0)))
            .collect();
        let mut acts = vec![0.0; (input_rows + gates.len()) * TILE];
        for v in &mut acts[..input_rows * TILE] {
            *v = rng.random();
        }
        (gates, coefs, input_rows, acts)
    }

    #[test]
    fn forward_equals_reference_bit_for_bit_at_every_level() {
        let (gates, coefs, input_rows, acts) = random_case(1);
        let mut slow = acts.clone();
        forward_reference(&gates, &coefs, input_rows, &mut slow);
        let rows = ForwardRows::Every {
            gates: &gates,
            input_rows,
        };
        for level in SimdLevel::available() {
            let mut fast = acts.clone();
            forward_at(level, rows, &coefs, &mut fast);
            assert_eq!(fast, slow, "{level}");
        }
    }

    /// A plan that keeps only the last rows computes them in fewer rows, with the same
    /// bits as the full table.
    #[test]
    fn forward_keeping_only_the_outputs_gives_the_same_outputs() {
        let (gates, coefs, input_rows, acts) = random_case(3);
        let mut full = acts.clone();
        let every = ForwardRows::Every {
            gates: &gates,
            input_rows,
        };
        forward(every, &coefs, &mut full);
        let kept = [input_rows + gates.len() - 2, input_rows + gates.len() - 1];
        let plan = ForwardPlan::kept_only(&gates, input_rows, kept);
        assert!(plan.rows() < input_rows + gates.len(), "slots are reused");
        for level in SimdLevel::available() {
            let mut compact = acts[..plan.rows() * TILE].to_vec();
            forward_at(level, ForwardRows::Plan(&plan), &coefs, &mut compact);
            for r in kept {
                assert_eq!(
                    compact[plan.slot(r) * TILE..][..TILE],
                    full[r * TILE..][..TILE],
                    "{level}: row {r}"
                );
            }
        }
    }

    /// Every level gives the reference's bits, reading nothing but the output rows of the
    /// gradient table (the rest holds NaN) and skipping the gates nothing reads.
    #[test]
    fn backward_equals_reference_bit_for_bit_at_every_level() {
        let (gates, coefs, input_rows, mut acts) = random_case(2);
        let every = ForwardRows::Every {
            gates: &gates,
            input_rows,
        };
        forward(every, &coefs, &mut acts);
        let outputs = [input_rows + gates.len() - 2, input_rows + gates.len() - 1];
        let plan = BackwardPlan::new(&gates, input_rows, outputs);
        assert!(plan.steps.len() < gates.len(), "the case has dead gates");
        assert!(!plan.unread_inputs.is_empty(), "and an input no gate reads");
        let mut slow_grads = vec![0.0; acts.len()];
        for (k, &r) in outputs.iter().enumerate() {
            for l in 0..TILE {
                slow_grads[r * TILE + l] = ((l + k) as f32 * 0.1).sin();
            }
        }
        let mut slow_coefs = vec![[0.0; 4]; 12];
        assert!(
            plan.gradient_rows() < input_rows + gates.len(),
            "gate rows share gradient slots"
        );
        let mut fast_grads_in = vec![f32::NAN; plan.gradient_rows() * TILE];
        for &r in &outputs {
            fast_grads_in[plan.gradient_slot(r) * TILE..][..TILE]
                .copy_from_slice(&slow_grads[r * TILE..][..TILE]);
        }
        backward_reference(
            &gates,
            &coefs,
            input_rows,
            &acts,
            &mut slow_grads,
            &mut slow_coefs,
        );
        let patch = input_rows * TILE;
        for level in SimdLevel::available() {
            let mut grads = fast_grads_in.clone();
            let mut coef_grads = vec![[0.0; 4]; 12];
            backward_at(level, &plan, &coefs, &acts, &mut grads, &mut coef_grads);
            assert_eq!(
                grads[..patch],
                slow_grads[..patch],
                "{level}: patch gradient"
            );
            assert_eq!(coef_grads, slow_coefs, "{level}: coefficient gradients");
        }
    }

    /// A little circuit whose plan is worked out by hand: inputs 0..3, gates writing rows
    /// 3 (reads 0, 0), 4 (reads 3, 1) and 5 (reads 1, 1, nothing reads it); output row 4.
    #[test]
    fn the_plan_stores_first_gradients_and_skips_dead_gates() {
        let gate = |a, b| GateRef { a, b, param: 0 };
        let gates = [gate(0, 0), gate(3, 1), gate(1, 1)];
        let plan = BackwardPlan::new(&gates, 3, [4]);
        // Reverse order: gate 2 is dead; gate 1 is the first to write rows 3 and 1; gate 0
        // the first to write row 0 through `a`, then adds to it through `b`.
        let runs: Vec<_> = plan.steps.iter().map(|s| (s.a, s.b, s.flags())).collect();
        assert_eq!(runs, vec![(3, 1, STORE_A | STORE_B), (0, 0, STORE_A)]);
        // Slots: inputs keep theirs (0..3); output row 4 takes slot 3, row 3 slot 4 (taken
        // while row 4's is still live), so two slots above the inputs.
        let slots: Vec<_> = plan.steps.iter().map(|s| (s.g, s.ga, s.gb)).collect();
        assert_eq!(slots, vec![(3, 4, 1), (4, 0, 0)]);
        assert_eq!(plan.gradient_rows(), 5);
        assert_eq!(plan.unread_inputs, vec![2]);
    }

    #[test]
    fn partials_are_summed_as_a_halving_tree() {
        // Values whose sum depends on the order in f32: 1e8 swallows 1 unless paired first.
        let mut p = [0.0f32; PARTIALS];
        p[0] = 1e8;
        p[8] = -1e8;
        p[1] = 1.0;
        p[9] = 1.0;
        // Tree: (p0 + p8) + ... = 0 + 2 = 2; in lane order 1e8 + 1 + 1 - 1e8 would be 0.
        assert_eq!(sum_partials(p), 2.0);
    }
}
