//! `sweep --emit k8s`: the Indexed Job it writes is the committed one, is a valid
//! Kubernetes Job, and its pods' command, run here as N processes with
//! `JOB_COMPLETION_INDEX` set, gives the tables of a one-machine sweep.
//!
//! Kubernetes itself cannot run on the test machines; what a pod would do is replayed:
//! the job controller sets `JOB_COMPLETION_INDEX` in each pod's environment, and the
//! kubelet expands `$(VAR)` in a container's args from that environment.

use std::path::Path;

use crate::common::shards::{logicars, merge, program, sweep, tables, PLAN};
use k8s_openapi::api::batch::v1::Job;

const GOLDEN: &str = "tests/fixtures/sweep-job.yaml";
const SHARDS: usize = 3;

/// Emits the job for PLAN into `root/sweep-k8s`; returns the manifest's text.
fn emit(root: &Path) -> String {
    let dir = root.join("sweep-k8s");
    logicars()
        .arg("sweep")
        .args(PLAN)
        .args([
            "--emit",
            "k8s",
            "--shards",
            &SHARDS.to_string(),
            "--threads",
            "2",
        ])
        .args([
            "--image",
            "registry.example/logicars:0.1.0",
            "--claim",
            "sweeps",
        ])
        .arg("--out")
        .arg(&dir)
        .assert()
        .success();
    std::fs::read_to_string(dir.join("sweep-job.yaml")).unwrap()
}

#[test]
fn the_emitted_job_is_the_committed_one() {
    let root = tempfile::tempdir().unwrap();
    let yaml = emit(root.path());
    if std::env::var_os("LOGICARS_BLESS").is_some() {
        std::fs::write(GOLDEN, &yaml).unwrap();
    }
    let golden = std::fs::read_to_string(GOLDEN).unwrap();
    assert_eq!(
        yaml, golden,
        "LOGICARS_BLESS=1 rewrites {GOLDEN} after a wanted change"
    );
}

#[test]
fn the_emitted_job_is_an_indexed_job_that_retries_pieces_but_not_mistakes() {
    let root = tempfile::tempdir().unwrap();
    let job: Job = serde_yaml_ng::from_str(&emit(root.path())).unwrap();
    let spec = job.spec.unwrap();
    assert_eq!(spec.completion_mode.as_deref(), Some("Indexed"));
    assert_eq!(spec.completions, Some(SHARDS as i32));
    assert_eq!(spec.parallelism, Some(SHARDS as i32));
    assert_eq!(spec.backoff_limit_per_index, Some(2));
    let rules = spec.pod_failure_policy.unwrap().rules;
    assert_eq!(rules[0].action, "FailJob");
    let codes = rules[0].on_exit_codes.as_ref().unwrap();
    assert_eq!(
        (codes.operator.as_str(), codes.values.as_slice()),
        ("In", &[2][..])
    );
    assert_eq!(rules[1].action, "Ignore");
    let pod = spec.template.spec.unwrap();
    assert_eq!(pod.restart_policy.as_deref(), Some("Never"));
    let container = &pod.containers[0];
    assert_eq!(
        codes.container_name.as_deref(),
        Some(container.name.as_str())
    );
    let args = container.args.as_ref().unwrap();
    let shard = args.iter().position(|a| a == "--shard").unwrap();
    assert_eq!(args[shard + 1], "$(JOB_COMPLETION_INDEX)/3");
    let out = args.iter().position(|a| a == "--out").unwrap();
    let mount = &container.volume_mounts.as_ref().unwrap()[0].mount_path;
    assert_eq!(args[out + 1], format!("{mount}/sweep-k8s"));
    let claim = pod.volumes.unwrap()[0]
        .persistent_volume_claim
        .clone()
        .unwrap();
    assert_eq!(claim.claim_name, "sweeps");
    let resources = container.resources.as_ref().unwrap();
    let requests = resources.requests.as_ref().unwrap();
    assert_eq!(requests["cpu"].0, "2");
    assert!(requests["memory"].0.ends_with("Mi"));
}

#[test]
fn the_pods_command_run_as_processes_gives_the_tables_of_one_machine() {
    let local = tempfile::tempdir().unwrap();
    sweep(local.path(), &[]);
    let root = tempfile::tempdir().unwrap();
    let job: Job = serde_yaml_ng::from_str(&emit(root.path())).unwrap();
    let pod = job.spec.unwrap().template.spec.unwrap();
    let container = &pod.containers[0];
    let mount = &container.volume_mounts.as_ref().unwrap()[0].mount_path;
    assert_eq!(
        container.command.as_deref(),
        Some(&["logicars".to_string()][..])
    );
    for index in 0..SHARDS {
        let args: Vec<String> = container
            .args
            .as_ref()
            .unwrap()
            .iter()
            .map(|a| {
                // The kubelet's expansion, and the claim mounted where the test keeps it.
                let a = a.replace("$(JOB_COMPLETION_INDEX)", &index.to_string());
                a.replacen(mount.as_str(), &root.path().display().to_string(), 1)
            })
            .collect();
        let status = std::process::Command::new(program())
            .args(&args)
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "shard {index}");
    }
    let dir = root.path().join("sweep-k8s");
    let (code, err) = merge(&[&dir]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(tables(&dir), tables(local.path()));
}
