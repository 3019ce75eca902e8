//! `cargo xtask explain VARIANT WORKLOAD`: why one variant is faster or slower than the
//! baseline on one workload. Samples both builds under perf in rotated rounds, counts
//! their instructions by function, and prints where the time moved (by module and by
//! function) and, for the functions that moved most, their machine code side by side.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use clap::Args;

use crate::analysis::attribution::{attribute, Instructions};
use crate::export::moved::{moved_table, Level};
use crate::machine::Machine;
use crate::measure::cachegrind::count;
use crate::measure::disassembly::{code_of, symbols, Code};
use crate::measure::runner::{run_inputs_of, ProcessRunner};
use crate::measure::sampling::{sample_all, unpinned};
use crate::measure::Contestant;
use crate::paths;
use crate::results::counts::Counted;
use crate::results::samples::FunctionSamples;
use crate::stages::dry_run;
use crate::stages::variants::Variant;
use crate::toolchain::tools::ToolFinder;
use crate::workloads::{Workload, WorkloadSet};

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The variant to explain.
    pub variant: Variant,
    /// The workload of the set to explain it on.
    pub workload: String,
    /// The variant it is compared with.
    #[arg(long, default_value = "release")]
    pub baseline: Variant,
    /// Rounds of both builds under perf (rotating their order).
    #[arg(long, default_value_t = 5)]
    pub rounds: usize,
    /// Functions (and modules) in the tables.
    #[arg(long, default_value_t = 12)]
    pub top: usize,
    /// Functions whose code is shown side by side.
    #[arg(long, default_value_t = 3)]
    pub code: usize,
    /// Instructions of each listing shown.
    #[arg(long, default_value_t = 40)]
    pub listing: usize,
    /// The benchmark set the workload is taken from.
    #[arg(long, default_value = "profiles/benchmark.toml")]
    pub workloads: PathBuf,
    /// Workload file used to train PGO/BOLT profiles when a variant must be built.
    #[arg(long, default_value = "profiles/training.toml")]
    pub training: PathBuf,
}

pub fn run(args: ExplainArgs) -> Result<()> {
    if args.rounds == 0 {
        bail!("--rounds must be at least 1");
    }
    if args.variant == args.baseline {
        bail!(
            "the variant and the baseline are both {}",
            args.variant.name()
        );
    }
    let full = WorkloadSet::load(&paths::root().join(&args.workloads))?;
    let set = full.clone().select(std::slice::from_ref(&args.workload))?;
    let workload = set.workloads[0].clone();
    dry_run::check(&set)?;
    let contestants = contestants(&args)?;
    let scratch = paths::scratch("explain");
    run_inputs_of(
        &mut ProcessRunner,
        &full,
        &workload,
        &contestants[0].binary,
        &scratch,
    )?;
    let tools = ToolFinder::from_env()?;
    let samples = sample_pair(&tools, &contestants, &set, args.rounds, &scratch)?;
    let counted = count_both(&tools, &contestants, &workload, &scratch);
    let ir = |i: usize| counted[i].as_ref().map(|c| &c.by_function);
    let instructions = Instructions {
        baseline: ir(0),
        variant: ir(1),
    };
    let moved = attribute(
        args.variant.name(),
        &samples[0],
        &samples[1],
        instructions,
        args.top,
    );
    let baseline = args.baseline.name();
    let counted_all = counted.iter().all(Option::is_some);
    let mut out = header(&args, &workload, counted_all)?;
    out += "## By module\n\n";
    moved_table(&mut out, baseline, &moved, Level::Module);
    out += "## By function\n\n";
    moved_table(&mut out, baseline, &moved, Level::Function);
    out += &code_section(&tools, &contestants, &moved.functions, &args)?;
    print!("{out}");
    Ok(())
}

/// The baseline and the variant with their binaries, built or reused.
fn contestants(args: &ExplainArgs) -> Result<Vec<Contestant>> {
    let training = paths::root().join(&args.training);
    [args.baseline, args.variant]
        .iter()
        .map(|v| {
            Ok(Contestant {
                variant: v.name().into(),
                binary: v.binary(&training)?,
            })
        })
        .collect()
}

/// `rounds` rotated rounds of both builds under perf: their samples, baseline first.
fn sample_pair(
    tools: &ToolFinder,
    contestants: &[Contestant],
    set: &WorkloadSet,
    rounds: usize,
    scratch: &Path,
) -> Result<Vec<FunctionSamples>> {
    let perf = tools.find_any("perf")?.path;
    let plan = unpinned();
    let mut all = sample_all(
        &mut ProcessRunner,
        &perf,
        contestants,
        set,
        &plan,
        rounds,
        scratch,
    )?;
    Ok(all.remove(0))
}

/// What was compared, how, and on which machine.
fn header(args: &ExplainArgs, workload: &Workload, counted: bool) -> Result<String> {
    let machine = Machine::detect()?;
    Ok(format!(
        "# Why `{}` differs from `{}` on {}\n\n`{}`\n\n{} rounds of both builds under perf ({} cores, kernels at {}); instructions from cachegrind on the workload's short form{}.\n\n",
        args.variant.name(),
        args.baseline.name(),
        workload.name,
        workload.command_line(),
        args.rounds,
        machine.cores,
        machine.simd,
        if counted { "" } else { " (not counted: no short form, or valgrind missing)" }
    ))
}

