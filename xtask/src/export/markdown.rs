//! The report as Markdown: hyperfine's table per workload, then a summary and the machine.

use std::fmt::Write;

use crate::export::moved;
use crate::results::counts::Counts;
use crate::results::report::{Report, VariantStats, WorkloadReport};
use crate::support::label::label;

pub fn render(report: &Report) -> String {
    let mut md = String::new();
    let w = &mut md;
    let st = &report.settings.plan;
    let cpus = if st.cpus.is_empty() {
        "not pinned".to_string()
    } else {
        format!("pinned to cores {:?}", st.cpus)
    };
    let _ = writeln!(w, "# Benchmark report: {}\n", report.name);
    let _ = writeln!(
        w,
        "Variants run side by side on `{}`, {cpus}: {} warm-up round(s), then rounds that run \
         every variant once (the order rotating each round) until every speedup's 95% interval \
         is within ±{:.1}% ({}..{} rounds, {:.0} s budget in all). *Speedup* is the \
         baseline's time over the variant's, paired by round (geometric mean, Student-t 95% \
         interval), on the program's own compute time where it reports one; *detectable* is \
         the smallest speedup those rounds find 4 times in 5. Wall-time tables are \
         hyperfine's; instructions and misses are cachegrind's on each workload's short form (– \
         where there is none, or valgrind cannot run the build). Baseline: `{}`. All variants \
         produced the same training results.\n",
        report.settings.workload_file,
        st.warmup,
        100.0 * st.precision,
        st.min_rounds,
        st.max_rounds,
        st.budget_s,
        report.settings.baseline
    );
    let earlier = &report.settings.earlier_stretches;
    if !earlier.is_empty() {
        let _ = writeln!(
            w,
            "The rounds were measured in {} stretches on the same binaries and kind of machine \
             (`--resume`), begun {} and {}; the budget is the last stretch's.\n",
            earlier.len() + 1,
            earlier.join(", "),
            report.machine.date
        );
    }
    summary(w, report);
    precision(w, report);
    moved::coverage_section(w, report);
    for workload in &report.workloads {
        workload_tables(w, workload);
        moved::workload_section(w, &report.settings.baseline, workload);
    }
    machine(w, report);
    md
}

fn summary(w: &mut String, report: &Report) {
    let _ = writeln!(
        w,
        "## Summary: speedup over `{}`\n",
        report.settings.baseline
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
    let precision = report.settings.plan.precision;
    let mut wide = false;
    for (i, row) in report.summary.iter().enumerate() {
        let _ = write!(w, "| `{}` | {:.3} |", row.variant, row.geomean_speedup);
        for wl in &report.workloads {
            let r = &wl.results[i];
            let mark = if r.speedup_half_width() > precision + 1e-12 {
                wide = true;
                " †"
            } else {
                ""
            };
            let _ = write!(w, " {}{mark} |", speedup(r));
        }
        let _ = writeln!(w);
    }
    let _ = writeln!(w);
    if wide {
        let _ = writeln!(
            w,
            "† wider than ±{:.1}%: the budget ended before this interval got there.\n",
            100.0 * precision
        );
    }
}

fn precision(w: &mut String, report: &Report) {
    let _ = writeln!(w, "## Precision\n");
    let _ = writeln!(w, "| Workload | Compared time | Rounds | Stopped | Widest interval | Smallest detectable speedup |");
    let _ = writeln!(w, "|:---|:---|---:|:---|---:|---:|");
    for wl in &report.workloads {
        let others = &wl.results[1..];
        let widest = others
            .iter()
            .map(VariantStats::speedup_half_width)
            .fold(0.0, f64::max);
        let detectable = others
            .iter()
            .filter_map(|r| r.detectable)
            .fold(0.0, f64::max);
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | ±{:.2}% | {:.2}% |",
            wl.name,
            label(&wl.metric),
            wl.rounds,
            label(&wl.stop),
            100.0 * widest,
            100.0 * detectable
        );
    }
    let _ = writeln!(w);
}

fn speedup(r: &VariantStats) -> String {
    format!(
        "{:.3} ({:.3}–{:.3})",
        r.speedup, r.speedup_ci95.0, r.speedup_ci95.1
    )
}

fn workload_tables(w: &mut String, workload: &WorkloadReport) {
    let _ = writeln!(w, "## {}\n\n`{}`\n", workload.name, workload.command);
    let _ = writeln!(w, "| Command | Mean [s] | Min [s] | Max [s] |");
    let _ = writeln!(w, "|:---|---:|---:|---:|");
    for r in &workload.results {
        let _ = writeln!(
            w,
            "| `{}` | {} | {:.3} | {:.3} |",
            r.variant,
            plus_minus(r.mean, r.stddev, 3),
            r.min,
            r.max,
        );
    }
    let _ = writeln!(w);
    let _ = writeln!(w, "| Variant | Median {} [s] | Median wall [s] | User [s] | System [s] | Peak RSS [MB] | Speedup (95% CI) | Detectable | Instructions | D1 misses | LL misses |", label(&workload.metric));
    let _ = writeln!(
        w,
        "|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in &workload.results {
        details(w, r);
    }
    let _ = writeln!(w);
}

fn details(w: &mut String, r: &VariantStats) {
    let count = |f: fn(&Counts) -> u64| {
        r.counts
            .as_ref()
            .map_or("–".to_string(), |c| f(c).to_string())
    };
    let _ = writeln!(
        w,
        "| `{}` | {:.4} | {:.3} | {:.3} | {:.3} | {:.1} | {} | {} | {} | {} | {} |",
        r.variant,
        r.metric_median,
        r.median,
        r.user,
        r.system,
        r.max_rss_kb as f64 / 1024.0,
        speedup(r),
        r.detectable
            .map_or("–".to_string(), |d| format!("{:.2}%", 100.0 * d)),
        count(|c| c.instructions),
        count(|c| c.d1_misses),
        count(|c| c.ll_misses),
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
