//! Finding the external tools, checking their LLVM version, and saying how to install them.
//!
//! rustc silently ignores a profile written by another LLVM major, so `llvm-profdata`
//! (and BOLT, for consistency) must match rustc's LLVM. Candidates are tried in order:
//! the suffixed name (`llvm-profdata-22`), rustup's `llvm-tools`, then the plain name.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};

use crate::toolchain::rustc;

/// How to install each tool on Debian with rustup.
pub fn install_hint(tool: &str, llvm_major: u32) -> String {
    match tool {
        "llvm-profdata" => {
            format!("rustup component add llvm-tools   (or: apt-get install -y llvm-{llvm_major})")
        }
        "llvm-bolt" | "merge-fdata" | "perf2bolt" => {
            format!("apt-get install -y bolt-{llvm_major} llvm-{llvm_major}")
        }
        "perf" => "apt-get install -y linux-perf".into(),
        "hyperfine" => "apt-get install -y hyperfine".into(),
        "valgrind" => "apt-get install -y valgrind".into(),
        _ => format!("install {tool}"),
    }
}

/// The LLVM major version that `--version` output names, e.g. `LLVM version 22.1.8`.
pub fn parse_llvm_major(version_output: &str) -> Option<u32> {
    let at = version_output.find("LLVM version")?;
    let rest = version_output[at + "LLVM version".len()..].trim_start_matches([':', ' ']);
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// A tool that was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub path: PathBuf,
    /// First line of `--version`.
    pub version: String,
    pub llvm_major: Option<u32>,
}

/// Looks tools up in a given PATH and rustup folder (so tests can use fake ones).
pub struct ToolFinder {
    path_var: OsString,
    rustup_bin: Option<PathBuf>,
    pub llvm_major: u32,
}

impl ToolFinder {
    /// The real environment: `$PATH`, rustup's `llvm-tools` folder, rustc's LLVM.
    pub fn from_env() -> Result<Self> {
        let (_, llvm_major) = rustc::version_and_llvm()?;
        Ok(ToolFinder {
            path_var: std::env::var_os("PATH").unwrap_or_default(),
            rustup_bin: rustc::llvm_tools_dir(),
            llvm_major,
        })
    }

    #[cfg(test)]
    pub fn new(path_var: OsString, rustup_bin: Option<PathBuf>, llvm_major: u32) -> Self {
        ToolFinder {
            path_var,
            rustup_bin,
            llvm_major,
        }
    }

    /// Every candidate for `base` that exists, in order of preference.
    fn candidates(&self, base: &str) -> Vec<PathBuf> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let in_path = |name: &str| which::which_in(name, Some(&self.path_var), &cwd).ok();
        let mut found = Vec::new();
        found.extend(in_path(&format!("{base}-{}", self.llvm_major)));
        if let Some(dir) = &self.rustup_bin {
            let p = dir.join(base);
            if p.is_file() {
                found.push(p);
            }
        }
        found.extend(in_path(base));
        found.dedup();
        found
    }

    /// A tool that need not be LLVM (perf, hyperfine).
    pub fn find_any(&self, base: &str) -> Result<Found> {
        let path = self.candidates(base).into_iter().next().ok_or_else(|| {
            anyhow!(
                "{base} not found; install it: {}",
                install_hint(base, self.llvm_major)
            )
        })?;
        Ok(describe(path))
    }

    /// An LLVM tool whose major version equals rustc's.
    pub fn find_llvm(&self, base: &str) -> Result<Found> {
        let candidates = self.candidates(base);
        if candidates.is_empty() {
            bail!(
                "{base} not found; install it: {}",
                install_hint(base, self.llvm_major)
            );
        }
        let mut wrong = Vec::new();
        for path in candidates {
            let found = describe(path);
            match found.llvm_major {
                Some(m) if m == self.llvm_major => return Ok(found),
                // BOLT's tools may not print an LLVM version; trust the suffixed name.
                None if found
                    .path
                    .to_string_lossy()
                    .ends_with(&format!("-{}", self.llvm_major)) =>
                {
                    return Ok(found)
                }
                _ => wrong.push(format!(
                    "{} (LLVM {})",
                    found.path.display(),
                    found.llvm_major.map_or("unknown".into(), |m| m.to_string())
                )),
            }
        }
        bail!(
            "{base}: rustc uses LLVM {} but only {} found; a profile from another LLVM is silently ignored. Install a matching one: {}",
            self.llvm_major,
            wrong.join(", "),
            install_hint(base, self.llvm_major)
        )
    }
}

