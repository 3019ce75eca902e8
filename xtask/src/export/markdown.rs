//! The report as Markdown: hyperfine's table per workload, then a summary and the machine.

use std::fmt::Write;

use crate::report::summary::{Report, VariantStats, WorkloadReport};

pub fn render(report: &Report) -> String {
    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(w, "# Benchmark report: {}\n", report.name);
    let _ = writeln!(
        w,
        "Variants run side by side on `{}`: {} timed runs each after {} warm-up run(s), \
         interleaved (A B C A B C ...) so drift hits all alike. Baseline: `{}`. *Relative* is \
         mean time over the baseline's (below 1.00 is faster, ± propagated from both standard \
         deviations); *speedup* is the baseline's median over the variant's, with a bootstrap \
         95% interval. All variants produced the same training results.\n",
        report.workload_file, report.runs, report.warmup, report.baseline
    );
    summary(w, report);
    for workload in &report.workloads {
        workload_tables(w, workload);
    }
    machine(w, report);
    md
}

fn summary(w: &mut String, report: &Report) {
    let _ = writeln!(
        w,
        "## Summary: speedup over `{}` (median times)\n",
        report.baseline
    );
    let _ = write!(w, "| Variant | Geometric mean |");
    for wl in &report.workloads {
        let _ = write!(w, " {} |", wl.name);
    }
    let _ = write!(w, "\n|:---|---:|");
    for _ in &report.workloads {
        let _ = write!(w, "---:|");
    }
    let _ = writeln!(w);
    for row in &report.summary {
        let _ = write!(w, "| `{}` | {:.3} |", row.variant, row.geomean_speedup);
        for s in &row.speedups {
            let _ = write!(w, " {s:.3} |");
        }
        let _ = writeln!(w);
    }
    let _ = writeln!(w);
}

fn workload_tables(w: &mut String, workload: &WorkloadReport) {
    let _ = writeln!(w, "## {}\n\n`{}`\n", workload.name, workload.command);
    let _ = writeln!(w, "| Command | Mean [s] | Min [s] | Max [s] | Relative |");
    let _ = writeln!(w, "|:---|---:|---:|---:|---:|");
    for r in &workload.results {
        let _ = writeln!(
            w,
            "| `{}` | {} | {:.3} | {:.3} | {} |",
            r.command,
            plus_minus(r.mean, r.stddev, 3),
            r.min,
            r.max,
            plus_minus(r.relative, r.relative_stddev, 2)
        );
    }
    let _ = writeln!(w);
    let _ = writeln!(w, "| Variant | Median [s] | User [s] | System [s] | Peak RSS [MB] | Speedup (95% CI) | Outliers |");
    let _ = writeln!(w, "|:---|---:|---:|---:|---:|---:|---:|");
    for r in &workload.results {
        details(w, r);
    }
    let _ = writeln!(w);
}

fn details(w: &mut String, r: &VariantStats) {
    let _ = writeln!(
        w,
        "| `{}` | {:.3} | {:.3} | {:.3} | {:.1} | {:.3} ({:.3}–{:.3}) | {} |",
        r.variant,
        r.median,
        r.user,
        r.system,
        r.max_rss_kb as f64 / 1024.0,
        r.speedup,
        r.speedup_ci95.0,
        r.speedup_ci95.1,
        r.outliers
    );
}

fn machine(w: &mut String, report: &Report) {
    let m = &report.machine;
    let _ = writeln!(w, "## Machine\n");
    let _ = writeln!(w, "| | |\n|:---|:---|");
    let _ = writeln!(w, "| CPU | {} |", m.cpu);
    let _ = writeln!(w, "| Cores | {} |", m.cores);
    let _ = writeln!(w, "| SIMD available to the kernels | {} |", m.simd);
    let _ = writeln!(w, "| rustc | {} |", m.rustc);
    let _ = writeln!(w, "| LLVM | {} |", m.llvm_major);
    let _ = writeln!(w, "| Commit | {} |", m.commit);
    let _ = writeln!(w, "| Date | {} |", m.date);
}

fn plus_minus(value: f64, sd: Option<f64>, decimals: usize) -> String {
    match sd {
        Some(sd) => format!("{value:.decimals$} ± {sd:.decimals$}"),
        None => format!("{value:.decimals$}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture::{check_snapshot, fixed_report};

    #[test]
    fn matches_the_snapshot() {
        check_snapshot("report.md", &render(&fixed_report()));
    }
}
