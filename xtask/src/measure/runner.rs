//! Running a binary once and measuring it: wall, user and system time, peak RSS.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::results::measured::Measurement;
use crate::support::text::tail;

/// One run of one program.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    /// Cores the process may run on (empty: wherever the system puts it).
    pub cpus: Vec<usize>,
}

/// Runs programs. Behind a trait so tests can measure without processes.
pub trait Runner {
    fn run(&mut self, invocation: &Invocation) -> Result<Measurement>;
}

/// Spawns the process and reads its own resource usage with `wait4`.
pub struct ProcessRunner;

impl Runner for ProcessRunner {
    fn run(&mut self, inv: &Invocation) -> Result<Measurement> {
        std::fs::create_dir_all(&inv.cwd)
            .with_context(|| format!("creating {}", inv.cwd.display()))?;
        // Files, not pipes: a chatty child can never block on a full pipe.
        let stdout_file = tempfile::tempfile()?;
        let stderr_file = tempfile::tempfile()?;
        let mut command = Command::new(&inv.program);
        pin(&mut command, &inv.cpus);
        let start = Instant::now();
        let child = command
            .args(&inv.args)
            .current_dir(&inv.cwd)
            .envs(inv.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(stdout_file.try_clone()?)
            .stderr(stderr_file.try_clone()?)
            .spawn()
            .with_context(|| format!("starting {}", inv.program.display()))?;
        let (status, usage) = wait4(child.id() as libc::pid_t)?;
        let wall_s = start.elapsed().as_secs_f64();
        let exit_code = if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            128 + libc::WTERMSIG(status)
        };
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Ok(Measurement {
            wall_s,
            user_s: seconds(usage.ru_utime),
            system_s: seconds(usage.ru_stime),
            // Linux reports ru_maxrss in KiB.
            max_rss_kb: usage.ru_maxrss as u64,
            exit_code,
            stdout: read_all(stdout_file)?,
            stderr: read_all(stderr_file)?,
            compute_s: None,
        })
    }
}

