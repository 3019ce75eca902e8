//! Helpers that several test files share; each file uses a part of them.
#![allow(dead_code)]

pub mod shards;

/// Sends `signal` (`-INT`, `-TERM`, `-KILL`...) to `child` with `kill`.
pub fn signal(child: &std::process::Child, signal: &str) {
    let pid = child.id().to_string();
    let sent = std::process::Command::new("kill")
        .args([signal, &pid])
        .status()
        .unwrap();
    assert!(sent.success(), "kill {signal} {pid}");
}
