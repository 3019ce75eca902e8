//! `logicars train`: build the model, train it, save it.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use logicars::io::{atomic as output, batch_file, model_file, pattern_image};
use logicars::model::config::{ModelConfig, TrainSettings};
use logicars::model::network::Model;
use logicars::model::parametrization::Parametrization;
use logicars::model::recipe::RecipeName;
use logicars::model::task::TaskKind;
use logicars::tasks::{preset, set_channels, Override};
use logicars::train::{self, EpochMetrics, TrainSummary, Trainer};
use logicars::views::plot;

use super::progress::Progress;
use super::render::training_gif;
use super::{parametrization_parser, recipe_parser, task_parser, thread_pool};

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The task; its preset holds the paper's hyperparameters (listed below).
    #[arg(value_parser = task_parser())]
    pub task: TaskKind,
    /// A reduced model for quick runs (the "small" rows below).
    #[arg(long)]
    pub small: bool,
    /// Epochs (optimizer steps) [default: the preset's].
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Seed of wiring and data [default: the preset's]; the same seed gives the same log
    /// for any --threads.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print a progress line every N epochs [default: a tenth of the run].
    #[arg(long)]
    pub log_interval: Option<usize>,
    /// Per-epoch metrics CSV [default: metrics.csv beside the model].
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Where to save the model [default: runs/<task>[-small]-seed<S>/model.json].
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Learning rate [default: the preset's].
    #[arg(long)]
    pub lr: Option<f32>,
    /// Grids per batch [default: the preset's].
    #[arg(long)]
    pub batch: Option<usize>,
    /// Steps per rollout [default: the preset's].
    #[arg(long)]
    pub steps: Option<usize>,
    /// Wrap around at the border, true or false [default: the preset's].
    #[arg(long)]
    pub periodic: Option<bool>,
    /// Folder for the loss plot (loss.svg) and the rollout GIF (rollout.gif)
    /// [default: beside the model].
    #[arg(long)]
    pub artefacts: Option<PathBuf>,
    /// Write no loss plot and no rollout GIF.
    #[arg(long, conflicts_with = "artefacts")]
    pub no_artefacts: bool,
    /// pattern: the target image [default: the built-in 16x16 G, assets/target-g.png].
    #[arg(long)]
    pub target: Option<PathBuf>,
    /// pattern: grow the image's colours (R, G, B into channels 0, 1, 2).
    #[arg(long)]
    pub rgb: bool,
    /// pattern: bits per cell [default: the preset's].
    #[arg(long)]
    pub channels: Option<usize>,
    /// The training recipe [default: paper]; the flags below change single fields of it.
    #[arg(long, value_parser = recipe_parser())]
    pub recipe: Option<RecipeName>,
    /// How gates are parametrized: softmax (16 op logits) or input-wise (4 corner logits)
    /// [default: the recipe's].
    #[arg(long, value_parser = parametrization_parser())]
    pub parametrization: Option<Parametrization>,
    /// Pass-through strength of fresh gates [default: the parametrization's: 10 for
    /// softmax, 3 for input-wise].
    #[arg(long)]
    pub pass_through: Option<f32>,
    /// AdamW's decoupled weight decay [default: the recipe's, 0.01].
    #[arg(long)]
    pub weight_decay: Option<f32>,
    /// AdamW's epsilon [default: the recipe's, 1e-8].
    #[arg(long)]
    pub epsilon: Option<f32>,
    /// Epochs of linear learning-rate warm-up [default: the recipe's, 0].
    #[arg(long)]
    pub warmup: Option<usize>,
    /// Decay the learning rate to a tenth along a half cosine, true or false
    /// [default: the recipe's, false].
    #[arg(long)]
    pub cosine: Option<bool>,
    /// Weight of the penalty on gates that are not yet one op, which closes the gap
    /// between soft and hard loss [default: the recipe's].
    #[arg(long)]
    pub discreteness: Option<f32>,
    /// Share of the run, at its end, that runs the hard circuit forward and takes
    /// gradients through the soft gates (straight-through), 0 to 1 [default: the recipe's].
    #[arg(long, value_name = "SHARE", value_parser = share_of_run)]
    pub straight_through: Option<f32>,
    /// Share of the run, before the straight-through share, over which the forward moves
    /// linearly from the soft gates to the hard ops, 0 to 1 [default: the recipe's, 0].
    #[arg(long, value_name = "SHARE", value_parser = share_of_run)]
    pub hardening: Option<f32>,
    /// Sum the soft loss over the states after the last K steps, not only the last
    /// [default: the recipe's, 1].
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub loss_steps: Option<u64>,
    /// Scale of the noise added to every gate's parameters each epoch (Gumbel for
    /// softmax gates, logistic for input-wise ones); with --straight-through 1 each epoch
    /// trains one sampled circuit [default: the recipe's, 0].
    #[arg(long, value_name = "SCALE", value_parser = non_negative)]
    pub gate_noise: Option<f32>,
    /// Multiply the gates' parameters in the soft rollout by a factor rising from 1 to
    /// FACTOR over the run (a temperature falling to 1/FACTOR), so the soft gates
    /// approach the hard ops [default: the recipe's, 1].
    #[arg(long, value_name = "FACTOR", value_parser = positive)]
    pub sharpen: Option<f32>,
    /// Start from these parameters (wires and logits of each layer, as in a model file)
    /// instead of drawing them from the seed, e.g. to replay another implementation's run.
    #[arg(long, value_name = "FILE")]
    pub init_params: Option<PathBuf>,
    /// Train on these initial grids, one batch per epoch, instead of drawing them
    /// (packed bits, `[epoch][batch][row][col][channel]`, first value in the high bit).
    #[arg(long, value_name = "FILE")]
    pub batches: Option<PathBuf>,
}

/// `--target`, `--rgb` and `--channels` shape a pattern model; other tasks refuse them.
fn apply_pattern_flags(args: &TrainArgs, config: &mut ModelConfig) -> Result<()> {
    if args.task != TaskKind::Pattern {
        if args.target.is_some() || args.rgb || args.channels.is_some() {
            bail!("--target, --rgb and --channels are for the pattern task");
        }
        return Ok(());
    }
    if args.target.is_some() || args.rgb {
        let target = match &args.target {
            Some(path) => pattern_image::load(path, args.rgb)?,
            None => bail!("--rgb needs a colour --target image"),
        };
        config.height = target.height;
        config.width = target.width;
        config.target_channels = (0..target.channels()).collect();
        config.pattern = Some(target);
    }
    if let Some(channels) = args.channels {
        set_channels(config, channels).context("--channels")?;
    }
    if config.channels < config.target_channels.len() {
        bail!(
            "an RGB target needs at least 3 channels, got {}",
            config.channels
        );
    }
    Ok(())
}

/// A number from 0 to 1.
fn share_of_run(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "expected a share of the run from 0 to 1, got {text}"
        )),
    }
}

