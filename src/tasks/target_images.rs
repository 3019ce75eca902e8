//! How an image becomes the target of a growing task, as each of the paper's experiments
//! reads its image: shrunk to fit a square (the notebook's thumbnail), alpha-premultiplied,
//! then thresholded (the lizard) or sorted into colour classes (the coloured G). A user's
//! own image for a task goes through the same path. Reading files is `io::pattern_image`'s.

use image::{ImageReader, Limits};

use crate::error::TargetImageError;
use crate::model::pattern::{PatternTarget, MAX_SIDE};
use crate::model::task::TaskKind;
use crate::tasks::thumbnail::thumbnail;

/// How the pixels of an image become target bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageRule {
    /// One channel, on where the pixel is opaque (alpha >= 0.5) and dark (luminance < 0.5):
    /// drawings in black on white (the `pattern` task).
    Dark,
    /// One channel, on where any of the alpha-premultiplied R, G, B is above 0.26: the
    /// paper's lizard (a coloured shape on a transparent background).
    Bright,
    /// Three channels from the paper's colour classes of the alpha-premultiplied R, G, B:
    /// yellow = R > 0.3 and G > 0.3; red = R > 0.5, green = G > 0.6, both not yellow;
    /// blue = B > 0.5. Channel 0 = red or yellow, 1 = green or yellow, 2 = blue.
    Colours,
}

impl ImageRule {
    pub fn channels(self) -> usize {
        match self {
            ImageRule::Dark | ImageRule::Bright => 1,
            ImageRule::Colours => 3,
        }
    }

    /// What "on" means, for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            ImageRule::Dark => "dark and opaque",
            ImageRule::Bright => "R, G or B above 0.26 after alpha",
            ImageRule::Colours => "red, green, blue or yellow",
        }
    }

    /// The bits of one alpha-premultiplied RGBA pixel (values in 0..=1), appended to `out`.
    pub fn push_bits(self, [r, g, b, a]: [f32; 4], out: &mut Vec<u8>) {
        match self {
            ImageRule::Dark => {
                let straight = |v: f32| if a > 0.0 { v / a } else { 0.0 };
                let luminance = 0.299 * straight(r) + 0.587 * straight(g) + 0.114 * straight(b);
                out.push((a >= 0.5 && luminance < 0.5) as u8);
            }
            ImageRule::Bright => out.push((r > 0.26 || g > 0.26 || b > 0.26) as u8),
            ImageRule::Colours => {
                let yellow = r > 0.3 && g > 0.3;
                let red = r > 0.5 && !yellow;
                let green = g > 0.6 && !yellow;
                let blue = b > 0.5;
                out.extend([red || yellow, green || yellow, blue].map(u8::from));
            }
        }
    }
}

/// How a task reads its target image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageSpec {
    pub rule: ImageRule,
    /// Shrink the image to fit a square of this side, keeping its proportions (images
    /// already small enough are kept); `None`: use the image as it is, at most
    /// [`MAX_SIDE`] pixels a side.
    pub fit: Option<u32>,
}

/// The largest image read when it is shrunk to fit (the paper's G is 1200x1200).
pub const MAX_IMAGE_SIDE: u32 = 4096;

/// The target that `spec` makes of the image encoded in `bytes` (PNG, or any format the
/// image crate reads).
pub fn target_from_image(bytes: &[u8], spec: ImageSpec) -> Result<PatternTarget, TargetImageError> {
    let (side, what) = match spec.fit {
        Some(_) => (MAX_IMAGE_SIDE, "image read"),
        None => (MAX_SIDE as u32, "target"),
    };
    let mut reader = ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| TargetImageError::Decode(e.to_string()))?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(side);
    limits.max_image_height = Some(side);
    reader.limits(limits);
    let image = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => TargetImageError::TooLarge { side, what },
        e => TargetImageError::Decode(e.to_string()),
    })?;
    let mut pixels = image.to_rgba8();
    if let Some(fit) = spec.fit {
        pixels = thumbnail(&pixels, fit);
    }
    let (width, height) = (pixels.width() as usize, pixels.height() as usize);
    let mut bits = Vec::with_capacity(width * height * spec.rule.channels());
    for px in pixels.pixels() {
        spec.rule.push_bits(premultiplied(px.0), &mut bits);
    }
    let target = PatternTarget {
        height,
        width,
        rgb: spec.rule.channels() == 3,
        bits,
    };
    target.validate().map_err(TargetImageError::Invalid)?;
    if !target.bits.contains(&1) {
        return Err(TargetImageError::Blank {
            rule: spec.rule.describe(),
        });
    }
    Ok(target)
}

