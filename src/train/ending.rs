//! How an attempt's epochs end: the one answer that the exact watch, the stall watch and
//! a user's interrupt give, and that decides whether the attempt gets its gate search.

/// How an attempt's epochs ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Every epoch ran.
    Finished,
    /// Its kept model was found exact ([`ExactWatch`](crate::train::ExactWatch)).
    Exact,
    /// Its hard loss stalled ([`StallWatch`](crate::train::StallWatch)).
    Stalled,
    /// Its hard loss had not yet been below the recipe's give-up bound when the hold
    /// began ([`StallWatch`](crate::train::StallWatch)): the attempt is finished
    /// without its gate search, which finishes models a few bits from their target, not
    /// models this far.
    GaveUp,
    /// Its observer asked the run to stop (a user's interrupt): the attempt is finished
    /// without its gate search, and the run makes no other.
    Stopped,
}
