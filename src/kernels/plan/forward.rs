//! Where a soft forward pass keeps each row of a tile's activations.
//!
//! Backward reads every gate's activation, so the recomputing forward before it writes
//! one row per gate: 4680 rows of 256 bytes for the reference checkerboard, more than
//! a core's L2. A pass that needs only the new state (the rollout's forward, an
//! evaluation) can instead keep each row only from its gate to its last reader, in a
//! slot that later rows reuse: a few layers' worth, which stays in cache.

use crate::model::circuit::GateRef;

/// The rows a forward pass writes: every row its own, or a [`ForwardPlan`]'s slots.
#[derive(Debug, Clone, Copy)]
pub enum ForwardRows<'a> {
    /// Gate `i` of `gates` writes row `input_rows + i`: the table that backward reads.
    Every {
        gates: &'a [GateRef],
        input_rows: usize,
    },
    /// The plan's gates write its slots.
    Plan(&'a ForwardPlan),
}

impl ForwardRows<'_> {
    /// Where circuit row `row` is after the pass (see [`ForwardPlan::slot`]).
    pub fn slot(&self, row: usize) -> usize {
        match self {
            ForwardRows::Every { .. } => row,
            ForwardRows::Plan(plan) => plan.slot(row),
        }
    }
}

/// The gates a forward pass runs, the slots they read and write, and where each circuit
/// row ends up.
///
/// Invariants that hold by how the plan is built (a gate's slot is taken before its
/// inputs' are freed) and that [`soft::forward`](crate::kernels::soft::forward) relies
/// on: every slot is below [`rows`](Self::rows), a gate never writes a slot it reads,
/// and input row `r` is slot `r` (the patch is gathered there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardPlan {
    /// The gates to run, in circuit order, their inputs named by slot.
    gates: Vec<GateRef>,
    /// The slot each gate writes.
    outs: Vec<u32>,
    /// Per circuit row: its slot, or [`DROPPED`] if the pass does not compute it.
    slots: Vec<u32>,
    /// Slots a table for this plan needs.
    slot_count: usize,
}

/// A row the plan does not compute: nothing it keeps depends on it.
const DROPPED: u32 = u32::MAX;

/// Per row: the last gate that reads it (`usize::MAX` for a kept row: never freed), or
/// `None` for a row nothing needs. Found backwards, so a gate is seen only once
/// everything that reads it has been.
fn last_readers(
    gates: &[GateRef],
    input_rows: usize,
    kept: impl IntoIterator<Item = usize>,
) -> Vec<Option<usize>> {
    const KEPT: usize = usize::MAX;
    let mut last_reader: Vec<Option<usize>> = vec![None; input_rows + gates.len()];
    for r in kept {
        last_reader[r] = Some(KEPT);
    }
    for (i, gate) in gates.iter().enumerate().rev() {
        if last_reader[input_rows + i].is_some() {
            for input in [gate.a as usize, gate.b as usize] {
                last_reader[input].get_or_insert(i);
            }
        }
    }
    last_reader
}

impl ForwardPlan {
    /// Only the gates that the rows `kept` depend on, each row in a slot from its gate to
    /// its last reader (the kept rows to the end); a freed slot is the next one taken,
    /// as it is the likeliest to be in cache.
    pub fn kept_only(
        gates: &[GateRef],
        input_rows: usize,
        kept: impl IntoIterator<Item = usize>,
    ) -> Self {
        let rows = input_rows + gates.len();
        let last_reader = last_readers(gates, input_rows, kept);
        let mut slots: Vec<u32> = (0..input_rows).map(slot_index).collect();
        slots.resize(rows, DROPPED);
        let mut free: Vec<u32> = (0..input_rows)
            .rev()
            .filter(|&r| last_reader[r].is_none())
            .map(slot_index)
            .collect();
        let mut slot_count = input_rows;
        // Room for every gate, then trimmed: the plan is kept per wiring, so a doubled
        // capacity would stay allocated for every start.
        let mut run = Vec::with_capacity(gates.len());
        let mut outs = Vec::with_capacity(gates.len());
        for (i, gate) in gates.iter().enumerate() {
            if last_reader[input_rows + i].is_none() {
                continue;
            }
            // Taken before the inputs are freed, so it is none of theirs.
            let out = free.pop().unwrap_or_else(|| {
                slot_count += 1;
                slot_index(slot_count - 1)
            });
            let (a, b) = (gate.a as usize, gate.b as usize);
            run.push(GateRef {
                a: slots[a],
                b: slots[b],
                param: gate.param,
            });
            outs.push(out);
            slots[input_rows + i] = out;
            let inputs = if a == b { 1 } else { 2 };
            for input in [a, b].into_iter().take(inputs) {
                if last_reader[input] == Some(i) {
                    free.push(slots[input]);
                }
            }
        }
        run.shrink_to_fit();
        outs.shrink_to_fit();
        ForwardPlan {
            gates: run,
            outs,
            slots,
            slot_count,
        }
    }

    /// Rows a table for this plan needs.
    pub fn rows(&self) -> usize {
        self.slot_count
    }

    /// The slot circuit row `row` is written to; a kept row's stays until the end, other
    /// rows' may be reused by later ones.
    ///
    /// # Panics
    /// If the plan does not compute the row.
    pub fn slot(&self, row: usize) -> usize {
        let slot = self.slots[row];
        assert_ne!(slot, DROPPED, "row {row} is not computed by this plan");
        slot as usize
    }

    /// The gates to run, reading slots, with the slot each writes.
    pub(in crate::kernels) fn steps(&self) -> impl Iterator<Item = (&GateRef, usize)> {
        self.gates
            .iter()
            .zip(self.outs.iter().map(|&out| out as usize))
    }
}

fn slot_index(row: usize) -> u32 {
    u32::try_from(row).expect("rows fit in u32")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(a: u32, b: u32) -> GateRef {
        GateRef { a, b, param: 0 }
    }

    /// Inputs 0..2; gates writing rows 2 (reads 0, 1), 3 (reads 2, 2), 4 (reads 0, 0,
    /// nothing reads it) and 5 (reads 3, 1); row 5 kept. Worked out by hand: row 2 takes
    /// a new slot 2 and frees slot 0 (its later reader, gate 2, is dead); row 3 takes
    /// slot 0 and frees 2; gate 2 is dropped; row 5 takes slot 2 and frees 0 and 1.
    #[test]
    fn kept_only_reuses_slots_and_drops_what_nothing_kept_reads() {
        let gates = [gate(0, 1), gate(2, 2), gate(0, 0), gate(3, 1)];
        let plan = ForwardPlan::kept_only(&gates, 2, [5]);
        assert_eq!(plan.rows(), 3);
        assert_eq!(plan.outs, vec![2, 0, 2]);
        assert_eq!(plan.gates, vec![gate(0, 1), gate(2, 2), gate(0, 1)]);
        assert_eq!(plan.slot(5), 2);
        assert_eq!(plan.slot(1), 1, "inputs are gathered into their own rows");
        assert_eq!(plan.slots[4], DROPPED);
    }
}
