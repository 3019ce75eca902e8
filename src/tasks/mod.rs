//! The experiments of the paper: what each task starts from (initial states), what it
//! should reach (targets), and its preset hyperparameters. See `docs/semantics.md`.

pub mod knobs;
pub mod pattern_geometry;
mod presets;
pub mod recording;
pub mod rule_step;
mod soup_boards;
pub mod target_images;
mod thumbnail;

pub use knobs::{Knob, KnobValue, Override, KNOBS};
pub use presets::{
    check_target_channels, pattern, preset, recipe_for, set_channels, use_observed, use_rule,
    use_target,
};
pub use rule_step::life_generation;

/// The preset of `task` with `changes` applied and its growing geometry fitted to them,
/// as a run configures itself when it is given no target, layer widths or recording: for
/// library callers (and tests) that train from knob settings alone. A change of recipe
/// takes the lizard to the paper's 20x20 torus here, never in [`Override::apply`].
pub fn preset_with(
    task: crate::model::task::TaskKind,
    small: bool,
    changes: &[Override],
) -> Result<(ModelConfig, crate::model::config::TrainSettings), crate::error::ConfigError> {
    let (mut config, mut settings) = preset(task, small);
    for change in changes {
        change.apply(&mut config, &mut settings);
    }
    pattern_geometry::fit(&mut config, &mut settings, changes)?;
    Ok((config, settings))
}

/// The preset of `task` on the paper's recipe, fitted as a run with `--recipe paper` is
/// (the lizard on the notebook's 20x20 torus and 12 steps).
#[cfg(test)]
pub(crate) fn papers_preset(
    task: crate::model::task::TaskKind,
    small: bool,
) -> (ModelConfig, crate::model::config::TrainSettings) {
    let paper = Override::recipe(crate::model::recipe::RecipeName::Paper);
    preset_with(task, small, &[paper]).expect("the paper's geometry")
}

use rand::{Rng, RngExt};

use crate::automaton::grid::Grids;
use crate::automaton::masks::FireMasks;
use crate::model::ca_rule::CaRule;
use crate::model::config::ModelConfig;
use crate::model::observed_rule::LearnedRule;
use crate::model::task::TaskKind;

/// Initial states of one training batch.
pub fn training_init(config: &ModelConfig, batch: usize, rng: &mut impl Rng) -> Grids {
    let (h, w, c) = (config.height, config.width, config.channels);
    match config.task {
        TaskKind::Checkerboard | TaskKind::CheckerboardAsync => {
            Grids::random_bits(batch, h, w, c, rng)
        }
        TaskKind::Gol | TaskKind::Rule => {
            let rule = config
                .learned_rule()
                .expect("validated: rule tasks carry their rule");
            // A named rule's boards are their own numbers; a recording's are listed.
            let listed = matches!(rule, LearnedRule::Observed(_))
                .then(|| rule.boards(0..rule.board_count()));
            let known = rule.board_count();
            let mut grids = Grids::zeros(batch, h, w, c);
            // Half of a named rule's boards come from soups ([`soup_boards`]); `gol` keeps
            // the uniform draw of the paper's 512 boards.
            let soups = config.task == TaskKind::Rule && listed.is_none();
            for b in 0..batch {
                let board = match soups && soup_boards::is_soup_board(b) {
                    true => soup_boards::soup_board(rule, rng),
                    false => rng.random_range(0..known),
                };
                let board = listed.as_ref().map_or(board, |codes| codes[board]);
                set_board(&mut grids, b, rule, board);
            }
            grids
        }
        TaskKind::Pattern | TaskKind::Lizard => seeded_centre(batch, h, w, c),
        TaskKind::ColoredG => Grids::zeros(batch, h, w, c),
    }
}

/// Every initial state of the task's grid when there are few enough to try them all:
/// a rule's `states^9` boards on its 3x3 grid (Game of Life's 512; a recording's, those
/// its training transitions showed); `None` for other tasks.
pub fn exhaustive_init(config: &ModelConfig) -> Option<Grids> {
    let boards = exhaustive_count(config)?;
    Some(exhaustive_boards(config, 0..boards))
}

