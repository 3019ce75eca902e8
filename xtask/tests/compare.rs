//! `cargo xtask compare` as CI would gate with it: exit code 0 when nothing got slower
//! past the threshold, 3 when something did, 1 when the history cannot answer.

use std::path::Path;
use std::process::Command;

const HEADER: &str = "date,commit,machine,report,variant,workload,metric,median_s,median_low_s,median_high_s,speedup,speedup_low,speedup_high,instructions\n";

/// Two reports: release on workload `w` at 1.00 s, then at `new_median` s (intervals
/// +-1%), instructions 1000 then `new_instructions`.
fn history(dir: &Path, new_median: f64, new_instructions: u64) -> String {
    let row = |date: &str, commit: &str, m: f64, i: u64| {
        format!(
            "{date},{commit},\"CPU, 2 cores, AVX2\",report,release,w,compute,{m},{},{},1,1,1,{i}\n",
            m * 0.99,
            m * 1.01
        )
    };
    let text = format!(
        "{HEADER}{}{}",
        row("2026-11-01 10:00 UTC", "aaa1111", 1.0, 1000),
        row(
            "2026-11-02 10:00 UTC",
            "bbb2222",
            new_median,
            new_instructions
        )
    );
    let path = dir.join("history.csv");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn compare(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("compare")
        .args(args)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn exit_codes_gate_on_slowdowns() {
    let dir = tempfile::tempdir().unwrap();
    // 1% slower, same instructions: fine at a 5% threshold.
    let h = history(dir.path(), 1.01, 1000);
    let (code, stdout, _) = compare(&["--history", &h]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("+1.00%"), "{stdout}");
    // 10% slower with intervals of +-1%: a slowdown.
    let h = history(dir.path(), 1.10, 1000);
    let (code, stdout, _) = compare(&["--history", &h]);
    assert_eq!(code, Some(3), "{stdout}");
    assert!(
        stdout.contains("slower than the threshold of 5.0%"),
        "{stdout}"
    );
    // ... but not past a 20% threshold.
    assert_eq!(compare(&["--history", &h, "--threshold", "0.2"]).0, Some(0));
    // The same time with 10% more instructions: a slowdown too.
    let h = history(dir.path(), 1.0, 1100);
    assert_eq!(compare(&["--history", &h]).0, Some(3));
    // Selected by commit prefix, in either order: faster is never a failure.
    assert_eq!(compare(&["--history", &h, "bbb", "aaa"]).0, Some(0));
    // No such report: an error, exit code 1.
    let (code, _, stderr) = compare(&["--history", &h, "ccc"]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("no report in the history matches 'ccc'"),
        "{stderr}"
    );
}
