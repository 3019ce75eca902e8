//! How each gate of a layer picks its two inputs. Wires are fixed at initialisation.

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::error::WiringError;

/// The two input indices of every gate of one layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wires {
    pub a: Vec<u32>,
    pub b: Vec<u32>,
}

impl Wires {
    pub fn len(&self) -> usize {
        self.a.len()
    }

    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }
}

/// The wiring schemes of `docs/semantics.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WiringScheme {
    /// First perception layer: each gate pairs one neighbour with the centre.
    FirstKernel,
    /// Every pair used at most once, neighbours first, then growing offsets.
    Unique,
    /// Both inputs drawn at random (for experiments).
    Random,
}

/// The patch position of the cell itself in its 3x3 neighbourhood.
pub const PATCH_CENTRE: u32 = 4;

impl WiringScheme {
    pub fn wire(
        self,
        inputs: usize,
        outputs: usize,
        rng: &mut impl Rng,
    ) -> Result<Wires, WiringError> {
        match self {
            WiringScheme::FirstKernel => first_kernel(inputs, outputs, rng),
            WiringScheme::Unique => unique(inputs, outputs, rng),
            WiringScheme::Random => random(inputs, outputs, rng),
        }
    }
}

/// `a` = the 8 non-centre patch positions in random order, `b` = the centre.
pub fn first_kernel(
    inputs: usize,
    outputs: usize,
    rng: &mut impl Rng,
) -> Result<Wires, WiringError> {
    if inputs != 9 || outputs != 8 {
        return Err(WiringError::FirstKernel { inputs, outputs });
    }
    let mut a: Vec<u32> = (0..9).filter(|&p| p != PATCH_CENTRE).collect();
    a.shuffle(rng);
    Ok(Wires {
        a,
        b: vec![PATCH_CENTRE; 8],
    })
}

/// The pairs of the `unique` scheme in order, before the final permutation.
pub fn unique_pairs(inputs: usize, outputs: usize) -> Result<Vec<(u32, u32)>, WiringError> {
    if inputs == 0 || outputs == 0 {
        return Err(WiringError::Empty { inputs, outputs });
    }
    if 2 * outputs < inputs {
        return Err(WiringError::TooNarrow { inputs, outputs });
    }
    let n = inputs as u32;
    let mut pairs: Vec<(u32, u32)> = (0..n / 2).map(|i| (2 * i, 2 * i + 1)).collect();
    if pairs.len() < outputs {
        pairs.extend((1..n.saturating_sub(1)).step_by(2).map(|x| (x, x + 1)));
    }
    let mut offset = 2;
    while pairs.len() < outputs && offset < n {
        pairs.extend((0..n - offset).map(|x| (x, x + offset)));
        offset += 1;
    }
    if pairs.len() < outputs {
        return Err(WiringError::TooFewPairs {
            inputs,
            pairs: pairs.len(),
            outputs,
        });
    }
    pairs.truncate(outputs);
    Ok(pairs)
}

/// The `unique` scheme: [`unique_pairs`], randomly permuted.
pub fn unique(inputs: usize, outputs: usize, rng: &mut impl Rng) -> Result<Wires, WiringError> {
    let mut pairs = unique_pairs(inputs, outputs)?;
    pairs.shuffle(rng);
    Ok(Wires {
        a: pairs.iter().map(|p| p.0).collect(),
        b: pairs.iter().map(|p| p.1).collect(),
    })
}

/// Both inputs of every gate drawn uniformly.
pub fn random(inputs: usize, outputs: usize, rng: &mut impl Rng) -> Result<Wires, WiringError> {
    if inputs == 0 || outputs == 0 {
        return Err(WiringError::Empty { inputs, outputs });
    }
    let n = inputs as u32;
    let (a, b) = (0..outputs)
        .map(|_| (rng.random_range(0..n), rng.random_range(0..n)))
        .unzip();
    Ok(Wires { a, b })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// The algorithm of `docs/semantics.md`, written as plainly as possible.
    fn reference_pairs(inp: usize, out: usize) -> Vec<(u32, u32)> {
        let mut v = Vec::new();
        let mut x = 0;
        while x + 1 < inp {
            v.push((x as u32, x as u32 + 1));
            x += 2;
        }
        if v.len() < out {
            let mut x = 1;
            while x + 1 < inp {
                v.push((x as u32, x as u32 + 1));
                x += 2;
            }
        }
        for offset in 2..inp {
            if v.len() >= out {
                break;
            }
            for x in 0..inp - offset {
                v.push((x as u32, (x + offset) as u32));
            }
        }
        v.truncate(out);
        v
    }

    #[test]
    fn unique_pairs_follow_the_reference_algorithm() {
        for (inp, out) in [
            (264, 256),
            (256, 256),
            (256, 128),
            (128, 64),
            (17, 128),
            (8, 8),
            (640, 512),
        ] {
            assert_eq!(
                unique_pairs(inp, out).unwrap(),
                reference_pairs(inp, out),
                "{inp}->{out}"
            );
        }
    }

    #[test]
    fn unique_pairs_hand_checked_small_case() {
        // 5 inputs, 6 gates: (0,1),(2,3) | (1,2),(3,4) | offset 2: (0,2),(1,3)...
        let pairs = unique_pairs(5, 6).unwrap();
        assert_eq!(pairs, vec![(0, 1), (2, 3), (1, 2), (3, 4), (0, 2), (1, 3)]);
    }

    #[test]
    fn unique_264_to_256_reads_every_input() {
        let w = unique(264, 256, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        let mut seen = vec![false; 264];
        for (&a, &b) in w.a.iter().zip(&w.b) {
            seen[a as usize] = true;
            seen[b as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        let mut sorted: Vec<_> = w.a.iter().zip(&w.b).map(|(&a, &b)| (a, b)).collect();
        sorted.sort();
        let mut want = unique_pairs(264, 256).unwrap();
        want.sort();
        assert_eq!(sorted, want, "the permutation must keep the same pairs");
    }

    #[test]
    fn unique_rejects_too_narrow_layers() {
        let err = unique_pairs(264, 100).unwrap_err().to_string();
        assert!(err.contains("2*out >= in"), "{err}");
        assert!(unique_pairs(3, 4).is_err(), "3 inputs have only 3 pairs");
    }

    #[test]
    fn first_kernel_pairs_each_neighbour_with_the_centre() {
        let w = first_kernel(9, 8, &mut ChaCha8Rng::seed_from_u64(7)).unwrap();
        assert_eq!(w.b, vec![4; 8]);
        let mut a = w.a.clone();
        a.sort();
        assert_eq!(a, vec![0, 1, 2, 3, 5, 6, 7, 8]);
        assert!(first_kernel(9, 4, &mut ChaCha8Rng::seed_from_u64(7)).is_err());
    }

    #[test]
    fn random_wires_stay_in_range() {
        let w = random(10, 100, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        assert!(w.a.iter().chain(&w.b).all(|&i| i < 10));
    }
}
