//! The paper's hyperparameters for each task, and reduced `--small` variants.

use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::pattern::PatternTarget;
use crate::model::task::TaskKind;

/// The paper's hyperparameters for `kind` (and a default seed); `small` gives a reduced
/// model for quick runs.
///
/// Small presets (all other settings as the full ones):
/// - checkerboard: 8x8 grid, 12 steps, 4 kernels, update [128]x4 + [64,32,16,8], 400 epochs
///   (default seed 25 reaches hard loss 0 at epoch 181);
/// - checkerboard-async: 8x8 grid, 20 steps, 4 kernels, same update layers, 400 epochs;
/// - gol: update [64]x6 + [32,16,8,4,2,1], 1500 epochs;
/// - pattern: 16 channels, update [128]x4 + [64,32,16], 600 epochs.
pub fn preset(kind: TaskKind, small: bool) -> (ModelConfig, TrainSettings) {
    let widths = |body: &[(usize, usize)], tail: &[usize]| -> Vec<usize> {
        let mut v: Vec<usize> = body
            .iter()
            .flat_map(|&(w, n)| std::iter::repeat_n(w, n))
            .collect();
        v.extend_from_slice(tail);
        v
    };
    let settings = |epochs, batch, learning_rate| TrainSettings {
        epochs,
        batch,
        learning_rate,
        seed: 0,
    };
    let seeded = |seed, settings: TrainSettings| TrainSettings { seed, ..settings };
    let checker_tail = [128, 64, 32, 16, 8, 8];
    let small_checker_update = widths(&[(128, 4)], &[64, 32, 16, 8]);
    match (kind, small) {
        (TaskKind::Checkerboard, false) => (
            checkerboard(16, 20, None, 16, widths(&[(256, 10)], &checker_tail)),
            // Seed 7 reaches hard loss 0 within the 500 epochs; most seeds need more
            // (README, "Convergence").
            seeded(7, settings(500, 2, 0.05)),
        ),
        (TaskKind::Checkerboard, true) => (
            checkerboard(8, 12, None, 4, small_checker_update),
            seeded(25, settings(400, 2, 0.05)),
        ),
        (TaskKind::CheckerboardAsync, false) => (
            checkerboard(14, 50, Some(0.6), 16, widths(&[(256, 14)], &checker_tail)),
            // Seed 1 reaches hard loss 0 within the 800 epochs; seed 0 does not.
            seeded(1, settings(800, 1, 0.05)),
        ),
        (TaskKind::CheckerboardAsync, true) => (
            checkerboard(8, 20, Some(0.6), 4, small_checker_update),
            settings(400, 1, 0.05),
        ),
        (TaskKind::Gol, false) => (
            gol(16, widths(&[(128, 16)], &[128, 64, 32, 16, 8, 4, 2, 1])),
            settings(3000, 20, 0.05),
        ),
        (TaskKind::Pattern, false) => (
            pattern(
                PatternTarget::builtin(),
                128,
                4,
                widths(&[(512, 8)], &[256, 128]),
            ),
            settings(3500, 1, 0.06),
        ),
        (TaskKind::Pattern, true) => (
            pattern(
                PatternTarget::builtin(),
                16,
                4,
                widths(&[(128, 4)], &[64, 32, 16]),
            ),
            settings(600, 1, 0.06),
        ),
        (TaskKind::Gol, true) => (
            gol(16, widths(&[(64, 6)], &[32, 16, 8, 4, 2, 1])),
            settings(1500, 20, 0.05),
        ),
    }
}

fn checkerboard(
    size: usize,
    steps: usize,
    fire_rate: Option<f32>,
    kernels: usize,
    update: Vec<usize>,
) -> ModelConfig {
    ModelConfig {
        task: if fire_rate.is_some() {
            TaskKind::CheckerboardAsync
        } else {
            TaskKind::Checkerboard
        },
        channels: 8,
        height: size,
        width: size,
        periodic: false,
        steps,
        fire_rate,
        kernels,
        perception_layers: vec![8, 4, 2],
        update_layers: update,
        target_channels: vec![0],
        pattern: None,
    }
}

/// The paper's growing-pattern setup: 12 periodic steps from a seeded centre cell.
pub fn pattern(
    target: PatternTarget,
    channels: usize,
    kernels: usize,
    update: Vec<usize>,
) -> ModelConfig {
    ModelConfig {
        task: TaskKind::Pattern,
        channels,
        height: target.height,
        width: target.width,
        periodic: true,
        steps: 12,
        fire_rate: None,
        kernels,
        perception_layers: vec![8, 4, 2, 1],
        update_layers: update,
        target_channels: (0..target.channels()).collect(),
        pattern: Some(target),
    }
}

fn gol(kernels: usize, update: Vec<usize>) -> ModelConfig {
    ModelConfig {
        task: TaskKind::Gol,
        channels: 1,
        height: 3,
        width: 3,
        periodic: true,
        steps: 1,
        fire_rate: None,
        kernels,
        perception_layers: vec![8, 4, 2, 1],
        update_layers: update,
        target_channels: vec![0],
        pattern: None,
    }
}
