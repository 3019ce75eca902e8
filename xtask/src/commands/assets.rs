//! `cargo xtask assets`: draws `assets/lizard-noto.png`, a larger lizard for `--target` (the
//! `lizard` preset's own target is the notebook's 32x32 image), from the lizard glyph (U+1F98E) of the Noto Color Emoji font that Debian's
//! `fonts-noto-color-emoji` package installs (SIL Open Font License 1.1; see
//! `assets/README.md`). The file is committed; this command only says how it was made.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use image::{imageops, RgbaImage};

use crate::paths;

/// Where `fonts-noto-color-emoji` puts the font.
const DEBIAN_FONT: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";
const LIZARD: char = '\u{1F98E}';

#[derive(Debug, Args)]
pub struct AssetsArgs {
    /// The Noto Color Emoji font file.
    #[arg(long, default_value = DEBIAN_FONT)]
    pub font: PathBuf,
}

pub fn run(args: AssetsArgs) -> Result<()> {
    let font = std::fs::read(&args.font).with_context(|| {
        format!(
            "cannot read the font {} (apt-get install fonts-noto-color-emoji)",
            args.font.display()
        )
    })?;
    let glyph = glyph_png(&font, LIZARD)?;
    let square = centred_square(&glyph);
    let out = paths::root().join("assets/lizard-noto.png");
    save(&square, &out)?;
    println!(
        "wrote {} ({}x{} from the font's {}x{} glyph)",
        out.display(),
        square.width(),
        square.height(),
        glyph.width(),
        glyph.height()
    );
    Ok(())
}

/// The colour bitmap the font holds for `c`, at its largest size.
fn glyph_png(font: &[u8], c: char) -> Result<RgbaImage> {
    let face = ttf_parser::Face::parse(font, 0).context("not a font file")?;
    let id = face
        .glyph_index(c)
        .with_context(|| format!("the font has no glyph for U+{:X}", c as u32))?;
    let raster = face
        .glyph_raster_image(id, u16::MAX)
        .with_context(|| format!("the font has no bitmap for U+{:X}", c as u32))?;
    if raster.format != ttf_parser::RasterImageFormat::PNG {
        bail!("the glyph's bitmap is not a PNG");
    }
    Ok(image::load_from_memory(raster.data)
        .context("the glyph's PNG does not decode")?
        .to_rgba8())
}

/// The glyph centred on a transparent square, so that shrinking it keeps its proportions
/// and gives a square target.
fn centred_square(glyph: &RgbaImage) -> RgbaImage {
    let side = glyph.width().max(glyph.height());
    let mut square = RgbaImage::new(side, side);
    let (x, y) = ((side - glyph.width()) / 2, (side - glyph.height()) / 2);
    imageops::overlay(&mut square, glyph, x.into(), y.into());
    square
}

fn save(img: &RgbaImage, out: &Path) -> Result<()> {
    img.save(out)
        .with_context(|| format!("cannot write {}", out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_glyph_is_centred_on_a_transparent_square() {
        let glyph = RgbaImage::from_pixel(4, 2, image::Rgba([9, 9, 9, 255]));
        let square = centred_square(&glyph);
        assert_eq!((square.width(), square.height()), (4, 4));
        let alpha: Vec<u8> = (0..4).map(|y| square.get_pixel(0, y)[3]).collect();
        assert_eq!(alpha, [0, 255, 255, 0]);
    }
}
