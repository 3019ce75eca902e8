//! `logicars render`: a hard rollout as a GIF animation or a PNG strip.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use logicars::automaton::frames::{hard_frames, Damage};
use logicars::automaton::grid::Grids;
use logicars::automaton::masks::FireMasks;
use logicars::io::{atomic as output, grid_file, model_file};
use logicars::model::network::Model;
use logicars::tasks;
use logicars::views::picture::{check_view, gif_bytes, strip_png_bytes, Style, View};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{parse_size, view_parser};

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The model file (from `logicars train`).
    #[arg(long)]
    pub model: PathBuf,
    /// Grid size HxW [default: the training size].
    #[arg(long, value_parser = parse_size)]
    pub size: Option<(usize, usize)>,
    /// Steps [default: the training steps].
    #[arg(long)]
    pub steps: Option<usize>,
    /// Seed of the random initial grid and fire masks.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Initial grid from JSON instead ([1][row][col][channel]).
    #[arg(long, conflicts_with = "size")]
    pub init: Option<PathBuf>,
    /// Asynchronous steps (the model's fire rate, else 0.6).
    #[arg(long)]
    pub r#async: bool,
    /// Zero a centred block: RxC@FIRST..LAST (steps, inclusive).
    #[arg(long)]
    pub damage: Option<String>,
    /// What a cell shows.
    #[arg(long, value_parser = view_parser(), default_value = "channel0")]
    pub view: View,
    /// Pixels per cell.
    #[arg(long, default_value_t = 8)]
    pub scale: u32,
    /// Output: .gif (animation) or .png (strip of frames).
    #[arg(long, default_value = "render.gif")]
    pub out: PathBuf,
}

pub fn run(args: RenderArgs) -> Result<()> {
    let kind = picture_kind(&args.out)?;
    if args.scale == 0 || args.scale > 64 {
        bail!("--scale must be 1..=64");
    }
    let model = model_file::load(&args.model)?;
    let c = &model.config;
    check_view(args.view, c.channels)?;
    let steps = args.steps.unwrap_or(c.steps);
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let init = match &args.init {
        Some(path) => grid_file::load(path, c.channels)?,
        None => {
            let (h, w) = args.size.unwrap_or((c.height, c.width));
            tasks::eval_init(c.task, 1, h, w, c.channels, &mut rng)
        }
    };
    let damage = args
        .damage
        .as_deref()
        .map(|d| Damage::parse(d, init.height, init.width))
        .transpose()?;
    let rate = c.fire_rate.or(args.r#async.then_some(0.6));
    let masks = rate.map(|r| FireMasks::draw(steps, init.batch * init.cells(), r, &mut rng));
    let frames = hard_frames(&model, &init, steps, masks.as_ref(), damage.as_ref());
    let style = Style {
        view: args.view,
        scale: args.scale,
        ..Style::default()
    };
    write_frames(&frames, &style, kind, &args.out)?;
    println!(
        "{} frames of {}x{} -> {}",
        frames.len(),
        init.height,
        init.width,
        args.out.display()
    );
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PictureKind {
    Gif,
    Png,
}

pub fn picture_kind(path: &Path) -> Result<PictureKind> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("gif") => Ok(PictureKind::Gif),
        Some("png") => Ok(PictureKind::Png),
        _ => bail!("--out {} must end in .gif or .png", path.display()),
    }
}

pub fn write_frames(frames: &[Grids], style: &Style, kind: PictureKind, out: &Path) -> Result<()> {
    let bytes = match kind {
        PictureKind::Gif => gif_bytes(frames, style),
        PictureKind::Png => strip_png_bytes(frames, style),
    }
    .context("encoding the picture")?;
    output::write_atomically(out, &bytes).with_context(|| format!("writing {}", out.display()))
}

/// The rollout GIF written after training: the final model from a random grid.
pub fn training_gif(model: &Model, seed: u64, out: &Path) -> Result<()> {
    let c = &model.config;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let init = tasks::training_init(c, 1, &mut rng);
    let masks = c
        .fire_rate
        .map(|r| FireMasks::draw(c.steps, init.cells(), r, &mut rng));
    let frames = hard_frames(model, &init, c.steps, masks.as_ref(), None);
    write_frames(&frames, &Style::default(), PictureKind::Gif, out)
}
