//! Workload files: the runs that train profiles and the runs that measure.
//!
//! ```toml
//! [[workload]]
//! name = "checkerboard-small"
//! args = ["train", "checkerboard", "--small", "--epochs", "60", "--save", "{scratch}/small.json"]
//! ```
//! `{scratch}` becomes the folder the workloads run in. An optional `count` gives the
//! arguments of a short form of the workload that `report` runs under cachegrind to count
//! instructions (keep it to a second or two of normal running, with `--threads 1`). In a
//! training set, an optional `represents` names the benchmark workloads a run stands for:
//! the same task, recipe and size, so a profile's counts for their code come from it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    pub name: String,
    /// Arguments of the `logicars` binary.
    pub args: Vec<String>,
    /// Arguments of the short form whose instructions are counted.
    #[serde(default)]
    pub count: Option<Vec<String>>,
    /// The benchmark workloads this training run stands for.
    #[serde(default)]
    pub represents: Vec<String>,
}

impl Workload {
    pub fn args_in(&self, scratch: &Path) -> Vec<String> {
        fill_in(&self.args, scratch)
    }

    /// The counted short form's arguments, if the workload has one.
    pub fn count_args_in(&self, scratch: &Path) -> Option<Vec<String>> {
        self.count.as_ref().map(|args| fill_in(args, scratch))
    }

    pub fn command_line(&self) -> String {
        format!("logicars {}", self.args.join(" "))
    }
}

fn fill_in(args: &[String], scratch: &Path) -> Vec<String> {
    let dir = scratch.to_string_lossy();
    args.iter().map(|a| a.replace("{scratch}", &dir)).collect()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkloadFile {
    workload: Vec<Workload>,
}

/// A named, validated list of workloads.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadSet {
    pub file: PathBuf,
    pub workloads: Vec<Workload>,
}

impl WorkloadSet {
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading workload file {}", path.display()))?;
        Self::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Self> {
        let file: WorkloadFile = toml::from_str(text)
            .with_context(|| format!("{}: invalid workload file", path.display()))?;
        let at = |i: usize, key: &str| format!("{}: workload[{i}].{key}", path.display());
        if file.workload.is_empty() {
            bail!("{}: no [[workload]] entries", path.display());
        }
        let mut names = HashSet::new();
        for (i, w) in file.workload.iter().enumerate() {
            if w.name.trim().is_empty() {
                bail!("{}: must not be empty", at(i, "name"));
            }
            if !names.insert(w.name.as_str()) {
                bail!("{}: '{}' is used twice", at(i, "name"), w.name);
            }
            if w.args.is_empty() {
                bail!(
                    "{}: must not be empty (give the logicars arguments)",
                    at(i, "args")
                );
            }
            if let Some(j) = w.args.iter().position(|a| a.is_empty()) {
                bail!("{}[{j}]: empty argument", at(i, "args"));
            }
            if w.count.as_ref().is_some_and(Vec::is_empty) {
                bail!(
                    "{}: must not be empty (leave it out to count nothing)",
                    at(i, "count")
                );
            }
        }
        Ok(WorkloadSet {
            file: path.to_path_buf(),
            workloads: file.workload,
        })
    }

    /// Keeps only the named workloads (all when `names` is empty).
    pub fn select(mut self, names: &[String]) -> Result<Self> {
        if names.is_empty() {
            return Ok(self);
        }
        for n in names {
            if !self.workloads.iter().any(|w| &w.name == n) {
                bail!("{}: no workload named '{n}'", self.file.display());
            }
        }
        self.workloads.retain(|w| names.contains(&w.name));
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<WorkloadSet> {
        WorkloadSet::parse(Path::new("profiles/test.toml"), text)
    }

    #[test]
    fn reads_workloads_and_fills_in_the_scratch_folder() {
        let set = parse("[[workload]]\nname = \"a\"\nargs = [\"train\", \"gol\", \"--save\", \"{scratch}/m.json\"]\n").unwrap();
        assert_eq!(
            set.workloads[0].args_in(Path::new("/tmp/s")),
            ["train", "gol", "--save", "/tmp/s/m.json"]
        );
        assert_eq!(
            set.workloads[0].command_line(),
            "logicars train gol --save {scratch}/m.json"
        );
    }

    fn error(text: &str) -> String {
        format!("{:#}", parse(text).unwrap_err())
    }

    #[test]
    fn errors_name_the_file_and_the_key() {
        let e = error("[[workload]]\nname = \"a\"\nargs = []\n");
        assert!(
            e.contains("profiles/test.toml: workload[0].args: must not be empty"),
            "{e}"
        );
        let e = error("[[workload]]\nname = \"a\"\nargs = [\"x\"]\ncolour = 3\n");
        assert!(
            e.contains("profiles/test.toml") && e.contains("unknown field `colour`"),
            "{e}"
        );
        let e = error("[[workload]]\nargs = [\"x\"]\n");
        assert!(e.contains("missing field `name`"), "{e}");
        let e = error("[[workload]]\nname = \"a\"\nargs = [\"x\"]\n[[workload]]\nname = \"a\"\nargs = [\"y\"]\n");
        assert!(e.contains("workload[1].name: 'a' is used twice"), "{e}");
        let e = error("[[workload]]\nname = \" \"\nargs = [\"x\"]\n");
        assert!(e.contains("workload[0].name: must not be empty"), "{e}");
        let e = error("[[workload]]\nname = \"a\"\nargs = [\"x\", \"\"]\n");
        assert!(e.contains("workload[0].args[1]: empty argument"), "{e}");
        let e = error("workload = []\n");
        assert!(e.contains("no [[workload]] entries"), "{e}");
    }

    #[test]
    fn the_shipped_workload_files_are_valid() {
        for name in ["training.toml", "benchmark.toml", "e2e.toml"] {
            let path = crate::paths::profiles().join(name);
            WorkloadSet::load(&path).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        }
    }

    /// Every benchmark workload has a training run of its own kind, and every name a
    /// training run stands for is a benchmark workload.
    #[test]
    fn the_training_set_represents_every_benchmark_workload() {
        let load = |name: &str| WorkloadSet::load(&crate::paths::profiles().join(name)).unwrap();
        let (training, benchmark) = (load("training.toml"), load("benchmark.toml"));
        let benchmarked: HashSet<&str> = benchmark
            .workloads
            .iter()
            .map(|w| w.name.as_str())
            .collect();
        let represented: HashSet<&str> = training
            .workloads
            .iter()
            .flat_map(|w| w.represents.iter().map(String::as_str))
            .collect();
        assert_eq!(represented, benchmarked);
    }

    #[test]
    fn selecting_an_unknown_workload_is_an_error() {
        let set = parse("[[workload]]\nname = \"a\"\nargs = [\"x\"]\n").unwrap();
        assert!(set.clone().select(&["b".into()]).is_err());
        assert_eq!(set.select(&["a".into()]).unwrap().workloads.len(), 1);
    }
}
