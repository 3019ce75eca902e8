//! The one build helper every stage calls; stages differ only in profile and flags.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::paths;
use crate::support::text::tail;
use crate::toolchain::rustc::host_triple;

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

/// What a build produced: the binary and rustc's diagnostics, as Cargo reported them.
pub struct Built {
    pub binary: PathBuf,
    /// The text of every compiler message (warnings included).
    pub messages: Vec<String>,
}

/// Builds with `--target <host>`, so RUSTFLAGS (instrumentation above all) do not reach
/// build scripts. Cargo's JSON messages name the binary and carry the diagnostics.
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
        &target_dir,
        "--message-format=json"
    )
    .dir(paths::root())
    .env("RUSTFLAGS", &rustflags)
    .env_remove("CARGO_ENCODED_RUSTFLAGS")
    .stdout_capture()
    .stderr_capture()
    .unchecked();
    for (k, v) in &spec.env {
        cmd = cmd.env(k, v);
    }
    let out = cmd.run().context("running cargo build")?;
    let report = read_messages(&out.stdout[..]);
    if !out.status.success() || !report.success {
        bail!(
            "cargo build of {} failed:\n{}{}",
            spec.variant,
            report.errors.join("\n"),
            tail(&String::from_utf8_lossy(&out.stderr), 30)
        );
    }
    let binary = report
        .binary
        .context("cargo build succeeded but named no logicars executable")?;
    Ok(Built {
        binary,
        messages: report.messages,
    })
}

/// What Cargo's JSON messages of one build say.
#[derive(Debug, Default, PartialEq)]
pub struct BuildMessages {
    /// The `logicars` executable, from its `compiler-artifact` message.
    pub binary: Option<PathBuf>,
    /// Every compiler message's text.
    pub messages: Vec<String>,
    /// The rendered errors.
    pub errors: Vec<String>,
    /// From the `build-finished` message.
    pub success: bool,
}

pub fn read_messages(json_lines: impl std::io::Read) -> BuildMessages {
    use cargo_metadata::diagnostic::DiagnosticLevel;
    use cargo_metadata::Message;
    let mut found = BuildMessages::default();
    let reader = std::io::BufReader::new(json_lines);
    for message in Message::parse_stream(reader).map_while(Result::ok) {
        match message {
            Message::CompilerArtifact(a) if a.target.name == "logicars" => {
                if let Some(exe) = a.executable {
                    found.binary = Some(exe.into_std_path_buf());
                }
            }
            Message::CompilerMessage(m) => {
                let d = &m.message;
                if matches!(d.level, DiagnosticLevel::Error | DiagnosticLevel::Ice) {
                    found
                        .errors
                        .push(d.rendered.clone().unwrap_or_else(|| d.message.clone()));
                }
                found.messages.push(d.message.clone());
            }
            Message::BuildFinished(f) => found.success = f.success,
            _ => {}
        }
    }
    found
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages in the shape `cargo build --message-format=json` prints them (trimmed
    /// to the fields that matter).
    const MESSAGES: &str = r#"{"reason":"compiler-message","package_id":"path+file:///w/cli#logicars-cli@0.1.0","manifest_path":"/w/cli/Cargo.toml","target":{"kind":["bin"],"crate_types":["bin"],"name":"logicars","src_path":"/w/cli/src/main.rs","edition":"2021","doc":true,"doctest":false,"test":true},"message":{"rendered":"warning: /w/src/lib.rs: no profile data available for function _ZN3foo\n","$message_type":"diagnostic","children":[],"code":null,"level":"warning","message":"/w/src/lib.rs: no profile data available for function _ZN3foo","spans":[]}}
{"reason":"compiler-artifact","package_id":"path+file:///w/cli#logicars-cli@0.1.0","manifest_path":"/w/cli/Cargo.toml","target":{"kind":["bin"],"crate_types":["bin"],"name":"logicars","src_path":"/w/cli/src/main.rs","edition":"2021","doc":true,"doctest":false,"test":true},"profile":{"opt_level":"3","debuginfo":0,"debug_assertions":false,"overflow_checks":false,"test":false},"features":[],"filenames":["/w/target/x86_64-unknown-linux-gnu/pgo-use/logicars"],"executable":"/w/target/x86_64-unknown-linux-gnu/pgo-use/logicars","fresh":false}
{"reason":"build-finished","success":true}
"#;

    #[test]
    fn reads_the_binary_and_the_warnings_from_cargos_messages() {
        let m = read_messages(MESSAGES.as_bytes());
        assert_eq!(
            m.binary.as_deref(),
            Some(Path::new(
                "/w/target/x86_64-unknown-linux-gnu/pgo-use/logicars"
            ))
        );
        assert_eq!(m.messages.len(), 1);
        assert!(m.messages[0].contains("no profile data available for function"));
        assert!(m.errors.is_empty() && m.success);
        let failed = read_messages(r#"{"reason":"build-finished","success":false}"#.as_bytes());
        assert!(!failed.success && failed.binary.is_none());
    }
}
