//! Target images of the growing-pattern task: loaded from PNG, or the built-in one.

use std::path::Path;

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
            return Err(ConfigError::invalid(format!(
                "a target must be 1..={MAX_SIDE} pixels on each side, got {}x{}",
                self.height, self.width
            )));
        }
        if self.bits.len() != self.height * self.width * self.channels()
            || self.bits.iter().any(|&b| b > 1)
        {
            return Err(ConfigError::invalid(
                "the target's bits do not match its size",
            ));
        }
        Ok(())
    }

    /// Reads a PNG (or any format the image crate reads). A pixel is on when it is
    /// opaque (alpha >= 0.5) and dark (luminance < 0.5); with `rgb`, each of R, G, B of an
    /// opaque pixel is on when it is >= 0.5.
    pub fn load(path: &Path, rgb: bool) -> Result<Self, ConfigError> {
        let img = image::open(path)
            .map_err(|e| {
                ConfigError::invalid(format!("cannot read target image {}: {e}", path.display()))
            })?
            .to_rgba8();
        let (w, h) = (img.width() as usize, img.height() as usize);
        let mut bits = Vec::with_capacity(w * h * if rgb { 3 } else { 1 });
        for px in img.pixels() {
            let [r, g, b, a] = px.0.map(|v| v as f32 / 255.0);
            let opaque = a >= 0.5;
            if rgb {
                bits.extend([r, g, b].map(|v| (opaque && v >= 0.5) as u8));
            } else {
                let luminance = 0.299 * r + 0.587 * g + 0.114 * b;
                bits.push((opaque && luminance < 0.5) as u8);
            }
        }
        let target = PatternTarget {
            height: h,
            width: w,
            rgb,
            bits,
        };
        target
            .validate()
            .map_err(|e| ConfigError::invalid(format!("target image {}: {e}", path.display())))?;
        if !target.bits.contains(&1) {
            return Err(ConfigError::invalid(format!(
                "target image {} has no pixel on (dark and opaque, or bright with --rgb)",
                path.display()
            )));
        }
        Ok(target)
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

    /// The target as a PNG (black on white, or its colours), for documentation.
    pub fn png_bytes(&self) -> Vec<u8> {
        let img = image::RgbImage::from_fn(self.width as u32, self.height as u32, |x, y| {
            let (r, c) = (y as usize, x as usize);
            if self.rgb {
                image::Rgb([0, 1, 2].map(|ch| if self.bit(r, c, ch) { 255 } else { 0 }))
            } else {
                let v = if self.bit(r, c, 0) { 0 } else { 255 };
                image::Rgb([v, v, v])
            }
        });
        let mut out = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .expect("encoding a PNG in memory");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_target_round_trips_through_png() {
        let g = PatternTarget::builtin();
        g.validate().unwrap();
        assert_eq!(g.bits.iter().filter(|&&b| b == 1).count(), 84);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.png");
        std::fs::write(&path, g.png_bytes()).unwrap();
        assert_eq!(PatternTarget::load(&path, false).unwrap(), g);
    }

    #[test]
    fn shipped_target_file_is_the_builtin_one() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/target-g.png");
        if std::env::var_os("UPDATE_ASSETS").is_some() {
            std::fs::write(&path, PatternTarget::builtin().png_bytes()).unwrap();
        }
        assert_eq!(
            PatternTarget::load(&path, false).unwrap(),
            PatternTarget::builtin()
        );
    }

    #[test]
    fn unreadable_empty_or_huge_images_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let junk = dir.path().join("junk.png");
        std::fs::write(&junk, b"not a png").unwrap();
        assert!(PatternTarget::load(&junk, false)
            .unwrap_err()
            .to_string()
            .contains("cannot read"));
        let white = dir.path().join("white.png");
        image::RgbImage::from_pixel(4, 4, image::Rgb([255, 255, 255]))
            .save(&white)
            .unwrap();
        assert!(PatternTarget::load(&white, false)
            .unwrap_err()
            .to_string()
            .contains("no pixel on"));
        let huge = dir.path().join("huge.png");
        image::RgbImage::new(100, 10).save(&huge).unwrap();
        assert!(PatternTarget::load(&huge, false)
            .unwrap_err()
            .to_string()
            .contains("1..=64"));
    }

    #[test]
    fn rgb_targets_keep_three_channels() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.png");
        let mut img = image::RgbImage::new(2, 1);
        img.put_pixel(0, 0, image::Rgb([255, 0, 255]));
        img.save(&path).unwrap();
        let t = PatternTarget::load(&path, true).unwrap();
        assert_eq!(t.bits, vec![1, 0, 1, 0, 0, 0]);
    }
}
