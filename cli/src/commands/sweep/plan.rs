//! A sweep's plan from the command line: its seeds, and its settings from the `--set`
//! values (keys of the knob table), counted before they are listed.

use std::ops::Range;

use std::path::Path;

use anyhow::{bail, Context, Result};
use logicars::model::task::TaskKind;
use logicars::sweep::manifest::{Manifest, Sweep, TARGET};
use logicars::sweep::{Setting, MAX_RUNS};
use logicars::tasks::{knobs, Override};

/// The help of `--seeds`, with the most runs a sweep may start.
pub(super) fn seeds_help() -> String {
    format!(
        "Seeds: a range FIRST..END (END excluded) or a list such as 1,4,9; a sweep starts at \
         most {MAX_RUNS} runs (settings times seeds)"
    )
}

/// The help of `--set`, with every key of the knob table.
pub(super) fn set_help() -> String {
    format!(
        "KEY=V1,V2,...: one setting per value; several --set give every combination. Keys \
         (the train flags of the same names): {}",
        knobs::keys().join(", ")
    )
}

/// The seeds of a sweep, a range kept as a range so that its size is checked before it
/// is listed.
#[derive(Debug, Clone)]
pub enum Seeds {
    Range(Range<u64>),
    List(Vec<u64>),
}

impl Seeds {
    pub(super) fn count(&self) -> u64 {
        match self {
            Seeds::Range(range) => range.end.saturating_sub(range.start),
            Seeds::List(list) => list.len() as u64,
        }
    }

    pub(super) fn list(&self) -> Vec<u64> {
        match self {
            Seeds::Range(range) => range.clone().collect(),
            Seeds::List(list) => list.clone(),
        }
    }
}

pub(super) fn parse_seeds(text: &str) -> Result<Seeds, String> {
    let number = |s: &str| {
        s.trim()
            .parse::<u64>()
            .map_err(|_| format!("'{s}' in '{text}' is not a seed"))
    };
    let seeds = match text.split_once("..") {
        Some((first, end)) => Seeds::Range(number(first)?..number(end)?),
        None => Seeds::List(text.split(',').map(number).collect::<Result<_, _>>()?),
    };
    if seeds.count() == 0 {
        return Err(format!("'{text}' holds no seed"));
    }
    Ok(seeds)
}

/// How many settings the `--set` values make, without listing them.
pub(super) fn setting_count(sets: &[String]) -> u64 {
    let values = |set: &String| set.split_once('=').map_or(1, |(_, v)| v.split(',').count());
    sets.iter()
        .fold(1u64, |n, set| n.saturating_mul(values(set) as u64))
}

/// Every combination of the `--set` values, each with a label such as `lr=0.1 batch=4`.
pub(super) fn settings(sets: &[String]) -> Result<Vec<Setting>> {
    let mut out = vec![Setting {
        label: String::new(),
        overrides: Vec::new(),
        target: None,
    }];
    for set in sets {
        let Some((key, values)) = set.split_once('=') else {
            bail!("--set {set}: expected KEY=V1,V2,...");
        };
        let mut next = Vec::new();
        for setting in &out {
            for value in values.split(',') {
                let text = format!("{key}={value}");
                let change: Override = text.parse().with_context(|| format!("--set {set}"))?;
                let mut s = setting.clone();
                s.label = format!("{} {text}", s.label).trim().to_string();
                s.overrides.push(change);
                next.push(s);
            }
        }
        out = next;
    }
    if out[0].label.is_empty() {
        out[0].label = "preset".into();
    }
    Ok(out)
}

/// The manifest of a sweep of `task` with these settings (and their target image, which
/// they share), cut into `shards` pieces.
pub(super) fn manifest(
    task: TaskKind,
    small: bool,
    full: bool,
    seeds: &Seeds,
    sets: &[String],
    settings: &[Setting],
    shards: usize,
) -> Manifest {
    Manifest::new(Sweep {
        task: task.name().into(),
        small,
        full,
        seeds: seeds.list(),
        sets: sets.to_vec(),
        settings: settings.iter().map(|s| s.label.clone()).collect(),
        shards,
        version: env!("CARGO_PKG_VERSION").into(),
        target: settings.first().and_then(|s| s.target.clone()),
    })
}

/// The seeds as `--seeds` takes them: a range when they follow each other.
fn seeds_flag(seeds: &[u64]) -> String {
    let consecutive = seeds.windows(2).all(|w| w[1] == w[0] + 1);
    match (seeds.first(), seeds.last()) {
        (Some(first), Some(last)) if consecutive => format!("{first}..{}", last + 1),
        _ => seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// The arguments (after the program) that run shard `index` (a number, or a variable the
/// engine expands) of `manifest`'s sweep into `dir`, on `threads` threads when given.
pub(super) fn shard_args(
    manifest: &Manifest,
    dir: &Path,
    index: &str,
    threads: Option<usize>,
) -> Vec<String> {
    let mut args = vec!["sweep".to_string(), manifest.sweep.task.clone()];
    if manifest.sweep.small {
        args.push("--small".into());
    }
    args.extend(["--seeds".into(), seeds_flag(&manifest.sweep.seeds)]);
    for set in &manifest.sweep.sets {
        args.extend(["--set".into(), set.clone()]);
    }
    if manifest.sweep.target.is_some() {
        let image = dir.join(TARGET);
        args.extend(["--target".into(), image.display().to_string()]);
    }
    if manifest.sweep.full {
        args.push("--full".into());
    }
    args.extend([
        "--out".into(),
        dir.display().to_string(),
        "--shard".into(),
        format!("{index}/{}", manifest.sweep.shards),
    ]);
    if let Some(threads) = threads {
        args.extend(["--threads".into(), threads.to_string()]);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_as_range_or_list() {
        assert_eq!(parse_seeds("2..5").unwrap().list(), [2, 3, 4]);
        assert_eq!(parse_seeds("1,4,9").unwrap().list(), [1, 4, 9]);
        assert_eq!(parse_seeds("0..100000000").unwrap().count(), 100_000_000);
        assert!(parse_seeds("5..5").is_err());
        assert!(parse_seeds("a..3").unwrap_err().contains("'a'"));
    }

    #[test]
    fn seeds_are_written_back_as_a_range_when_they_can_be() {
        assert_eq!(seeds_flag(&[3, 4, 5]), "3..6");
        assert_eq!(seeds_flag(&[1, 4, 9]), "1,4,9");
        assert_eq!(seeds_flag(&[5, 4]), "5,4");
        for text in ["3..6", "1,4,9", "7"] {
            assert_eq!(
                seeds_flag(&parse_seeds(text).unwrap().list()),
                if text == "7" { "7..8" } else { text }
            );
        }
    }

    #[test]
    fn sets_give_every_combination() {
        let s = settings(&["lr=0.1,0.2".into(), "batch=2,4".into()]).unwrap();
        let labels: Vec<&str> = s.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "lr=0.1 batch=2",
                "lr=0.1 batch=4",
                "lr=0.2 batch=2",
                "lr=0.2 batch=4"
            ]
        );
        assert_eq!(settings(&[]).unwrap()[0].label, "preset");
        assert!(settings(&["speed=1".into()]).is_err());
        assert_eq!(
            setting_count(&["lr=0.1,0.2".into(), "batch=2,4,8".into()]),
            6
        );
    }
}
