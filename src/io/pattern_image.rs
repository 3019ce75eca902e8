//! Target images of the growing tasks as files: reading a user's image (bounded, every
//! PNG chunk checked) into target bits the way its task reads images, and drawing target
//! bits back as a PNG for documentation.

use std::path::Path;

use crate::error::{PatternImageError, TargetImageError};
use crate::model::pattern::PatternTarget;
use crate::tasks::target_images::{target_from_image, ImageSpec};

/// Reads the image file at `path` into a target as `spec` says.
pub fn load(path: &Path, spec: ImageSpec) -> Result<PatternTarget, PatternImageError> {
    let read_err = |message: String| PatternImageError::Read {
        path: path.to_path_buf(),
        message,
    };
    let bytes = read_bounded(path).map_err(read_err)?;
    if bytes.starts_with(PNG_SIGNATURE) {
        check_png_chunks(&bytes).map_err(read_err)?;
    }
    target_from_image(&bytes, spec).map_err(|e| match e {
        TargetImageError::Invalid(cause) => PatternImageError::Invalid {
            path: path.to_path_buf(),
            cause,
        },
        TargetImageError::Blank { rule } => PatternImageError::Blank {
            path: path.to_path_buf(),
            rule,
        },
        e => read_err(e.to_string()),
    })
}

/// Target images are small; a larger file is not one.
const MAX_FILE_BYTES: u64 = 16 << 20;

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The file's bytes, refusing files too large to be a target image.
fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if size > MAX_FILE_BYTES {
        return Err(format!("{size} bytes, more than a target image can be"));
    }
    std::fs::read(path).map_err(|e| e.to_string())
}

/// Every chunk of a PNG whole with its CRC, and IEND last with nothing after it: the
/// decoder stops once it has the pixels and would accept a file cut after them.
fn check_png_chunks(bytes: &[u8]) -> Result<(), String> {
    let mut at = PNG_SIGNATURE.len();
    loop {
        let header = bytes
            .get(at..at + 8)
            .ok_or("the file ends inside a chunk header")?;
        let len = u32::from_be_bytes(header[..4].try_into().expect("4 bytes")) as usize;
        let kind = String::from_utf8_lossy(&header[4..8]).into_owned();
        let end = (at + 8).checked_add(len).and_then(|e| e.checked_add(4));
        let chunk = end
            .and_then(|end| bytes.get(at + 4..end))
            .ok_or_else(|| format!("the file ends inside its {kind} chunk"))?;
        let (body, crc) = chunk.split_at(chunk.len() - 4);
        if crc32fast::hash(body).to_be_bytes() != crc {
            return Err(format!("the {kind} chunk fails its checksum"));
        }
        at += 12 + len;
        if kind == "IEND" {
            return match at == bytes.len() {
                true => Ok(()),
                false => Err("data after the IEND chunk".into()),
            };
        }
    }
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
    use crate::tasks::target_images::ImageRule;
    use std::path::Path;

    const DARK: ImageSpec = ImageSpec {
        rule: ImageRule::Dark,
        fit: None,
    };
    const COLOURS: ImageSpec = ImageSpec {
        rule: ImageRule::Colours,
        fit: None,
    };

    #[test]
    fn builtin_target_round_trips_through_png() {
        let g = PatternTarget::builtin();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.png");
        std::fs::write(&path, png_bytes(&g)).unwrap();
        assert_eq!(load(&path, DARK).unwrap(), g);
    }

    #[test]
    fn shipped_target_file_is_the_builtin_one() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/target-g.png");
        if std::env::var_os("UPDATE_ASSETS").is_some() {
            std::fs::write(&path, png_bytes(&PatternTarget::builtin())).unwrap();
        }
        assert_eq!(load(&path, DARK).unwrap(), PatternTarget::builtin());
    }

    #[test]
    fn unreadable_empty_or_huge_images_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let junk = dir.path().join("junk.png");
        std::fs::write(&junk, b"not a png").unwrap();
        assert!(load(&junk, DARK)
            .unwrap_err()
            .to_string()
            .contains("cannot read"));
        let white = dir.path().join("white.png");
        image::RgbImage::from_pixel(4, 4, image::Rgb([255, 255, 255]))
            .save(&white)
            .unwrap();
        assert!(load(&white, DARK)
            .unwrap_err()
            .to_string()
            .contains("no pixel on"));
        let huge = dir.path().join("huge.png");
        image::RgbImage::new(100, 10).save(&huge).unwrap();
        let err = load(&huge, DARK).unwrap_err().to_string();
        assert!(
            err.ends_with("larger than 64x64 pixels, the largest target"),
            "{err}"
        );
    }

    #[test]
    fn a_cut_or_corrupt_png_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.png");
        let good = png_bytes(&PatternTarget::builtin());
        let error = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            let err = load(&path, DARK).unwrap_err().to_string();
            err.rsplit(": ").next().unwrap().to_string()
        };
        let n = good.len();
        assert_eq!(error(&good[..n - 2]), "the file ends inside its IEND chunk");
        assert_eq!(
            error(&good[..n - 12]),
            "the file ends inside a chunk header"
        );
        let mut flipped = good.clone();
        flipped[n - 1] ^= 1;
        assert_eq!(error(&flipped), "the IEND chunk fails its checksum");
        let mut flipped = good.clone();
        flipped[40] ^= 0x10;
        assert!(error(&flipped).ends_with("chunk fails its checksum"));
        assert_eq!(
            error(&[good.as_slice(), b"x"].concat()),
            "data after the IEND chunk"
        );
    }

    #[test]
    fn rgb_targets_keep_three_channels() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.png");
        let mut img = image::RgbImage::new(2, 1);
        img.put_pixel(0, 0, image::Rgb([255, 0, 255]));
        img.save(&path).unwrap();
        let t = load(&path, COLOURS).unwrap();
        assert_eq!(t.bits, vec![1, 0, 1, 0, 0, 0]);
    }
}
