//! What the pipeline measures and reports, as data: the runs, the instruction counts,
//! the report built from them and the verdict of a check. Commands produce these types,
//! and the statistics, the exporters, the history and the checks read them; nothing here
//! runs, computes statistics or writes files.

pub mod counts;
pub mod coverage;
pub mod measured;
pub mod report;
pub mod samples;
pub mod saved_rounds;
pub mod verdict;
