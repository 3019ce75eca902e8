//! Squared error of the target channels at the last step, and hard accuracy.

use crate::automaton::grid::Grids;
use crate::automaton::hard::HardRollout;
use crate::automaton::soft::state_index;

/// Soft loss `sum w (s - y)^2` over lanes and target channels, summed in lane order in
/// f64, with its gradient `2 w (s - y)` written into `grads` (tile-blocked, zero
/// elsewhere); `w` is `on_weight` where the target is 1, else 1 (so 1 gives the
/// notebook's loss, bit for bit). A NaN target is not known (a neighbourhood a recording
/// never showed): it adds nothing and its gradient is 0.
pub fn soft_loss(
    state: &[f32],
    channels: usize,
    target_channels: &[usize],
    (target, on_weight): (&Grids, f32),
    grads: &mut [f32],
) -> f64 {
    grads.fill(0.0);
    let lanes = target.batch * target.cells();
    let mut loss = 0.0f64;
    for lane in 0..lanes {
        for (t, &c) in target_channels.iter().enumerate() {
            let i = state_index(channels, c, lane);
            let want = target.values[lane * target_channels.len() + t];
            if want.is_nan() {
                continue;
            }
            let diff = state[i] - want;
            let weight = if want == 1.0 { on_weight } else { 1.0 };
            loss += f64::from(weight) * f64::from(diff) * f64::from(diff);
            grads[i] = 2.0 * weight * diff;
        }
    }
    loss
}

/// Stillness of the hidden channels (those `target_channels` does not name) from
/// `before` to `after`, the states of two consecutive steps: `weight * sum (a - b)^2`
/// over the first `lanes` lanes, summed in lane order in f64, its gradient added to
/// `grads_before` and `grads_after` (tile-blocked). A state whose hidden channels are
/// still from one step to the next, and whose target channels are right, is kept for
/// every step after: the hold then does not depend on how many steps it was trained for.
pub fn stillness_loss(
    (before, after): (&[f32], &[f32]),
    channels: usize,
    target_channels: &[usize],
    lanes: usize,
    weight: f32,
    grads_before: &mut [f32],
    grads_after: &mut [f32],
) -> f64 {
    let hidden: Vec<usize> = (0..channels)
        .filter(|c| !target_channels.contains(c))
        .collect();
    let mut loss = 0.0f64;
    for lane in 0..lanes {
        for &c in &hidden {
            let i = state_index(channels, c, lane);
            let diff = after[i] - before[i];
            loss += f64::from(weight) * f64::from(diff) * f64::from(diff);
            grads_after[i] += 2.0 * weight * diff;
            grads_before[i] -= 2.0 * weight * diff;
        }
    }
    loss
}

/// The gradient `1 - 2y` of the wrong target bits of a binary state, written as the
/// multilinear `sum s (1 - 2y) + y`, into `grads` (tile-blocked, zero elsewhere): for
/// each bit alone, the change in wrong bits when it flips, right bits counting as much as
/// wrong ones (the squared loss's gradient is 0 on a right bit). 0 for a NaN target.
pub fn wrong_bits_gradient(
    channels: usize,
    target_channels: &[usize],
    target: &Grids,
    grads: &mut [f32],
) {
    grads.fill(0.0);
    for lane in 0..target.batch * target.cells() {
        for (t, &c) in target_channels.iter().enumerate() {
            let want = target.values[lane * target_channels.len() + t];
            grads[state_index(channels, c, lane)] = match want {
                _ if want.is_nan() => 0.0,
                _ if want >= 0.5 => -1.0,
                _ => 1.0,
            };
        }
    }
}

/// Wrong target bits of the hard rollout's current state, and the share right.
pub fn hard_errors(rollout: &HardRollout, target_channels: &[usize], target: &Grids) -> (u64, f64) {
    wrong_bits(target_channels, target, |channel, lane| {
        rollout.bit(channel, lane)
    })
}

