//! `report --resume`: a report's earlier rounds, taken up only when they were measured on
//! the same kind of machine, with binaries of the same hashes, on the same workloads; and
//! the saving of every report's rounds for a later stretch.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::machine::Machine;
use crate::measure::agreement::results_of;
use crate::measure::Contestant;
use crate::results::measured::Samples;
use crate::results::saved_rounds::{SavedBinary, SavedRounds, SavedRun, SavedWorkload, FORMAT};
use crate::stages::manifest::file_hash;
use crate::workloads::WorkloadSet;

/// Where report `name`'s rounds are kept.
pub fn rounds_path(out_dir: &Path, name: &str) -> PathBuf {
    out_dir.join(name).join("rounds.json")
}

/// Each contestant's variant with the hash of its binary.
pub fn fingerprints(contestants: &[Contestant]) -> Result<Vec<SavedBinary>> {
    contestants
        .iter()
        .map(|c| {
            Ok(SavedBinary {
                variant: c.variant.clone(),
                sha256: file_hash(&c.binary)?,
            })
        })
        .collect()
}

/// The rounds saved at `path`, if this stretch may go on from them; an error says what
/// differs otherwise.
pub fn load(
    path: &Path,
    machine: &Machine,
    binaries: &[SavedBinary],
    set: &WorkloadSet,
) -> Result<SavedRounds> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "no earlier rounds to resume at {} (run the report once without --resume)",
            path.display()
        )
    })?;
    let saved: SavedRounds =
        serde_json::from_str(&text).with_context(|| format!("reading {}", path.display()))?;
    check_compatible(&saved, machine, binaries, set)
        .with_context(|| format!("cannot resume the rounds of {}", path.display()))?;
    Ok(saved)
}

fn check_compatible(
    saved: &SavedRounds,
    machine: &Machine,
    binaries: &[SavedBinary],
    set: &WorkloadSet,
) -> Result<()> {
    if saved.format != FORMAT {
        bail!(
            "they are in layout {}, this pipeline writes {FORMAT}",
            saved.format
        );
    }
    if !saved.machine.same_kind(machine) {
        let kind = |m: &Machine| format!("{}, {} cores, {}", m.cpu, m.cores, m.simd);
        bail!(
            "they were measured on {}, this machine is {}",
            kind(&saved.machine),
            kind(machine)
        );
    }
    let names = |b: &[SavedBinary]| b.iter().map(|b| b.variant.clone()).collect::<Vec<_>>();
    if names(&saved.binaries) != names(binaries) {
        bail!(
            "they compare {:?}, this report {:?} (the same variants, in the same order)",
            names(&saved.binaries),
            names(binaries)
        );
    }
    for (then, now) in saved.binaries.iter().zip(binaries) {
        if then.sha256 != now.sha256 {
            bail!(
                "the {} binary changed since (sha256 {} then, {} now)",
                now.variant,
                short(&then.sha256),
                short(&now.sha256)
            );
        }
    }
    let saved_workloads: Vec<(&str, &str)> = saved
        .workloads
        .iter()
        .map(|w| (w.name.as_str(), w.command.as_str()))
        .collect();
    let commands: Vec<String> = set.workloads.iter().map(|w| w.command_line()).collect();
    let workloads: Vec<(&str, &str)> = set
        .workloads
        .iter()
        .zip(&commands)
        .map(|(w, c)| (w.name.as_str(), c.as_str()))
        .collect();
    if saved_workloads != workloads {
        bail!(
            "their workloads differ from this set's: {saved_workloads:?} then, {workloads:?} now"
        );
    }
    let whole = saved.workloads.iter().all(|w| {
        let rounds = w.runs.first().map_or(0, Vec::len);
        w.runs.len() == binaries.len() && w.runs.iter().all(|r| r.len() == rounds)
    });
    if !whole {
        bail!("every variant must have run every round");
    }
    Ok(())
}

fn short(hash: &str) -> &str {
    &hash[..hash.len().min(12)]
}

/// The rounds to save: every run measured so far (whose results the variants agreed
/// on, as [`measure`] checks), with the stretches they came from (an earlier file's,
/// then this one's).
///
/// [`measure`]: crate::measure::rounds::measure
pub fn to_save(
    earlier: Option<&SavedRounds>,
    machine: &Machine,
    binaries: &[SavedBinary],
    set: &WorkloadSet,
    samples: &[&[Samples]],
) -> SavedRounds {
    let (first_machine, mut stretches) = match earlier {
        Some(e) => (e.machine.clone(), e.stretches.clone()),
        None => (machine.clone(), Vec::new()),
    };
    stretches.push(machine.date.clone());
    let workloads = set
        .workloads
        .iter()
        .zip(samples)
        .map(|(w, samples)| SavedWorkload {
            name: w.name.clone(),
            command: w.command_line(),
            results: samples[0]
                .runs
                .first()
                .map_or_else(String::new, |r| results_of(&r.stdout)),
            runs: samples
                .iter()
                .map(|s| s.runs.iter().map(SavedRun::of).collect())
                .collect(),
        })
        .collect();
    SavedRounds {
        format: FORMAT,
        machine: first_machine,
        stretches,
        binaries: binaries.to_vec(),
        workloads,
        attribution: earlier.and_then(|e| e.attribution.clone()),
    }
}

