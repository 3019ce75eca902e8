//! Statistics: pure functions from measurements to the numbers a report shows.

pub mod attribution;
pub mod coverage;
pub mod stats;
pub mod summary;
