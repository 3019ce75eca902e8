//! Reading JSON files strictly: one value and nothing after it, and every problem named
//! by its place in the file.

/// A problem in a file: `(json path, message)`.
pub(crate) type Invalid = (String, String);

pub(crate) fn invalid(path: impl Into<String>, message: impl Into<String>) -> Invalid {
    (path.into(), message.into())
}

/// A file's `format` and `version` fields against the ones this build reads.
pub(crate) fn check_header(
    (format, version): (&str, u32),
    (expected_format, expected_version): (&str, u32),
) -> Result<(), Invalid> {
    if format != expected_format {
        let message = format!("expected \"{expected_format}\", found \"{format}\"");
        return Err(invalid("format", message));
    }
    if version != expected_version {
        let message =
            format!("this build reads version {expected_version}, the file is version {version}");
        return Err(invalid("version", message));
    }
    Ok(())
}

/// Deserializes one JSON value that must fill `text` (whitespace aside), naming the path
/// of the first problem.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, Invalid> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." {
            "(top level)".into()
        } else {
            path
        };
        (path, e.inner().to_string())
    })?;
    de.end()
        .map_err(|e| invalid("(end)", format!("data after the JSON value ({e})")))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_after_the_value_is_refused() {
        assert_eq!(parse::<Vec<u8>>(" [1, 2]\n"), Ok(vec![1, 2]));
        let (path, message) = parse::<Vec<u8>>("[1, 2]garbage").unwrap_err();
        assert_eq!(path, "(end)");
        assert_eq!(
            message,
            "data after the JSON value (trailing characters at line 1 column 7)"
        );
        assert!(parse::<Vec<u8>>("[1][1]").is_err());
        assert!(parse::<Vec<u8>>("[1]\0").is_err());
    }
}
