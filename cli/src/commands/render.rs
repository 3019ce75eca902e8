//! `logicars render`: a hard rollout as a GIF animation or a PNG strip.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use logicars::automaton::frames::Damage;
use logicars::automaton::grid::Grids;
use logicars::automaton::masks::{FireMasks, PAPER_FIRE_RATE};
use logicars::io::atomic::write_atomically;
use logicars::io::{grid_file, model_file};
use logicars::model::config::ModelConfig;
use logicars::model::network::Model;
use logicars::tasks;
use logicars::train::memory::{hard_bytes, RolloutSize};
use logicars::views::picture::{check_view, strip_png_bytes, Style, View};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::support::outputs::check_outputs;
use crate::support::resources::ensure_memory;
use crate::support::rollout_picture::{PictureKind, Rollout};
use crate::support::value_parsers::{parse_size, view_parser};

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
    /// Draw the task's target (what the last step should show, in the target channels:
    /// channel 0, or colour classes as --view rgb) as a one-frame PNG instead.
    #[arg(long, conflicts_with_all = ["damage", "async"])]
    pub show_target: bool,
    /// Output: .gif (animation) or .png (strip of frames).
    #[arg(long, default_value = "render.gif")]
    pub out: PathBuf,
}

/// A GIF of more frames than this is not a picture anyone watches.
const MAX_GIF_FRAMES: usize = 100_000;
/// A strip of more frames than this is too wide for an image viewer.
const MAX_STRIP_FRAMES: usize = 1_000;

pub fn run(args: RenderArgs) -> Result<()> {
    let kind = picture_kind(&args.out)?;
    if args.scale == 0 || args.scale > 64 {
        bail!("--scale must be 1..=64");
    }
    let model = model_file::load(&args.model)?;
    let c = &model.config;
    check_view(args.view, c.channels)?;
    let steps = args.steps.unwrap_or(c.steps);
    let (most, picture) = match kind {
        PictureKind::Gif => (MAX_GIF_FRAMES, "GIF"),
        PictureKind::Png => (MAX_STRIP_FRAMES, "PNG strip"),
    };
    if steps >= most {
        bail!(
            "--steps {steps} would make more than {most} frames, the most a {picture} holds here"
        );
    }
    let (h, w) = args.size.unwrap_or((c.height, c.width));
    if args.init.is_none() {
        ensure_render_fits(c, (h, w), steps, args.scale)?;
    }
    check_outputs(&[("the picture (--out)", args.out.clone())])?;
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let init = match &args.init {
        Some(path) => grid_file::load(path, c.channels)?,
        None => tasks::eval_init(c, 1, h, w, &mut rng),
    };
    let damage = args
        .damage
        .as_deref()
        .map(|d| Damage::parse(d, init.height, init.width))
        .transpose()?;
    if args.show_target {
        return write_target(&model, &init, steps, &args);
    }
    let rate = c.fire_rate.or(args.r#async.then_some(PAPER_FIRE_RATE));
    let masks = rate.map(|r| FireMasks::draw(steps, init.batch, init.cells(), r, &mut rng));
    let rollout = Rollout {
        model: &model,
        init: &init,
        steps,
        masks: masks.as_ref(),
        damage: damage.as_ref(),
    };
    let style = Style {
        view: args.view,
        scale: args.scale,
        ..Style::default()
    };
    rollout.write(&style, kind, &args.out)?;
    println!(
        "{} frames of {}x{} -> {}",
        steps + 1,
        init.height,
        init.width,
        args.out.display()
    );
    Ok(())
}

/// The target of `init` after `steps` steps as a PNG.
fn write_target(model: &Model, init: &Grids, steps: usize, args: &RenderArgs) -> Result<()> {
    if picture_kind(&args.out)? != PictureKind::Png {
        bail!("--show-target draws one picture: --out must end in .png");
    }
    let target = tasks::target(&model.config, init, steps);
    check_view(args.view, target.channels)?;
    let style = Style {
        view: args.view,
        scale: args.scale,
        ..Style::default()
    };
    let bytes = strip_png_bytes(&[target], &style)?;
    write_atomically(&args.out, &bytes)
        .with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "the target of {}x{} -> {}",
        init.height,
        init.width,
        args.out.display()
    );
    Ok(())
}

/// The rollout's memory (one frame at a time, plus fire masks and one image), against
/// the limit.
fn ensure_render_fits(
    config: &ModelConfig,
    (height, width): (usize, usize),
    steps: usize,
    scale: u32,
) -> Result<()> {
    let size = RolloutSize::evaluation(1, (height, width), steps);
    let image = (height as u64)
        .checked_mul(width as u64)
        .and_then(|cells| cells.checked_mul(u64::from(scale * scale) * 8));
    let bytes = hard_bytes(config, &size).and_then(|b| b.checked_add(image?));
    let what = format!("rendering --size {height}x{width} for --steps {steps} at --scale {scale}");
    ensure_memory(&what, bytes)
}

/// The picture `--out` asks for, by its extension.
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
