//! What the soft kernels run, worked out once per circuit: which gates, and in which rows
//! of a tile's tables their values ([`ForwardPlan`]) and gradients ([`BackwardPlan`])
//! live, so that the tables stay small enough for the cache.

mod backward;
mod forward;

pub use backward::BackwardPlan;
pub use forward::{ForwardPlan, ForwardRows};
