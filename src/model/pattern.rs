//! Target images of the growing-pattern task, as bits saved with the model; the
//! built-in one is drawn here. Reading and writing PNGs is `io::pattern_image`'s job.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// The largest target side: rollouts of larger grids get slow to train.
pub const MAX_SIDE: usize = 64;

/// What the grid should show after the last step, saved in the model config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternTarget {
    pub height: usize,
    pub width: usize,
    /// Three channels (R, G, B) instead of one.
    pub rgb: bool,
    /// Row-major bits, `channels()` per pixel.
    pub bits: Vec<u8>,
}

impl PatternTarget {
    pub fn channels(&self) -> usize {
        if self.rgb {
            3
        } else {
            1
        }
    }

    pub fn bit(&self, row: usize, col: usize, channel: usize) -> bool {
        self.bits[(row * self.width + col) * self.channels() + channel] == 1
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.height == 0 || self.width == 0 || self.height > MAX_SIDE || self.width > MAX_SIDE {
            return Err(ConfigError::TargetSize {
                height: self.height,
                width: self.width,
                max: MAX_SIDE,
            });
        }
        if self.bits.len() != self.height * self.width * self.channels()
            || self.bits.iter().any(|&b| b > 1)
        {
            return Err(ConfigError::TargetBits);
        }
        Ok(())
    }

    /// The shipped target: a 16x16 letter G, drawn here so nothing is downloaded.
    pub fn builtin() -> Self {
        const ART: [&str; 16] = [
            "................",
            "................",
            ".....######.....",
            "...##########...",
            "..####....###...",
            "..###...........",
            ".###............",
            ".###.....######.",
            ".###.....######.",
            ".###.......###..",
            "..###......###..",
            "..####....####..",
            "...##########...",
            ".....#######....",
            "................",
            "................",
        ];
        let bits = ART
            .iter()
            .flat_map(|row| row.bytes().map(|c| (c == b'#') as u8))
            .collect();
        PatternTarget {
            height: 16,
            width: 16,
            rgb: false,
            bits,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_target_is_valid_with_84_pixels_on() {
        let g = PatternTarget::builtin();
        g.validate().unwrap();
        assert_eq!(g.bits.iter().filter(|&&b| b == 1).count(), 84);
    }

    #[test]
    fn targets_of_a_wrong_size_are_refused() {
        let mut t = PatternTarget::builtin();
        t.bits.pop();
        assert_eq!(t.validate(), Err(ConfigError::TargetBits));
        t.height = 65;
        assert!(matches!(t.validate(), Err(ConfigError::TargetSize { .. })));
    }
}