/// How many boards [`exhaustive_init`] holds, without making them.
pub fn exhaustive_count(config: &ModelConfig) -> Option<usize> {
    let rule = config
        .learned_rule()
        .filter(|_| config.height * config.width == 9)?;
    Some(rule.board_count())
}

/// Boards `boards` of [`exhaustive_init`] (numbers below [`exhaustive_count`]).
pub fn exhaustive_boards(config: &ModelConfig, boards: std::ops::Range<usize>) -> Grids {
    let rule = config.learned_rule().expect("a rule task");
    rule_boards(config, rule.boards(boards))
}

/// The 3x3 boards of neighbourhoods `codes` of a rule model, whether training knows
/// their next state or not.
pub fn rule_boards(config: &ModelConfig, codes: impl IntoIterator<Item = usize>) -> Grids {
    let rule = config.learned_rule().expect("a rule task");
    let codes: Vec<usize> = codes.into_iter().collect();
    let (h, w, c) = (config.height, config.width, config.channels);
    let mut grids = Grids::zeros(codes.len(), h, w, c);
    for (b, &board) in codes.iter().enumerate() {
        set_board(&mut grids, b, rule, board);
    }
    grids
}

/// Writes board number `board` (the digits of `board` in base `rule.states()`, digit `i`
/// the state of cell `i` in row-major order) into grid `b`'s first 9 cells.
fn set_board(grids: &mut Grids, b: usize, rule: LearnedRule<'_>, board: usize) {
    let w = grids.width;
    let cells = rule.cells(board);
    for (cell, &state) in cells.iter().enumerate().take(grids.height * w) {
        for channel in 0..rule.channels() {
            let on = CaRule::channel_on(state, channel);
            grids.set(b, cell / w, cell % w, channel, f32::from(u8::from(on)));
        }
    }
}

/// Initial grids of any size for evaluation and pictures: random bits, except for the
/// growing tasks, which start as they train (a seeded centre cell, or all zeros), and
/// rules of more than 2 states, whose cells each take the state of their first random
/// bit on ([`one_state_per_cell`]).
pub fn eval_init(
    config: &ModelConfig,
    batch: usize,
    height: usize,
    width: usize,
    rng: &mut impl Rng,
) -> Grids {
    let channels = config.channels;
    match config.task {
        TaskKind::Pattern | TaskKind::Lizard => seeded_centre(batch, height, width, channels),
        TaskKind::ColoredG => Grids::zeros(batch, height, width, channels),
        _ => {
            let mut grids = Grids::random_bits(batch, height, width, channels, rng);
            if let Some(rule) = config.learned_rule().filter(|r| r.states() > 2) {
                one_state_per_cell(&mut grids, rule.channels());
            }
            grids
        }
    }
}

/// Turns off every channel after a cell's first one on, among its first `channels`: a
/// valid state of a rule (state `k` is channel `k - 1` alone).
pub fn one_state_per_cell(grids: &mut Grids, channels: usize) {
    for cell in grids.values.chunks_mut(grids.channels) {
        if let Some(first) = cell[..channels].iter().position(|&v| v >= 0.5) {
            cell[first + 1..channels].fill(0.0);
        }
    }
}

/// A batch for evaluation: [`eval_init`] grids of `height x width` and, for an
/// asynchronous task, the fire masks of `steps` steps, both from `rng`.
pub fn eval_batch(
    config: &ModelConfig,
    batch: usize,
    (height, width): (usize, usize),
    steps: usize,
    rng: &mut impl Rng,
) -> (Grids, Option<FireMasks>) {
    let init = eval_init(config, batch, height, width, rng);
    let masks = fire_masks(config, &init, steps, false, rng);
    (init, masks)
}

/// The fire masks of `steps` steps for `init`, from `rng`, when the task is
/// asynchronous (a draw per grid when `per_grid`, else one the grids share); none for
/// synchronous ones.
pub fn fire_masks(
    config: &ModelConfig,
    init: &Grids,
    steps: usize,
    per_grid: bool,
    rng: &mut impl Rng,
) -> Option<FireMasks> {
    let rate = config.fire_rate?;
    let (batch, cells) = (init.batch, init.cells());
    Some(match per_grid {
        true => FireMasks::draw_per_grid(steps, batch, cells, rate, rng),
        false => FireMasks::draw(steps, batch, cells, rate, rng),
    })
}

