//! `cargo xtask compare [OLD] [NEW]`: how each variant and workload changed between two
//! reports of `results/history.csv`, and a gate that fails on a slowdown.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

use crate::history::{self, Row};
use crate::paths;
use crate::results::verdict::Verdict;

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The earlier report: a commit prefix or a date of the history [default: the report
    /// before NEW].
    pub old: Option<String>,
    /// The later report, selected the same way [default: the last report].
    pub new: Option<String>,
    /// The history file.
    #[arg(long, default_value = "results/history.csv")]
    pub history: PathBuf,
    /// Fail (exit code 3) when a time grows by more than this fraction with its whole 95%
    /// interval above zero, or an instruction count grows by more than it.
    #[arg(long, default_value_t = 0.05)]
    pub threshold: f64,
}

/// One variant on one workload, old against new.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub variant: String,
    pub workload: String,
    /// New median over old, minus 1, and its 95% interval.
    pub change: f64,
    pub interval: (f64, f64),
    pub instructions: Option<f64>,
}

pub fn run(args: CompareArgs) -> Result<Verdict> {
    let rows = history::load(&paths::root().join(&args.history))?;
    let reports = reports(&rows);
    let (old, new) = pick(&reports, args.old.as_deref(), args.new.as_deref())?;
    println!(
        "old: {} {}\nnew: {} {}",
        old[0].date, old[0].commit, new[0].date, new[0].commit
    );
    if old[0].machine != new[0].machine {
        println!(
            "note: measured on different machines:\n  {}\n  {}",
            old[0].machine, new[0].machine
        );
    }
    let changes = changes(old, new);
    if changes.is_empty() {
        bail!("the two reports share no variant and workload");
    }
    println!(
        "{:<16} {:<20} {:>9} {:>21} {:>13}",
        "variant", "workload", "time", "95% interval", "instructions"
    );
    for c in &changes {
        println!(
            "{:<16} {:<20} {:>+8.2}% {:>+9.2}% .. {:>+7.2}% {:>13}",
            c.variant,
            c.workload,
            100.0 * c.change,
            100.0 * c.interval.0,
            100.0 * c.interval.1,
            c.instructions
                .map_or("–".into(), |i| format!("{:+.3}%", 100.0 * i))
        );
    }
    let verdict = verdict(&changes, args.threshold);
    if verdict == Verdict::Slower {
        println!(
            "slower than the threshold of {:.1}%",
            100.0 * args.threshold
        );
    }
    Ok(verdict)
}

/// The history's reports in order, each as its rows (rows of one report share date,
/// commit and report name).
pub fn reports(rows: &[Row]) -> Vec<Vec<Row>> {
    let mut reports: Vec<Vec<Row>> = Vec::new();
    for row in rows {
        match reports.last_mut() {
            Some(last) if same_report(&last[0], row) => last.push(row.clone()),
            _ => reports.push(vec![row.clone()]),
        }
    }
    reports
}

fn same_report(a: &Row, b: &Row) -> bool {
    (&a.date, &a.commit, &a.report) == (&b.date, &b.commit, &b.report)
}

/// The reports OLD and NEW name (the last one matching), by default the last two.
fn pick<'a>(
    reports: &'a [Vec<Row>],
    old: Option<&str>,
    new: Option<&str>,
) -> Result<(&'a [Row], &'a [Row])> {
    let find = |key: &str| {
        reports
            .iter()
            .rposition(|r| r[0].commit.starts_with(key) || r[0].date.starts_with(key))
            .ok_or_else(|| anyhow::anyhow!("no report in the history matches '{key}'"))
    };
    let new_at = match new {
        Some(key) => find(key)?,
        None => reports
            .len()
            .checked_sub(1)
            .ok_or_else(|| anyhow::anyhow!("the history is empty"))?,
    };
    let old_at = match old {
        Some(key) => find(key)?,
        None => new_at.checked_sub(1).ok_or_else(|| {
            anyhow::anyhow!("the history holds one report; nothing to compare it with")
        })?,
    };
    Ok((&reports[old_at], &reports[new_at]))
}

