//! The `logicars` command: parse the options, run the command, report.

mod cli;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Train(args) => cli::train::run(args),
        Command::Eval(args) => cli::eval::run(args),
        Command::Render(args) => cli::render::run(args),
        Command::Analyze(args) => cli::analyze::run(args),
        Command::Export(args) => cli::export::run(args),
        Command::Check(args) => cli::check::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
