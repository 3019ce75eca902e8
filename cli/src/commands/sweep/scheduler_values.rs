//! The values `sweep --emit` writes into a job for the scheduler to read, checked before
//! anything is written: a job the scheduler would reject, or a value that would break the
//! script around it (a space, a newline), is refused here with the formats it takes.

use anyhow::{bail, Result};

use super::{ClusterArgs, Engine};

/// Slurm's time limits: minutes, minutes:seconds, hours:minutes:seconds, days-hours,
/// days-hours:minutes, days-hours:minutes:seconds, or no limit.
const TIME_FORMATS: &str = "MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED";

/// Checks every scheduler value of `cluster` for `engine`, and that none is meant for the
/// other engine.
pub(super) fn check(engine: Engine, cluster: &ClusterArgs) -> Result<()> {
    let slurm_only = [
        ("time", cluster.time.is_some()),
        ("partition", cluster.partition.is_some()),
        ("account", cluster.account.is_some()),
    ];
    match engine {
        Engine::Slurm => {
            if cluster.image.is_some() {
                bail!("--image is for --emit k8s; a Slurm job runs this program's path");
            }
        }
        Engine::K8s => {
            if let Some((flag, _)) = slurm_only.iter().find(|(_, given)| *given) {
                bail!("--{flag} is for --emit slurm; a Kubernetes job has no such field");
            }
        }
    }
    if let Some(time) = &cluster.time {
        if !is_slurm_time(time) {
            bail!("--time {time:?} is not a Slurm time limit: one of {TIME_FORMATS}");
        }
    }
    for (flag, value) in [
        ("partition", &cluster.partition),
        ("account", &cluster.account),
    ] {
        if let Some(value) = value {
            if !is_slurm_name(value) {
                bail!(
                    "--{flag} {value:?} is not a Slurm {flag} name: letters, digits, '_', \
                     '-' and '.' (several {flag}s separated by ',')"
                );
            }
        }
    }
    if let Some(image) = &cluster.image {
        if !is_image_reference(image) {
            bail!(
                "--image {image:?} is not a container image reference such as \
                 registry.example/logicars:0.1.0 (no spaces)"
            );
        }
    }
    if !is_dns_subdomain(&cluster.claim) {
        bail!(
            "--claim {:?} is not a Kubernetes volume claim name: lower-case letters, digits, \
             '-' and '.', starting and ending with a letter or digit, at most 253 characters",
            cluster.claim
        );
    }
    Ok(())
}

/// Whether `text` is one of [`TIME_FORMATS`].
fn is_slurm_time(text: &str) -> bool {
    if ["UNLIMITED", "INFINITE"].contains(&text.to_ascii_uppercase().as_str()) {
        return true;
    }
    let number = |s: &str| (1..=9).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    let (days, clock) = match text.split_once('-') {
        Some((days, clock)) => (Some(days), clock),
        None => (None, text),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    days.is_none_or(number) && parts.len() <= 3 && parts.into_iter().all(number)
}

/// Whether `text` is a Slurm partition or account name, or a list of them.
fn is_slurm_name(text: &str) -> bool {
    text.split(',').all(|name| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    })
}

/// Whether `text` can be a container image reference: registry, path, tag and digest
/// characters only.
fn is_image_reference(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/' | ':' | '@'))
}

/// Whether `text` is a Kubernetes object name (RFC 1123 subdomain).
fn is_dns_subdomain(text: &str) -> bool {
    let ends = |c: Option<char>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    text.len() <= 253
        && ends(text.chars().next())
        && ends(text.chars().last())
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurms_time_formats_and_nothing_else() {
        let good = [
            "30",
            "30:15",
            "2:00:00",
            "1-12",
            "1-12:30",
            "1-12:30:15",
            "0",
            "UNLIMITED",
        ];
        for time in good {
            assert!(is_slurm_time(time), "{time}");
        }
        let bad = [
            "", "garbage", "1:2:3:4", "1-", "-5", "1h", "2:00:", " 30", "1-2-3", "1.5",
        ];
        for time in bad {
            assert!(!is_slurm_time(time), "{time}");
        }
    }

    #[test]
    fn names_that_would_break_a_script_are_not_names() {
        assert!(is_slurm_name("gpu") && is_slurm_name("short,long") && is_slurm_name("a_b-c.d"));
        assert!(!is_slurm_name("") && !is_slurm_name("a b") && !is_slurm_name("a\n#SBATCH"));
        assert!(is_image_reference("registry.example/logicars:0.1.0"));
        assert!(is_image_reference("ghcr.io/x/y@sha256:abc"));
        assert!(!is_image_reference("a b") && !is_image_reference(""));
        assert!(is_dns_subdomain("logicars-sweeps") && is_dns_subdomain("a.b"));
        assert!(!is_dns_subdomain("Sweeps") && !is_dns_subdomain("-a") && !is_dns_subdomain(""));
    }
}
