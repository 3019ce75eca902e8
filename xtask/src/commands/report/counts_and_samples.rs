//! A report's instruction counts and cpu-clock samples: taken once for its binaries, kept
//! with its rounds, and reused by a later stretch (`--resume`) instead of being taken
//! again. They depend on the binaries and workloads only, which a resume has checked, and
//! take half an hour that a stretch can spend on rounds.

use anyhow::Result;

use crate::results::counts::Counted;
use crate::results::samples::FunctionSamples;
use crate::results::saved_rounds::SavedAttribution;

/// What this stretch asks for.
#[derive(Debug, Clone, Copy)]
pub struct Wanted {
    /// Count instructions where a workload has a short form.
    pub counts: bool,
    /// Rounds of every variant under perf; 0 takes none.
    pub sample_rounds: usize,
    pub workloads: usize,
    pub variants: usize,
}

/// The counts for the report: the saved ones if they fit it, else taken now by `count`
/// if asked for (empty if not).
pub fn counts(
    saved: Option<&SavedAttribution>,
    wanted: Wanted,
    count: impl FnOnce() -> Result<Vec<Vec<Option<Counted>>>>,
) -> Result<Vec<Vec<Option<Counted>>>> {
    match saved.map(|s| &s.counted).filter(|c| fits(c, wanted)) {
        Some(c) => {
            eprintln!("[count] reusing the instruction counts saved with the rounds");
            Ok(c.clone())
        }
        None if wanted.counts => count(),
        None => Ok(Vec::new()),
    }
}

/// The samples for the report: the saved ones if they fit it and cover as many rounds as
/// asked, else taken now by `sample` (given the rounds) if asked for (empty if not).
pub fn samples(
    saved: Option<&SavedAttribution>,
    wanted: Wanted,
    sample: impl FnOnce(usize) -> Result<Vec<Vec<FunctionSamples>>>,
) -> Result<Vec<Vec<FunctionSamples>>> {
    let saved = saved
        .map(|s| &s.samples)
        .filter(|s| fits(s, wanted) && rounds_of(s) >= wanted.sample_rounds);
    match saved {
        Some(s) => {
            eprintln!(
                "[sample] reusing the samples of {} rounds saved with the rounds",
                rounds_of(s)
            );
            Ok(s.clone())
        }
        None if wanted.sample_rounds > 0 => sample(wanted.sample_rounds),
        None => Ok(Vec::new()),
    }
}

/// Whether saved `[workload][variant]` rows are of this report's shape (not empty).
fn fits<T>(rows: &[Vec<T>], wanted: Wanted) -> bool {
    rows.len() == wanted.workloads && rows.iter().all(|r| r.len() == wanted.variants)
}

/// The fewest rounds any variant was sampled over (0 when none were).
pub fn rounds_of(samples: &[Vec<FunctionSamples>]) -> usize {
    samples.iter().flatten().map(|s| s.runs).min().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::counts::Counts;

    const WANTED: Wanted = Wanted {
        counts: true,
        sample_rounds: 3,
        workloads: 2,
        variants: 2,
    };

    fn counted(instructions: u64) -> Vec<Vec<Option<Counted>>> {
        let one = Counted {
            totals: Counts {
                instructions,
                d1_misses: 1,
                ll_misses: 0,
            },
            by_function: [("f".to_string(), instructions)].into(),
        };
        vec![vec![Some(one.clone()), Some(one)], vec![None, None]]
    }

    fn sampled(rounds: usize) -> Vec<Vec<FunctionSamples>> {
        let one = FunctionSamples {
            runs: rounds,
            by_function: [("f".to_string(), 10 * rounds as u64)].into(),
        };
        vec![vec![one.clone(); 2]; 2]
    }

    fn not_called<T>() -> Result<T> {
        panic!("the saved ones were to be reused")
    }

    /// Both, as the report takes them.
    fn counts_and_samples(
        saved: Option<&SavedAttribution>,
        wanted: Wanted,
        count: impl FnOnce() -> Result<Vec<Vec<Option<Counted>>>>,
        sample: impl FnOnce(usize) -> Result<Vec<Vec<FunctionSamples>>>,
    ) -> Result<SavedAttribution> {
        Ok(SavedAttribution {
            counted: counts(saved, wanted, count)?,
            samples: samples(saved, wanted, sample)?,
        })
    }

    #[test]
    fn saved_counts_and_samples_are_reused() {
        let saved = SavedAttribution {
            counted: counted(100),
            samples: sampled(3),
        };
        let got = counts_and_samples(Some(&saved), WANTED, not_called, |_| not_called()).unwrap();
        assert_eq!(got, saved);
        // Even when this stretch asks for none: they cost nothing now.
        let none = Wanted {
            counts: false,
            sample_rounds: 0,
            ..WANTED
        };
        let got = counts_and_samples(Some(&saved), none, not_called, |_| not_called()).unwrap();
        assert_eq!(got, saved);
    }

    #[test]
    fn what_is_missing_or_short_is_taken_now() {
        let got = counts_and_samples(None, WANTED, || Ok(counted(7)), |r| Ok(sampled(r))).unwrap();
        assert_eq!(got.counted, counted(7));
        assert_eq!(rounds_of(&got.samples), 3);

        // Samples of fewer rounds than asked are taken again; the counts are kept.
        let saved = SavedAttribution {
            counted: counted(100),
            samples: sampled(1),
        };
        let got = counts_and_samples(Some(&saved), WANTED, not_called, |r| Ok(sampled(r))).unwrap();
        assert_eq!(got.counted, counted(100));
        assert_eq!(rounds_of(&got.samples), 3);

        // A stretch that took none (empty) or of another shape is not reused.
        let other_shape = SavedAttribution {
            counted: counted(100)[..1].to_vec(),
            samples: Vec::new(),
        };
        let got = counts_and_samples(
            Some(&other_shape),
            WANTED,
            || Ok(counted(9)),
            |r| Ok(sampled(r)),
        )
        .unwrap();
        assert_eq!(got.counted, counted(9));
        assert_eq!(rounds_of(&got.samples), 3);
    }

    #[test]
    fn nothing_is_taken_when_nothing_is_asked_or_saved() {
        let none = Wanted {
            counts: false,
            sample_rounds: 0,
            ..WANTED
        };
        let got = counts_and_samples(None, none, not_called, |_| not_called()).unwrap();
        assert_eq!(got, SavedAttribution::default());
    }
}