/// Restricts the child to `cpus` before it starts (no-op for an empty list).
fn pin(command: &mut Command, cpus: &[usize]) {
    use std::os::unix::process::CommandExt;
    if cpus.is_empty() {
        return;
    }
    // SAFETY: cpu_set_t is plain data; CPU_ZERO/CPU_SET only write inside it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        // SAFETY: as above; `cpu` is below CPU_SETSIZE (checked by `parse_cpus`).
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: the closure runs between fork and exec and only makes one system call.
    unsafe {
        command.pre_exec(move || {
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

/// The cores this process may run on, lowest first.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data that sched_getaffinity fills in.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer and size describe `set`.
    let ok =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if ok != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `cpu` is below CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

/// Parses a core list such as `0,2-3` (sorted, without repeats).
pub fn parse_cpus(text: &str) -> Result<Vec<usize>, String> {
    let mut cpus = Vec::new();
    for part in text.split(',').map(str::trim) {
        let bad = || format!("expected core numbers such as 0,2-3, got '{part}'");
        let (from, to) = match part.split_once('-') {
            Some((a, b)) => (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?),
            None => {
                let n: usize = part.parse().map_err(|_| bad())?;
                (n, n)
            }
        };
        if from > to || to >= libc::CPU_SETSIZE as usize {
            return Err(bad());
        }
        cpus.extend(from..=to);
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

fn wait4(pid: libc::pid_t) -> Result<(libc::c_int, libc::rusage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data that wait4 fills in; zeroed is a valid initial value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is our own child, not yet reaped; both pointers are valid for writes.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok((status, usage));
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err).context("waiting for the child process");
        }
    }
}

fn read_all(mut file: std::fs::File) -> Result<String> {
    use std::io::{Read, Seek};
    file.rewind()?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    Ok(text)
}

/// Runs and insists on success, showing the end of stderr otherwise.
pub fn run_checked(runner: &mut dyn Runner, inv: &Invocation, what: &str) -> Result<Measurement> {
    let m = runner.run(inv)?;
    if m.exit_code != 0 {
        bail!(
            "{what} exited with code {}: {} {}\n--- last lines of its stderr ---\n{}",
            m.exit_code,
            inv.program.display(),
            inv.args.join(" "),
            tail(&m.stderr, 15)
        );
    }
    Ok(m)
}

/// Runs every workload once (profile collection), in order.
pub fn run_workloads(
    runner: &mut dyn Runner,
    binary: &Path,
    set: &crate::workloads::WorkloadSet,
    scratch: &Path,
    env: &[(String, String)],
) -> Result<()> {
    for w in &set.workloads {
        run_workload(runner, binary, w, scratch, env)?;
    }
    Ok(())
}

/// Runs one workload once, insisting on success.
pub fn run_workload(
    runner: &mut dyn Runner,
    binary: &Path,
    w: &crate::workloads::Workload,
    scratch: &Path,
    env: &[(String, String)],
) -> Result<()> {
    eprintln!("[run] {}: {}", w.name, w.command_line());
    let inv = Invocation {
        program: binary.to_path_buf(),
        args: w.args_in(scratch),
        cwd: scratch.to_path_buf(),
        env: env.to_vec(),
        cpus: Vec::new(),
    };
    run_checked(runner, &inv, &format!("workload '{}'", w.name))?;
    Ok(())
}

/// Runs, once with `binary`, the earlier workloads of `full` that write a file `workload`
/// reads (an evaluation reads the model a training saved).
pub fn run_inputs_of(
    runner: &mut dyn Runner,
    full: &crate::workloads::WorkloadSet,
    workload: &crate::workloads::Workload,
    binary: &Path,
    scratch: &Path,
) -> Result<()> {
    let outputs = ["--save", "--log", "--artefacts"];
    let reads: Vec<&String> = workload
        .args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            a.contains("{scratch}")
                && (*i == 0 || !outputs.contains(&workload.args[i - 1].as_str()))
        })
        .map(|(_, a)| a)
        .collect();
    std::fs::create_dir_all(scratch)?;
    for earlier in full
        .workloads
        .iter()
        .take_while(|w| w.name != workload.name)
    {
        if earlier.args.iter().any(|a| reads.contains(&a)) {
            run_workload(runner, binary, earlier, scratch, &[])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_a_real_process() {
        let dir = tempfile::tempdir().unwrap();
        let inv = Invocation {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), "echo out; echo err >&2; exit 3".into()],
            cwd: dir.path().into(),
            env: vec![],
            cpus: vec![],
        };
        let m = ProcessRunner.run(&inv).unwrap();
        assert_eq!(m.exit_code, 3);
        assert_eq!(m.stdout, "out\n");
        assert_eq!(m.stderr, "err\n");
        assert!(m.wall_s > 0.0 && m.max_rss_kb > 0);
        let err = run_checked(&mut ProcessRunner, &inv, "probe")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("exited with code 3") && err.contains("err"),
            "{err}"
        );
    }

    #[test]
    fn a_pinned_process_runs_on_the_named_core_only() {
        let dir = tempfile::tempdir().unwrap();
        let first = allowed_cpus()[0];
        let inv = Invocation {
            program: "/bin/sh".into(),
            args: vec![
                "-c".into(),
                "grep Cpus_allowed_list /proc/self/status".into(),
            ],
            cwd: dir.path().into(),
            env: vec![],
            cpus: vec![first],
        };
        let m = ProcessRunner.run(&inv).unwrap();
        assert_eq!(
            m.stdout.split_whitespace().last(),
            Some(first.to_string().as_str())
        );
    }

    /// Records what it is asked to run.
    struct Recorder(Vec<String>);

    impl Runner for Recorder {
        fn run(&mut self, inv: &Invocation) -> Result<Measurement> {
            self.0.push(inv.args.join(" "));
            Ok(Measurement {
                wall_s: 0.0,
                user_s: 0.0,
                system_s: 0.0,
                max_rss_kb: 0,
                exit_code: 0,
                stdout: String::new(),
                stderr: String::new(),
                compute_s: None,
            })
        }
    }

    #[test]
    fn only_the_workloads_that_write_what_one_reads_run_first() {
        let set = crate::workloads::WorkloadSet::parse(
            Path::new("t.toml"),
            "[[workload]]\nname = \"model\"\nargs = [\"train\", \"--save\", \"{scratch}/m.json\"]\n\
             [[workload]]\nname = \"other\"\nargs = [\"train\", \"--save\", \"{scratch}/x.json\"]\n\
             [[workload]]\nname = \"eval\"\nargs = [\"eval\", \"--model\", \"{scratch}/m.json\"]\n",
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut recorder = Recorder(vec![]);
        let bin = Path::new("/bin/logicars");
        run_inputs_of(&mut recorder, &set, &set.workloads[2], bin, dir.path()).unwrap();
        let model = format!("train --save {}/m.json", dir.path().display());
        assert_eq!(recorder.0, [model]);
        run_inputs_of(&mut recorder, &set, &set.workloads[1], bin, dir.path()).unwrap();
        assert_eq!(recorder.0.len(), 1, "a training reads nothing");
    }

    #[test]
    fn core_lists_parse_like_taskset() {
        assert_eq!(parse_cpus("0,2-3").unwrap(), [0, 2, 3]);
        assert_eq!(parse_cpus("3,1,1").unwrap(), [1, 3]);
        for bad in ["", "a", "3-1", "0-", "99999"] {
            assert!(parse_cpus(bad).is_err(), "{bad}");
        }
    }
}
