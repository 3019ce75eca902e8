//! The noise-free metric: instructions and simulated cache misses of a short run under
//! valgrind's cachegrind, the same on a busy machine as on a quiet one.
//!
//! valgrind runs the AVX2 kernels (it cannot run AVX-512 and hides it from the program),
//! and the run is given one thread: idle threads that spin would add a varying count.

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::measure::Contestant;
use crate::results::counts::{Counted, Counts};
use crate::results::samples::FunctionInstructions;
use crate::support::symbols::demangle;
use crate::support::text::{first_line, tail};
use crate::toolchain::tools::ToolFinder;
use crate::workloads::WorkloadSet;

/// Runs `binary args` under cachegrind in `scratch`.
pub fn count(valgrind: &Path, binary: &Path, args: &[String], scratch: &Path) -> Result<Counted> {
    std::fs::create_dir_all(scratch)?;
    let out_file = scratch.join("cachegrind.out");
    let mut command = vec![
        "--tool=cachegrind".to_string(),
        "--cache-sim=yes".into(),
        // Names as the symbol table has them, demangled here the way perf's are.
        "--demangle=no".into(),
        format!("--cachegrind-out-file={}", out_file.display()),
        binary.display().to_string(),
    ];
    command.extend(args.iter().cloned());
    let out = duct::cmd(valgrind, &command)
        .dir(scratch)
        .stdout_null()
        .stderr_capture()
        .unchecked()
        .run()
        .with_context(|| format!("running {}", valgrind.display()))?;
    if !out.status.success() {
        let log = String::from_utf8_lossy(&out.stderr);
        let unknown = log
            .lines()
            .find(|l| l.contains("unhandled instruction bytes"));
        bail!(
            "cachegrind of {} {} failed{}:\n{}",
            binary.display(),
            args.join(" "),
            unknown.map_or(String::new(), |l| format!(" (valgrind: {})", l.trim())),
            tail(&log, 15)
        );
    }
    let text = std::fs::read_to_string(&out_file)
        .with_context(|| format!("reading {}", out_file.display()))?;
    parse(&text).with_context(|| format!("reading {}", out_file.display()))
}

/// `counts[workload][variant]`: cachegrind on each workload's short form, if it has one.
pub fn count_all(
    contestants: &[Contestant],
    set: &WorkloadSet,
    scratch: &Path,
) -> Result<Vec<Vec<Option<Counted>>>> {
    let counted = set.workloads.iter().any(|w| w.count.is_some());
    let valgrind = if counted {
        Some(ToolFinder::from_env()?.find_any("valgrind")?.path)
    } else {
        None
    };
    set.workloads
        .iter()
        .map(|w| {
            contestants
                .iter()
                .map(|c| match (&valgrind, w.count_args_in(scratch)) {
                    (Some(valgrind), Some(args)) => {
                        eprintln!("[count] {} of {} under cachegrind", w.name, c.variant);
                        // valgrind cannot run every build (a native one may use
                        // instructions it does not know): that variant goes uncounted.
                        match count(valgrind, &c.binary, &args, scratch) {
                            Ok(counts) => Ok(Some(counts)),
                            Err(e) => {
                                eprintln!("[count] {} not counted: {}", c.variant, first_line(&e));
                                Ok(None)
                            }
                        }
                    }
                    _ => Ok(None),
                })
                .collect()
        })
        .collect()
}