/// The change of every variant and workload in both reports. The interval combines both
/// medians' intervals on a log scale (half-widths added in quadrature).
pub fn changes(old: &[Row], new: &[Row]) -> Vec<Change> {
    new.iter()
        .filter_map(|n| {
            let o = old.iter().find(|o| {
                o.variant == n.variant && o.workload == n.workload && o.metric == n.metric
            })?;
            let half = |r: &Row| (r.median_high_s.ln() - r.median_low_s.ln()) / 2.0;
            let centre = (n.median_s / o.median_s).ln();
            let h = (half(o).powi(2) + half(n).powi(2)).sqrt();
            Some(Change {
                variant: n.variant.clone(),
                workload: n.workload.clone(),
                change: centre.exp() - 1.0,
                interval: ((centre - h).exp() - 1.0, (centre + h).exp() - 1.0),
                instructions: match (o.instructions, n.instructions) {
                    (Some(a), Some(b)) if a > 0 => Some(b as f64 / a as f64 - 1.0),
                    _ => None,
                },
            })
        })
        .collect()
}

/// Slower when a time grew past `threshold` with its interval above zero, or an
/// instruction count (which has no noise) grew past it.
pub fn verdict(changes: &[Change], threshold: f64) -> Verdict {
    let slower = changes.iter().any(|c| {
        (c.change > threshold && c.interval.0 > 0.0)
            || c.instructions.is_some_and(|i| i > threshold)
    });
    if slower {
        Verdict::Slower
    } else {
        Verdict::Fine
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::tests::row;

    #[test]
    fn reports_are_split_by_date_and_commit() {
        let rows = [
            row("2026-01-01", "release", "a", 1.0),
            row("2026-01-01", "pgo", "a", 0.9),
            row("2026-02-01", "release", "a", 1.1),
        ];
        let r = reports(&rows);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].len(), 2);
        let (old, new) = pick(&r, None, None).unwrap();
        assert_eq!(
            (old[0].date.as_str(), new[0].date.as_str()),
            ("2026-01-01", "2026-02-01")
        );
        let (old, _) = pick(&r, Some("c2026"), Some("2026-02")).unwrap();
        assert_eq!(old[0].date, "2026-02-01", "the last match");
        assert!(pick(&r, Some("nope"), None).is_err());
        assert!(
            pick(&r[..1], None, None).is_err(),
            "one report: nothing to compare"
        );
    }

    /// Old median 1.0 in [0.99, 1.01], new 1.10 in [1.089, 1.111]: change +10%, log
    /// half-widths ~0.01 each, combined 0.01414: interval exp(ln 1.1 -+ 0.01414) - 1.
    #[test]
    fn changes_and_the_gate_by_hand() {
        let old = [row("2026-01-01", "release", "a", 1.0)];
        let new = [row("2026-02-01", "release", "a", 1.1)];
        let c = &changes(&old, &new)[0];
        assert!((c.change - 0.1).abs() < 1e-12);
        let h = ((1.01f64.ln() - 0.99f64.ln()) / 2.0) * 2f64.sqrt();
        assert!((c.interval.0 - ((1.1f64.ln() - h).exp() - 1.0)).abs() < 1e-12);
        assert!((c.interval.1 - ((1.1f64.ln() + h).exp() - 1.0)).abs() < 1e-12);
        assert_eq!(c.instructions, Some(0.0));
        assert_eq!(verdict(&changes(&old, &new), 0.05), Verdict::Slower);
        assert_eq!(verdict(&changes(&old, &new), 0.15), Verdict::Fine);
        // Faster is never a failure.
        assert_eq!(verdict(&changes(&new, &old), 0.05), Verdict::Fine);
        // +3% inside its noise: fine at 2% too, the interval reaches below zero.
        let mut noisy = row("2026-02-01", "release", "a", 1.03);
        noisy.median_low_s = 0.95;
        noisy.median_high_s = 1.1;
        assert_eq!(
            verdict(&changes(&old, &[noisy.clone()]), 0.02),
            Verdict::Fine
        );
        // But 10% more instructions fail whatever the times say.
        noisy.instructions = Some(1100);
        assert_eq!(verdict(&changes(&old, &[noisy]), 0.05), Verdict::Slower);
    }
}
