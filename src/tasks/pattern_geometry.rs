//! The steps and grid that let a rule grown from one seeded cell draw a given target.
//!
//! A step reads each cell's 3x3 neighbourhood, so it carries information one cell in
//! rows, columns or both: a cell `d` cells from the seed (the larger of its row and
//! column distance) is still empty before step `d`. A target whose farthest on cell lies
//! `d` cells out cannot be drawn in fewer than `d` steps (its *reach*). And on a wrapping
//! grid the growth meets itself across the border once it is wider than the grid: on a
//! side of `2 * steps + 2` nothing grown in `steps` steps from the centre touches its
//! own other side, so no rule can lean on the wrap and the drawing is the same on every
//! larger grid (the lizard's finish grid, 26 for its 12 steps, is that side).
//!
//! The `pattern` task takes both from its target: the steps from its reach (or the
//! user's, refused when short of it) and a square grid of that room, the target in its
//! centre (an image larger than the room has only empty cells out there, so it is
//! cropped; a smaller one gets empty cells around it). Its default recipe holds the
//! pattern for as many steps as it grows it, so those follow the steps too.

use std::fmt;

use crate::error::ConfigError;
use crate::model::config::{ModelConfig, TrainSettings};
use crate::model::pattern::PatternTarget;
use crate::model::recipe::Recipe;
use crate::model::task::TaskKind;
use crate::tasks::knobs::KnobValue;
use crate::tasks::{target_images, Override};

/// Steps a rule gets beyond the reach by default: half the reach, rounded up, at least
/// two. The farthest cells need not be drawn by the very front of the growth, and the
/// default recipe asks for the drawing at every state from the reach on, so the spare
/// steps are a hold the rule learns from its first epoch: with half the reach (4 for the
/// 16x16 glyphs) one-attempt runs of the tuning glyphs were exact 3 times in 5, with a
/// third (2) once in 8 (docs/recipes.md, "Pattern").
fn spare_steps(reach: usize) -> usize {
    reach.div_ceil(2).max(2)
}

/// Cells from the seed to the target's farthest on cell (any channel), the seed being
/// the grid's centre cell and the target centred on it as [`crate::tasks::target`] places
/// it; none when no cell is on.
pub fn reach(target: &PatternTarget) -> Option<usize> {
    let (seed_row, seed_col) = (target.height / 2, target.width / 2);
    let channels = target.channels();
    (0..target.height)
        .flat_map(|row| (0..target.width).map(move |col| (row, col)))
        .filter(|&(row, col)| (0..channels).any(|t| target.bit(row, col, t)))
        .map(|(row, col)| row.abs_diff(seed_row).max(col.abs_diff(seed_col)))
        .max()
}

/// Rows and columns spanned by the target's on cells ((0, 0) when none is on).
fn drawn(target: &PatternTarget) -> (usize, usize) {
    let on = |row: usize, col: usize| (0..target.channels()).any(|t| target.bit(row, col, t));
    let span = |lines: Vec<usize>| match (lines.first(), lines.last()) {
        (Some(first), Some(last)) => last - first + 1,
        _ => 0,
    };
    let rows = (0..target.height).filter(|&r| (0..target.width).any(|c| on(r, c)));
    let cols = (0..target.width).filter(|&c| (0..target.height).any(|r| on(r, c)));
    (span(rows.collect()), span(cols.collect()))
}

/// The side of the smallest wrapping grid on which growth of `steps` steps from the
/// centre never meets itself across the border.
pub fn room(steps: usize) -> usize {
    2 * steps + 2
}

/// The steps a run of a target of `reach` gets unless told otherwise.
pub fn default_steps(reach: usize) -> usize {
    reach + spare_steps(reach)
}

/// Loss steps that ask for a target of `reach` at every state from the first that can
/// draw it (step `reach`, at least 1) to the last of `steps`.
pub fn loss_steps_from_reach(steps: usize, reach: usize) -> usize {
    steps + 1 - reach.clamp(1, steps.max(1))
}

