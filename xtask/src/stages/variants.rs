//! The builds a report compares, and how to get each one's binary.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::paths;
use crate::stages::builder::{build, BuildSpec};
use crate::stages::manifest::fresh_or;
use crate::stages::{bolt, pgo};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Variant {
    /// Cargo's own release defaults (thin local LTO, 16 codegen units, unwind): the "before".
    CargoDefault,
    /// Our release profile: fat LTO, one codegen unit, panic abort.
    Release,
    /// Release with -C target-cpu=native.
    ReleaseNative,
    /// Release, stripped.
    ReleaseMax,
    /// Profile-guided (see `cargo xtask pgo`).
    Pgo,
    /// BOLT on release (see `cargo xtask bolt`).
    Bolt,
    /// BOLT on the PGO build.
    PgoBolt,
}

impl Variant {
    pub const ALL: [Variant; 7] = [
        Variant::CargoDefault,
        Variant::Release,
        Variant::ReleaseNative,
        Variant::ReleaseMax,
        Variant::Pgo,
        Variant::Bolt,
        Variant::PgoBolt,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Variant::CargoDefault => "cargo-default",
            Variant::Release => "release",
            Variant::ReleaseNative => "release-native",
            Variant::ReleaseMax => "release-max",
            Variant::Pgo => "pgo",
            Variant::Bolt => "bolt",
            Variant::PgoBolt => "pgo-bolt",
        }
    }

    /// Whether the build applies the PGO profile.
    pub fn uses_pgo(self) -> bool {
        matches!(self, Variant::Pgo | Variant::PgoBolt)
    }

    /// Builds what is missing (Cargo skips up-to-date builds); PGO and BOLT variants are
    /// made by their stages with the training workloads unless their binary's manifest
    /// says it was built from this tree, these flags and these workloads.
    pub fn binary(self, training: &Path) -> Result<PathBuf> {
        let spec = match self {
            Variant::CargoDefault => BuildSpec::new("cargo-default", "release")
                .env("CARGO_PROFILE_RELEASE_LTO", "false")
                .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
                .env("CARGO_PROFILE_RELEASE_PANIC", "unwind"),
            Variant::Release => BuildSpec::new("release", "release"),
            Variant::ReleaseNative => {
                BuildSpec::new("release-native", "release").flag("-Ctarget-cpu=native")
            }
            Variant::ReleaseMax => BuildSpec::new("release-max", "release-max"),
            Variant::Pgo => {
                let wanted = pgo::binary_manifest(training, false)?;
                return fresh_or(&paths::optimized("logicars-pgo"), &wanted, || {
                    pgo::make(training, false)
                });
            }
            Variant::Bolt | Variant::PgoBolt => {
                let with_pgo = self == Variant::PgoBolt;
                let flags = bolt::default_flags();
                let wanted = bolt::binary_manifest(training, with_pgo, &flags)?;
                return fresh_or(&bolt::stable_path(with_pgo), &wanted, || {
                    bolt::make(training, with_pgo, &flags)
                });
            }
        };
        Ok(build(&spec)?.binary)
    }
}
