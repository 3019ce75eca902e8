//! Frames of a rollout as pictures: an animated GIF, or a PNG strip.

use std::io::Cursor;

use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame, ImageFormat, Rgb, RgbImage, RgbaImage};

use crate::automaton::grid::Grids;
use crate::error::ConfigError;

/// How a cell is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Channel 0: 1 is black, 0 is white.
    Channel0,
    /// Channels 0, 1, 2 as red, green, blue.
    Rgb,
    /// A rule's state (state k is channel k - 1 alone on; the first channel on counts),
    /// each in its own colour, as the page draws them.
    States,
}

/// Colours of a rule's states 0 (empty), 1 (alive, electron head), 2 and 3: the page's.
const STATE_COLOURS: [[u8; 3]; 4] = [
    [255, 255, 255],
    [20, 20, 20],
    [230, 120, 40],
    [60, 110, 220],
];

impl View {
    pub const ALL: [View; 3] = [View::Channel0, View::Rgb, View::States];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            View::Channel0 => "channel0",
            View::Rgb => "rgb",
            View::States => "states",
        }
    }

    /// One line on what the view shows.
    pub fn summary(self) -> &'static str {
        match self {
            View::Channel0 => "channel 0: 1 is black, 0 is white",
            View::Rgb => "channels 0, 1, 2 as red, green, blue",
            View::States => {
                "a rule's states: empty white, 1 black, 2 orange, 3 blue (the first of channels 0..3 on)"
            }
        }
    }
}

/// Pixels per cell, frames per second, gap between strip frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    pub view: View,
    pub scale: u32,
    pub frame_ms: u32,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            view: View::Channel0,
            scale: 8,
            frame_ms: 150,
        }
    }
}

/// Checks that `channels` has what `view` shows.
pub fn check_view(view: View, channels: usize) -> Result<(), ConfigError> {
    if view == View::Rgb && channels < 3 {
        return Err(ConfigError::RgbView { channels });
    }
    Ok(())
}

/// Batch element `b` of one frame as an image.
pub fn frame_image(grids: &Grids, b: usize, style: &Style) -> RgbImage {
    let s = style.scale.max(1);
    RgbImage::from_fn(grids.width as u32 * s, grids.height as u32 * s, |x, y| {
        let (r, c) = ((y / s) as usize, (x / s) as usize);
        let level = |ch: usize| (grids.get(b, r, c, ch).clamp(0.0, 1.0) * 255.0).round() as u8;
        match style.view {
            View::Channel0 => {
                let v = 255 - level(0);
                Rgb([v, v, v])
            }
            View::Rgb => Rgb([level(0), level(1), level(2)]),
            View::States => {
                let on = (0..grids.channels.min(3)).position(|ch| level(ch) >= 128);
                Rgb(STATE_COLOURS[on.map_or(0, |ch| ch + 1)])
            }
        }
    })
}

/// An animated GIF of batch element 0, one frame per step, looping.
pub fn gif_bytes(frames: &[Grids], style: &Style) -> Result<Vec<u8>, image::ImageError> {
    let mut out = Vec::new();
    {
        let mut gif = GifWriter::new(&mut out, style)?;
        for grids in frames {
            gif.push(grids)?;
        }
    }
    Ok(out)
}

/// Encodes frames into a looping GIF as they come, keeping none of them.
pub struct GifWriter<'a, W: std::io::Write> {
    encoder: GifEncoder<W>,
    style: &'a Style,
}

impl<'a, W: std::io::Write> GifWriter<'a, W> {
    pub fn new(out: W, style: &'a Style) -> Result<Self, image::ImageError> {
        let mut encoder = GifEncoder::new_with_speed(out, 10);
        encoder.set_repeat(Repeat::Infinite)?;
        Ok(GifWriter { encoder, style })
    }