/// What the target channels should hold after `steps` steps from `init`.
pub fn target(config: &ModelConfig, init: &Grids, steps: usize) -> Grids {
    let targets = config.target_channels.len();
    let mut out = Grids::zeros(init.batch, init.height, init.width, targets);
    match config.task {
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
        TaskKind::Pattern | TaskKind::Lizard | TaskKind::ColoredG => {
            pattern_target(config, &mut out);
        }
        TaskKind::Gol | TaskKind::Rule => {
            let rule = config
                .learned_rule()
                .expect("validated: rule tasks carry their rule");
            let mut board = init.clone();
            for _ in 0..steps {
                board = rule_step::generation(&board, rule, config.periodic);
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

/// The target image centred in the grid (cropped if the grid is smaller).
fn pattern_target(config: &ModelConfig, out: &mut Grids) {
    let p = config
        .pattern
        .as_ref()
        .expect("validated: pattern models carry their target");
    let (dr, dc) = (
        out.height as isize / 2 - p.height as isize / 2,
        out.width as isize / 2 - p.width as isize / 2,
    );
    for b in 0..out.batch {
        for row in 0..p.height {
            for col in 0..p.width {
                let (r, c) = (row as isize + dr, col as isize + dc);
                if r < 0 || c < 0 || r >= out.height as isize || c >= out.width as isize {
                    continue;
                }
                for t in 0..out.channels {
                    let bit = p.bit(row, col, t) as u8 as f32;
                    out.set(b, r as usize, c as usize, t, bit);
                }
            }
        }
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
        target(config, init, config.steps)
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
        for kind in TaskKind::ALL {
            for small in [false, true] {
                let (config, settings) = preset(kind, small);
                assert_eq!(config.task, kind);
                assert!(settings.epochs > 0 && settings.batch > 0);
                crate::model::network::Model::new(config, &mut ChaCha8Rng::seed_from_u64(0))
                    .unwrap_or_else(|e| panic!("{kind:?} small={small}: {e}"));
            }
        }
    }

    #[test]
    fn gol_training_boards_encode_nine_bits() {
        let (config, _) = preset(TaskKind::Gol, false);
        let init = training_init(&config, 50, &mut ChaCha8Rng::seed_from_u64(2));
        assert_eq!(
            (init.batch, init.height, init.width, init.channels),
            (50, 3, 3, 1)
        );
        assert!(init.values.iter().all(|&v| v == 0.0 || v == 1.0));
        assert!(init.values.contains(&1.0) && init.values.contains(&0.0));
    }

    #[test]
    fn growing_tasks_start_as_the_notebook_does() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        // The paper's lizard: one seeded cell at (10, 10) of its 20x20 grid, all 16
        // channels on.
        let (lizard, _) = papers_preset(TaskKind::Lizard, true);
        let init = training_init(&lizard, 1, &mut rng);
        assert_eq!((init.height, init.width, init.channels), (20, 20, 16));
        let on: Vec<(usize, usize)> = (0..400)
            .filter(|&cell| init.get(0, cell / 20, cell % 20, 0) == 1.0)
            .map(|cell| (cell / 20, cell % 20))
            .collect();
        assert_eq!(on, [(10, 10)]);
        assert!((0..16).all(|c| init.get(0, 10, 10, c) == 1.0));
        assert_eq!(init.values.iter().sum::<f32>(), 16.0);
        // The coloured G: an all-zero grid, zero border, loss on three channels.
        let (g, _) = preset(TaskKind::ColoredG, false);
        let init = training_init(&g, 1, &mut rng);
        assert_eq!((init.height, init.width, init.channels), (16, 16, 64));
        assert!(init.values.iter().all(|&v| v == 0.0));
        assert!(!g.periodic);
        assert_eq!(g.target_channels, [0, 1, 2]);
        let target = target(&g, &init, g.steps);
        let pattern = g.pattern.as_ref().unwrap();
        for cell in 0..256 {
            for t in 0..3 {
                let want = pattern.bit(cell / 16, cell % 16, t) as u8 as f32;
                assert_eq!(target.get(0, cell / 16, cell % 16, t), want);
            }
        }
    }
}