/// Wrong target bits of a state given as `bit(channel, lane)`, and the share right of
/// the known ones (NaN targets are not known and count for nothing).
pub fn wrong_bits(
    target_channels: &[usize],
    target: &Grids,
    bit: impl Fn(usize, usize) -> bool,
) -> (u64, f64) {
    let lanes = target.batch * target.cells();
    let (mut wrong, mut known) = (0u64, 0u64);
    for lane in 0..lanes {
        for (t, &c) in target_channels.iter().enumerate() {
            let want = target.values[lane * target_channels.len() + t];
            if want.is_nan() {
                continue;
            }
            known += 1;
            wrong += u64::from(bit(c, lane) != (want >= 0.5));
        }
    }
    (wrong, 1.0 - wrong as f64 / known.max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::soft::TILE;

    /// Flipping any one bit of a binary state changes its wrong target bits by the
    /// gradient times the flip (+1 up, -1 down), right bits and wrong ones alike; a
    /// channel without a target has gradient 0 and changes nothing.
    #[test]
    fn the_wrong_bits_gradient_is_each_flips_change() {
        let (channels, targets) = (3, [0, 2]);
        let mut target = Grids::zeros(1, 3, 3, targets.len());
        let bit = |i: usize| (i * 7 + 3) % 5 < 2;
        for (i, v) in target.values.iter_mut().enumerate() {
            *v = f32::from(u8::from(bit(i)));
        }
        let mut state = vec![0.0f32; channels * TILE];
        for lane in 0..9 {
            for c in 0..channels {
                state[state_index(channels, c, lane)] = f32::from(u8::from(bit(lane + 11 * c)));
            }
        }
        let wrong = |state: &[f32]| {
            wrong_bits(&targets, &target, |c, lane| {
                state[state_index(channels, c, lane)] >= 0.5
            })
            .0 as f32
        };
        let mut grads = vec![f32::NAN; state.len()];
        wrong_bits_gradient(channels, &targets, &target, &mut grads);
        let before = wrong(&state);
        for lane in 0..9 {
            for c in 0..channels {
                let i = state_index(channels, c, lane);
                let mut flipped = state.clone();
                flipped[i] = 1.0 - state[i];
                let change = wrong(&flipped) - before;
                assert_eq!(change, grads[i] * (flipped[i] - state[i]), "{c} {lane}");
            }
        }
        assert!(grads[state_index(channels, 1, 0)] == 0.0);
    }

    /// An on target bit's squared error and gradient count `on_weight` times, an off
    /// bit's once: (0.25 - 1)^2 = 0.5625 three times, and (0.75 - 0)^2 = 0.5625 once.
    #[test]
    fn on_bits_count_their_weight() {
        let mut target = Grids::zeros(1, 1, 2, 1);
        target.values = vec![1.0, 0.0];
        let mut state = vec![0.0f32; TILE];
        state[state_index(1, 0, 0)] = 0.25;
        state[state_index(1, 0, 1)] = 0.75;
        let mut grads = vec![f32::NAN; state.len()];
        let loss = soft_loss(&state, 1, &[0], (&target, 3.0), &mut grads);
        assert_eq!(loss, 4.0 * 0.5625);
        assert_eq!(grads[state_index(1, 0, 0)], 3.0 * -1.5);
        assert_eq!(grads[state_index(1, 0, 1)], 1.5);
    }

    /// A cell whose target is not known (NaN) adds no loss, gets no gradient and is
    /// neither right nor wrong; the share right is of the known bits.
    #[test]
    fn unknown_targets_count_for_nothing() {
        let mut target = Grids::zeros(1, 1, 2, 1);
        target.values = vec![1.0, f32::NAN];
        let mut state = vec![0.0f32; TILE];
        state[state_index(1, 0, 0)] = 0.25;
        state[state_index(1, 0, 1)] = 0.75;
        let mut grads = vec![f32::NAN; state.len()];
        let loss = soft_loss(&state, 1, &[0], (&target, 1.0), &mut grads);
        assert_eq!(loss, 0.5625, "only lane 0: (0.25 - 1)^2");
        assert_eq!(grads[state_index(1, 0, 0)], -1.5);
        assert_eq!(grads[state_index(1, 0, 1)], 0.0);
        wrong_bits_gradient(1, &[0], &target, &mut grads);
        assert_eq!(grads[state_index(1, 0, 1)], 0.0);
        assert_eq!(wrong_bits(&[0], &target, |_, _| true), (0, 1.0));
        assert_eq!(wrong_bits(&[0], &target, |_, _| false), (1, 0.0));
    }
}
