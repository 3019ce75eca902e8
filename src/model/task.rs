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
    /// Grow a target image from one seeded centre cell.
    Pattern,
}

impl TaskKind {
    /// Every task, in the order the CLI lists them.
    pub const ALL: [TaskKind; 4] = [
        TaskKind::Checkerboard,
        TaskKind::CheckerboardAsync,
        TaskKind::Gol,
        TaskKind::Pattern,
    ];

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
            TaskKind::Pattern => "grow a target image from one seeded centre cell",
        }
    }

    /// The name used on the command line, in model files and in run folders.
    pub fn name(self) -> &'static str {
        match self {
            TaskKind::Checkerboard => "checkerboard",
            TaskKind::CheckerboardAsync => "checkerboard-async",
            TaskKind::Gol => "gol",
            TaskKind::Pattern => "pattern",
        }
    }
}

impl std::fmt::Display for TaskKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