/// A cachegrind output file: the totals (its `events:` names and `summary:` numbers) and
/// the instructions of each function (the `Ir` column of the cost lines under each `fn=`).
pub fn parse(text: &str) -> Result<Counted> {
    let field = |prefix: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .map(|rest| rest.split_whitespace().collect::<Vec<_>>())
            .with_context(|| format!("no '{prefix}' line"))
    };
    let (events, summary) = (field("events:")?, field("summary:")?);
    if events.len() != summary.len() {
        bail!("{} events but {} totals", events.len(), summary.len());
    }
    let value = |name: &str| -> Result<u64> {
        let i = events
            .iter()
            .position(|e| *e == name)
            .with_context(|| format!("no event {name} (was --cache-sim=yes given?)"))?;
        summary[i]
            .parse()
            .with_context(|| format!("total of {name}: {}", summary[i]))
    };
    let totals = Counts {
        instructions: value("Ir")?,
        d1_misses: value("D1mr")? + value("D1mw")?,
        ll_misses: value("ILmr")? + value("DLmr")? + value("DLmw")?,
    };
    let ir = events.iter().position(|e| *e == "Ir").unwrap_or(0);
    Ok(Counted {
        totals,
        by_function: instructions_by_function(text, ir)?,
    })
}

/// Sums column `ir` of the cost lines (`LINE COST...`) under each `fn=NAME`.
fn instructions_by_function(text: &str, ir: usize) -> Result<FunctionInstructions> {
    let mut by_function = FunctionInstructions::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("fn=") {
            current = Some(demangle(name.trim()));
            continue;
        }
        let starts_with_digit = line.starts_with(|c: char| c.is_ascii_digit());
        let (Some(function), true) = (&current, starts_with_digit) else {
            continue;
        };
        // Columns after the line number; a trailing run of zeros may be left out.
        let cost = line.split_whitespace().nth(1 + ir).unwrap_or("0");
        let n: u64 = cost
            .parse()
            .with_context(|| format!("cost line of {function}: {line}"))?;
        *by_function.entry(function.clone()).or_default() += n;
    }
    Ok(by_function)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_totals_by_event_name() {
        let text = "desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: ./a\n\
                    events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\nfl=x.c\n\
                    summary: 1000 10 5 400 40 4 300 30 3\n";
        let c = parse(text).unwrap().totals;
        assert_eq!(
            c,
            Counts {
                instructions: 1000,
                d1_misses: 70,
                ll_misses: 12
            }
        );
        let e = format!("{:#}", parse("events: Ir\nsummary: 5\n").unwrap_err());
        assert!(e.contains("no event D1mr"), "{e}");
        assert!(parse("events: Ir I1mr\nsummary: 5\n").is_err());
    }

    #[test]
    fn instructions_add_up_by_demangled_function() {
        let text = "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n\
                    fl=src/a.rs\n\
                    fn=_ZN8logicars7kernels4soft10forward_at4avx217h0123456789abcdefE\n\
                    10 100 1 0 20\n\
                    11 50\n\
                    fi=src/b.rs\n\
                    3 7 0 0 1 0 0 2 0 0\n\
                    fl=src/c.c\n\
                    fn=memcpy\n\
                    1 40\n\
                    fn=_ZN8logicars7kernels4soft10forward_at4avx217h0123456789abcdefE\n\
                    12 3\n\
                    summary: 200 1 0 21 0 0 2 0 0\n";
        let c = parse(text).unwrap();
        assert_eq!(
            c.by_function.into_iter().collect::<Vec<_>>(),
            [
                ("logicars::kernels::soft::forward_at::avx2".to_string(), 160),
                ("memcpy".to_string(), 40)
            ]
        );
        assert_eq!(c.totals.instructions, 200);
    }

    /// A real cachegrind run of a tiny program counts instructions, the same each time.
    #[test]
    #[ignore = "needs valgrind (cargo xtask setup); CI runs it with --ignored"]
    fn counts_a_real_run() {
        let valgrind = which::which("valgrind").expect("valgrind is installed");
        let dir = tempfile::tempdir().unwrap();
        let c = count(&valgrind, Path::new("/bin/true"), &[], dir.path()).unwrap();
        assert!(c.totals.instructions > 10_000, "{c:?}");
        let by_function: u64 = c.by_function.values().sum();
        assert_eq!(
            by_function, c.totals.instructions,
            "every instruction is in a function"
        );
        assert_eq!(
            count(&valgrind, Path::new("/bin/true"), &[], dir.path()).unwrap(),
            c,
            "the same count every time"
        );
    }
}
