//! The library's integration tests, one binary: each module is what a file under
//! `tests/` would be on its own (gathered so that the suite links the library once).

mod best_model;
mod checkpoint;
mod curriculum;
mod docs;
mod evaluation;
mod file_mutations;
mod gradients;
mod hard_matches_soft;
mod hold_steps;
mod notebook_replay;
mod pool;
mod starts;
mod subnormals;

use logicars::tasks::Override;

/// `base` then `changes`, each parsed as `--set` parses it.
fn overrides(base: &[&str], changes: &[&str]) -> Vec<Override> {
    base.iter()
        .chain(changes)
        .map(|c| c.parse().unwrap())
        .collect()
}
