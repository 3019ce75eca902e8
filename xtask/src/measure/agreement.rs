//! Every variant must print the same results for a workload: a faster build that
//! computes something else is no speedup.

use anyhow::{bail, Result};

use crate::measure::Contestant;
use crate::results::measured::Samples;

/// What a run printed, less its timing line.
pub fn results_of(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|l| !l.starts_with("wall time:"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Fails when any run of any variant printed other results than the baseline's first run.
pub fn check_same_results(
    workload: &str,
    contestants: &[Contestant],
    samples: &[Samples],
) -> Result<()> {
    let reference = results_of(&samples[0].runs[0].stdout);
    for (c, s) in contestants.iter().zip(samples) {
        for m in &s.runs {
            let got = results_of(&m.stdout);
            if got != reference {
                bail!(
                    "variant {} gives other results than {} on workload '{workload}'; no report written.\n--- {} ---\n{}\n--- {} ---\n{}",
                    c.variant,
                    contestants[0].variant,
                    contestants[0].variant,
                    reference,
                    c.variant,
                    got
                );
            }
        }
    }
    Ok(())
}
