//! What an optimized binary was built from, written beside it, so a stale binary is
//! rebuilt rather than compared: the source tree (uncommitted changes included),
//! Cargo.lock, rustc, RUSTFLAGS, the Cargo profiles and the stage's own inputs (the
//! training workloads, BOLT's flags).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::paths;

/// The files a `logicars` binary is built from (the xtask, docs and results are not).
const SOURCES: [&str; 7] = [
    "Cargo.toml",
    "Cargo.lock",
    ".cargo",
    "src",
    "cli/Cargo.toml",
    "cli/src",
    "assets",
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// SHA-256 over the path and content of every source file.
    pub source: String,
    pub cargo_lock: String,
    /// `rustc -vV`: version, commit, LLVM.
    pub rustc: String,
    pub rustflags: Vec<String>,
    /// SHA-256 of the root Cargo.toml's `[profile.*]` tables.
    pub profiles: String,
    /// The stage's own inputs, e.g. `("training", <hash of the workload file>)`.
    pub inputs: Vec<(String, String)>,
}

impl Manifest {
    /// The manifest of a build from today's tree with these flags and inputs.
    pub fn of_tree(rustflags: &[String], inputs: Vec<(String, String)>) -> Result<Self> {
        let root = paths::root();
        Ok(Manifest {
            source: source_hash(&root)?,
            cargo_lock: file_hash(&root.join("Cargo.lock"))?,
            rustc: duct::cmd!("rustc", "-vV")
                .read()
                .context("running rustc -vV")?,
            rustflags: rustflags.to_vec(),
            profiles: profiles_hash(&root.join("Cargo.toml"))?,
            inputs,
        })
    }

    /// The first field in which `self` (wanted) and `other` (found) differ.
    pub fn difference(&self, other: &Manifest) -> Option<&'static str> {
        [
            (self.source != other.source, "the source tree changed"),
            (self.cargo_lock != other.cargo_lock, "Cargo.lock changed"),
            (self.rustc != other.rustc, "rustc changed"),
            (self.rustflags != other.rustflags, "RUSTFLAGS changed"),
            (
                self.profiles != other.profiles,
                "the Cargo profiles changed",
            ),
            (self.inputs != other.inputs, "the stage's inputs changed"),
        ]
        .into_iter()
        .find_map(|(differs, why)| differs.then_some(why))
    }
}

/// Where the manifest of `binary` lives.
pub fn path_of(binary: &Path) -> PathBuf {
    let mut name = binary.as_os_str().to_owned();
    name.push(".manifest.json");
    PathBuf::from(name)
}

pub fn write(binary: &Path, manifest: &Manifest) -> Result<()> {
    let text = serde_json::to_string_pretty(manifest)?;
    logicars::io::atomic::write_atomically(&path_of(binary), text.as_bytes())
        .with_context(|| format!("writing the manifest of {}", binary.display()))
}