/// cachegrind on the short form with each build, when there is one and valgrind runs.
fn count_both(
    tools: &ToolFinder,
    contestants: &[Contestant],
    w: &Workload,
    scratch: &Path,
) -> Vec<Option<Counted>> {
    let valgrind = tools.find_any("valgrind").ok();
    contestants
        .iter()
        .map(|c| {
            let (valgrind, args) = (valgrind.as_ref()?, w.count_args_in(scratch)?);
            eprintln!("[count] {} of {} under cachegrind", w.name, c.variant);
            count(&valgrind.path, &c.binary, &args, scratch)
                .map_err(|e| eprintln!("[count] {} not counted: {e:#}", c.variant))
                .ok()
        })
        .collect()
}

/// The machine code of the program's functions that moved most, side by side.
fn code_section(
    tools: &ToolFinder,
    contestants: &[Contestant],
    functions: &[crate::results::samples::MovedFunction],
    args: &ExplainArgs,
) -> Result<String> {
    let nm = tools.find_llvm("llvm-nm")?.path;
    let objdump = tools.find_llvm("llvm-objdump")?.path;
    let tables = contestants
        .iter()
        .map(|c| symbols(&nm, &c.binary))
        .collect::<Result<Vec<_>>>()?;
    let mut out = String::from("## Code of the functions that moved most\n\n");
    let shown = functions
        .iter()
        .filter(|f| !f.function.starts_with('['))
        .take(args.code);
    for f in shown {
        let code: Vec<Option<Code>> = contestants
            .iter()
            .zip(&tables)
            .map(|(c, table)| code_of(&objdump, &c.binary, table, &f.function))
            .collect::<Result<_>>()?;
        out += &format!("### `{}`\n\n", f.function);
        out += &side_by_side(
            &contestants[0].variant,
            &contestants[1].variant,
            &code,
            args.listing,
        );
    }
    Ok(out)
}

/// Two builds' code of one function: their statistics, then their listings in two columns,
/// `*` marking the lines that differ.
fn side_by_side(left: &str, right: &str, code: &[Option<Code>], lines: usize) -> String {
    let describe = |c: &Option<Code>| match c {
        None => "no symbol (inlined into its callers, or not in this build)".to_string(),
        Some(c) => format!(
            "{} bytes, {} instructions ({} on zmm, {} on ymm), {} calls, {} jumps, {} loops{}",
            c.bytes,
            c.stats.instructions,
            c.stats.zmm,
            c.stats.ymm,
            c.stats.calls,
            c.stats.jumps,
            c.stats.loops,
            if c.instantiations > 1 {
                format!("; the largest of {} instantiations", c.instantiations)
            } else {
                String::new()
            }
        ),
    };
    let mut out = format!(
        "- `{left}`: {}\n- `{right}`: {}\n\n",
        describe(&code[0]),
        describe(&code[1])
    );
    fn listing(c: &Option<Code>) -> &[String] {
        c.as_ref().map_or(&[], |c| &c.listing)
    }
    let (a, b) = (listing(&code[0]), listing(&code[1]));
    if a.is_empty() && b.is_empty() {
        return out;
    }
    const WIDTH: usize = 56;
    out += &format!("```\n{left:<WIDTH$}   {right}\n");
    for i in 0..lines.min(a.len().max(b.len())) {
        let l = a.get(i).map_or("", String::as_str);
        let r = b.get(i).map_or("", String::as_str);
        let mark = if l == r { ' ' } else { '*' };
        let l: String = l.chars().take(WIDTH).collect();
        out += &format!("{l:<WIDTH$} {mark} {r}\n");
    }
    out += "```\n\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::disassembly::CodeStats;

    #[test]
    fn listings_stand_side_by_side_with_differences_marked() {
        let code = |listing: &[&str]| {
            Some(Code {
                symbol: "f".into(),
                instantiations: 1,
                bytes: 12,
                listing: listing.iter().map(|s| s.to_string()).collect(),
                stats: CodeStats {
                    instructions: listing.len(),
                    ..Default::default()
                },
            })
        };
        let text = side_by_side(
            "release",
            "pgo",
            &[
                code(&["pushq %rbx", "retq"]),
                code(&["pushq %rbx", "jmp 0x10", "retq"]),
            ],
            10,
        );
        assert!(
            text.contains("- `release`: 12 bytes, 2 instructions"),
            "{text}"
        );
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("pushq") || l.starts_with("retq") || l.starts_with(' '))
            .collect();
        assert_eq!(lines[0], format!("{:<56}   pushq %rbx", "pushq %rbx"));
        assert_eq!(lines[1], format!("{:<56} * jmp 0x10", "retq"));
        assert_eq!(lines[2], format!("{:<56} * retq", ""));
        let missing = side_by_side("release", "pgo", &[None, code(&["retq"])], 10);
        assert!(missing.contains("no symbol (inlined"), "{missing}");
    }
}
