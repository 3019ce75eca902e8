//! Squared error of the target channels at the last step, and hard accuracy.

use crate::automaton::grid::Grids;
use crate::automaton::hard::HardRollout;
use crate::automaton::soft::state_index;

/// Soft loss `sum (s - y)^2` over lanes and target channels, summed in lane order in
/// f64, with its gradient `2 (s - y)` written into `grads` (tile-blocked, zero elsewhere).
pub fn soft_loss(
    state: &[f32],
    channels: usize,
    target_channels: &[usize],
    target: &Grids,
    grads: &mut [f32],
) -> f64 {
    grads.fill(0.0);
    let lanes = target.batch * target.cells();
    let mut loss = 0.0f64;
    for lane in 0..lanes {
        for (t, &c) in target_channels.iter().enumerate() {
            let i = state_index(channels, c, lane);
            let diff = state[i] - target.values[lane * target_channels.len() + t];
            loss += (diff as f64) * (diff as f64);
            grads[i] = 2.0 * diff;
        }
    }
    loss
}

/// Wrong target bits of the hard rollout's current state, and the share right.
pub fn hard_errors(rollout: &HardRollout, target_channels: &[usize], target: &Grids) -> (u64, f64) {
    wrong_bits(target_channels, target, |channel, lane| {
        rollout.bit(channel, lane)
    })
}

/// Wrong target bits of a state given as `bit(channel, lane)`, and the share right.
pub fn wrong_bits(
    target_channels: &[usize],
    target: &Grids,
    bit: impl Fn(usize, usize) -> bool,
) -> (u64, f64) {
    let lanes = target.batch * target.cells();
    let mut wrong = 0u64;
    for lane in 0..lanes {
        for (t, &c) in target_channels.iter().enumerate() {
            let want = target.values[lane * target_channels.len() + t] >= 0.5;
            wrong += (bit(c, lane) != want) as u64;
        }
    }
    let total = (lanes * target_channels.len()) as f64;
    (wrong, 1.0 - wrong as f64 / total)
}
