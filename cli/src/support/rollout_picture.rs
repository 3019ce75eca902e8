//! A hard rollout drawn to a file, frame by frame: for `render`, and for the GIF that
//! `train` writes beside the model it trained.
//!
//! It runs the model and writes files, so it lives here rather than in the library's
//! pure drawing (`logicars::views::picture`), which it calls.

use std::path::Path;

use anyhow::{Context, Result};
use logicars::automaton::frames::{for_each_hard_frame, hard_frames, Damage};
use logicars::automaton::grid::Grids;
use logicars::automaton::masks::FireMasks;
use logicars::io::atomic::write_atomically_with;
use logicars::model::network::Model;
use logicars::tasks;
use logicars::views::picture::{strip_png_bytes, GifWriter, Style};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A hard rollout to draw.
pub struct Rollout<'a> {
    pub model: &'a Model,
    pub init: &'a Grids,
    pub steps: usize,
    pub masks: Option<&'a FireMasks>,
    pub damage: Option<&'a Damage>,
}

impl Rollout<'_> {
    /// Draws the rollout to `out`: a GIF encoded frame by frame as the rollout runs, or a
    /// strip of all frames.
    pub fn write(&self, style: &Style, kind: PictureKind, out: &Path) -> Result<()> {
        let (model, init, steps) = (self.model, self.init, self.steps);
        let written = match kind {
            PictureKind::Gif => write_atomically_with(out, |file| {
                let mut gif = GifWriter::new(file, style)?;
                for_each_hard_frame(model, init, steps, self.masks, self.damage, |frame| {
                    gif.push(frame)
                })
            }),
            PictureKind::Png => {
                let frames = hard_frames(model, init, steps, self.masks, self.damage);
                let bytes = strip_png_bytes(&frames, style)?;
                write_atomically_with(out, |file| Ok(file.write_all(&bytes)?))
            }
        };
        written.with_context(|| format!("writing {}", out.display()))
    }
}

/// The two pictures of a rollout: an animation, or every frame side by side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PictureKind {
    Gif,
    Png,
}

/// The rollout GIF written after training: the final model from a random grid.
pub fn training_gif(model: &Model, seed: u64, out: &Path) -> Result<()> {
    let c = &model.config;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let init = tasks::training_init(c, 1, &mut rng);
    let masks = c
        .fire_rate
        .map(|r| FireMasks::draw(c.steps, 1, init.cells(), r, &mut rng));
    let rollout = Rollout {
        model,
        init: &init,
        steps: c.steps,
        masks: masks.as_ref(),
        damage: None,
    };
    rollout.write(&Style::default(), PictureKind::Gif, out)
}
