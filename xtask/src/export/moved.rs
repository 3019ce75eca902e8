//! "Where the time moved" and the profile's coverage, as Markdown tables: in the report
//! under each workload, and printed by `cargo xtask explain`.

use std::fmt::Write;

use crate::results::coverage::{Coverage, WELL_REPRESENTED};
use crate::results::report::{Report, WorkloadReport};
use crate::results::samples::{Moved, MovedFunction, SAMPLES_PER_S};

/// The workload's "where the time moved" tables, one per variant (nothing when the
/// report took no samples).
pub fn workload_section(w: &mut String, baseline: &str, workload: &WorkloadReport) {
    if workload.moved.is_empty() {
        return;
    }
    let _ = writeln!(w, "### {}: where the time moved\n", workload.name);
    let _ = writeln!(
        w,
        "cpu-clock samples ({SAMPLES_PER_S} a second of CPU) of every variant's sampled \
         runs, by function; the {} functions whose share changed most against `{baseline}`. \
         *Δ ms* is the CPU time per run in that function, variant minus baseline. *Ir* is \
         cachegrind's instruction count in it on the short form (its kernels at AVX2).\n",
        workload.moved[0].functions.len()
    );
    for m in &workload.moved {
        moved_table(w, baseline, m, Level::Function);
    }
}

/// Which rows a table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Function,
    Module,
}

/// One variant's table against the baseline.
pub fn moved_table(w: &mut String, baseline: &str, m: &Moved, level: Level) {
    let (rows, what) = match level {
        Level::Function => (&m.functions, "Function"),
        Level::Module => (&m.modules, "Module"),
    };
    let _ = writeln!(
        w,
        "`{}`: {:.0} ms of CPU per run against `{baseline}`'s {:.0} ms ({:+.1}%).\n",
        m.variant,
        m.variant_ms,
        m.baseline_ms,
        percent_change(m.baseline_ms, m.variant_ms)
    );
    let _ = writeln!(
        w,
        "| {what} | Samples `{baseline}` | Samples `{v}` | Share `{baseline}` | Share `{v}` | Δ share | Δ ms | Ir `{baseline}` | Ir `{v}` |",
        v = m.variant
    );
    let _ = writeln!(w, "|:---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        row(w, r, level);
    }
    let _ = writeln!(w);
}

fn row(w: &mut String, r: &MovedFunction, level: Level) {
    let name = match level {
        Level::Function => format!("`{}`", short(&r.function)),
        Level::Module => format!("`{}`", r.function),
    };
    let ir = |n: Option<u64>| n.map_or("–".to_string(), |n| n.to_string());
    let _ = writeln!(
        w,
        "| {name} | {} | {} | {:.1}% | {:.1}% | {:+.1} pp | {:+.1} | {} | {} |",
        r.baseline_samples,
        r.variant_samples,
        100.0 * r.baseline_share,
        100.0 * r.variant_share,
        r.delta_share_points(),
        r.delta_ms,
        ir(r.baseline_instructions),
        ir(r.variant_instructions)
    );
}

/// A long name cut in the middle, so a table stays readable.
fn short(name: &str) -> String {
    const MAX: usize = 90;
    if name.chars().count() <= MAX {
        return name.to_string();
    }
    let head: String = name.chars().take(MAX / 2).collect();
    let tail: String = name.chars().skip(name.chars().count() - MAX / 2).collect();
    format!("{head}…{tail}")
}

fn percent_change(from: f64, to: f64) -> f64 {
    if from == 0.0 {
        0.0
    } else {
        100.0 * (to / from - 1.0)
    }
}

/// The profile-coverage table, when the report compared a PGO build.
pub fn coverage_section(w: &mut String, report: &Report) {
    let rows: Vec<&Coverage> = report
        .workloads
        .iter()
        .filter_map(|wl| wl.coverage.as_ref())
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(w, "## PGO profile coverage\n");
    let _ = writeln!(
        w,
        "Where each workload's samples (of `{}`) fall against the PGO profile's training runs \
         (`profiles/training.toml`). *Outside* is the kernel and the C libraries, which no \
         profile reaches; *unprofiled*, the program's functions no training run executed; \
         *elsewhere*, those only runs standing for other workloads executed. *Represented* \
         is the share of the program's samples in code this workload's own kind of run \
         executed; under {:.0}% is marked poor.\n",
        report.settings.baseline,
        100.0 * WELL_REPRESENTED
    );
    coverage_table(w, &rows);
}

/// The coverage rows as a table.
pub fn coverage_table(w: &mut String, rows: &[&Coverage]) {
    let _ = writeln!(
        w,
        "| Workload | Samples | Outside | Unprofiled | Elsewhere | Represented | Training runs for it |"
    );
    let _ = writeln!(w, "|:---|---:|---:|---:|---:|---:|:---|");
    for c in rows {
        let runs = if c.represented_by.is_empty() {
            "none".to_string()
        } else {
            c.represented_by.join(", ")
        };
        let poor = if c.is_poor() { " (poor)" } else { "" };
        let _ = writeln!(
            w,
            "| {} | {} | {:.1}% | {:.1}% | {:.1}% | {:.1}%{poor} | {runs} |",
            c.workload,
            c.samples,
            100.0 * c.outside,
            100.0 * c.unprofiled,
            100.0 * c.elsewhere,
            100.0 * c.represented()
        );
    }
    let _ = writeln!(w);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(name: &str, b: u64, v: u64) -> MovedFunction {
        MovedFunction {
            function: name.into(),
            module: "logicars::kernels".into(),
            baseline_samples: b,
            variant_samples: v,
            baseline_share: b as f64 / 100.0,
            variant_share: v as f64 / 100.0,
            delta_ms: (v as f64 - b as f64) / 0.999,
            baseline_instructions: Some(1000),
            variant_instructions: None,
        }
    }

    #[test]
    fn a_moved_table_by_hand() {
        let m = Moved {
            variant: "pgo".into(),
            baseline_ms: 100.0,
            variant_ms: 110.0,
            functions: vec![function(
                "logicars::kernels::soft::forward_at::avx512",
                40,
                50,
            )],
            modules: vec![],
        };
        let mut w = String::new();
        moved_table(&mut w, "release", &m, Level::Function);
        assert!(
            w.starts_with("`pgo`: 110 ms of CPU per run against `release`'s 100 ms (+10.0%)."),
            "{w}"
        );
        assert!(
            w.contains("| `logicars::kernels::soft::forward_at::avx512` | 40 | 50 | 40.0% | 50.0% | +10.0 pp | +10.0 | 1000 | – |"),
            "{w}"
        );
    }

    #[test]
    fn long_names_are_cut_in_the_middle() {
        let long = "a".repeat(60) + &"b".repeat(60);
        let s = short(&long);
        assert_eq!(s.chars().count(), 91);
        assert!(s.starts_with("aaa") && s.ends_with("bbb") && s.contains('…'));
    }
}
