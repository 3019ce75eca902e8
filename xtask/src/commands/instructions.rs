//! `cargo xtask instructions`: the trainer's speed as instruction counts, which do not
//! depend on the machine's load, checked against a committed baseline.
//!
//! Every workload's short (`count`) form runs once under cachegrind with the release
//! build (after a dry run of the full workloads, which makes the files the short forms
//! read). valgrind hides AVX-512, so the AVX2 kernels are counted on any x86_64 host
//! with AVX2. A count that grew past `--threshold` fails the check (exit 3); counts
//! from another rustc are shown but do not fail it (codegen changes with the compiler):
//! `--save` makes the current counts the baseline.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use serde::{Deserialize, Serialize};

use crate::measure::cachegrind;
use crate::paths;
use crate::results::verdict::Verdict;
use crate::stages::builder::{build, BuildSpec};
use crate::stages::dry_run;
use crate::toolchain::rustc;
use crate::toolchain::tools::ToolFinder;
use crate::workloads::WorkloadSet;

#[derive(Args, Debug)]
pub struct InstructionsArgs {
    /// Workload file whose `count` forms are counted.
    #[arg(long, default_value = "profiles/benchmark.toml")]
    pub workloads: PathBuf,
    /// The committed counts to compare with.
    #[arg(long, default_value = "results/instructions.json")]
    pub baseline: PathBuf,
    /// Largest allowed growth of a count, as a fraction (0.03 = 3%).
    #[arg(long, default_value_t = 0.03)]
    pub threshold: f64,
    /// Write the current counts as the new baseline [default: only compare].
    #[arg(long)]
    pub save: bool,
}

/// Instruction counts per workload, and the compiler that built what was counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub rustc: String,
    pub instructions: BTreeMap<String, u64>,
}

pub fn run(args: InstructionsArgs) -> Result<Verdict> {
    let set = WorkloadSet::load(&paths::root().join(&args.workloads))?;
    dry_run::check(&set)?;
    let release = build(&BuildSpec::new("release", "release"))?.binary;
    let valgrind = ToolFinder::from_env()?.find_any("valgrind")?.path;
    // The dry run left the files that the short forms read here.
    let scratch = paths::scratch("dry-run");
    let mut now = Baseline {
        rustc: rustc::version_and_llvm()?.0,
        instructions: BTreeMap::new(),
    };
    for w in &set.workloads {
        if let Some(count_args) = w.count_args_in(&scratch) {
            eprintln!("[count] {} under cachegrind", w.name);
            let counted = cachegrind::count(&valgrind, &release, &count_args, &scratch)?.totals;
            now.instructions
                .insert(w.name.clone(), counted.instructions);
        }
    }
    let path = paths::root().join(&args.baseline);
    let old = match std::fs::read_to_string(&path) {
        Ok(text) => Some(
            serde_json::from_str::<Baseline>(&text)
                .with_context(|| format!("reading the baseline {}", path.display()))?,
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    print!("{}", table(old.as_ref(), &now));
    let verdict = verdict(old.as_ref(), &now, args.threshold);
    if args.save {
        std::fs::write(&path, serde_json::to_string_pretty(&now)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
        eprintln!("[save] {}", path.display());
        return Ok(Verdict::Fine);
    }
    Ok(verdict)
}

/// Slower when a workload's count grew past `threshold` over a baseline from the same
/// compiler.
pub fn verdict(old: Option<&Baseline>, now: &Baseline, threshold: f64) -> Verdict {
    let Some(old) = old.filter(|old| old.rustc == now.rustc) else {
        return Verdict::Fine;
    };
    let grew = now.instructions.iter().any(|(name, &count)| {
        old.instructions
            .get(name)
            .is_some_and(|&base| count as f64 > base as f64 * (1.0 + threshold))
    });
    if grew {
        Verdict::Slower
    } else {
        Verdict::Fine
    }
}

/// A Markdown table: workload, baseline, now, change.
pub fn table(old: Option<&Baseline>, now: &Baseline) -> String {
    let mut out = String::from("| workload | baseline | now | change |\n|---|---:|---:|---:|\n");
    for (name, &count) in &now.instructions {
        let base = old.and_then(|o| o.instructions.get(name)).copied();
        let change = base.map_or("new".to_string(), |b| {
            format!("{:+.2}%", (count as f64 / b as f64 - 1.0) * 100.0)
        });
        let base = base.map_or("-".to_string(), |b| b.to_string());
        out += &format!("| {name} | {base} | {count} | {change} |\n");
    }
    match old {
        Some(old) if old.rustc != now.rustc => {
            out += &format!(
                "\nThe baseline was counted with {}, this run with {}: growth is not checked \
                 (`cargo xtask instructions --save` makes a new baseline).\n",
                old.rustc, now.rustc
            );
        }
        None => out += "\nNo baseline yet: `cargo xtask instructions --save` writes one.\n",
        Some(_) => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(rustc: &str, pairs: &[(&str, u64)]) -> Baseline {
        Baseline {
            rustc: rustc.into(),
            instructions: pairs.iter().map(|&(n, c)| (n.to_string(), c)).collect(),
        }
    }

    #[test]
    fn growth_past_the_threshold_is_a_slowdown_only_with_the_same_compiler() {
        let old = counts("rustc 1.95.0", &[("a", 1000), ("b", 2000)]);
        let fine = counts("rustc 1.95.0", &[("a", 1029), ("b", 1500)]);
        let grew = counts("rustc 1.95.0", &[("a", 1031), ("b", 2000)]);
        let other = counts("rustc 1.96.0", &[("a", 5000), ("b", 2000)]);
        assert_eq!(verdict(Some(&old), &fine, 0.03), Verdict::Fine);
        assert_eq!(verdict(Some(&old), &grew, 0.03), Verdict::Slower);
        assert_eq!(verdict(Some(&old), &other, 0.03), Verdict::Fine);
        assert_eq!(verdict(None, &grew, 0.03), Verdict::Fine);
        let shown = table(Some(&old), &other);
        assert!(shown.contains("| a | 1000 | 5000 | +400.00% |"), "{shown}");
        assert!(shown.contains("growth is not checked"), "{shown}");
    }
}
