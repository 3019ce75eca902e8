//! Which task a model was trained for. Only the name lives here, in the model layer, so
//! that a model file can say what it is for; what each task means (initial states,
//! targets, presets) is the `tasks` layer's business.

use serde::{Deserialize, Serialize};

/// The tasks of the paper that a model can be trained on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskKind {
    /// Synchronous checkerboard, 16x16, 20 steps.
    Checkerboard,
    /// Asynchronous checkerboard (fire rate 0.6), 14x14, 50 steps.
    CheckerboardAsync,
    /// Game of Life from all 512 3x3 boards.
    Gol,
    /// Any rule on the 3x3 neighbourhood (the model's `rule`), from all its neighbourhoods.
    Rule,
    /// Grow a target image from one seeded centre cell.
    Pattern,
    /// The paper's lizard: grow its outline from one seeded centre cell, 20x20, periodic.
    Lizard,
    /// The paper's coloured G: three colour channels grown in from the zero border of an
    /// all-zero grid.
    ColoredG,
}

impl TaskKind {
    /// Every task, in the order the CLI lists them.
    pub const ALL: [TaskKind; 7] = [
        TaskKind::Checkerboard,
        TaskKind::CheckerboardAsync,
        TaskKind::Gol,
        TaskKind::Rule,
        TaskKind::Pattern,
        TaskKind::Lizard,
        TaskKind::ColoredG,
    ];

    /// Tasks whose target is an image, saved with the model.
    pub fn grows_image(self) -> bool {
        matches!(
            self,
            TaskKind::Pattern | TaskKind::Lizard | TaskKind::ColoredG
        )
    }

    /// Tasks grown from one seeded centre cell on a wrapping grid, their target drawn in
    /// the grid's centre: on a grid of any larger size they ask for the same drawing,
    /// the rest empty.
    pub fn grows_from_centre(self) -> bool {
        matches!(self, TaskKind::Pattern | TaskKind::Lizard)
    }

    /// For tasks defined on a grid of any size (random bits to a pattern anchored at the
    /// corners), the period of the pattern in cells: grids that differ in size by a
    /// multiple of it see the same pattern from every corner, so a model can train on
    /// smaller ones first ([`crate::model::recipe::Recipe::curriculum_size`]). The
    /// checkerboard's 2x2 squares repeat every 4 cells.
    pub fn any_size_period(self) -> Option<usize> {
        match self {
            TaskKind::Checkerboard | TaskKind::CheckerboardAsync => Some(4),
            _ => None,
        }
    }

    /// Whether square grids of `side` see the task's pattern as grids of `height x width`
    /// do: smaller, by a multiple of the pattern's period on both sides.
    pub fn shrinks_to(self, (height, width): (usize, usize), side: usize) -> bool {
        let Some(period) = self.any_size_period() else {
            return false;
        };
        let fits = |task_side: usize| side < task_side && (task_side - side).is_multiple_of(period);
        side > 0 && fits(height) && fits(width)
    }

    /// Tasks that learn a rule's next state from every 3x3 board on a 3x3 torus (each
    /// cell of which sees the whole board as its neighbourhood).
    pub fn learns_rule(self) -> bool {
        matches!(self, TaskKind::Gol | TaskKind::Rule)
    }

    /// The task called `name` on the command line, if any.
    pub fn from_name(name: &str) -> Option<TaskKind> {
        TaskKind::ALL.into_iter().find(|t| t.name() == name)
    }

    /// One line on what the task is.
    pub fn summary(self) -> &'static str {
        match self {
            TaskKind::Checkerboard => "synchronous checkerboard, 16x16, 20 steps",
            TaskKind::CheckerboardAsync => {
                "asynchronous checkerboard (fire rate 0.6), 14x14, 50 steps"
            }
            TaskKind::Gol => "Game of Life, learned from all 512 3x3 boards",
            TaskKind::Rule => {
                "any rule (--rule B3/S23, B2/S/C3, wireworld), from its neighbourhoods"
            }
            TaskKind::Pattern => "grow a target image from one seeded centre cell",
            TaskKind::Lizard => "the paper's lizard, grown from one seeded centre cell",
            TaskKind::ColoredG => "the paper's coloured G, grown in from the border",
        }
    }

    /// The name used on the command line, in model files and in run folders.
    pub fn name(self) -> &'static str {
        match self {
            TaskKind::Checkerboard => "checkerboard",
            TaskKind::CheckerboardAsync => "checkerboard-async",
            TaskKind::Gol => "gol",
            TaskKind::Rule => "rule",
            TaskKind::Pattern => "pattern",
            TaskKind::Lizard => "lizard",
            TaskKind::ColoredG => "colored-g",
        }
    }
}

impl std::fmt::Display for TaskKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