fn describe(path: PathBuf) -> Found {
    let out = version_output(&path).unwrap_or_default();
    let version = out
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("unknown")
        .trim()
        .to_string();
    Found {
        llvm_major: parse_llvm_major(&out),
        version,
        path,
    }
}

/// `TOOL --version`, retried while the kernel reports the file busy (ETXTBSY): a
/// script that was just written can still be open for writing in a process another
/// thread forked, for the moment before that process runs its own program.
fn version_output(path: &Path) -> std::io::Result<String> {
    let mut tries = 0;
    loop {
        let run = duct::cmd(path, ["--version"])
            .stderr_to_stdout()
            .stdout_capture()
            .unchecked()
            .run();
        match run {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            run => return run.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn stub(dir: &Path, name: &str, version_text: &str) {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\necho '{version_text}'\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn parses_llvm_versions() {
        assert_eq!(parse_llvm_major("LLVM version: 22.1.2"), Some(22));
        assert_eq!(
            parse_llvm_major("Debian LLVM version 14.0.6\n  Optimized build."),
            Some(14)
        );
        assert_eq!(parse_llvm_major("BOLT revision <unknown>"), None);
    }

    #[test]
    fn prefers_the_suffixed_tool_of_rustcs_llvm() {
        let dir = tempfile::tempdir().unwrap();
        stub(dir.path(), "llvm-profdata", "LLVM version 14.0.6");
        stub(dir.path(), "llvm-profdata-22", "LLVM version 22.1.8");
        let finder = ToolFinder::new(dir.path().into(), None, 22);
        let found = finder.find_llvm("llvm-profdata").unwrap();
        assert!(found.path.ends_with("llvm-profdata-22"));
        assert_eq!(found.llvm_major, Some(22));
    }

    #[test]
    fn refuses_a_mismatched_llvm_and_says_how_to_fix_it() {
        let dir = tempfile::tempdir().unwrap();
        stub(dir.path(), "llvm-profdata", "LLVM version 14.0.6");
        let finder = ToolFinder::new(dir.path().into(), None, 22);
        let err = finder.find_llvm("llvm-profdata").unwrap_err().to_string();
        assert!(err.contains("LLVM 14"), "{err}");
        assert!(err.contains("rustup component add llvm-tools"), "{err}");
    }

    #[test]
    fn finds_rustups_llvm_tools() {
        let path_dir = tempfile::tempdir().unwrap();
        let rustup = tempfile::tempdir().unwrap();
        stub(path_dir.path(), "llvm-profdata", "LLVM version 14.0.6");
        stub(
            rustup.path(),
            "llvm-profdata",
            "LLVM version 22.1.2-rust-1.95.0-stable",
        );
        let finder = ToolFinder::new(path_dir.path().into(), Some(rustup.path().into()), 22);
        assert!(finder
            .find_llvm("llvm-profdata")
            .unwrap()
            .path
            .starts_with(rustup.path()));
    }

    #[test]
    fn missing_tools_come_with_an_install_command() {
        let dir = tempfile::tempdir().unwrap();
        let finder = ToolFinder::new(dir.path().into(), None, 22);
        let err = finder.find_llvm("llvm-bolt").unwrap_err().to_string();
        assert!(err.contains("apt-get install -y bolt-22 llvm-22"), "{err}");
        let err = finder.find_any("hyperfine").unwrap_err().to_string();
        assert!(err.contains("apt-get install -y hyperfine"), "{err}");
    }

    #[test]
    fn bolt_without_a_version_line_is_trusted_by_its_suffix() {
        let dir = tempfile::tempdir().unwrap();
        stub(dir.path(), "merge-fdata-22", "merge-fdata");
        let finder = ToolFinder::new(dir.path().into(), None, 22);
        assert!(finder.find_llvm("merge-fdata").is_ok());
    }
}
