//! `sweep --emit slurm` on a real one-node Slurm cluster (`scripts/slurm-one-node`):
//! emit, `sbatch`, wait, merge gives the tables of the same sweep on one machine; a row
//! lost is made again by resubmitting only its array index.
//!
//! Ignored by default: it needs root and Debian's `slurm-wlm` and `munge`, which
//! `.ci/run` installs before it runs this test with `--ignored`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::shards::{logicars, merge, tables};

/// The sweep of the example: 12 runs of the small checkerboard.
const PLAN: [&str; 4] = ["checkerboard", "--small", "--seeds", "0..12"];

/// A one-node cluster, stopped when dropped (also when the test fails).
struct Cluster {
    dir: PathBuf,
    conf: String,
}

impl Cluster {
    fn start(dir: &Path) -> Cluster {
        let out = Command::new(script())
            .args(["start"])
            .arg(dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let conf = stdout
            .trim()
            .strip_prefix("export SLURM_CONF=")
            .expect(&stdout)
            .to_string();
        Cluster {
            dir: dir.to_path_buf(),
            conf,
        }
    }

    /// Runs `sbatch --wait args...` and requires that every array task succeeded.
    fn sbatch_wait(&self, args: &[&str], script: &Path) {
        let out = Command::new("sbatch")
            .env("SLURM_CONF", &self.conf)
            .arg("--wait")
            .args(args)
            .arg(script)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "sbatch: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(script()).arg("stop").arg(&self.dir).status();
    }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/slurm-one-node")
}

#[test]
#[ignore = "needs root, slurm-wlm and munge (.ci/run installs them)"]
fn a_sweep_emitted_for_slurm_and_merged_gives_the_tables_of_one_machine() {
    let local = tempfile::tempdir().unwrap();
    logicars()
        .arg("sweep")
        .args(PLAN)
        .arg("--out")
        .arg(local.path())
        .assert()
        .success();
    let expected = tables(local.path());

    let work = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(&work.path().join("slurm"));
    let dir = work.path().join("sweep");
    let out = logicars()
        .arg("sweep")
        .args(PLAN)
        .args(["--emit", "slurm", "--shards", "4", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let printed = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        printed.contains("sbatch --dependency=afterok:$jobid"),
        "{printed}"
    );
    let script = dir.join("sweep.sbatch");
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(text.contains("#SBATCH --array=0-3\n"), "{text}");
    assert!(
        text.contains("--shard \"${SLURM_ARRAY_TASK_ID}/4\" --threads 1"),
        "{text}"
    );

    cluster.sbatch_wait(&[], &script);
    for index in 0..4 {
        assert!(dir.join(format!("logs/shard-{index}.log")).is_file());
    }
    let (code, err) = merge(&[&dir]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(tables(&dir), expected);

    // A lost row (a node's disk, a shard killed): status names its shard, and that
    // array index alone is submitted again.
    std::fs::remove_file(dir.join("runs/preset-seed6.json")).unwrap();
    let status = logicars()
        .args(["sweep", "status"])
        .arg(&dir)
        .assert()
        .success();
    let status = String::from_utf8(status.get_output().stdout.clone()).unwrap();
    assert!(
        status.contains(&format!("sbatch --array=2 {}", script.display())),
        "{status}"
    );
    cluster.sbatch_wait(&["--array=2"], &script);
    let (code, err) = merge(&[&dir]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(tables(&dir), expected);
}
