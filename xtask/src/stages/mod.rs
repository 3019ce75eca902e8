//! How the binaries are made: the one build helper, the PGO and BOLT stages on top of it,
//! the manifests that tell a fresh binary from a stale one, the dry run that stops a
//! failing workload before anything expensive, and the variants a report compares.

pub mod bolt;
pub mod builder;
pub mod dry_run;
pub mod manifest;
pub mod pgo;
pub mod variants;
