//! `cargo xtask pattern-sets`: draws the 1-bit target images that `pattern`'s default recipe
//! is tuned and judged on (`assets/patterns/`), from glyphs of the DejaVu Sans Bold font
//! that Debian's `fonts-dejavu-core` package installs (its licence in `assets/README.md`).
//! Two sets, each at 16x16 and 32x32: **tuning**, letters and signs the recipe was chosen
//! on, and **untuned**, pictograms no recipe setting was ever tried on, on which its rates
//! are reported. The files are committed; this command only says how they were made.

use std::path::{Path, PathBuf};

use ab_glyph::{point, Font, FontRef, PxScale};
use anyhow::{bail, Context, Result};
use clap::Args;
use image::{GrayImage, Luma};

use crate::paths;

/// Where `fonts-dejavu-core` puts the font.
const DEBIAN_FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf";

/// The sets: their folder under `assets/patterns/`, and each image's name and glyph.
const SETS: [(&str, &[(&str, char)]); 2] = [
    (
        "tuning",
        &[
            ("a", 'A'),
            ("k", 'K'),
            ("s", 'S'),
            ("ampersand", '&'),
            ("question", '?'),
        ],
    ),
    (
        "untuned",
        &[
            ("heart", '\u{2665}'),
            ("star", '\u{2605}'),
            ("umbrella", '\u{2602}'),
            ("knight", '\u{265E}'),
            ("anchor", '\u{2693}'),
            ("plane", '\u{2708}'),
            ("yin-yang", '\u{262F}'),
            ("notes", '\u{266B}'),
            ("telephone", '\u{260E}'),
            ("flower", '\u{273F}'),
        ],
    ),
];

/// The sides each image is drawn at.
const SIDES: [u32; 2] = [16, 32];

/// A glyph pixel is on (black) when the outline covers at least this share of it.
const COVERAGE: f32 = 0.5;

#[derive(Debug, Args)]
pub struct PatternSetsArgs {
    /// The DejaVu Sans Bold font file.
    #[arg(long, default_value = DEBIAN_FONT)]
    pub font: PathBuf,
}

pub fn run(args: PatternSetsArgs) -> Result<()> {
    let bytes = std::fs::read(&args.font).with_context(|| {
        format!(
            "cannot read the font {} (apt-get install fonts-dejavu-core)",
            args.font.display()
        )
    })?;
    let font = FontRef::try_from_slice(&bytes).context("not a font file")?;
    for (set, glyphs) in SETS {
        let folder = paths::root().join("assets/patterns").join(set);
        std::fs::create_dir_all(&folder)
            .with_context(|| format!("cannot create {}", folder.display()))?;
        for &(name, c) in glyphs {
            for side in SIDES {
                let img = draw(&font, c, side)?;
                let out = folder.join(format!("{name}-{side}.png"));
                save(&img, &out)?;
            }
        }
        println!(
            "wrote {} ({} images)",
            folder.display(),
            glyphs.len() * SIDES.len()
        );
    }
    Ok(())
}

/// `c` black on white, as large as fits a `side` square with one empty pixel around it,
/// centred.
fn draw(font: &FontRef<'_>, c: char, side: u32) -> Result<GrayImage> {
    let id = font.glyph_id(c);
    if id.0 == 0 {
        bail!("the font has no glyph for U+{:04X}", c as u32);
    }
    let room = (side - 2) as f32;
    // The outline's bounds at one scale give the scale that fits the room.
    let probe = font
        .outline_glyph(id.with_scale_and_position(PxScale::from(100.0), point(0.0, 0.0)))
        .with_context(|| format!("U+{:04X} has no outline", c as u32))?;
    let bounds = probe.px_bounds();
    let scale = 100.0 * room / bounds.width().max(bounds.height());
    let glyph = font
        .outline_glyph(id.with_scale_and_position(PxScale::from(scale), point(0.0, 0.0)))
        .expect("an outline at one scale has one at another");
    let b = glyph.px_bounds();
    let (w, h) = (b.width() as i64, b.height() as i64);
    let (x0, y0) = ((side as i64 - w) / 2, (side as i64 - h) / 2);
    let mut img = GrayImage::from_pixel(side, side, Luma([255]));
    glyph.draw(|x, y, coverage| {
        let (px, py) = (x0 + i64::from(x), y0 + i64::from(y));
        let inside = (0..side as i64).contains(&px) && (0..side as i64).contains(&py);
        if inside && coverage >= COVERAGE {
            img.put_pixel(px as u32, py as u32, Luma([0]));
        }
    });
    Ok(img)
}

fn save(img: &GrayImage, out: &Path) -> Result<()> {
    img.save(out)
        .with_context(|| format!("cannot write {}", out.display()))
}
