//! Exporters: a report in, bytes out. Writing the files is the caller's job.

pub mod hyperfine;
pub mod json;
pub mod markdown;
pub mod svg;

#[cfg(test)]
pub mod fixture;

/// A unit enum's serialized name (`compute`, `max-rounds`), as the JSON spells it.
pub fn label<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
