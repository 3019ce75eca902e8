//! `cargo xtask`: the build pipeline of logicars (PGO, BOLT, benchmarks, flamegraphs).
//!
//! The layers, from the bottom: `paths`, `workloads` and the `toolchain` describe where
//! things are; `stages` make the binaries; `measure` runs them; `results` holds what was
//! measured and reported; `analysis` turns measurements into statistics; `export` turns
//! a report into bytes and `history` keeps its rows. `commands` are what a user runs;
//! this file parses the command line, runs the command and turns its outcome into an
//! exit code.

mod analysis;
mod commands;
mod export;
mod history;
mod machine;
mod measure;
mod paths;
mod results;
mod stages;
mod support;
mod toolchain;
mod workloads;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use commands::{
    assets, bolt, clean, compare, doctor, explain, flamegraph, instructions, pattern_sets, pgo,
    report, setup,
};
use results::verdict::Verdict;

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "Build pipeline of logicars: PGO and BOLT builds, honest benchmarks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check the tools (rustc's LLVM, llvm-profdata, BOLT, perf, hyperfine).
    Doctor,
    /// Install the missing tools (rustup component, Debian packages).
    Setup,
    /// Profile-guided build: target/optimized/logicars-pgo.
    Pgo(pgo::PgoArgs),
    /// BOLT-optimized build: target/optimized/logicars-bolt (or -pgo-bolt).
    Bolt(bolt::BoltArgs),
    /// Measure the variants side by side until their differences are known; write
    /// results/<name>.{md,json,svg}, hyperfine-style exports and a history row.
    Report(report::ReportArgs),
    /// Why a variant gains or loses on one workload: where the time moved against the
    /// baseline (perf samples and instruction counts by module and function), and the
    /// machine code of the functions that moved most, side by side.
    Explain(explain::ExplainArgs),
    /// Compare two reports of results/history.csv; exit code 3 on a slowdown.
    Compare(compare::CompareArgs),
    /// Count the instructions of each workload's short form (cachegrind) and compare
    /// them with results/instructions.json; exit code 3 when one grew past the threshold.
    Instructions(instructions::InstructionsArgs),
    /// Profile one workload with perf; write results/flamegraph.svg.
    Flamegraph(flamegraph::FlamegraphArgs),
    /// Remove what the pipeline made under target/.
    Clean,
    /// Draw assets/lizard-noto.png from the Noto Color Emoji font (fonts-noto-color-emoji).
    Assets(assets::AssetsArgs),
    /// Draw the 1-bit pattern targets of assets/patterns/ (tuning and untuned sets) from
    /// DejaVu Sans Bold (fonts-dejavu-core).
    PatternSets(pattern_sets::PatternSetsArgs),
}

/// The exit code of `compare` and `instructions` when something got slower past its
/// threshold (errors exit 1).
const SLOWER: u8 = 3;

fn main() -> ExitCode {
    match run(Cli::parse().command) {
        Ok(Verdict::Fine) => ExitCode::SUCCESS,
        Ok(Verdict::Slower) => ExitCode::from(SLOWER),
        Err(e) => {
            eprintln!("Error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs one command; only the checks can answer [`Verdict::Slower`].
fn run(command: Command) -> anyhow::Result<Verdict> {
    let fine = |done: anyhow::Result<()>| done.map(|()| Verdict::Fine);
    match command {
        Command::Doctor => fine(doctor::run()),
        Command::Setup => fine(setup::run()),
        Command::Pgo(args) => fine(pgo::run(args)),
        Command::Bolt(args) => fine(bolt::run(args)),
        Command::Report(args) => fine(report::run(args)),
        Command::Explain(args) => fine(explain::run(args)),
        Command::Compare(args) => compare::run(args),
        Command::Instructions(args) => instructions::run(args),
        Command::Flamegraph(args) => fine(flamegraph::run(args)),
        Command::Clean => fine(clean::run()),
        Command::Assets(args) => fine(assets::run(args)),
        Command::PatternSets(args) => fine(pattern_sets::run(args)),
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::{Cli, Command};

    #[test]
    fn the_usage_names_cargo_xtask() {
        let help = Cli::command().render_help().to_string();
        assert!(help.contains("Usage: cargo xtask <COMMAND>"), "{help}");
    }

    /// A flag whose parser makes a list from one value hands the list over whole.
    #[test]
    fn report_pins_to_the_cores_it_is_given() {
        let cli = Cli::try_parse_from(["cargo xtask", "report", "--cpus", "0,2-3"]);
        match cli.map(|cli| cli.command) {
            Ok(Command::Report(args)) => assert_eq!(args.cpus, Some(vec![0, 2, 3])),
            Ok(_) => panic!("parsed as another command"),
            Err(e) => panic!("{e}"),
        }
    }

    /// Every flag explains itself and names its default (clap prints `default_value`s;
    /// a flag without one says it in its help line).
    #[test]
    fn every_flag_has_help_naming_its_default() {
        let cli = Cli::command();
        cli.clone().debug_assert();
        for sub in cli.get_subcommands() {
            for arg in sub.get_arguments() {
                let id = format!("{} {}", sub.get_name(), arg.get_id());
                let help = arg.get_help().map(ToString::to_string);
                let help = help.unwrap_or_else(|| panic!("{id} has no help line"));
                let required = arg.is_required_set();
                if !required && arg.get_default_values().is_empty() {
                    assert!(help.contains("[default: "), "{id}: {help}");
                }
            }
        }
    }
}
