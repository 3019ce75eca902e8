//! How a sweep ends when it cannot start: the mark on errors that no retry can mend,
//! and the exit code that tells a cluster's scheduler so.

use logicars::sweep::error::StoreError;

/// Why a sweep cannot start, such that running it again cannot help (another sweep's
/// folder, a setting that does not validate): the command exits with code 2, which the
/// emitted jobs tell the scheduler not to retry. It reads as the error it wraps.
#[derive(Debug, thiserror::Error)]
#[error("{0:#}")]
pub struct Misconfigured(pub anyhow::Error);

/// Marks an error as one that no retry can mend.
pub(super) fn misconfigured(error: impl Into<anyhow::Error>) -> anyhow::Error {
    Misconfigured(error.into()).into()
}

/// A sweep file's error, marked when no retry can mend it (a folder that cannot be read
/// now may be readable on the retry).
pub(super) fn store_error(error: StoreError) -> anyhow::Error {
    if error.is_configuration() {
        misconfigured(error)
    } else {
        error.into()
    }
}

/// The exit code of a sweep that cannot start.
pub const MISCONFIGURED_EXIT: u8 = 2;
