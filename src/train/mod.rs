//! Training: the objective (rollouts, loss, gradient), the optimizer, and the epoch loop.

pub mod best;
pub mod loss;
pub mod memory;
pub mod objective;
pub mod optimizer;
pub mod starts;
pub mod state;
pub mod trainer;
pub mod verify;

pub use best::{BestModel, Keep};
pub use objective::{
    evaluate, loss_and_gradient, loss_and_gradient_over, Evaluation, Gradient, Metrics, Objective,
    Rollout, SoftLoss,
};
pub use starts::Choice;
pub use state::TrainerState;
pub use trainer::{fresh_model, run, train, EpochMetrics, TrainError, TrainSummary, Trainer};
