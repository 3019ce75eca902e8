//! `logicars completions <shell>`: a completion script for the shell, on standard output.

use clap::Args;
use clap_complete::Shell;

#[derive(Debug, Args)]
#[command(
    after_help = "Example (bash): logicars completions bash > ~/.local/share/bash-completion/completions/logicars"
)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: &CompletionsArgs) {
    let mut command = crate::commands::command();
    clap_complete::generate(args.shell, &mut command, "logicars", &mut std::io::stdout());
}
