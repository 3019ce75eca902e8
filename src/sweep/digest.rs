//! Short SHA-256 digests of JSON values: a sweep's id (of its plan) and a row's checksum
//! (of its result), so that both are computed alike.

use sha2::{Digest, Sha256};

/// The first `bytes` bytes of the SHA-256 of `value`'s compact JSON, in hex.
pub fn json_digest(value: &impl serde::Serialize, bytes: usize) -> String {
    let json = serde_json::to_vec(value).expect("a sweep's plan and rows serialize");
    Sha256::digest(&json)[..bytes]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