/// A pixel as the notebook holds it: each value / 255 in single precision, then R, G and B
/// multiplied by alpha, so that transparent pixels are black.
fn premultiplied(rgba: [u8; 4]) -> [f32; 4] {
    let [r, g, b, a] = rgba.map(|v| f32::from(v) / 255.0);
    [r * a, g * a, b * a, a]
}

/// How `task` reads a target image; `rgb` asks the pattern task for three colour channels.
/// `None` for tasks without an image.
pub fn image_spec(task: TaskKind, rgb: bool) -> Option<ImageSpec> {
    let spec = |rule, fit| Some(ImageSpec { rule, fit });
    match task {
        TaskKind::Pattern if rgb => spec(ImageRule::Colours, None),
        TaskKind::Pattern => spec(ImageRule::Dark, None),
        TaskKind::Lizard => spec(ImageRule::Bright, Some(LIZARD_SIDE)),
        TaskKind::ColoredG => spec(ImageRule::Colours, Some(COLORED_G_SIDE)),
        _ => None,
    }
}

/// The notebook's lizard target is 20 cells a side, its coloured G 16.
pub const LIZARD_SIDE: u32 = 20;
const COLORED_G_SIDE: u32 = 16;

/// The lizard as the paper's notebook embeds it: a 32x32 RGBA PNG (`assets/README.md` says
/// where it comes from and under which licence).
const LIZARD_PNG: &[u8] = include_bytes!("../../assets/lizard.png");

/// The lizard experiment's target: the notebook's image read as the notebook reads it
/// (120 cells on).
pub fn lizard() -> PatternTarget {
    let spec = image_spec(TaskKind::Lizard, false).expect("the lizard reads an image");
    target_from_image(LIZARD_PNG, spec).expect("the shipped lizard image is a valid target")
}

/// A 16x16 G in four colours, drawn here (r red, y yellow, g green, b blue).
const COLORED_G_ART: [&str; 16] = [
    "................",
    "................",
    ".....rrrrrr.....",
    "...rrrrrrrrrr...",
    "..yrrr....rrr...",
    "..yyy...........",
    ".yyy............",
    ".yyy.....bbbbbb.",
    ".yyy.....bbbbbb.",
    ".yyy.......bbb..",
    "..ggg......bbb..",
    "..gggg....bbbb..",
    "...gggggggbbb...",
    ".....ggggggg....",
    "................",
    "................",
];

/// The coloured G as an RGBA image: what `assets/colored-g.png` holds.
pub fn colored_g_image() -> image::RgbaImage {
    image::RgbaImage::from_fn(16, 16, |x, y| {
        let colour = match COLORED_G_ART[y as usize].as_bytes()[x as usize] {
            b'r' => [230, 40, 40],
            b'y' => [240, 200, 20],
            b'g' => [40, 180, 70],
            b'b' => [50, 100, 230],
            _ => return image::Rgba([0, 0, 0, 0]),
        };
        image::Rgba([colour[0], colour[1], colour[2], 255])
    })
}

