//! Where a soft backward pass keeps each row's gradient, and which gates it runs.

use crate::model::circuit::GateRef;

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
    /// Slots in all, the input rows' included.
    slot_count: usize,
    /// Rows `0..input_rows` are the patch: their gradients go to the patch table.
    input_rows: usize,
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
pub(in crate::kernels) struct BackwardStep {
    /// The activation row of input `a`.
    pub a: u32,
    /// The activation row of input `b`.
    pub b: u32,
    /// The gradient slot of the gate's output.
    pub g: u32,
    /// The gradient slot of input `a`.
    pub ga: u32,
    /// The gradient slot of input `b`.
    pub gb: u32,
    param_flags: u32,
}

/// Bits of [`BackwardStep::param_flags`] that hold the store flags.
const FLAG_BITS: u32 = 2;

impl BackwardStep {
    /// The step of `gate`, its gradient in slot `g`, its inputs' where `slots` puts them,
    /// `flags` saying which input's gradient it stores rather than adds.
    fn of(gate: &GateRef, slots: &[u32], g: u32, flags: u32) -> Self {
        // A row read twice takes `a`'s gradient first (`InputRows::Shared`).
        debug_assert!(gate.a != gate.b || flags & STORE_B == 0);
        assert!(
            gate.param < u32::MAX >> FLAG_BITS,
            "parameter indices fit beside the store flags"
        );
        BackwardStep {
            a: gate.a,
            b: gate.b,
            g,
            ga: slots[gate.a as usize],
            gb: slots[gate.b as usize],
            param_flags: (gate.param << FLAG_BITS) | flags,
        }
    }

    /// The gate's parameter.
    pub fn param(&self) -> usize {
        (self.param_flags >> FLAG_BITS) as usize
    }

    /// Whether the gradients on `a` and `b` are stored (the row's first) or added.
    pub fn store(&self) -> (bool, bool) {
        (self.flags() & STORE_A != 0, self.flags() & STORE_B != 0)
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
        Self::keeping(gates, input_rows, seeded, usize::MAX)
    }

    /// [`BackwardPlan::new`], except that the slots of rows `kept_from..` are never
    /// reused: after a backward pass they hold those rows' whole gradients
    /// ([`kept_slot`](Self::kept_slot)), for a caller that wants more than the
    /// coefficients' (at the cost of a slot per kept row).
    pub fn keeping(
        gates: &[GateRef],
        input_rows: usize,
        seeded: impl IntoIterator<Item = usize>,
        kept_from: usize,
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
            steps.push(BackwardStep::of(gate, &slots, slots[row], flags));
            // Free only now, so that the gate's own slot differs from its inputs'.
            if row < kept_from {
                alloc.free.push(slots[row]);
            }
        }
        let unread_inputs = (0..input_rows).filter(|&r| !touched[r]).collect();
        let rows_read = steps.iter().map(|s| s.a.max(s.b) as usize + 1).max();
        let params_read = steps.iter().map(|s| s.param() + 1).max();
        steps.shrink_to_fit();
        BackwardPlan {
            steps,
            slots,
            slot_count: alloc.count,
            input_rows,
            unread_inputs,
            rows_read: rows_read.unwrap_or(0),
            params_read: params_read.unwrap_or(0),
        }
    }

    /// Rows a gradient table for this plan needs: the slots of the gates' rows. The
    /// input rows' gradients go to a table of their own, the patch table
    /// ([`input_rows`](Self::input_rows) rows), so a tile's patch gradient is written
    /// where it is wanted and never copied.
    pub fn gradient_rows(&self) -> usize {
        self.slot_count - self.input_rows
    }

    /// Rows of the patch table: the input rows, each at its own index.
    pub fn input_rows(&self) -> usize {
        self.input_rows
    }

    /// Where the gradient of gate row `row` lives in the gradient table: a shared slot,
    /// valid from its first reader to its gate.
    ///
    /// # Panics
    /// If `row` is an input row (its gradient is in the patch table, at `row`).
    pub fn gradient_slot(&self, row: usize) -> usize {
        assert!(row >= self.input_rows, "input rows are in the patch table");
        self.slots[row] as usize - self.input_rows
    }

    /// Where a gate row kept by [`keeping`](Self::keeping) holds its gradient in the
    /// gradient table after a backward pass; `None` for a row that nothing the seeded
    /// rows depend on reads (its gradient is zero).
    pub fn kept_slot(&self, row: usize) -> Option<usize> {
        let slot = self.slots[row];
        (slot != u32::MAX).then(|| slot as usize - self.input_rows)
    }

    /// The gates backward runs, in order. Their slots are numbered over both tables: an
    /// input row's slot is its row (in the patch table), a gate row's slot `s` is row
    /// `s - input_rows` of the gradient table. A gate's output slot is none of its
    /// inputs', and two rows live at once never share a slot.
    pub(in crate::kernels) fn steps(&self) -> &[BackwardStep] {
        &self.steps
    }

    /// Input rows that no gate reads: backward zeroes their gradient.
    pub(in crate::kernels) fn unread_inputs(&self) -> &[usize] {
        &self.unread_inputs
    }

    /// Above every activation row that the steps read.
    pub(in crate::kernels) fn rows_read(&self) -> usize {
        self.rows_read
    }

    /// Above every parameter that the steps use.
    pub(in crate::kernels) fn params_read(&self) -> usize {
        self.params_read
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(plan.gradient_rows(), 2);
        assert_eq!(plan.gradient_slot(4), 0);
        assert_eq!(plan.unread_inputs, vec![2]);
    }

    /// Kept rows never give up their slots: in a chain where each row's slot would
    /// serve the next, keeping the last two rows gives each its own, apart from every
    /// other row's; a row no seeded row depends on has none.
    #[test]
    fn kept_rows_keep_their_slots() {
        let gate = |a, b| GateRef { a, b, param: 0 };
        // Inputs 0..2; rows 2 (reads 0, 1), 3 (reads 2, 2), 4 (reads 3, 0), 5 (reads 1, 1,
        // nothing reads it), 6 (reads 4, 4); output row 6.
        let gates = [gate(0, 1), gate(2, 2), gate(3, 0), gate(1, 1), gate(4, 4)];
        let reused = BackwardPlan::new(&gates, 2, [6]);
        assert!(reused.gradient_rows() < 4, "a chain reuses its slots");
        let plan = BackwardPlan::keeping(&gates, 2, [6], 4);
        let kept: Vec<_> = [4, 6].map(|r| plan.kept_slot(r).unwrap()).to_vec();
        assert_ne!(kept[0], kept[1]);
        for r in [2, 3] {
            assert!(!kept.contains(&plan.gradient_slot(r)), "row {r}");
        }
        assert_eq!(plan.kept_slot(5), None);
    }
}