/// Writes the rounds whole (or not at all).
pub fn save(path: &Path, rounds: &SavedRounds) -> Result<()> {
    let text = serde_json::to_string_pretty(rounds)?;
    logicars::io::atomic::write_atomically(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::measured::Measurement;
    use crate::results::samples::FunctionSamples;
    use crate::results::saved_rounds::SavedAttribution;

    fn machine(simd: &str, date: &str) -> Machine {
        Machine {
            cpu: "AMD EPYC".into(),
            cores: 2,
            simd: simd.into(),
            rustc: "rustc 1.95.0".into(),
            llvm_major: 22,
            commit: "abc1234".into(),
            date: date.into(),
        }
    }

    fn set() -> WorkloadSet {
        WorkloadSet::parse(
            Path::new("t.toml"),
            "[[workload]]\nname = \"w1\"\nargs = [\"one\"]\n",
        )
        .unwrap()
    }

    fn binaries(pgo_hash: &str) -> Vec<SavedBinary> {
        [("release", "aa"), ("pgo", pgo_hash)]
            .map(|(variant, sha256)| SavedBinary {
                variant: variant.into(),
                sha256: sha256.into(),
            })
            .to_vec()
    }

    fn run(compute_s: f64) -> Measurement {
        Measurement {
            wall_s: compute_s + 0.1,
            user_s: compute_s,
            system_s: 0.01,
            max_rss_kb: 1000,
            exit_code: 0,
            stdout: "acc=1\nwall time:    1 s".into(),
            stderr: "progress".into(),
            compute_s: Some(compute_s),
        }
    }

    /// One workload's runs of two variants.
    fn measured(rounds: usize) -> Vec<Samples> {
        let samples = |t: f64| Samples {
            runs: (0..rounds).map(|_| run(t)).collect(),
        };
        vec![samples(2.0), samples(1.0)]
    }

    /// Saved, loaded back and continued: the runs come back as they were measured (their
    /// output cut to the results the variants must agree on), and the stretches add up.
    #[test]
    fn rounds_saved_come_back_and_a_second_stretch_is_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let path = rounds_path(dir.path(), "r");
        let first = machine("AVX2", "2026-11-27 14:00:00 UTC");
        let saved = to_save(None, &first, &binaries("bb"), &set(), &[&measured(3)]);
        save(&path, &saved).unwrap();

        let later = machine("AVX2", "2026-11-28 09:00:00 UTC");
        let loaded = load(&path, &later, &binaries("bb"), &set()).unwrap();
        assert_eq!(loaded, saved);
        let samples = loaded.workloads[0].samples();
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[1].runs.len(), 3);
        assert_eq!(samples[1].runs[0].compute_s, Some(1.0));
        assert_eq!(samples[1].runs[0].stdout, "acc=1");

        let again = to_save(
            Some(&loaded),
            &later,
            &binaries("bb"),
            &set(),
            &[&measured(5)],
        );
        assert_eq!(
            again.stretches,
            ["2026-11-27 14:00:00 UTC", "2026-11-28 09:00:00 UTC"]
        );
        assert_eq!(again.machine, first, "the first stretch's machine is kept");
        assert_eq!(again.workloads[0].runs[0].len(), 5);
    }

    /// The counts and samples a stretch took are kept by the next stretch's saves; a
    /// file of a stretch that stopped before them loads without them.
    #[test]
    fn counts_and_samples_are_kept_across_stretches() {
        let dir = tempfile::tempdir().unwrap();
        let path = rounds_path(dir.path(), "r");
        let here = machine("AVX2", "then");
        let mut first = to_save(None, &here, &binaries("bb"), &set(), &[&measured(2)]);
        save(&path, &first).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("attribution"), "{text}");
        assert_eq!(load(&path, &here, &binaries("bb"), &set()).unwrap(), first);

        let sampled = FunctionSamples {
            runs: 3,
            by_function: [("f".to_string(), 30)].into(),
        };
        first.attribution = Some(SavedAttribution {
            counted: Vec::new(),
            samples: vec![vec![sampled.clone(), sampled]],
        });
        save(&path, &first).unwrap();
        let loaded = load(&path, &here, &binaries("bb"), &set()).unwrap();
        assert_eq!(loaded, first);
        let next = to_save(
            Some(&loaded),
            &here,
            &binaries("bb"),
            &set(),
            &[&measured(4)],
        );
        assert_eq!(next.attribution, first.attribution);
    }

    #[test]
    fn rounds_of_other_binaries_machines_or_workloads_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = rounds_path(dir.path(), "r");
        let here = machine("AVX2", "then");
        save(
            &path,
            &to_save(None, &here, &binaries("bb"), &set(), &[&measured(2)]),
        )
        .unwrap();
        let refusal = |m: &Machine, b: &[SavedBinary], s: &WorkloadSet| {
            format!("{:#}", load(&path, m, b, s).unwrap_err())
        };

        let err = refusal(&here, &binaries("cc"), &set());
        assert!(err.contains("the pgo binary changed"), "{err}");
        let err = refusal(&machine("AVX-512", "now"), &binaries("bb"), &set());
        assert!(
            err.contains("this machine is AMD EPYC, 2 cores, AVX-512"),
            "{err}"
        );
        let other = WorkloadSet::parse(
            Path::new("t.toml"),
            "[[workload]]\nname = \"w1\"\nargs = [\"two\"]\n",
        )
        .unwrap();
        let err = refusal(&here, &binaries("bb"), &other);
        assert!(err.contains("workloads differ"), "{err}");
        let err = refusal(&here, &binaries("bb")[..1], &set());
        assert!(err.contains("the same variants"), "{err}");
        let missing = format!(
            "{:#}",
            load(
                &dir.path().join("none.json"),
                &here,
                &binaries("bb"),
                &set()
            )
            .unwrap_err()
        );
        assert!(missing.contains("without --resume"), "{missing}");
    }
}
