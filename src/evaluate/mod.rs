//! Judging a model: the losses that score a rollout, a batch scored by the hard circuit
//! (and the soft gates when asked), the check on fresh inputs that a run's kept model
//! gets, and the paper's tests of a trained rule (larger grids, healing, all 512 Game of
//! Life boards, robustness under damage). Training scores its epochs with the same
//! losses and hard scoring; sweeps and the command line call the checks.

pub mod batch;
pub mod checks;
pub mod fresh;
pub mod hard;
pub mod loss;
pub mod rule_table;
pub mod soft;

pub use batch::{evaluate, Evaluation, Rollout, SoftLoss};
pub use fresh::{all_boards_right, every_input_accuracy, fresh_check, FreshCheck, Measure};
pub use hard::HardEvaluator;
