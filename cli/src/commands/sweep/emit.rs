//! `sweep --emit`: the job that runs a sweep's shards on a cluster's own scheduler, a
//! Slurm job array or a Kubernetes Indexed Job. The scheduler places, retries and
//! throttles the pieces; each piece is `logicars sweep ... --shard I/N`, with N written
//! into the job and I the engine's array index.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use logicars::io::atomic::write_atomically;
use logicars::sweep::manifest::Manifest;

use super::exit::MISCONFIGURED_EXIT;
use super::plan::shard_args;
use super::{ClusterArgs, Engine};

/// The Slurm batch script's name in the sweep's folder.
pub const SBATCH: &str = "sweep.sbatch";
/// The Kubernetes manifest's name in the sweep's folder.
pub const K8S_JOB: &str = "sweep-job.yaml";
/// The Indexed Job, with `{{field}}` where [`JobShape::k8s`] writes the sweep's values.
const K8S_TEMPLATE: &str = include_str!("k8s-job.yaml");
/// Where the Kubernetes job mounts its volume claim.
const K8S_MOUNT: &str = "/sweeps";
/// Memory a shard's process needs besides its runs (the program, its tables, the exact
/// checks' rollouts), added to the runs' estimate.
const PROCESS_BYTES: u64 = 64 << 20;

/// This program's path, as a job on the cluster's nodes should run it.
pub(super) fn program() -> String {
    std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "logicars".into())
}

/// Writes the job for `engine` into `dir` and prints how to submit it and merge after.
pub(super) fn write(
    engine: Engine,
    manifest: &Manifest,
    dir: &Path,
    threads: usize,
    run_bytes: u64,
    cluster: &ClusterArgs,
) -> Result<()> {
    let dir = std::path::absolute(dir).with_context(|| format!("{}", dir.display()))?;
    let mib = (run_bytes * threads as u64 + PROCESS_BYTES).div_ceil(1 << 20);
    let job = JobShape {
        manifest,
        dir: &dir,
        threads,
        mib,
        cluster,
    };
    let runs = manifest.plan().len();
    let (path, text) = match engine {
        Engine::Slurm => (dir.join(SBATCH), job.sbatch()?),
        Engine::K8s => (dir.join(K8S_JOB), job.k8s()?),
    };
    write_atomically(&path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    println!(
        "wrote {} ({} shards of a {runs}-run sweep, {threads} CPU(s) and {mib} MiB each)",
        path.display(),
        manifest.sweep.shards
    );
    let merge = format!("{} sweep merge {}", program(), dir.display());
    match engine {
        Engine::Slurm => {
            std::fs::create_dir_all(dir.join("logs")).context("creating the logs folder")?;
            println!("submit: jobid=$(sbatch --parsable {})", path.display());
            println!(
                "merge:  sbatch --dependency=afterok:$jobid --wrap {}",
                shlex::try_quote(&merge)?
            );
        }
        Engine::K8s => {
            let name = job_name(manifest);
            println!("submit: kubectl apply -f {}", path.display());
            println!("wait:   kubectl wait --for=condition=complete job/{name} --timeout=-1s");
            println!(
                "merge:  where the claim is mounted: logicars sweep merge <its path>/{}",
                folder_name(&dir)
            );
        }
    }
    println!("status: {} sweep status {}", program(), dir.display());
    Ok(())
}

/// What both engines' jobs are made of.
struct JobShape<'a> {
    manifest: &'a Manifest,
    dir: &'a Path,
    threads: usize,
    mib: u64,
    cluster: &'a ClusterArgs,
}

impl JobShape<'_> {
    /// A Slurm job array of N tasks, each running shard `$SLURM_ARRAY_TASK_ID` of N.
    fn sbatch(&self) -> Result<String> {
        let m = self.manifest;
        let c = self.cluster;
        let logs = self.dir.join("logs");
        let throttle = c.throttle.map_or(String::new(), |p| format!("%{p}"));
        let mut lines = vec![
            "#!/bin/bash".to_string(),
            format!(
                "# logicars sweep {} of {}: {} runs in {} shards.",
                m.sweep_id,
                m.sweep.task,
                m.plan().len(),
                m.sweep.shards
            ),
            "# Run again only some shards with: sbatch --array=I,J,... this file".into(),
            format!("#SBATCH --job-name=logicars-{}", m.sweep.task),
            format!("#SBATCH --array=0-{}{throttle}", m.sweep.shards - 1),
            format!("#SBATCH --cpus-per-task={}", self.threads),
            format!("#SBATCH --mem={}M", self.mib),
            format!("#SBATCH --output={}/shard-%a.log", logs.display()),
        ];
        for (flag, value) in [
            ("time", &c.time),
            ("partition", &c.partition),
            ("account", &c.account),
        ] {
            if let Some(value) = value {
                lines.push(format!("#SBATCH --{flag}={value}"));
            }
        }
        lines.push("set -euo pipefail".into());
        let index = "${SLURM_ARRAY_TASK_ID}";
        let args = shard_args(m, self.dir, index, Some(self.threads));
        let mut words = vec![shlex::try_quote(&program())?.into_owned()];
        for arg in &args {
            // The shard's index is the array task's, expanded by the shell; N is written.
            if arg.starts_with(index) {
                words.push(format!("\"{arg}\""));
            } else {
                words.push(shlex::try_quote(arg)?.into_owned());
            }
        }
        lines.push(format!("exec {}", words.join(" ")));
        Ok(lines.join("\n") + "\n")
    }

    /// A Kubernetes Indexed Job of N completions, each running shard
    /// `$(JOB_COMPLETION_INDEX)` of N with the sweep's folder on a volume claim.
    fn k8s(&self) -> Result<String> {
        let m = self.manifest;
        let c = self.cluster;
        let Some(image) = &c.image else {
            bail!("--emit k8s needs --image: a container image with logicars on its PATH");
        };
        let pod_dir = PathBuf::from(K8S_MOUNT).join(folder_name(self.dir));
        let args = shard_args(m, &pod_dir, "$(JOB_COMPLETION_INDEX)", Some(self.threads));
        let quoted: Vec<String> = args
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<_, _>>()?;
        let parallelism = c.throttle.unwrap_or(m.sweep.shards).min(m.sweep.shards);
        let q = |s: &str| serde_json::to_string(s).expect("a string serializes");
        let fields = [
            ("id", m.sweep_id.clone()),
            ("task", m.sweep.task.clone()),
            ("runs", m.plan().len().to_string()),
            ("shards", m.sweep.shards.to_string()),
            ("name", job_name(m)),
            ("parallelism", parallelism.to_string()),
            ("retries", c.retries.to_string()),
            ("exit", MISCONFIGURED_EXIT.to_string()),
            ("image", q(image)),
            ("args", quoted.join(", ")),
            ("cpus", self.threads.to_string()),
            ("mib", self.mib.to_string()),
            ("mount", K8S_MOUNT.to_string()),
            ("claim", q(&c.claim)),
        ];
        let mut yaml = K8S_TEMPLATE.to_string();
        for (key, value) in fields {
            yaml = yaml.replace(&format!("{{{{{key}}}}}"), &value);
        }
        Ok(yaml)
    }
}

/// The Kubernetes job's name: the sweep's, unique per plan.
fn job_name(manifest: &Manifest) -> String {
    format!("logicars-sweep-{}", &manifest.sweep_id[..8])
}

/// The last part of the sweep's folder: its name on the volume claim.
fn folder_name(dir: &Path) -> String {
    dir.file_name()
        .map_or("sweep".into(), |n| n.to_string_lossy().into_owned())
}
