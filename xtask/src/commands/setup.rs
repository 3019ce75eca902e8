//! `cargo xtask setup`: installs what `doctor` asks for (rustup component, Debian packages).

use anyhow::{bail, Context, Result};

use crate::toolchain::rustc;

pub fn run() -> Result<()> {
    let (_, llvm) = rustc::version_and_llvm()?;
    eprintln!("[setup] rustup component add llvm-tools");
    duct::cmd!("rustup", "component", "add", "llvm-tools")
        .run()
        .context("rustup component add llvm-tools")?;
    let packages = [
        format!("bolt-{llvm}"),
        format!("llvm-{llvm}"),
        "hyperfine".into(),
        "linux-perf".into(),
        "valgrind".into(),
    ];
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        bail!(
            "installing Debian packages needs root: sudo apt-get install -y {}",
            packages.join(" ")
        );
    }
    eprintln!("[setup] apt-get install -y {}", packages.join(" "));
    duct::cmd!("apt-get", "update", "-qq")
        .run()
        .context("apt-get update")?;
    let mut args = vec!["install".to_string(), "-y".into(), "-qq".into()];
    args.extend(packages);
    duct::cmd("apt-get", &args)
        .run()
        .context("apt-get install")?;
    crate::commands::doctor::run()
}
