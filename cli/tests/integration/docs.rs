//! docs/usage.md cannot drift from the command: every long flag that `logicars --help`
//! and each subcommand's `--help` print appears on that page, a subcommand's flags in its
//! own section (`## <subcommand>`).

use std::path::Path;
use std::process::Command;

/// `logicars <args>`'s standard output; the command must succeed.
fn logicars(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_logicars"))
        .args(args)
        .output()
        .expect("the logicars binary runs");
    assert!(out.status.success(), "logicars {args:?} failed");
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// The subcommands `logicars --help` lists (its `Commands:` block), without `help`.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| line.trim() != "Commands:")
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// The long flags a `--help` text defines: the first `--name` on each option line
/// (a line that starts with `-`, such as `  -h, --help` or `      --seed <SEED>`).
fn long_flags(help: &str) -> Vec<String> {
    help.lines()
        .filter(|line| line.trim_start().starts_with('-'))
        .filter_map(|line| {
            line.split(|c: char| c.is_whitespace() || c == ',')
                .find(|word| word.len() > 2 && word.starts_with("--"))
        })
        .map(str::to_string)
        .collect()
}

fn usage_page() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/usage.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of `## <name>` up to the next `## ` heading; `None` when there is no such
/// section.
fn section<'a>(page: &'a str, name: &str) -> Option<&'a str> {
    let heading = format!("\n## {name}\n");
    let start = page.find(&heading)? + heading.len();
    let body = &page[start..];
    Some(&body[..body.find("\n## ").unwrap_or(body.len())])
}

/// The flags of `flags` that `text` does not name in backticks (`--flag` or `--flag ...`).
fn missing<'f>(text: &str, flags: &'f [String]) -> Vec<&'f str> {
    flags
        .iter()
        .filter(|flag| {
            !(text.contains(&format!("`{flag}`")) || text.contains(&format!("`{flag} ")))
        })
        .map(String::as_str)
        .collect()
}

#[test]
fn usage_names_every_flag_of_every_command_in_its_section() {
    let page = usage_page();
    let top = logicars(&["--help"]);
    let mut gaps = Vec::new();
    let intro = &page[..page.find("\n## ").unwrap_or(page.len())];
    for flag in missing(intro, &long_flags(&top)) {
        gaps.push(format!("logicars {flag} (in the page's introduction)"));
    }
    let commands = subcommands(&top);
    assert!(
        commands.len() >= 9,
        "too few subcommands found: {commands:?}"
    );
    for command in commands {
        let Some(text) = section(&page, &command) else {
            gaps.push(format!("no `## {command}` section"));
            continue;
        };
        let flags = long_flags(&logicars(&[&command, "--help"]));
        for flag in missing(text, &flags) {
            gaps.push(format!("logicars {command} {flag}"));
        }
    }
    assert!(
        gaps.is_empty(),
        "docs/usage.md does not document:\n{}",
        gaps.join("\n")
    );
}

#[test]
fn flags_are_read_from_option_lines_only() {
    let help = "Options:\n      --seed <SEED>\n          Seed [default: 0]; see --threads\n  -h, --help\n          - checkerboard: a task\n";
    assert_eq!(long_flags(help), ["--seed", "--help"]);
}