/// What [`fit`] chose for a pattern run, and why: said in the first line of `train`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// The task fitted (the pattern, or the lizard under its default recipe).
    pub task: TaskKind,
    /// Rows and columns of the target's on cells, from the first to the last (the same
    /// however much empty room the image had around it).
    pub drawn: (usize, usize),
    /// Cells from the seed to the farthest on cell.
    pub reach: usize,
    pub steps: usize,
    /// Whether the steps were the user's rather than chosen here.
    pub steps_given: bool,
    /// The side of the square grid the run trains on.
    pub side: usize,
    /// The first step whose state the soft loss asks to be the target, when the recipe
    /// asks for it from the reach on (the default's; otherwise only at the last step).
    pub drawn_from: Option<usize>,
}

impl fmt::Display for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (h, w) = self.drawn;
        let why = match self.steps_given {
            true => "given".to_string(),
            false => format!("{} spare", self.steps - self.reach),
        };
        let from = match self.drawn_from {
            Some(step) => format!(", asked for from step {step} on"),
            None => String::new(),
        };
        write!(
            f,
            "{task}: {steps} steps ({why}; the {h}x{w} drawing's farthest on cell is {reach} \
             cells from the seed{from}) on a {side}x{side} grid (2x{steps}+2: growth never meets \
             itself across the border)",
            task = self.task.name(),
            steps = self.steps,
            reach = self.reach,
            side = self.side
        )
    }
}

/// Whether `changes` set the knob `key`.
fn given(changes: &[Override], key: &str) -> bool {
    changes.iter().any(|change| change.knob().key == key)
}

/// The count `changes` set the knob `key` to, if they set it.
fn given_count(changes: &[Override], key: &str) -> Option<usize> {
    changes
        .iter()
        .filter(|change| change.knob().key == key)
        .find_map(|change| match change.value() {
            KnobValue::Count(n) => Some(n),
            _ => None,
        })
}

/// Fits a growing model's steps and grid to its target: the `pattern` task's always, the
/// lizard's under its default recipe (other recipes give the lizard the paper's 20x20
/// torus and 12 steps back, [`papers_lizard`]); other tasks keep the paper's. The steps
/// are those `changes` set, refused when they cannot reach the target, else
/// [`default_steps`]; the grid a square of [`room`] for them, the target centred in it;
/// and, unless `changes` set them, the default recipe's hold steps as many as the steps
/// and its loss steps those from the reach on: the drawing is asked for from the first
/// step that can draw it, so the rule holds it over the spare steps from the first epoch
/// and the longer hold that follows starts from a rule that already keeps it.
pub fn fit(
    config: &mut ModelConfig,
    settings: &mut TrainSettings,
    changes: &[Override],
) -> Result<Option<Geometry>, ConfigError> {
    let fitted =
        config.task == TaskKind::Pattern || settings.recipe.holds_as_long_as_it_grows(config.task);
    if config.task == TaskKind::Lizard && !fitted {
        papers_lizard(config, settings, changes);
    }
    if !fitted {
        return Ok(None);
    }
    let steps_given = given_count(changes, "steps");
    let target = config.pattern.as_ref().ok_or(ConfigError::MissingPattern)?;
    let reach = reach(target).ok_or(ConfigError::EmptyTarget)?;
    let steps = match steps_given {
        Some(steps) if steps < reach => {
            return Err(ConfigError::StepsShortOfTarget { steps, reach })
        }
        Some(steps) => steps,
        None => default_steps(reach),
    };
    let side = room(steps);
    let drawn_from = hold_as_it_grows(
        &mut settings.recipe,
        config.task,
        steps,
        Some(reach),
        changes,
    );
    let geometry = Geometry {
        task: config.task,
        drawn: drawn(target),
        reach,
        steps,
        steps_given: steps_given.is_some(),
        side,
        drawn_from,
    };
    let placed = target.centred_in(side, side);
    placed.validate()?;
    config.steps = steps;
    config.height = side;
    config.width = side;
    config.pattern = Some(placed);
    Ok(Some(geometry))
}