    /// Adds batch element 0 of `grids` as the next frame.
    pub fn push(&mut self, grids: &Grids) -> Result<(), image::ImageError> {
        let rgba: RgbaImage =
            image::DynamicImage::ImageRgb8(frame_image(grids, 0, self.style)).to_rgba8();
        let delay = Delay::from_numer_denom_ms(self.style.frame_ms, 1);
        self.encoder
            .encode_frame(Frame::from_parts(rgba, 0, 0, delay))
    }
}

/// A PNG of the frames side by side (batch element 0), 2 px apart.
pub fn strip_png_bytes(frames: &[Grids], style: &Style) -> Result<Vec<u8>, image::ImageError> {
    let gap = 2;
    let first = frame_image(&frames[0], 0, style);
    let (w, h) = first.dimensions();
    let n = frames.len() as u32;
    let mut strip = RgbImage::from_pixel(n * w + (n - 1) * gap, h, Rgb([128, 128, 128]));
    for (i, grids) in frames.iter().enumerate() {
        image::imageops::replace(
            &mut strip,
            &frame_image(grids, 0, style),
            (i as u32 * (w + gap)) as i64,
            0,
        );
    }
    let mut out = Vec::new();
    strip.write_to(&mut Cursor::new(&mut out), ImageFormat::Png)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::AnimationDecoder;

    fn frames() -> Vec<Grids> {
        (0..5)
            .map(|i| {
                let mut g = Grids::zeros(1, 4, 6, 3);
                g.set(0, 1, i, 0, 1.0);
                g
            })
            .collect()
    }

    #[test]
    fn gif_decodes_with_one_frame_per_step() {
        let style = Style::default();
        let bytes = gif_bytes(&frames(), &style).unwrap();
        let decoder = image::codecs::gif::GifDecoder::new(Cursor::new(bytes)).unwrap();
        let decoded: Vec<_> = decoder.into_frames().collect::<Result<_, _>>().unwrap();
        assert_eq!(decoded.len(), 5);
        assert_eq!(decoded[0].buffer().dimensions(), (6 * 8, 4 * 8));
        // Cell (1, 2) is alive in frame 2: black pixels there.
        assert_eq!(
            decoded[2].buffer().get_pixel(2 * 8 + 3, 8 + 3).0[..3],
            [0, 0, 0]
        );
        assert_eq!(decoded[2].buffer().get_pixel(0, 0).0[..3], [255, 255, 255]);
    }

    #[test]
    fn png_strip_has_every_frame_side_by_side() {
        let style = Style {
            view: View::Rgb,
            scale: 2,
            frame_ms: 100,
        };
        let bytes = strip_png_bytes(&frames(), &style).unwrap();
        let img = image::load_from_memory_with_format(&bytes, ImageFormat::Png)
            .unwrap()
            .to_rgb8();
        assert_eq!(img.dimensions(), (5 * 12 + 4 * 2, 8));
        assert_eq!(
            img.get_pixel(3 * 14 + 3 * 2, 2).0,
            [255, 0, 0],
            "frame 3, cell (1,3) is red"
        );
    }

    #[test]
    fn rgb_needs_three_channels() {
        assert!(check_view(View::Rgb, 1).is_err());
        assert!(check_view(View::Channel0, 1).is_ok());
    }

    #[test]
    fn states_are_drawn_in_their_colours() {
        // Cells of states 0, 1, 2, 3 (channel k - 1 on), and one with two channels on,
        // which reads as its first.
        let mut grid = Grids::zeros(1, 1, 5, 3);
        for (col, ch) in [(1, 0), (2, 1), (3, 2), (4, 1), (4, 2)] {
            grid.set(0, 0, col, ch, 1.0);
        }
        let style = Style {
            view: View::States,
            scale: 1,
            frame_ms: 100,
        };
        let img = frame_image(&grid, 0, &style);
        let colours: Vec<[u8; 3]> = (0..5).map(|x| img.get_pixel(x, 0).0).collect();
        let [empty, alive, two, three] = STATE_COLOURS;
        assert_eq!(colours, [empty, alive, two, three, two]);
    }
}
