//! What the shard tests share: running `logicars`, a reference one-machine sweep, and the
//! tables of a sweep without their wall times (provenance, never compared).

use std::path::Path;

use assert_cmd::Command;

/// The plan every shard test cuts: 7 short runs of the small checkerboard.
pub const PLAN: [&str; 6] = [
    "checkerboard",
    "--small",
    "--seeds",
    "0..7",
    "--set",
    "epochs=50",
];

pub fn logicars() -> Command {
    Command::cargo_bin("logicars").unwrap()
}

/// The path of the `logicars` this test runs.
pub fn program() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("logicars")
}

/// Runs `sweep PLAN extra... --out dir` and requires success.
pub fn sweep(dir: &Path, extra: &[&str]) -> String {
    let out = logicars()
        .arg("sweep")
        .args(PLAN)
        .args(extra)
        .arg("--out")
        .arg(dir)
        .assert()
        .success();
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

/// Runs `sweep merge dirs...`; returns its exit code and stderr.
pub fn merge(dirs: &[&Path]) -> (i32, String) {
    let out = logicars()
        .args(["sweep", "merge"])
        .args(dirs)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A sweep's four tables with every wall time removed: runs.csv without its wall_s
/// column, sweep.json without wall_s, median_wall_s and the times to exact, summary.txt
/// without its columns of seconds (the last two), and sweep.svg whole.
pub fn tables(dir: &Path) -> [String; 4] {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let text = read("runs.csv");
    let mut csv = csv::Reader::from_reader(text.as_bytes());
    let headers = csv.headers().unwrap().clone();
    let wall = headers.iter().position(|h| h == "wall_s").unwrap();
    let mut runs = String::new();
    for record in std::iter::once(Ok(headers)).chain(csv.records()) {
        let record = record.unwrap();
        let kept: Vec<&str> = record
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != wall)
            .map(|(_, f)| f)
            .collect();
        runs += &(kept.join(",") + "\n");
    }
    let mut json: serde_json::Value = serde_json::from_str(&read("sweep.json")).unwrap();
    for setting in json["settings"].as_array_mut().unwrap() {
        let setting = setting.as_object_mut().unwrap();
        for timed in [
            "median_wall_s",
            "time_to_exact_median_s",
            "time_to_exact_p90_s",
        ] {
            setting.remove(timed).unwrap();
        }
    }
    for run in json["runs"].as_array_mut().unwrap() {
        run.as_object_mut().unwrap().remove("wall_s").unwrap();
    }
    // The table is fixed-width: the seconds start where "median epoch" ends.
    let summary = read("summary.txt");
    let header = summary.lines().next().unwrap();
    let cut = header.find("median epoch").unwrap() + "median epoch".len();
    let summary: String = summary
        .lines()
        .map(|line| line[..cut].trim_end().to_string() + "\n")
        .collect();
    [runs, json.to_string(), summary, read("sweep.svg")]
}

/// The deterministic part of every row file in `dir/runs`, by file name.
pub fn rows(dir: &Path) -> Vec<(String, serde_json::Value)> {
    let mut rows: Vec<_> = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            // Rows only: not the saved models and logs, nor a row being written.
            !name.starts_with('.') && name.ends_with(".json") && !name.ends_with(".model.json")
        })
        .map(|p| {
            let mut row: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            row.as_object_mut().unwrap().remove("provenance").unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), row)
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}
