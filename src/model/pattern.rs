//! Target images of the growing-pattern task, as bits saved with the model; the
//! built-in one is drawn here. Reading and writing PNGs is `io::pattern_image`'s job.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// The largest target image side: rollouts of larger grids get slow to train.
pub const MAX_SIDE: usize = 64;

/// The largest side of a saved target: an image placed in the grid it grows on, with room
/// around it ([`crate::tasks::pattern_geometry`]).
pub const MAX_GRID_SIDE: usize = 2 * MAX_SIDE;

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

    /// Checks a saved target: its size (up to [`MAX_GRID_SIDE`]) and its bits.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_within(MAX_GRID_SIDE)
    }

    /// Checks a target image given by the user: at most [`MAX_SIDE`] a side, and at least
    /// one cell on (a rule that grows nothing is no pattern).
    pub fn validate_image(&self) -> Result<(), ConfigError> {
        self.validate_within(MAX_SIDE)?;
        match self.bits.contains(&1) {
            true => Ok(()),
            false => Err(ConfigError::EmptyTarget),
        }
    }

    fn validate_within(&self, max: usize) -> Result<(), ConfigError> {
        if self.height == 0 || self.width == 0 || self.height > max || self.width > max {
            return Err(ConfigError::TargetSize {
                height: self.height,
                width: self.width,
                max,
            });
        }
        if self.bits.len() != self.height * self.width * self.channels()
            || self.bits.iter().any(|&b| b > 1)
        {
            return Err(ConfigError::TargetBits);
        }
        Ok(())
    }

    /// This target in the centre of an empty `height x width` grid, placed as
    /// [`crate::tasks::target`] places it (its centre cell on the grid's), cropped where the
    /// grid is smaller.
    pub fn centred_in(&self, height: usize, width: usize) -> Self {
        let channels = self.channels();
        let offset = |grid: usize, own: usize| grid as isize / 2 - own as isize / 2;
        let (dr, dc) = (offset(height, self.height), offset(width, self.width));
        let mut bits = vec![0; height * width * channels];
        for row in 0..self.height {
            for col in 0..self.width {
                let (r, c) = (row as isize + dr, col as isize + dc);
                if r < 0 || c < 0 || r >= height as isize || c >= width as isize {
                    continue;
                }
                let to = (r as usize * width + c as usize) * channels;
                let from = (row * self.width + col) * channels;
                bits[to..to + channels].copy_from_slice(&self.bits[from..from + channels]);
            }
        }
        PatternTarget {
            height,
            width,
            rgb: self.rgb,
            bits,
        }
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
        t.height = MAX_GRID_SIDE + 1;
        assert!(matches!(t.validate(), Err(ConfigError::TargetSize { .. })));
    }

    #[test]
    fn an_image_is_at_most_64_a_side_and_has_a_cell_on() {
        let mut t = PatternTarget::builtin();
        t.validate_image().unwrap();
        t.bits.fill(0);
        assert_eq!(t.validate_image(), Err(ConfigError::EmptyTarget));
        let wide = PatternTarget::builtin().centred_in(16, MAX_SIDE + 1);
        assert!(wide.validate().is_ok(), "a placed target may be wider");
        assert!(matches!(
            wide.validate_image(),
            Err(ConfigError::TargetSize { max: MAX_SIDE, .. })
        ));
    }

    #[test]
    fn centring_pads_and_crops_around_the_centre_cell() {
        // A 3x2 image, its centre cell (1, 1), in a 5x4 grid: centre (2, 2), so the image
        // moves one row down and one column right.
        let t = PatternTarget {
            height: 3,
            width: 2,
            rgb: false,
            bits: vec![1, 0, 0, 1, 1, 1],
        };
        let placed = t.centred_in(5, 4);
        let rows: Vec<String> = placed
            .bits
            .chunks(4)
            .map(|r| r.iter().map(|&b| char::from(b'0' + b)).collect())
            .collect();
        assert_eq!(rows, ["0000", "0100", "0010", "0110", "0000"]);
        assert_eq!(placed.centred_in(3, 2), t, "and back");
        // Cropped to its centre cell alone.
        assert_eq!(t.centred_in(1, 1).bits, [1]);
    }
}
