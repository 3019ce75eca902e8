//! Training: the objective (rollouts, loss, gradient), the optimizer, and the epoch loop.

pub mod best;
pub mod error;
pub mod loss;
pub mod memory;
pub mod objective;
pub mod optimizer;
pub mod starts;
pub mod state;
pub mod trainer;
pub mod verify;

pub use best::{BestModel, Keep};
pub use error::TrainError;
pub use objective::{
    evaluate, loss_and_gradient, loss_and_gradient_over, Evaluation, Gradient, Metrics, Objective,
    Rollout, SoftLoss,
};
pub use state::{Choice, TrainerState};
pub use trainer::{fresh_model, run, train, EpochMetrics, TrainSummary, Trainer};