/// A number of at least 0.
fn non_negative(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(x) if x >= 0.0 => Ok(x),
        _ => Err(format!("expected a number of at least 0, got {text}")),
    }
}

/// A finite number above 0.
fn positive(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("expected a number above 0, got {text}")),
    }
}

/// The flags that change a preset, in the order they apply (recipe before its fields).
fn overrides(args: &TrainArgs) -> Vec<Override> {
    [
        args.epochs.map(Override::Epochs),
        args.batch.map(Override::Batch),
        args.lr.map(Override::LearningRate),
        args.steps.map(Override::Steps),
        args.periodic.map(Override::Periodic),
        args.recipe.map(Override::Recipe),
        args.parametrization.map(Override::Parametrization),
        args.pass_through.map(Override::PassThrough),
        args.weight_decay.map(Override::WeightDecay),
        args.epsilon.map(Override::Epsilon),
        args.warmup.map(Override::Warmup),
        args.cosine.map(Override::Cosine),
        args.discreteness.map(Override::Discreteness),
        args.straight_through.map(Override::StraightThrough),
        args.hardening.map(Override::Hardening),
        args.loss_steps.map(|k| Override::LossSteps(k as usize)),
        args.gate_noise.map(Override::GateNoise),
        args.sharpen.map(Override::Sharpen),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The preset with the flags applied, checked.
fn configure(args: &TrainArgs) -> Result<(ModelConfig, TrainSettings)> {
    let (mut config, mut settings) = preset(args.task, args.small);
    settings.seed = args.seed.unwrap_or(settings.seed);
    for change in overrides(args) {
        change.apply(&mut config, &mut settings);
    }
    apply_pattern_flags(args, &mut config)?;
    if settings.epochs == 0 {
        bail!("--epochs must be at least 1");
    }
    if settings.batch == 0 {
        bail!("--batch must be at least 1");
    }
    if !(settings.learning_rate.is_finite() && settings.learning_rate > 0.0) {
        bail!(
            "--lr must be a positive number, got {}",
            settings.learning_rate
        );
    }
    if args.log_interval == Some(0) {
        bail!("--log-interval must be at least 1");
    }
    Ok((config, settings))
}

/// Where the model and its log go.
struct RunPaths {
    model: PathBuf,
    log: PathBuf,
    artefacts: Option<PathBuf>,
}

impl RunPaths {
    fn new(args: &TrainArgs, settings: &TrainSettings) -> Self {
        let small = if args.small { "-small" } else { "" };
        let run_name = format!("{}{small}-seed{}", args.task.name(), settings.seed);
        let model = args
            .save
            .clone()
            .unwrap_or_else(|| PathBuf::from("runs").join(run_name).join("model.json"));
        let log = args
            .log
            .clone()
            .unwrap_or_else(|| model.with_file_name("metrics.csv"));
        let artefacts = (!args.no_artefacts).then(|| {
            args.artefacts
                .clone()
                .unwrap_or_else(|| model.with_file_name(""))
        });
        RunPaths {
            model,
            log,
            artefacts,
        }
    }
}

/// The trainer: parameters from the seed or `--init-params`, batches drawn or from
/// `--batches`.
fn start(args: &TrainArgs, config: ModelConfig, settings: TrainSettings) -> Result<Trainer> {
    let model = match &args.init_params {
        Some(path) => model_file::load_params(path, &config)?,
        None => train::fresh_model(config, &settings).context("building the model")?,
    };
    let Some(path) = &args.batches else {
        return Ok(Trainer::new(model, settings));
    };
    let c = &model.config;
    let batches = batch_file::load(path, settings.batch, (c.height, c.width, c.channels))?;
    if batches.len() < settings.epochs {
        bail!(
            "{} holds {} batches, fewer than the {} epochs",
            path.display(),
            batches.len(),
            settings.epochs
        );
    }
    Ok(Trainer::new(model, settings).with_batches(batches)?)
}

pub fn run(args: TrainArgs) -> Result<()> {
    let (config, settings) = configure(&args)?;
    let paths = RunPaths::new(&args, &settings);
    let interval = args.log_interval.unwrap_or((settings.epochs / 10).max(1));
    let pool = thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    pool.install(|| {
        let trainer = start(&args, config, settings)?;
        let (model, s) = (&trainer.model, trainer.settings());
        eprintln!(
            "Training {} ({} gates, {} per cell step) for {} epochs, batch {}, {} steps, {threads} threads",
            args.task.name(),
            model.gate_count(),
            model.config.gates_per_cell_step(),
            s.epochs,
            s.batch,
            model.config.steps,
        );
        let seed = s.seed;
        let mut progress = Progress::new(s.epochs, interval, &paths.log)?;
        let mut log_error = None;
        let mut history = Vec::new();
        let (trainer, summary, stopped) = train::run(trainer, |m| {
            history.push(*m);
            if let Err(e) = progress.record(m) {
                log_error.get_or_insert(e);
            }
        });
        let wall = progress.elapsed_s();
        progress.finish()?;
        if let Some(e) = log_error {
            return Err(e);
        }
        model_file::save_trained(&trainer.model, Some(trainer.settings()), &paths.model)?;
        if let Some(dir) = &paths.artefacts {
            let title = format!("{} (seed {seed})", args.task.name());
            write_artefacts(&trainer.model, &history, &title, seed, dir)?;
        }
        if let Some(e) = stopped {
            bail!("{e}; the last good model is saved in {}", paths.model.display());
        }
        print_summary(&summary, wall, &paths);
        Ok(())
    })
}

/// The loss plot and a rollout GIF of the trained model.
fn write_artefacts(
    model: &Model,
    history: &[EpochMetrics],
    title: &str,
    seed: u64,
    dir: &Path,
) -> Result<()> {
    let svg = plot::loss_svg(history, title)?;
    output::write_atomically(&dir.join("loss.svg"), svg.as_bytes()).context("writing loss.svg")?;
    training_gif(model, seed, &dir.join("rollout.gif"))
}

fn print_summary(summary: &TrainSummary, wall: f64, paths: &RunPaths) {
    let per_epoch = 1000.0 * wall / summary.epochs.max(1) as f64;
    println!("epochs:       {}", summary.epochs);
    println!("wall time:    {wall:.2} s ({per_epoch:.1} ms per epoch)");
    if let Some(last) = summary.last {
        println!(
            "final:        soft_loss={:.4}, hard_loss={:.0}, acc={:.2}%",
            last.metrics.soft_loss,
            last.metrics.hard_loss,
            last.metrics.accuracy * 100.0
        );
    }
    match summary.first_perfect_epoch {
        Some(e) => println!("hard loss 0:  first at epoch {e}"),
        None => println!("hard loss 0:  not reached"),
    }
    println!("model:        {}", paths.model.display());
    println!("log:          {}", paths.log.display());
}
