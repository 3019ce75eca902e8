//! Helpers the commands share: flag parsers, the machine's limits, output checks, progress
//! on the terminal, the compute-time record, and the pictures of a rollout.

pub mod compute_time;
pub mod outputs;
pub mod progress;
pub mod resources;
pub mod rollout_picture;
pub mod value_parsers;

/// A value typed on the command line that no run accepts (a count of 0, a number out of
/// its range): a usage error, exit code 2 as for the values clap refuses.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadValue(pub String);

/// Returns a [`BadValue`] error from the enclosing function.
macro_rules! bad_value {
    ($($arg:tt)*) => {
        return Err($crate::support::BadValue(format!($($arg)*)).into())
    };
}
pub(crate) use bad_value;
