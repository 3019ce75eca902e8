//! Training: loss, optimizer, and the epoch loop.

pub mod loss;
pub mod optimizer;
pub mod trainer;

pub use trainer::{train, EpochMetrics, TrainError, TrainSummary, Trainer};
