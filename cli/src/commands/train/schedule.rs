//! When a running session writes its checkpoint: every N epochs, every N seconds, or
//! never (a signal always writes one).

use std::str::FromStr;
use std::time::Instant;

/// How often a running session writes its checkpoint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CheckpointEvery {
    Epochs(usize),
    Seconds(u64),
    Off,
}

impl FromStr for CheckpointEvery {
    type Err = String;

    /// `100` (epochs), `30s` (seconds) or `off`.
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("expected N epochs, Ns seconds or off, got {text}");
        let count = |n: &str| n.parse::<u64>().ok().filter(|&n| n >= 1).ok_or_else(bad);
        match text {
            "off" => Ok(CheckpointEvery::Off),
            _ => match text.strip_suffix('s') {
                Some(seconds) => Ok(CheckpointEvery::Seconds(count(seconds)?)),
                None => Ok(CheckpointEvery::Epochs(count(text)? as usize)),
            },
        }
    }
}

/// Whether a checkpoint is due after an epoch.
pub struct Schedule {
    every: CheckpointEvery,
    last: Instant,
}

impl Schedule {
    /// A schedule whose seconds count from now.
    pub fn starting_now(every: CheckpointEvery) -> Self {
        Schedule {
            every,
            last: Instant::now(),
        }
    }

    pub fn due(&mut self, epoch: usize) -> bool {
        let due = match self.every {
            CheckpointEvery::Epochs(n) => epoch.is_multiple_of(n),
            CheckpointEvery::Seconds(s) => self.last.elapsed().as_secs() >= s,
            CheckpointEvery::Off => false,
        };
        if due {
            self.last = Instant::now();
        }
        due
    }
}
