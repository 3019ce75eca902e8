//! SIGINT and SIGTERM during training: the first asks the run to stop after the current
//! epoch (it then writes its checkpoint and model); a second SIGINT ends the process at once.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;

/// Which signal asked the run to stop, as its shell exit code (128 + the signal's number).
pub struct StopRequest {
    code: Arc<AtomicUsize>,
}

impl StopRequest {
    /// Catches SIGINT and SIGTERM from now on.
    pub fn catch() -> Result<Self> {
        let code = Arc::new(AtomicUsize::new(0));
        let asked = Arc::new(AtomicBool::new(false));
        let register = || -> std::io::Result<()> {
            // Registered first, so it sees `asked` as the previous SIGINT left it.
            flag::register_conditional_shutdown(SIGINT, 130, Arc::clone(&asked))?;
            flag::register(SIGINT, Arc::clone(&asked))?;
            flag::register_usize(SIGINT, Arc::clone(&code), 130)?;
            flag::register_usize(SIGTERM, Arc::clone(&code), 143)?;
            Ok(())
        };
        register().context("catching SIGINT and SIGTERM")?;
        Ok(StopRequest { code })
    }

    /// The exit code of the signal received, if one was.
    pub fn received(&self) -> Option<u8> {
        match self.code.load(Ordering::Relaxed) {
            0 => None,
            code => Some(code as u8),
        }
    }
}

/// A run stopped by a signal after saving; `main` exits with `code`.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Interrupted {
    pub code: u8,
    pub message: String,
}