/// The paper's lizard, for a recipe that does not fit the lizard to its target: its 12
/// steps and 3,500 epochs (or those `changes` set) and the target's own grid. A lizard
/// target is at most [`target_images::LIZARD_SIDE`] a side (the notebook's thumbnail), so
/// a larger grid is the default's fitted room around it, taken back to the paper's 20x20.
fn papers_lizard(config: &mut ModelConfig, settings: &mut TrainSettings, changes: &[Override]) {
    config.steps = given_count(changes, "steps").unwrap_or(PAPERS_LIZARD.0);
    settings.epochs = given_count(changes, "epochs").unwrap_or(PAPERS_LIZARD.1);
    let side = target_images::LIZARD_SIDE as usize;
    if config.height > side || config.width > side {
        if let Some(target) = &config.pattern {
            config.pattern = Some(target.centred_in(side, side));
        }
        (config.height, config.width) = (side, side);
    }
}

/// The notebook's lizard: 12 steps, 3,500 epochs.
const PAPERS_LIZARD: (usize, usize) = (12, 3500);

/// The default recipe's hold and loss steps for a pattern grown in `steps` to a target of
/// `reach` (when known), each unless `changes` set it: as many hold steps as it grows,
/// and the drawing asked for from its reach on ([`loss_steps_from_reach`]). Returns the
/// first step asked for when it set the loss steps. Other recipes and tasks are left as
/// they are.
pub fn hold_as_it_grows(
    recipe: &mut Recipe,
    task: TaskKind,
    steps: usize,
    reach: Option<usize>,
    changes: &[Override],
) -> Option<usize> {
    if !recipe.holds_as_long_as_it_grows(task) {
        return None;
    }
    if !given(changes, "hold-steps") {
        recipe.hold_steps = steps;
    }
    let reach = reach.filter(|_| !given(changes, "loss-steps"))?;
    recipe.loss_steps = loss_steps_from_reach(steps, reach);
    Some(reach.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::{preset, target_images};

    /// A 1-bit target of `height x width` with the given cells on.
    fn target(height: usize, width: usize, on: &[(usize, usize)]) -> PatternTarget {
        let mut bits = vec![0; height * width];
        for &(r, c) in on {
            bits[r * width + c] = 1;
        }
        PatternTarget {
            height,
            width,
            rgb: false,
            bits,
        }
    }

    #[test]
    fn reach_is_the_larger_of_row_and_column_distance_from_the_centre_cell() {
        // 8x8: the seed is cell (4, 4).
        assert_eq!(reach(&target(8, 8, &[(4, 4)])), Some(0));
        assert_eq!(reach(&target(8, 8, &[(4, 6), (5, 5)])), Some(2));
        assert_eq!(
            reach(&target(8, 8, &[(0, 0)])),
            Some(4),
            "a corner: 4 rows up"
        );
        assert_eq!(reach(&target(8, 8, &[(7, 3)])), Some(3), "3 rows down");
        assert_eq!(reach(&target(8, 8, &[])), None, "no cell on");
        // 5x7: the seed is cell (2, 3); a cell of any colour channel counts.
        let mut rgb = target(5, 7, &[]);
        rgb.rgb = true;
        rgb.bits = vec![0; 5 * 7 * 3];
        rgb.bits[(2 * 7) * 3 + 2] = 1; // (2, 0), blue only
        assert_eq!(reach(&rgb), Some(3));
    }

    #[test]
    fn the_builtin_g_and_the_lizard_reach_as_counted_by_hand() {
        // The G's art spans rows 2..=13 and columns 1..=14 around the seed (8, 8).
        assert_eq!(reach(&PatternTarget::builtin()), Some(7));
        // The lizard's default gets 14 steps (the paper's recipe keeps its 12).
        assert_eq!(reach(&target_images::lizard()), Some(9));
        assert_eq!(default_steps(9), 14);
        assert_eq!(
            (default_steps(1), default_steps(4), default_steps(7)),
            (3, 6, 11)
        );
    }

    #[test]
    fn room_keeps_growth_from_meeting_itself_across_the_border() {
        // After s steps the growth spans 2s + 1 cells; on 2s + 2 one empty cell is left
        // between its two fronts, so the next step cannot yet carry either across.
        for steps in 1..20 {
            assert!(room(steps) > 2 * steps + 1);
        }
        assert_eq!(room(12), 26, "the lizard's finish grid");
    }

    #[test]
    fn a_pattern_gets_steps_from_its_reach_and_a_grid_of_room() {
        let (mut config, mut settings) = preset(TaskKind::Pattern, true);
        let image = target(32, 32, &[(16, 16), (1, 30)]);
        config.pattern = Some(image.clone());
        let g = fit(&mut config, &mut settings, &[]).unwrap().unwrap();
        // (1, 30) is 15 rows and 14 columns from the seed (16, 16).
        assert_eq!((g.reach, g.steps, g.side), (15, 23, 48));
        assert_eq!((config.steps, config.height, config.width), (23, 48, 48));
        let placed = config.pattern.as_ref().unwrap();
        assert_eq!((placed.height, placed.width), (48, 48));
        assert_eq!(reach(placed), Some(15), "centred: the same distances");
        config.validate().unwrap();
        assert_eq!(g.drawn, (16, 15));
        assert!(
            g.to_string()
                .starts_with("pattern: 23 steps (8 spare; the 16x15 drawing"),
            "{g}"
        );
        // The default asks for the drawing over the states after steps 15 to 23.
        assert_eq!(g.drawn_from, Some(15));
        assert_eq!(settings.recipe.loss_steps, 9);
        assert!(
            g.to_string().contains("seed, asked for from step 15 on)"),
            "{g}"
        );
    }

    #[test]
    fn a_large_image_with_little_drawn_is_cropped_to_its_room() {
        let (mut config, mut settings) = preset(TaskKind::Pattern, true);
        config.pattern = Some(target(40, 40, &[(20, 20), (18, 22)]));
        let g = fit(&mut config, &mut settings, &[]).unwrap().unwrap();
        assert_eq!((g.reach, g.steps, g.side), (2, 4, 10));
        let placed = config.pattern.as_ref().unwrap();
        assert_eq!(placed.bits.iter().filter(|&&b| b == 1).count(), 2);
        assert_eq!(reach(placed), Some(2));
    }

    #[test]
    fn given_steps_short_of_the_reach_are_refused_with_the_least_that_reach() {
        let (mut config, mut settings) = preset(TaskKind::Pattern, true);
        config.pattern = Some(target(32, 32, &[(0, 16)]));
        let set = |steps: usize, config: &mut ModelConfig, settings: &mut TrainSettings| {
            let change: Override = format!("steps={steps}").parse().unwrap();
            change.apply(config, settings);
            [change]
        };
        let given = set(12, &mut config, &mut settings);
        let before = (config.clone(), settings.clone());
        let err = fit(&mut config, &mut settings, &given).unwrap_err();
        assert_eq!(
            err,
            ConfigError::StepsShortOfTarget {
                steps: 12,
                reach: 16
            }
        );
        assert!(err.to_string().contains("--steps 16"), "{err}");
        assert_eq!(
            (config.clone(), settings.clone()),
            before,
            "a refused fit leaves the run as it was"
        );
        // The reach itself is enough, and more gets a larger grid; the default recipe
        // holds for as many steps.
        let given = set(16, &mut config, &mut settings);
        assert_eq!(
            fit(&mut config, &mut settings, &given)
                .unwrap()
                .unwrap()
                .side,
            34
        );
        assert_eq!(settings.recipe.hold_steps, 16);
        let (mut config, mut settings) = preset(TaskKind::Pattern, true);
        let given = set(30, &mut config, &mut settings);
        assert_eq!(
            fit(&mut config, &mut settings, &given)
                .unwrap()
                .unwrap()
                .side,
            62
        );
    }

    #[test]
    fn the_default_recipe_holds_as_long_as_it_grows_unless_told() {
        let (mut config, mut settings) = preset(TaskKind::Pattern, true);
        config.pattern = Some(target(32, 32, &[(16, 16), (1, 30)]));
        fit(&mut config, &mut settings, &[]).unwrap();
        assert_eq!((config.steps, settings.recipe.hold_steps), (23, 23));
        let change: Override = "hold-steps=3".parse().unwrap();
        change.apply(&mut config, &mut settings);
        fit(&mut config, &mut settings, &[change]).unwrap();
        assert_eq!(settings.recipe.hold_steps, 3, "the user's");
        assert_eq!(settings.recipe.loss_steps, 9, "from the reach, 15, on");
        let change: Override = "loss-steps=2".parse().unwrap();
        change.apply(&mut config, &mut settings);
        let g = fit(&mut config, &mut settings, &[change]).unwrap().unwrap();
        assert_eq!(
            (settings.recipe.loss_steps, g.drawn_from),
            (2, None),
            "the user's"
        );
        let paper: Override = "recipe=paper".parse().unwrap();
        paper.apply(&mut config, &mut settings);
        fit(&mut config, &mut settings, &[paper]).unwrap();
        assert_eq!(settings.recipe.hold_steps, 0, "the paper's recipe has none");
        assert_eq!(settings.recipe.loss_steps, 1, "nor loss steps");
    }

    #[test]
    fn a_target_with_nothing_on_is_refused() {
        let (mut config, mut settings) = preset(TaskKind::Pattern, true);
        config.pattern = Some(target(16, 16, &[]));
        assert_eq!(
            fit(&mut config, &mut settings, &[]),
            Err(ConfigError::EmptyTarget)
        );
    }

    #[test]
    fn other_tasks_keep_the_papers_geometry() {
        for task in [TaskKind::ColoredG, TaskKind::Checkerboard] {
            let (mut config, mut settings) = preset(task, false);
            let before = config.clone();
            assert_eq!(fit(&mut config, &mut settings, &[]), Ok(None));
            assert_eq!(config, before);
        }
    }

    /// The lizard's default fits it as a pattern (reach 9: 14 steps on 30x30, held as
    /// long); the paper's recipe gives back the notebook's 20x20 torus, its target cell
    /// for cell, and 12 steps, or the steps given, in any order of the flags.
    #[test]
    fn the_lizard_is_fitted_by_its_default_and_the_papers_otherwise() {
        let (mut config, mut settings) = preset(TaskKind::Lizard, false);
        assert_eq!((config.steps, config.height, config.width), (14, 30, 30));
        assert_eq!(settings.recipe.hold_steps, 14);
        let g = fit(&mut config, &mut settings, &[]).unwrap().unwrap();
        assert!(
            g.to_string().starts_with("lizard: 14 steps (5 spare"),
            "{g}"
        );
        let paper: Override = "recipe=paper".parse().unwrap();
        let steps: Override = "steps=16".parse().unwrap();
        for changes in [vec![paper], vec![steps, paper], vec![paper, steps]] {
            let (mut config, mut settings) = preset(TaskKind::Lizard, false);
            for change in &changes {
                change.apply(&mut config, &mut settings);
            }
            assert_eq!(fit(&mut config, &mut settings, &changes), Ok(None));
            let want_steps = if changes.len() == 2 { 16 } else { 12 };
            assert_eq!(
                (config.steps, config.height, config.width),
                (want_steps, 20, 20),
                "{changes:?}"
            );
            assert_eq!(config.pattern, Some(target_images::lizard()), "{changes:?}");
            assert_eq!(settings.recipe.hold_steps, 0, "{changes:?}");
            assert_eq!(settings.epochs, 3500, "the notebook's run");
        }
        // Back to the default: fitted again, the steps given kept.
        let converge: Override = "recipe=converge".parse().unwrap();
        let changes = [converge, steps];
        for change in &changes {
            change.apply(&mut config, &mut settings);
        }
        let g = fit(&mut config, &mut settings, &changes).unwrap().unwrap();
        assert_eq!((g.steps, g.side, settings.recipe.hold_steps), (16, 34, 16));
    }
}
