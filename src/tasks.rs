//! The experiments of the paper: presets, initial states and targets.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::config::{ModelConfig, TrainSettings};
use crate::grid::Grids;
use crate::pattern::PatternTarget;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum TaskKind {
    /// Synchronous checkerboard, 16x16, 20 steps.
    Checkerboard,
    /// Asynchronous checkerboard (fire rate 0.6), 14x14, 50 steps.
    CheckerboardAsync,
    /// Game of Life from all 512 3x3 boards.
    Gol,
    /// Grow a target image from one seeded centre cell (the paper's lizard and "G").
    Pattern,
}

impl TaskKind {
    pub fn name(self) -> &'static str {
        match self {
            TaskKind::Checkerboard => "checkerboard",
            TaskKind::CheckerboardAsync => "checkerboard-async",
            TaskKind::Gol => "gol",
            TaskKind::Pattern => "pattern",
        }
    }

    /// Initial states of one training batch.
    pub fn training_init(self, config: &ModelConfig, batch: usize, rng: &mut impl Rng) -> Grids {
        let (h, w, c) = (config.height, config.width, config.channels);
        match self {
            TaskKind::Checkerboard | TaskKind::CheckerboardAsync => {
                Grids::random_bits(batch, h, w, c, rng)
            }
            TaskKind::Gol => {
                let mut grids = Grids::zeros(batch, h, w, c);
                for b in 0..batch {
                    let board: u32 = rng.gen_range(0..512);
                    for cell in 0..(h * w).min(9) {
                        let bit = (board >> cell) & 1;
                        grids.set(b, cell / w, cell % w, 0, bit as f32);
                    }
                }
                grids
            }
            TaskKind::Pattern => seeded_centre(batch, h, w, c),
        }
    }

    /// Initial grids of any size for evaluation and pictures: random bits, except that a
    /// pattern grows from its seeded centre cell.
    pub fn eval_init(
        self,
        batch: usize,
        height: usize,
        width: usize,
        channels: usize,
        rng: &mut impl Rng,
    ) -> Grids {
        match self {
            TaskKind::Pattern => seeded_centre(batch, height, width, channels),
            _ => Grids::random_bits(batch, height, width, channels, rng),
        }
    }

    /// What the target channels should hold after `steps` steps from `init`.
    pub fn target(self, config: &ModelConfig, init: &Grids, steps: usize) -> Grids {
        let targets = config.target_channels.len();
        let mut out = Grids::zeros(init.batch, init.height, init.width, targets);
        match self {
            TaskKind::Checkerboard | TaskKind::CheckerboardAsync => {
                for b in 0..init.batch {
                    for row in 0..init.height {
                        for col in 0..init.width {
                            let v = ((row / 2 + col / 2) % 2) as f32;
                            for t in 0..targets {
                                out.set(b, row, col, t, v);
                            }
                        }
                    }
                }
            }
            TaskKind::Pattern => {
                let p = config
                    .pattern
                    .as_ref()
                    .expect("validated: pattern models carry their target");
                // The image centred in the grid (cropped if the grid is smaller).
                let (dr, dc) = (
                    init.height as isize / 2 - p.height as isize / 2,
                    init.width as isize / 2 - p.width as isize / 2,
                );
                for b in 0..init.batch {
                    for row in 0..p.height {
                        for col in 0..p.width {
                            let (r, c) = (row as isize + dr, col as isize + dc);
                            if r < 0
                                || c < 0
                                || r >= init.height as isize
                                || c >= init.width as isize
                            {
                                continue;
                            }
                            for t in 0..targets {
                                out.set(
                                    b,
                                    r as usize,
                                    c as usize,
                                    t,
                                    p.bit(row, col, t) as u8 as f32,
                                );
                            }
                        }
                    }
                }
            }
            TaskKind::Gol => {
                let mut board = init.clone();
                for _ in 0..steps {
                    board = life_generation(&board, config.periodic);
                }
                for b in 0..init.batch {
                    for row in 0..init.height {
                        for col in 0..init.width {
                            for (t, &channel) in config.target_channels.iter().enumerate() {
                                out.set(b, row, col, t, board.get(b, row, col, channel));
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// Empty grids with the centre cell's channels all 1: where a pattern grows from.
pub fn seeded_centre(batch: usize, height: usize, width: usize, channels: usize) -> Grids {
    let mut grids = Grids::zeros(batch, height, width, channels);
    for b in 0..batch {
        for c in 0..channels {
            grids.set(b, height / 2, width / 2, c, 1.0);
        }
    }
    grids
}

/// One Game of Life generation of channel 0 (values >= 0.5 are alive).
pub fn life_generation(grids: &Grids, periodic: bool) -> Grids {
    let (h, w) = (grids.height as isize, grids.width as isize);
    let mut next = grids.clone();
    let alive = |b: usize, r: isize, c: isize| -> u32 {
        let (r, c) = if periodic {
            (r.rem_euclid(h), c.rem_euclid(w))
        } else if r < 0 || c < 0 || r >= h || c >= w {
            return 0;
        } else {
            (r, c)
        };
        (grids.get(b, r as usize, c as usize, 0) >= 0.5) as u32
    };
    for b in 0..grids.batch {
        for r in 0..h {
            for c in 0..w {
                let mut n = 0;
                for dr in -1..=1 {
                    for dc in -1..=1 {
                        if dr != 0 || dc != 0 {
                            n += alive(b, r + dr, c + dc);
                        }
                    }
                }
                let live = alive(b, r, c) == 1;
                let next_live = n == 3 || (live && n == 2);
                next.set(b, r as usize, c as usize, 0, next_live as u32 as f32);
            }
        }
    }
    next
}

/// The paper's hyperparameters for `kind` (and a default seed); `small` gives a reduced
/// model for quick runs.
///
/// Small presets (all other settings as the full ones):
/// - checkerboard: 8x8 grid, 12 steps, 4 kernels, update [128]x4 + [64,32,16,8], 400 epochs
///   (default seed 5 reaches hard loss 0 at epoch 199);
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
            // Seed 14 reaches hard loss 0 within the 500 epochs; most seeds need more
            // (README, "Convergence").
            seeded(14, settings(500, 2, 0.05)),
        ),
        (TaskKind::Checkerboard, true) => (
            checkerboard(8, 12, None, 4, small_checker_update),
            seeded(5, settings(400, 2, 0.05)),
        ),
        (TaskKind::CheckerboardAsync, false) => (
            checkerboard(14, 50, Some(0.6), 16, widths(&[(256, 14)], &checker_tail)),
            settings(800, 1, 0.05),
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn checkerboard_target_has_two_by_two_squares() {
        let (config, _) = preset(TaskKind::Checkerboard, false);
        let init = Grids::zeros(1, 4, 4, 8);
        let t = task_target(&config, &init);
        let rows: Vec<Vec<f32>> = (0..4)
            .map(|r| (0..4).map(|c| t.get(0, r, c, 0)).collect())
            .collect();
        assert_eq!(rows[0], [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(rows[1], [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(rows[2], [1.0, 1.0, 0.0, 0.0]);
    }

    fn task_target(config: &ModelConfig, init: &Grids) -> Grids {
        config.task.target(config, init, config.steps)
    }

    #[test]
    fn life_blinker_turns_on_a_torus_free_grid() {
        let mut g = Grids::zeros(1, 5, 5, 1);
        for c in 1..4 {
            g.set(0, 2, c, 0, 1.0);
        }
        let next = life_generation(&g, false);
        let live: Vec<(usize, usize)> = (0..5)
            .flat_map(|r| (0..5).map(move |c| (r, c)))
            .filter(|&(r, c)| next.get(0, r, c, 0) == 1.0)
            .collect();
        assert_eq!(live, vec![(1, 2), (2, 2), (3, 2)]);
    }

    #[test]
    fn life_on_a_3x3_torus_sees_the_whole_board() {
        // Three live cells in a row: on a 3x3 torus every cell has all others as neighbours,
        // so every live cell has 2 neighbours (survives) and every dead one has 3 (is born).
        let mut g = Grids::zeros(1, 3, 3, 1);
        for c in 0..3 {
            g.set(0, 0, c, 0, 1.0);
        }
        let next = life_generation(&g, true);
        assert!(next.values.iter().all(|&v| v == 1.0));
    }

    #[test]
    fn every_preset_builds_a_model() {
        for kind in [
            TaskKind::Checkerboard,
            TaskKind::CheckerboardAsync,
            TaskKind::Gol,
            TaskKind::Pattern,
        ] {
            for small in [false, true] {
                let (config, settings) = preset(kind, small);
                assert_eq!(config.task, kind);
                assert!(settings.epochs > 0 && settings.batch > 0);
                crate::model::Model::new(config, &mut ChaCha8Rng::seed_from_u64(0))
                    .unwrap_or_else(|e| panic!("{kind:?} small={small}: {e}"));
            }
        }
    }

    #[test]
    fn gol_training_boards_encode_nine_bits() {
        let (config, _) = preset(TaskKind::Gol, false);
        let init = TaskKind::Gol.training_init(&config, 50, &mut ChaCha8Rng::seed_from_u64(2));
        assert_eq!(
            (init.batch, init.height, init.width, init.channels),
            (50, 3, 3, 1)
        );
        assert!(init.values.iter().all(|&v| v == 0.0 || v == 1.0));
        assert!(init.values.contains(&1.0) && init.values.contains(&0.0));
    }
}
