//! The gate loops at every level against the scalar references, bit for bit.

use super::reference::{backward_reference, forward_reference};
use super::*;
use crate::kernels::plan::ForwardPlan;
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
        forward_at(level, rows, &coefs, &mut fast, TILE);
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
    forward(every, &coefs, &mut full, TILE);
    let kept = [input_rows + gates.len() - 2, input_rows + gates.len() - 1];
    let plan = ForwardPlan::kept_only(&gates, input_rows, kept);
    assert!(plan.rows() < input_rows + gates.len(), "slots are reused");
    for level in SimdLevel::available() {
        let mut compact = acts[..plan.rows() * TILE].to_vec();
        forward_at(level, ForwardRows::Plan(&plan), &coefs, &mut compact, TILE);
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
    forward(every, &coefs, &mut acts, TILE);
    let outputs = [input_rows + gates.len() - 2, input_rows + gates.len() - 1];
    let plan = BackwardPlan::new(&gates, input_rows, outputs);
    assert!(plan.steps().len() < gates.len(), "the case has dead gates");
    assert!(
        !plan.unread_inputs().is_empty(),
        "and an input no gate reads"
    );
    let mut slow_grads = vec![0.0; acts.len()];
    for (k, &r) in outputs.iter().enumerate() {
        for l in 0..TILE {
            slow_grads[r * TILE + l] = ((l + k) as f32 * 0.1).sin();
        }
    }
    let mut slow_coefs = vec![[0.0; 4]; 12];
    assert!(
        plan.gradient_rows() < gates.len(),
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
        // NaN: the patch table is written before it is read.
        let mut patch_grads = vec![f32::NAN; patch];
        let mut coef_grads = vec![[0.0; 4]; 12];
        let tables = (&mut patch_grads[..], &mut grads[..]);
        backward_at(level, &plan, &coefs, &acts, tables, &mut coef_grads, TILE);
        assert_eq!(patch_grads, slow_grads[..patch], "{level}: patch gradient");
        assert_eq!(coef_grads, slow_coefs, "{level}: coefficient gradients");
    }
}

#[test]
fn a_tile_runs_whole_blocks_of_its_real_lanes() {
    assert_eq!(live_lanes(1), BLOCK);
    assert_eq!(live_lanes(BLOCK), BLOCK);
    assert_eq!(live_lanes(BLOCK + 1), 2 * BLOCK);
    assert_eq!(live_lanes(3 * BLOCK + 4), TILE);
    assert_eq!(live_lanes(TILE), TILE);
}

/// Sets lanes `live..` of every row to NaN: what a kernel must not read.
fn poison_padding(table: &mut [f32], live: usize) {
    for row in table.chunks_mut(TILE) {
        row[live..].fill(f32::NAN);
    }
}

/// On a tile's first blocks only, the forward gives the full tile's values there and
/// neither reads nor writes the other lanes.
#[test]
fn forward_on_live_blocks_equals_the_full_tile_there_at_every_level() {
    let (gates, coefs, input_rows, acts) = random_case(4);
    let every = ForwardRows::Every {
        gates: &gates,
        input_rows,
    };
    let mut full = acts.clone();
    forward(every, &coefs, &mut full, TILE);
    for live in [BLOCK, 2 * BLOCK, 3 * BLOCK] {
        for level in SimdLevel::available() {
            let mut short = acts.clone();
            poison_padding(&mut short, live);
            forward_at(level, every, &coefs, &mut short, live);
            for (r, (s, f)) in short.chunks(TILE).zip(full.chunks(TILE)).enumerate() {
                assert_eq!(s[..live], f[..live], "{level}, {live} lanes: row {r}");
                assert!(
                    s[live..].iter().all(|x| x.is_nan()),
                    "{level}, {live} lanes: row {r}'s padding written"
                );
            }
        }
    }
}

/// With zero gradients in the padding lanes (as a rollout seeds them), the backward on
/// the first blocks only gives the full tile's coefficient gradients bit for bit and its
/// patch gradient on those lanes, reading no other lane (they hold NaN).
#[test]
fn backward_on_live_blocks_equals_the_full_tile_at_every_level() {
    let (gates, coefs, input_rows, mut acts) = random_case(5);
    let every = ForwardRows::Every {
        gates: &gates,
        input_rows,
    };
    forward(every, &coefs, &mut acts, TILE);
    let outputs = [input_rows + gates.len() - 2, input_rows + gates.len() - 1];
    let plan = BackwardPlan::new(&gates, input_rows, outputs);
    let patch = input_rows * TILE;
    for live in [BLOCK, 2 * BLOCK, 3 * BLOCK] {
        let mut seeded = vec![0.0; plan.gradient_rows() * TILE];
        for (k, &r) in outputs.iter().enumerate() {
            for l in 0..live {
                seeded[plan.gradient_slot(r) * TILE + l] = ((l + k) as f32 * 0.3).cos();
            }
        }
        let mut full_patch = vec![0.0; patch];
        let mut full_coefs = vec![[0.0; 4]; 12];
        let mut grads = seeded.clone();
        let tables = (&mut full_patch[..], &mut grads[..]);
        backward(&plan, &coefs, &acts, tables, &mut full_coefs, TILE);
        let mut short_acts = acts.clone();
        poison_padding(&mut short_acts, live);
        for level in SimdLevel::available() {
            let mut grads = seeded.clone();
            poison_padding(&mut grads, live);
            let mut patch_grads = vec![f32::NAN; patch];
            let mut coef_grads = vec![[0.0; 4]; 12];
            let tables = (&mut patch_grads[..], &mut grads[..]);
            backward_at(
                level,
                &plan,
                &coefs,
                &short_acts,
                tables,
                &mut coef_grads,
                live,
            );
            assert_eq!(coef_grads, full_coefs, "{level}, {live} lanes");
            for (r, (s, f)) in patch_grads
                .chunks(TILE)
                .zip(full_patch.chunks(TILE))
                .enumerate()
            {
                assert_eq!(s[..live], f[..live], "{level}, {live} lanes: patch row {r}");
                assert!(
                    s[live..].iter().all(|x| x.is_nan()),
                    "{level}, {live} lanes: patch row {r}'s padding written"
                );
            }
        }
    }
}

#[test]
#[should_panic(expected = "a tile runs 1 to 4 blocks of 16 lanes, not 20 lanes")]
fn lanes_that_are_not_whole_blocks_are_refused() {
    let (gates, coefs, input_rows, mut acts) = random_case(6);
    let every = ForwardRows::Every {
        gates: &gates,
        input_rows,
    };
    forward(every, &coefs, &mut acts, 20);
}
