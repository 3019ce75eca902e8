//! The report's files: written whole, next to each other.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::export;
use crate::results::report::Report;

/// Writes the report (Markdown, JSON, SVG) and each workload's hyperfine-style JSON and
/// CSV into `out_dir`, each file whole or not at all; returns their paths.
pub fn write_files(report: &Report, out_dir: &Path) -> Result<Vec<PathBuf>> {
    let at = |ext: &str| out_dir.join(format!("{}.{ext}", report.name));
    let mut files = vec![
        (at("md"), export::markdown::render(report)),
        (at("json"), export::json::render(report)),
        (at("svg"), export::svg::render(report)?),
    ];
    if let Some(svg) = export::moved_svg::render(report)? {
        files.push((at("moved.svg"), svg));
    }
    let folder = out_dir.join(&report.name);
    for w in &report.workloads {
        files.push((
            folder.join(format!("{}.json", w.name)),
            export::hyperfine::json(w),
        ));
        files.push((
            folder.join(format!("{}.csv", w.name)),
            export::hyperfine::csv(w)?,
        ));
    }
    for (path, text) in &files {
        logicars::io::atomic::write_atomically(path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(files.into_iter().map(|(p, _)| p).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_files_are_written_whole_next_to_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let report = crate::export::fixture::fixed_report();
        let files = write_files(&report, &dir.path().join("out")).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "out/fixture.md",
                "out/fixture.json",
                "out/fixture.svg",
                "out/fixture.moved.svg",
                "out/fixture/train.json",
                "out/fixture/train.csv",
                "out/fixture/eval.json",
                "out/fixture/eval.csv"
            ]
        );
        assert_eq!(
            std::fs::read_to_string(&files[1]).unwrap(),
            crate::export::json::render(&report)
        );
    }
}
