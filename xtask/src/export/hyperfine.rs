//! One workload in hyperfine's export layouts, so hyperfine's own scripts (and whatever
//! reads `hyperfine --export-json`) read our measurements: JSON `{"results": [...]}` with
//! hyperfine's keys first and ours after, CSV with hyperfine's columns first.

use anyhow::Result;
use serde::Serialize;

use crate::results::report::{VariantStats, WorkloadReport};

#[derive(Serialize)]
struct Export<'a> {
    results: &'a [VariantStats],
}

/// `hyperfine --export-json`'s layout.
pub fn json(workload: &WorkloadReport) -> String {
    let export = Export {
        results: &workload.results,
    };
    let mut text = serde_json::to_string_pretty(&export).expect("results always serialize");
    text.push('\n');
    text
}

/// `hyperfine --export-csv`'s columns, then the comparison.
pub fn csv(workload: &WorkloadReport) -> Result<String> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record([
        "command",
        "mean",
        "stddev",
        "median",
        "user",
        "system",
        "min",
        "max",
        "variant",
        "metric",
        "metric_median",
        "speedup",
        "speedup_low",
        "speedup_high",
        "instructions",
    ])?;
    let metric = serde_json::to_value(workload.metric)?;
    for r in &workload.results {
        out.write_record([
            r.command.clone(),
            r.mean.to_string(),
            r.stddev.map(|s| s.to_string()).unwrap_or_default(),
            r.median.to_string(),
            r.user.to_string(),
            r.system.to_string(),
            r.min.to_string(),
            r.max.to_string(),
            r.variant.clone(),
            metric.as_str().unwrap_or_default().to_string(),
            r.metric_median.to_string(),
            r.speedup.to_string(),
            r.speedup_ci95.0.to_string(),
            r.speedup_ci95.1.to_string(),
            r.counts
                .map(|c| c.instructions.to_string())
                .unwrap_or_default(),
        ])?;
    }
    Ok(String::from_utf8(out.into_inner()?)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture::{check_snapshot, fixed_report};
    use serde_json::Value;

    const REAL_JSON: &str = include_str!("../../tests/fixtures/hyperfine-1.15.json");
    const REAL_CSV: &str = include_str!("../../tests/fixtures/hyperfine-1.15.csv");

    #[test]
    fn match_the_snapshots() {
        let w = &fixed_report().workloads[0];
        check_snapshot("hyperfine.json", &json(w));
        check_snapshot("hyperfine.csv", &csv(w).unwrap());
    }

    /// The kind of a JSON value, arrays by the kind of their first element.
    fn kind(v: &Value) -> String {
        match v {
            Value::Array(items) => format!("[{}]", items.first().map(kind).unwrap_or_default()),
            Value::Number(n) if n.is_f64() => "float".into(),
            Value::Number(_) => "int".into(),
            Value::String(_) => "string".into(),
            Value::Null => "null".into(),
            Value::Bool(_) => "bool".into(),
            Value::Object(_) => "object".into(),
        }
    }

    /// Every key of a result that hyperfine writes is in ours with the same kind of
    /// value; checked against `expected` (a real hyperfine export).
    fn check_against(expected: &str, ours: &str) {
        let (want, got): (Value, Value) = (
            serde_json::from_str(expected).unwrap(),
            serde_json::from_str(ours).unwrap(),
        );
        let want = want["results"][0].as_object().unwrap();
        let got = got["results"][0].as_object().unwrap();
        assert!(
            want.len() >= 10,
            "the fixture has hyperfine's keys: {want:?}"
        );
        for (key, value) in want {
            assert!(got.contains_key(key), "missing {key}");
            assert_eq!(kind(value), kind(&got[key]), "{key}");
        }
    }

    #[test]
    fn json_has_hyperfines_keys_and_types() {
        check_against(REAL_JSON, &json(&fixed_report().workloads[0]));
    }

    #[test]
    fn csv_starts_with_hyperfines_columns() {
        let ours = csv(&fixed_report().workloads[0]).unwrap();
        let theirs = REAL_CSV.lines().next().unwrap();
        assert!(ours
            .lines()
            .next()
            .unwrap()
            .starts_with(&format!("{theirs},")));
        let row: Vec<&str> = ours.lines().nth(1).unwrap().split(',').collect();
        assert!(
            row[0].contains("logicars"),
            "command is the command line: {}",
            row[0]
        );
        for value in &row[1..8] {
            value.parse::<f64>().unwrap();
        }
    }

    /// The same check against hyperfine run now (its version may differ from the
    /// fixture's).
    #[test]
    #[ignore = "needs hyperfine (cargo xtask setup); CI runs it with --ignored"]
    fn json_matches_real_hyperfine_output() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.json");
        let status = std::process::Command::new("hyperfine")
            .args(["-N", "--runs", "3", "--export-json"])
            .arg(&path)
            .arg("true")
            .status()
            .expect("hyperfine is installed");
        assert!(status.success());
        let real = std::fs::read_to_string(&path).unwrap();
        check_against(&real, &json(&fixed_report().workloads[0]));
    }
}
