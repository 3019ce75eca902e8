//! `cargo xtask doctor`: which tools are here, at which version, and what is missing.

use anyhow::{bail, Result};

use crate::toolchain::rustc;
use crate::toolchain::tools::{install_hint, ToolFinder};

/// Tools the pipeline needs, and whether they must match rustc's LLVM.
const TOOLS: [(&str, bool, bool); 7] = [
    // (name, is an LLVM tool, required)
    ("llvm-profdata", true, true),
    ("llvm-bolt", true, true),
    ("merge-fdata", true, true),
    ("perf2bolt", true, false),
    ("perf", false, false),
    ("hyperfine", false, false),
    ("valgrind", false, false),
];

pub fn run() -> Result<()> {
    let (rustc, llvm) = rustc::version_and_llvm()?;
    let finder = ToolFinder::from_env()?;
    println!("{:<14} {:<60} {:<36} ok", "tool", "path", "version");
    println!(
        "{:<14} {:<60} {:<36} yes",
        "rustc",
        "(PATH)",
        format!("{rustc}, LLVM {llvm}")
    );
    let mut gaps = Vec::new();
    for (name, llvm_tool, required) in TOOLS {
        let found = if llvm_tool {
            finder.find_llvm(name)
        } else {
            finder.find_any(name)
        };
        match found {
            Ok(f) => println!(
                "{:<14} {:<60} {:<36} yes",
                name,
                f.path.display(),
                truncate(&f.version, 36)
            ),
            Err(e) => {
                println!("{:<14} {:<60} {:<36} NO", name, "-", "-");
                gaps.push((name, required, e.to_string()));
            }
        }
    }
    if gaps.is_empty() {
        println!("\nEverything the pipeline uses is here.");
        return Ok(());
    }
    println!();
    for (name, required, why) in &gaps {
        println!(
            "{name}{}: {why}",
            if *required { "" } else { " (optional)" }
        );
        println!("    install: {}", install_hint(name, llvm));
    }
    println!("\n`cargo xtask setup` runs these installs.");
    if gaps.iter().any(|g| g.1) {
        bail!("required tools are missing");
    }
    Ok(())
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}