fn read(binary: &Path) -> Option<Manifest> {
    let text = std::fs::read_to_string(path_of(binary)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Why `binary` cannot be reused for `wanted`, or `None` if it can.
pub fn stale(binary: &Path, wanted: &Manifest) -> Option<String> {
    if !binary.is_file() {
        return Some("not built yet".into());
    }
    match read(binary) {
        None => Some("it has no readable manifest".into()),
        Some(found) => wanted.difference(&found).map(str::to_string),
    }
}

/// `binary` if its manifest matches `wanted`, otherwise what `make` builds (a stage
/// writes its binary's manifest when it installs it); says which and why.
pub fn fresh_or(
    binary: &Path,
    wanted: &Manifest,
    make: impl FnOnce() -> Result<PathBuf>,
) -> Result<PathBuf> {
    match stale(binary, wanted) {
        None => {
            eprintln!("[reuse] {}: built from this tree", binary.display());
            Ok(binary.to_path_buf())
        }
        Some(why) => {
            eprintln!("[rebuild] {}: {why}", binary.display());
            make()
        }
    }
}

/// SHA-256 of a file's bytes, in hex.
pub fn file_hash(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(hex(&Sha256::digest(&bytes)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hashes the tracked and untracked (not ignored) files under [`SOURCES`], as they are on
/// disk now.
fn source_hash(root: &Path) -> Result<String> {
    let mut args = vec![
        "ls-files",
        "-z",
        "--cached",
        "--others",
        "--exclude-standard",
        "--",
    ];
    args.extend(SOURCES);
    let listing = duct::cmd("git", &args)
        .dir(root)
        .read()
        .context("listing the source files with git (the pipeline needs a git checkout)")?;
    let mut files: Vec<&str> = listing.split('\0').filter(|f| !f.is_empty()).collect();
    files.sort_unstable();
    files.dedup();
    if files.is_empty() {
        bail!("git lists no source files under {}", root.display());
    }
    let mut hasher = Sha256::new();
    for file in files {
        let path = root.join(file);
        // A file deleted but not yet staged is listed by git yet gone: it counts as absent.
        let bytes = std::fs::read(&path).unwrap_or_default();
        hasher.update(file.as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(hex(&hasher.finalize()))
}

fn profiles_hash(cargo_toml: &Path) -> Result<String> {
    let text = std::fs::read_to_string(cargo_toml)
        .with_context(|| format!("reading {}", cargo_toml.display()))?;
    let value: toml::Table = text
        .parse()
        .with_context(|| format!("parsing {}", cargo_toml.display()))?;
    let profiles = value
        .get("profile")
        .map(ToString::to_string)
        .unwrap_or_default();
    Ok(hex(&Sha256::digest(profiles.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn manifest(source: &str) -> Manifest {
        Manifest {
            source: source.into(),
            cargo_lock: "lock".into(),
            rustc: "rustc 1.95.0".into(),
            rustflags: vec!["-Cprofile-use".into()],
            profiles: "p".into(),
            inputs: vec![("training".into(), "t".into())],
        }
    }

    /// A stage that records that it ran, writes a binary and its manifest.
    fn stub<'a>(
        dir: &Path,
        ran: &'a Cell<bool>,
        built_from: Manifest,
    ) -> impl FnOnce() -> Result<PathBuf> + 'a {
        let path = dir.join("logicars-pgo");
        move || {
            ran.set(true);
            std::fs::write(&path, b"new binary")?;
            write(&path, &built_from)?;
            Ok(path)
        }
    }

    #[test]
    fn a_binary_is_rebuilt_unless_its_manifest_matches() {
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("logicars-pgo");
        let ran = Cell::new(false);
        // Missing: built, and its manifest written.
        fresh_or(
            &binary,
            &manifest("a"),
            stub(dir.path(), &ran, manifest("a")),
        )
        .unwrap();
        assert!(ran.replace(false));
        assert_eq!(stale(&binary, &manifest("a")), None);
        // Matching: reused.
        fresh_or(
            &binary,
            &manifest("a"),
            stub(dir.path(), &ran, manifest("a")),
        )
        .unwrap();
        assert!(!ran.get());
        // The source changed: rebuilt.
        assert_eq!(
            stale(&binary, &manifest("b")).as_deref(),
            Some("the source tree changed")
        );
        fresh_or(
            &binary,
            &manifest("b"),
            stub(dir.path(), &ran, manifest("b")),
        )
        .unwrap();
        assert!(ran.replace(false));
        // Other flags, other training set, a lost manifest: rebuilt.
        let mut other = manifest("b");
        other.rustflags.push("-Ctarget-cpu=native".into());
        assert_eq!(stale(&binary, &other).as_deref(), Some("RUSTFLAGS changed"));
        other = manifest("b");
        other.inputs[0].1 = "u".into();
        assert_eq!(
            stale(&binary, &other).as_deref(),
            Some("the stage's inputs changed")
        );
        std::fs::remove_file(path_of(&binary)).unwrap();
        assert_eq!(
            stale(&binary, &manifest("b")).as_deref(),
            Some("it has no readable manifest")
        );
    }

    #[test]
    fn the_tree_hash_sees_uncommitted_changes() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            duct::cmd("git", args)
                .dir(dir.path())
                .stdout_null()
                .run()
                .unwrap()
        };
        git(&["init", "-q"]);
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "fn a() {}").unwrap();
        std::fs::write(dir.path().join("README.md"), "docs").unwrap();
        let first = source_hash(dir.path()).unwrap();
        std::fs::write(dir.path().join("README.md"), "other docs").unwrap();
        assert_eq!(
            source_hash(dir.path()).unwrap(),
            first,
            "docs are not sources"
        );
        std::fs::write(dir.path().join("src/lib.rs"), "fn b() {}").unwrap();
        assert_ne!(
            source_hash(dir.path()).unwrap(),
            first,
            "an untracked edit counts"
        );
    }

    #[test]
    fn the_workspace_has_a_manifest() {
        let m = Manifest::of_tree(&[], vec![]).unwrap();
        assert_eq!(m.source.len(), 64);
        assert!(m.rustc.contains("LLVM version"), "{}", m.rustc);
    }
}
