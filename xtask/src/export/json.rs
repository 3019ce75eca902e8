//! The report as JSON: hyperfine's per-result fields plus ours.

use crate::report::summary::Report;

pub fn render(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).expect("a report always serializes");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture::{check_snapshot, fixed_report};

    #[test]
    fn matches_the_snapshot() {
        check_snapshot("report.json", &render(&fixed_report()));
    }

    #[test]
    fn has_hyperfines_fields() {
        let v: serde_json::Value = serde_json::from_str(&render(&fixed_report())).unwrap();
        let first = &v["workloads"][0]["results"][0];
        for key in [
            "command",
            "mean",
            "stddev",
            "median",
            "user",
            "system",
            "min",
            "max",
            "times",
            "exit_codes",
        ] {
            assert!(first.get(key).is_some(), "missing {key}");
        }
    }
}
