//! The paper's notebook shrinks its target images with PIL's `Image.thumbnail(size,
//! LANCZOS)` (Pillow 9 and later). This is that shrink on 8-bit RGBA, to the byte: at a
//! threshold of 0.26 a cell at the shape's edge turns on or off on the last bit of the
//! resampler's rounding, so the target is the notebook's only if every step rounds as
//! Pillow's does. A fixture of Pillow's own output checks it (`tests::` below).
//!
//! The steps, in Pillow's order:
//! 1. the output size keeps the proportions, each side rounded to the nearer aspect;
//! 2. RGBA becomes premultiplied RGBa (`x * a / 255`, rounded);
//! 3. an image more than twice as large as needed is first box-reduced by the whole factor
//!    (`reducing_gap = 2`), the rest of the scale left to the resampler as a fractional box;
//! 4. a separable Lanczos-3 resample, horizontal then vertical, each pass in 22-bit fixed
//!    point, clipped to 0..=255;
//! 5. RGBa back to RGBA (`x * 255 / a`, truncated).

use image::{Rgba, RgbaImage};

/// Fixed-point bits of the resampling coefficients (Pillow's `PRECISION_BITS`).
const PRECISION_BITS: u32 = 32 - 8 - 2;
/// The Lanczos window's half-width.
const LANCZOS_SUPPORT: f64 = 3.0;
/// Pillow's `reducing_gap` for `thumbnail`: box-reduce while more than twice as large.
const REDUCING_GAP: f64 = 2.0;

/// `image` shrunk to fit a `fit` x `fit` square as the notebook's thumbnail does; an image
/// that already fits is returned as it is.
pub fn thumbnail(image: &RgbaImage, fit: u32) -> RgbaImage {
    let Some((width, height)) = fitted_size(image.width(), image.height(), fit) else {
        return image.clone();
    };
    let mut pixels = premultiply(image);
    let mut box_ = [0.0, 0.0, image.width() as f32, image.height() as f32];
    let factor =
        |side: u32, size: u32| ((f64::from(side) / f64::from(size) / REDUCING_GAP) as u32).max(1);
    let (fx, fy) = (factor(image.width(), width), factor(image.height(), height));
    if fx > 1 || fy > 1 {
        pixels = box_reduce(&pixels, fx, fy);
        box_ = [0.0, 0.0, box_[2] / fx as f32, box_[3] / fy as f32];
    }
    let pixels = resample_horizontal(&pixels, width, box_[0], box_[2]);
    let pixels = transpose(&resample_horizontal(
        &transpose(&pixels),
        height,
        box_[1],
        box_[3],
    ));
    unpremultiply(&pixels)
}

/// The size that keeps the proportions within `fit` x `fit`, or `None` if the image fits.
fn fitted_size(w: u32, h: u32, fit: u32) -> Option<(u32, u32)> {
    if w <= fit && h <= fit {
        return None;
    }
    let aspect = f64::from(w) / f64::from(h);
    let fit_f = f64::from(fit);
    // Of the two roundings of a side, the one whose proportions are nearer the image's
    // (the smaller one on a tie), at least 1.
    let nearer = |exact: f64, error: &dyn Fn(f64) -> f64| {
        let (lo, hi) = (exact.floor(), exact.ceil());
        let side = if error(hi) < error(lo) { hi } else { lo };
        (side as u32).max(1)
    };
    if 1.0 >= aspect {
        Some((nearer(fit_f * aspect, &|n| (aspect - n / fit_f).abs()), fit))
    } else {
        let error = |n: f64| {
            if n == 0.0 {
                0.0
            } else {
                (aspect - fit_f / n).abs()
            }
        };
        Some((fit, nearer(fit_f / aspect, &error)))
    }
}

fn premultiply(image: &RgbaImage) -> RgbaImage {
    let mut out = image.clone();
    for px in out.pixels_mut() {
        let a = u32::from(px.0[3]);
        for v in &mut px.0[..3] {
            let t = u32::from(*v) * a + 128;
            *v = (((t >> 8) + t) >> 8) as u8;
        }
    }
    out
}

fn unpremultiply(image: &RgbaImage) -> RgbaImage {
    let mut out = image.clone();
    for px in out.pixels_mut() {
        let a = u32::from(px.0[3]);
        if a != 0 && a != 255 {
            for v in &mut px.0[..3] {
                *v = (u32::from(*v) * 255 / a).min(255) as u8;
            }
        }
    }
    out
}

/// Each `fx` x `fy` block becomes its mean (the last, partial blocks the mean of what they
/// hold), rounded as Pillow's `reduce` rounds: `(sum + n/2) * m >> 24`, `m = 2^32 / (256 n)`
/// computed in single precision.
fn box_reduce(image: &RgbaImage, fx: u32, fy: u32) -> RgbaImage {
    let (w, h) = (image.width(), image.height());
    RgbaImage::from_fn(w.div_ceil(fx), h.div_ceil(fy), |x, y| {
        let (xs, ys) = (x * fx..((x + 1) * fx).min(w), y * fy..((y + 1) * fy).min(h));
        let n = xs.len() as u32 * ys.len() as u32;
        let multiplier = (4.0f32 * (1u32 << 30) as f32 / ((1u32 << 8) * n) as f32) as u32;
        let mut sums = [n / 2; 4];
        for yy in ys {
            for xx in xs.clone() {
                for (s, v) in sums.iter_mut().zip(image.get_pixel(xx, yy).0) {
                    *s += u32::from(v);
                }
            }
        }
        Rgba(sums.map(|s| ((u64::from(s) * u64::from(multiplier)) >> 24) as u8))
    })
}

