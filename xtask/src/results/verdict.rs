//! The answer of a check that gates on slowdowns (`compare`, `instructions`).

/// Whether something got slower past its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Fine,
    Slower,
}
