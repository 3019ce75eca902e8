//! How the report's JSON spells a unit enum, for the other outputs to use the same word.

/// A unit enum's serialized name (`compute`, `max-rounds`), as the JSON spells it.
pub fn label<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
