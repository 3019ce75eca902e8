//! Target images of the pattern task as PNG files: reading a user's image into target
//! bits, and drawing target bits back as a PNG for documentation.

use std::path::Path;

use crate::error::PatternImageError;
use crate::model::pattern::PatternTarget;

/// Reads a PNG (or any format the image crate reads). A pixel is on when it is opaque
/// (alpha >= 0.5) and dark (luminance < 0.5); with `rgb`, each of R, G, B of an opaque
/// pixel is on when it is >= 0.5.
pub fn load(path: &Path, rgb: bool) -> Result<PatternTarget, PatternImageError> {
    let img = image::open(path)
        .map_err(|e| PatternImageError::Read {
            path: path.to_path_buf(),
            message: e.to_string(),
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
        .map_err(|cause| PatternImageError::Invalid {
            path: path.to_path_buf(),
            cause,
        })?;
    if !target.bits.contains(&1) {
        return Err(PatternImageError::Blank {
            path: path.to_path_buf(),
        });
    }
    Ok(target)
}

/// The target as a PNG (black on white, or its colours).
pub fn png_bytes(target: &PatternTarget) -> Vec<u8> {
    let img = image::RgbImage::from_fn(target.width as u32, target.height as u32, |x, y| {
        let (r, c) = (y as usize, x as usize);
        if target.rgb {
            image::Rgb([0, 1, 2].map(|ch| if target.bit(r, c, ch) { 255 } else { 0 }))
        } else {
            let v = if target.bit(r, c, 0) { 0 } else { 255 };
            image::Rgb([v, v, v])
        }
    });
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .expect("encoding a PNG in memory cannot fail");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn builtin_target_round_trips_through_png() {
        let g = PatternTarget::builtin();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.png");
        std::fs::write(&path, png_bytes(&g)).unwrap();
        assert_eq!(load(&path, false).unwrap(), g);
    }

    #[test]
    fn shipped_target_file_is_the_builtin_one() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/target-g.png");
        if std::env::var_os("UPDATE_ASSETS").is_some() {
            std::fs::write(&path, png_bytes(&PatternTarget::builtin())).unwrap();
        }
        assert_eq!(load(&path, false).unwrap(), PatternTarget::builtin());
    }

    #[test]
    fn unreadable_empty_or_huge_images_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let junk = dir.path().join("junk.png");
        std::fs::write(&junk, b"not a png").unwrap();
        assert!(load(&junk, false)
            .unwrap_err()
            .to_string()
            .contains("cannot read"));
        let white = dir.path().join("white.png");
        image::RgbImage::from_pixel(4, 4, image::Rgb([255, 255, 255]))
            .save(&white)
            .unwrap();
        assert!(load(&white, false)
            .unwrap_err()
            .to_string()
            .contains("no pixel on"));
        let huge = dir.path().join("huge.png");
        image::RgbImage::new(100, 10).save(&huge).unwrap();
        assert!(load(&huge, false)
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
        let t = load(&path, true).unwrap();
        assert_eq!(t.bits, vec![1, 0, 1, 0, 0, 0]);
    }
}
