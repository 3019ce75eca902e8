//! Training: the objective (rollouts, loss, gradient), the optimizer, and the epoch loop.
//! Epochs are scored with the losses and hard scoring of [`crate::evaluate`].

pub mod attempts;
pub mod best;
pub mod ending;
pub mod error;
pub mod exact_watch;
pub mod gate_search;
pub mod memory;
pub mod objective;
pub mod optimizer;
pub mod pool;
pub mod stall_watch;
pub mod starts;
pub mod state;
pub mod trainer;

pub use attempts::{attempt_seed, best_attempt, AttemptRecord};
pub use best::{BestModel, Keep};
pub use ending::Ending;
pub use error::TrainError;
pub use exact_watch::{ExactWatch, EXACT_CHECK_GAP};
pub use gate_search::{search_gates, GateSearch, SearchPlan};
pub use objective::{loss_and_gradient, loss_and_gradient_over, Gradient, Metrics, Objective};
pub use stall_watch::StallWatch;
pub use state::{Choice, TrainerState};
pub use trainer::{fresh_model, run, train, EpochMetrics, TrainSummary, Trainer};