fn lanczos(x: f64) -> f64 {
    let sinc = |x: f64| {
        if x == 0.0 {
            1.0
        } else {
            let x = x * std::f64::consts::PI;
            x.sin() / x
        }
    };
    if (-LANCZOS_SUPPORT..LANCZOS_SUPPORT).contains(&x) {
        sinc(x) * sinc(x / LANCZOS_SUPPORT)
    } else {
        0.0
    }
}

/// For each output column: the first input column it reads and its fixed-point weights,
/// for the input span `in0..in1` (Pillow's `precompute_coeffs` and `normalize_coeffs_8bpc`).
fn coefficients(in_size: u32, in0: f32, in1: f32, out_size: u32) -> Vec<(u32, Vec<i32>)> {
    let scale = f64::from(in1 - in0) / f64::from(out_size);
    let filter_scale = scale.max(1.0);
    let support = LANCZOS_SUPPORT * filter_scale;
    (0..out_size)
        .map(|xx| {
            let center = f64::from(in0) + (f64::from(xx) + 0.5) * scale;
            let xmin = ((center - support + 0.5) as i64).max(0) as u32;
            let xmax = ((center + support + 0.5) as i64).min(i64::from(in_size)) as u32;
            let weights: Vec<f64> = (xmin..xmax)
                .map(|x| lanczos((f64::from(x) - center + 0.5) / filter_scale))
                .collect();
            let total: f64 = weights.iter().sum();
            let fixed = weights
                .iter()
                .map(|&w| {
                    let w = if total == 0.0 { w } else { w / total };
                    let half = if w < 0.0 { -0.5 } else { 0.5 };
                    (half + w * f64::from(1u32 << PRECISION_BITS)) as i32
                })
                .collect();
            (xmin, fixed)
        })
        .collect()
}

/// Resamples the rows of `image` to `out_width` columns from the span `in0..in1`.
fn resample_horizontal(image: &RgbaImage, out_width: u32, in0: f32, in1: f32) -> RgbaImage {
    if out_width == image.width() && in0 == 0.0 && in1 == image.width() as f32 {
        return image.clone();
    }
    let coefficients = coefficients(image.width(), in0, in1, out_width);
    RgbaImage::from_fn(out_width, image.height(), |x, y| {
        let (first, weights) = &coefficients[x as usize];
        let mut sums = [1i32 << (PRECISION_BITS - 1); 4];
        for (i, &k) in weights.iter().enumerate() {
            let px = image.get_pixel(first + i as u32, y).0;
            for (s, v) in sums.iter_mut().zip(px) {
                *s += i32::from(v) * k;
            }
        }
        Rgba(sums.map(|s| (s >> PRECISION_BITS).clamp(0, 255) as u8))
    })
}

fn transpose(image: &RgbaImage) -> RgbaImage {
    RgbaImage::from_fn(image.height(), image.width(), |x, y| *image.get_pixel(y, x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_keep_proportions_like_pillow() {
        assert_eq!(fitted_size(32, 32, 20), Some((20, 20)));
        assert_eq!(fitted_size(20, 20, 20), None);
        assert_eq!(fitted_size(100, 50, 20), Some((20, 10)));
        // 30x7 to 20: 4.67 rows; 5 gives 4.0 for the aspect 4.29, 4 gives 5.0: 5.
        assert_eq!(fitted_size(30, 7, 20), Some((20, 5)));
        assert_eq!(fitted_size(1, 500, 20), Some((1, 20)));
    }

    #[test]
    fn premultiplying_rounds_and_unpremultiplying_truncates() {
        let img = RgbaImage::from_pixel(1, 1, Rgba([255, 128, 1, 3]));
        assert_eq!(premultiply(&img).get_pixel(0, 0).0, [3, 2, 0, 3]);
        let img = RgbaImage::from_pixel(1, 1, Rgba([2, 1, 5, 3]));
        assert_eq!(unpremultiply(&img).get_pixel(0, 0).0, [170, 85, 255, 3]);
    }

    /// Pillow's `thumbnail((20, 20), LANCZOS)` of an image, as written by Pillow 13.0 to
    /// `tests/fixtures/pillow-thumbnail/` (one row per line, `rrggbbaa` per pixel).
    fn pillows(name: &str) -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pillow-thumbnail");
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        text.lines().map(str::to_owned).collect()
    }

    fn ours(path: &str) -> Vec<String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        let small = thumbnail(&image::open(path).unwrap().to_rgba8(), 20);
        small
            .rows()
            .map(|row| {
                row.map(|p| p.0.map(|v| format!("{v:02x}")).concat())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn the_notebooks_lizard_shrinks_to_pillows_bytes() {
        assert_eq!(ours("assets/lizard.png"), pillows("lizard-notebook-20.txt"));
    }

    #[test]
    fn a_large_image_is_box_reduced_first_as_pillow_does() {
        // 136 to 20: reduced by 3 to 46 (45.33 used), then resampled.
        assert_eq!(
            ours("assets/lizard-noto.png"),
            pillows("lizard-noto-20.txt")
        );
        // 100x37 to 20x7: reduced by 2 to 50x19 with a half last row, every alpha.
        assert_eq!(
            ours("tests/fixtures/pillow-thumbnail/noise-100x37.png"),
            pillows("noise-100x37-20.txt")
        );
    }

    #[test]
    fn weights_sum_to_one_in_fixed_point() {
        for (first, weights) in coefficients(32, 0.0, 32.0, 20) {
            let sum: i32 = weights.iter().sum();
            assert!(
                (sum - (1 << PRECISION_BITS)).abs() <= weights.len() as i32,
                "{first}: {sum}"
            );
        }
    }
}
