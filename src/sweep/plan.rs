//! The runs of a sweep, in their fixed order, and the part of them one shard runs:
//! piece I of N (`Shard`) runs the entries k with k mod N = I.

use crate::error::TooManyRuns;

/// The most runs one sweep may start (settings times seeds): far above the sweeps of
/// `docs/recipes.md` (a few hundred runs), so that a mistyped seed range or list of
/// values is refused before anything starts rather than running for weeks.
pub const MAX_RUNS: usize = 10_000;

/// Every `(setting, seed)` run of a sweep of `settings` settings, settings outermost;
/// refused above [`MAX_RUNS`] before anything is built.
pub fn plan(settings: usize, seeds: &[u64]) -> Result<Vec<(usize, u64)>, TooManyRuns> {
    check_plan(settings as u64, seeds.len() as u64)?;
    Ok(entries(settings, seeds))
}

/// Refuses a sweep of more than [`MAX_RUNS`] runs; the counts may be known before the
/// settings and seeds are listed.
pub fn check_plan(settings: u64, seeds: u64) -> Result<(), TooManyRuns> {
    let runs = settings.saturating_mul(seeds);
    if runs > MAX_RUNS as u64 {
        return Err(TooManyRuns {
            runs,
            settings,
            seeds,
            max: MAX_RUNS,
        });
    }
    Ok(())
}

/// Every `(setting, seed)` run, settings outermost, without the size check.
pub fn entries(settings: usize, seeds: &[u64]) -> Vec<(usize, u64)> {
    (0..settings)
        .flat_map(|s| seeds.iter().map(move |&seed| (s, seed)))
        .collect()
}

/// The entries of `plan` that `shard` runs: those at positions k with
/// k mod count = index, in plan order.
pub fn shard(plan: &[(usize, u64)], shard: Shard) -> Vec<(usize, u64)> {
    plan.iter()
        .skip(shard.index)
        .step_by(shard.count)
        .copied()
        .collect()
}

/// Piece `index` of `count` (0-based, as `SLURM_ARRAY_TASK_ID` and `JOB_COMPLETION_INDEX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub fn new(index: usize, count: usize) -> Result<Self, String> {
        if count == 0 {
            return Err("the number of shards must be at least 1".into());
        }
        if index >= count {
            return Err(format!(
                "shard {index} does not exist in {count} shard(s) (they count from 0 to {})",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// The whole plan as one piece: a sweep on one machine.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `I/N`, e.g. `3/8`.
    fn from_str(text: &str) -> Result<Self, String> {
        let (index, count) = text
            .split_once('/')
            .ok_or_else(|| format!("'{text}': expected INDEX/COUNT, e.g. 0/4"))?;
        let number = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{s}' in '{text}' is not a whole number"))
        };
        Shard::new(number(index)?, number(count)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_as_index_over_count() {
        assert_eq!("2/7".parse(), Ok(Shard { index: 2, count: 7 }));
        assert!("7/7".parse::<Shard>().unwrap_err().contains("0 to 6"));
        assert!("1/0".parse::<Shard>().is_err());
        assert!("1".parse::<Shard>().unwrap_err().contains("INDEX/COUNT"));
    }

    #[test]
    fn a_plan_lists_every_run_up_to_its_maximum() {
        assert_eq!(plan(2, &[5, 7]).unwrap(), [(0, 5), (0, 7), (1, 5), (1, 7)]);
        let seeds: Vec<u64> = (0..5_000).collect();
        assert_eq!(plan(2, &seeds).unwrap().len(), MAX_RUNS);
        let err = plan(3, &seeds).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a sweep may start at most 10000 runs; this one would start 15000 (3 setting(s) x \
             5000 seed(s)): split it into smaller sweeps"
        );
        assert_eq!(check_plan(u64::MAX, 2).unwrap_err().runs, u64::MAX);
    }

    #[test]
    fn shards_cover_the_plan_once() {
        let plan = entries(3, &[4, 5, 6, 7, 8]);
        for count in [1, 2, 3, 7, 20] {
            let mut all: Vec<_> = (0..count)
                .flat_map(|index| shard(&plan, Shard::new(index, count).unwrap()))
                .collect();
            all.sort();
            assert_eq!(all, plan, "{count} shards");
        }
    }
}
