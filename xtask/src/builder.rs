//! The one build helper every stage calls; stages differ only in profile and flags.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::paths;
use crate::rustc::host_triple;

/// One build of the `logicars` binary.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildSpec {
    /// Names the target folder, so every variant keeps its own artefacts.
    pub variant: String,
    /// A Cargo profile of the root `Cargo.toml`.
    pub profile: String,
    pub rustflags: Vec<String>,
    /// Extra environment, e.g. `CARGO_PROFILE_RELEASE_LTO=false`.
    pub env: Vec<(String, String)>,
}

impl BuildSpec {
    pub fn new(variant: &str, profile: &str) -> Self {
        BuildSpec {
            variant: variant.into(),
            profile: profile.into(),
            rustflags: Vec::new(),
            env: Vec::new(),
        }
    }

    pub fn flag(mut self, flag: impl Into<String>) -> Self {
        self.rustflags.push(flag.into());
        self
    }

    pub fn flags(mut self, flags: impl IntoIterator<Item = String>) -> Self {
        self.rustflags.extend(flags);
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }
}

/// What a build produced: the binary and rustc's diagnostics (for counting warnings).
pub struct Built {
    pub binary: PathBuf,
    pub stderr: String,
}

/// Builds with `--target <host>`, so RUSTFLAGS (instrumentation above all) do not reach
/// build scripts.
pub fn build(spec: &BuildSpec) -> Result<Built> {
    let host = host_triple()?;
    let target_dir = paths::build_dir(&spec.variant);
    let rustflags = spec.rustflags.join(" ");
    eprintln!(
        "[build] {} (profile {}, RUSTFLAGS=\"{}\")",
        spec.variant, spec.profile, rustflags
    );
    let mut cmd = duct::cmd!(
        "cargo",
        "build",
        "--package",
        "logicars-cli",
        "--bin",
        "logicars",
        "--profile",
        &spec.profile,
        "--target",
        &host,
        "--target-dir",
        &target_dir
    )
    .dir(paths::root())
    .env("RUSTFLAGS", &rustflags)
    .env_remove("CARGO_ENCODED_RUSTFLAGS")
    .stderr_capture()
    .stdout_null()
    .unchecked();
    for (k, v) in &spec.env {
        cmd = cmd.env(k, v);
    }
    let out = cmd.run().context("running cargo build")?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        bail!(
            "cargo build of {} failed:\n{}",
            spec.variant,
            tail(&stderr, 30)
        );
    }
    let binary = target_dir.join(&host).join(&spec.profile).join("logicars");
    if !binary.is_file() {
        bail!("cargo build succeeded but {} is missing", binary.display());
    }
    Ok(Built { binary, stderr })
}

/// Copies `from` to the stable path `to` via a temporary file and a rename, after
/// removing what was there: a failed stage never leaves a stale binary behind.
pub fn install(from: &Path, to: &Path) -> Result<()> {
    let dir = to.parent().context("install path has a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::fs::copy(from, tmp.path()).with_context(|| format!("copying {}", from.display()))?;
    tmp.persist(to)
        .with_context(|| format!("installing {}", to.display()))?;
    eprintln!("[install] {}", to.display());
    Ok(())
}

/// Removes a stable binary before a stage rebuilds it.
pub fn remove_stale(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("removing stale {}", path.display())),
    }
}

/// The last `n` lines of a text.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