/// The coloured-G experiment's target: the drawn G read as the task reads any image.
pub fn colored_g() -> PatternTarget {
    let spec = image_spec(TaskKind::ColoredG, false).expect("the coloured G reads an image");
    let mut png = Vec::new();
    colored_g_image()
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("encoding a PNG in memory cannot fail");
    target_from_image(&png, spec).expect("the drawn G is a valid target")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(rule: ImageRule, rgba: [f32; 4]) -> Vec<u8> {
        let mut out = Vec::new();
        rule.push_bits(rgba, &mut out);
        out
    }

    #[test]
    fn the_paper_colour_classes_by_hand() {
        let c = ImageRule::Colours;
        // Yellow (R and G above 0.3) sets channels 0 and 1, and is neither red nor green.
        assert_eq!(bits(c, [0.9, 0.8, 0.1, 1.0]), [1, 1, 0]);
        assert_eq!(bits(c, [0.31, 0.31, 0.0, 1.0]), [1, 1, 0]);
        // Red needs R above 0.5; orange-ish R 0.6, G 0.2 is red.
        assert_eq!(bits(c, [0.6, 0.2, 0.0, 1.0]), [1, 0, 0]);
        assert_eq!(bits(c, [0.45, 0.2, 0.0, 1.0]), [0, 0, 0]);
        // Green needs G above 0.6, and no R above 0.3.
        assert_eq!(bits(c, [0.1, 0.7, 0.1, 1.0]), [0, 1, 0]);
        assert_eq!(bits(c, [0.1, 0.55, 0.1, 1.0]), [0, 0, 0]);
        // Blue is independent of the others.
        assert_eq!(bits(c, [0.2, 0.5, 0.9, 1.0]), [0, 0, 1]);
        assert_eq!(bits(c, [1.0, 1.0, 1.0, 1.0]), [1, 1, 1]);
        assert_eq!(bits(c, [0.0, 0.0, 0.0, 0.0]), [0, 0, 0]);
    }

    #[test]
    fn bright_and_dark_thresholds_by_hand() {
        let b = ImageRule::Bright;
        assert_eq!(bits(b, [0.27, 0.0, 0.0, 1.0]), [1]);
        assert_eq!(bits(b, [0.0, 0.0, 0.26, 1.0]), [0], "strictly above 0.26");
        // Premultiplied: a green 0.5 at alpha 0.5 arrives as 0.25, below the threshold.
        assert_eq!(bits(b, [0.0, 0.25, 0.0, 0.5]), [0]);
        let d = ImageRule::Dark;
        assert_eq!(bits(d, [0.0, 0.0, 0.0, 1.0]), [1]);
        assert_eq!(bits(d, [1.0, 1.0, 1.0, 1.0]), [0]);
        assert_eq!(bits(d, [0.0, 0.0, 0.0, 0.4]), [0], "transparent");
        // Straight grey 0.4 at alpha 0.6 (premultiplied 0.24) is dark.
        assert_eq!(bits(d, [0.24, 0.24, 0.24, 0.6]), [1]);
    }

    fn png(img: &image::RgbaImage) -> Vec<u8> {
        let mut out = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    }

    #[test]
    fn large_images_shrink_to_fit_keeping_proportions() {
        // 100x50: a red left half, a transparent right half.
        let img = image::RgbaImage::from_fn(100, 50, |x, _| match x < 50 {
            true => image::Rgba([255, 0, 0, 255]),
            false => image::Rgba([0, 255, 0, 0]),
        });
        let spec = ImageSpec {
            rule: ImageRule::Bright,
            fit: Some(20),
        };
        let t = target_from_image(&png(&img), spec).unwrap();
        assert_eq!((t.width, t.height, t.rgb), (20, 10, false));
        let row: Vec<u8> = (0..20).map(|c| t.bit(5, c, 0) as u8).collect();
        assert_eq!(
            row,
            [[1; 10], [0; 10]].concat(),
            "transparent green stays off"
        );
        // Without `fit` the same image is too large to be a target.
        let plain = ImageSpec { fit: None, ..spec };
        assert_eq!(
            target_from_image(&png(&img), plain).unwrap_err(),
            TargetImageError::TooLarge {
                side: 64,
                what: "target"
            }
        );
    }

    #[test]
    fn small_images_are_kept_and_blank_ones_refused() {
        let mut img = image::RgbaImage::new(3, 2);
        img.put_pixel(2, 1, image::Rgba([0, 0, 255, 255]));
        let spec = ImageSpec {
            rule: ImageRule::Colours,
            fit: Some(16),
        };
        let t = target_from_image(&png(&img), spec).unwrap();
        assert_eq!((t.width, t.height, t.rgb), (3, 2, true));
        assert_eq!(t.bits, [[0; 15].as_slice(), &[0, 0, 1]].concat());
        let blank = image::RgbaImage::new(3, 2);
        assert!(matches!(
            target_from_image(&png(&blank), spec),
            Err(TargetImageError::Blank { .. })
        ));
    }

    /// Rows of a one-channel target, `#` on.
    fn art(t: &PatternTarget) -> Vec<String> {
        (0..t.height)
            .map(|r| {
                (0..t.width)
                    .map(|c| if t.bit(r, c, 0) { '#' } else { '.' })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_lizard_target_is_the_notebooks() {
        // The cells the notebook trains on, as its own PIL code gives them
        // (tests/fixtures/notebook-lizard-seed23/target_20x20.txt, `1` on).
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/notebook-lizard-seed23/target_20x20.txt");
        let notebook: Vec<String> = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| l.replace('1', "#").replace('0', "."))
            .collect();
        let t = lizard();
        assert_eq!((t.height, t.width, t.rgb), (20, 20, false));
        assert_eq!(art(&t), notebook);
        assert_eq!(t.bits.iter().filter(|&&b| b == 1).count(), 120);
    }

    #[test]
    fn the_larger_noto_glyph_reads_as_pillow_reads_it() {
        // Checked by eye against assets/lizard-noto.png: head at the top left, four legs, the
        // tail curling to the bottom right; 108 cells as PIL's thumbnail gives them.
        let expected = [
            "....................",
            ".....#..............",
            "....###.............",
            "....####............",
            "....####.###........",
            "....####.##.........",
            "....####..#....#....",
            ".....######...###...",
            "....#.######.###....",
            "....###########.....",
            "....##########......",
            "........######......",
            ".........#####......",
            "........#######.....",
            "........###.###.....",
            "........##..###.#...",
            ".............##.##..",
            ".............#####..",
            "...............##...",
            "....................",
        ];
        let png = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/lizard-noto.png"),
        )
        .unwrap();
        let spec = image_spec(TaskKind::Lizard, false).unwrap();
        let t = target_from_image(&png, spec).unwrap();
        assert_eq!(art(&t), expected);
        assert_eq!(t.bits.iter().filter(|&&b| b == 1).count(), 108);
        let notebook = lizard();
        let differ = t
            .bits
            .iter()
            .zip(&notebook.bits)
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(
            differ, 18,
            "the notebook's 32x32 image and the larger glyph"
        );
    }

    #[test]
    fn the_colored_g_target_follows_its_drawing() {
        let t = colored_g();
        assert_eq!((t.height, t.width, t.rgb), (16, 16, true));
        for (r, row) in COLORED_G_ART.iter().enumerate() {
            for (c, ch) in row.bytes().enumerate() {
                let expected = match ch {
                    b'r' => [true, false, false],
                    b'y' => [true, true, false],
                    b'g' => [false, true, false],
                    b'b' => [false, false, true],
                    _ => [false; 3],
                };
                assert_eq!([0, 1, 2].map(|k| t.bit(r, c, k)), expected, "({r}, {c})");
            }
        }
    }

    #[test]
    fn the_shipped_colored_g_file_is_the_drawn_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/colored-g.png");
        if std::env::var_os("UPDATE_ASSETS").is_some() {
            colored_g_image().save(&path).unwrap();
        }
        let shipped = image::open(&path).unwrap().to_rgba8();
        assert_eq!(shipped, colored_g_image());
    }
}
