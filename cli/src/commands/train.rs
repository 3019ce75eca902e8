//! `logicars train`: build the model, train it, save it.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use logicars::io::pattern_image;
use logicars::io::{atomic as output, model_file};
use logicars::model::config::ModelConfig;
use logicars::model::network::Model;
use logicars::model::task::TaskKind;
use logicars::tasks::preset;
use logicars::train::train;
use logicars::views::plot;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::progress::Progress;
use super::render::training_gif;
use super::{task_parser, thread_pool};

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The task; its preset holds the paper's hyperparameters.
    #[arg(value_parser = task_parser())]
    pub task: TaskKind,
    /// A reduced model for quick runs (sizes in the README).
    #[arg(long)]
    pub small: bool,
    /// Epochs (optimizer steps); default from the preset.
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Seed of wiring and data (default from the preset); the same seed gives the same
    /// log for any --threads.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print a progress line every N epochs (default: a tenth of the run).
    #[arg(long)]
    pub log_interval: Option<usize>,
    /// Per-epoch metrics CSV (default: metrics.csv beside the model).
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Where to save the model (default: runs/<task>[-small]-seed<S>/model.json).
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Learning rate; default from the preset.
    #[arg(long)]
    pub lr: Option<f32>,
    /// Grids per batch; default from the preset.
    #[arg(long)]
    pub batch: Option<usize>,
    /// Steps per rollout; default from the preset.
    #[arg(long)]
    pub steps: Option<usize>,
    /// Folder for the loss plot (loss.svg) and the rollout GIF (rollout.gif);
    /// default: beside the model.
    #[arg(long)]
    pub artefacts: Option<PathBuf>,
    /// pattern: the target image (default: the built-in 16x16 G, assets/target-g.png).
    #[arg(long)]
    pub target: Option<PathBuf>,
    /// pattern: grow the image's colours (R, G, B into channels 0, 1, 2).
    #[arg(long)]
    pub rgb: bool,
    /// pattern: bits per cell (default from the preset).
    #[arg(long)]
    pub channels: Option<usize>,
    /// Wrap around at the border, true or false (default from the preset).
    #[arg(long)]
    pub periodic: Option<bool>,
    /// Write no loss plot and no rollout GIF.
    #[arg(long, conflicts_with = "artefacts")]
    pub no_artefacts: bool,
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
        config.channels = channels;
        let last = config.update_layers.len() - 1;
        config.update_layers[last] = channels;
        // A narrower output needs halving layers before it, so each can read all inputs.
        while config.update_layers.len() >= 2
            && config.update_layers[config.update_layers.len() - 2] > 2 * channels
        {
            let before = config.update_layers[config.update_layers.len() - 2];
            config
                .update_layers
                .insert(config.update_layers.len() - 1, before.div_ceil(2));
        }
    }
    if config.channels < config.target_channels.len() {
        bail!(
            "an RGB target needs at least 3 channels, got {}",
            config.channels
        );
    }
    Ok(())
}

pub fn run(args: TrainArgs) -> Result<()> {
    let (mut config, mut settings) = preset(args.task, args.small);
    if let Some(seed) = args.seed {
        settings.seed = seed;
    }
    if let Some(epochs) = args.epochs {
        settings.epochs = epochs;
    }
    if let Some(batch) = args.batch {
        settings.batch = batch;
    }
    if let Some(lr) = args.lr {
        settings.learning_rate = lr;
    }
    if let Some(steps) = args.steps {
        config.steps = steps;
    }
    if let Some(periodic) = args.periodic {
        config.periodic = periodic;
    }
    apply_pattern_flags(&args, &mut config)?;
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
    let interval = args.log_interval.unwrap_or((settings.epochs / 10).max(1));
    if interval == 0 {
        bail!("--log-interval must be at least 1");
    }
    let run_name = format!(
        "{}{}-seed{}",
        args.task.name(),
        if args.small { "-small" } else { "" },
        settings.seed
    );
    let model_path = args
        .save
        .unwrap_or_else(|| PathBuf::from("runs").join(run_name).join("model.json"));
    let log_path = args
        .log
        .unwrap_or_else(|| model_path.with_file_name("metrics.csv"));

    let pool = thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    pool.install(|| {
        let model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(settings.seed)).context("building the model")?;
        eprintln!(
            "Training {} ({} gates, {} per cell step) for {} epochs, batch {}, {} steps, {} threads",
            args.task.name(),
            model.gate_count(),
            model.config.gates_per_cell_step(),
            settings.epochs,
            settings.batch,
            model.config.steps,
            threads
        );
        let mut progress = Progress::new(settings.epochs, interval, &log_path)?;
        let mut log_error = None;
        let mut history = Vec::new();
        let seed = settings.seed;
        let (trainer, summary, stopped) = train(model, settings, |m| {
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
        model_file::save(&trainer.model, &model_path)?;
        if !args.no_artefacts {
            let dir = args.artefacts.clone().unwrap_or_else(|| model_path.with_file_name(""));
            let title = format!("{} (seed {seed})", args.task.name());
            let svg = plot::loss_svg(&history, &title).map_err(anyhow::Error::msg)?;
            output::write_atomically(&dir.join("loss.svg"), svg.as_bytes()).context("writing loss.svg")?;
            training_gif(&trainer.model, seed, &dir.join("rollout.gif"))?;
        }
        if let Some(e) = stopped {
            bail!("{e}; the last good model is saved in {}", model_path.display());
        }
        println!("epochs:       {}", summary.epochs);
        println!("wall time:    {wall:.2} s ({:.1} ms per epoch)", 1000.0 * wall / summary.epochs as f64);
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
        println!("model:        {}", model_path.display());
        println!("log:          {}", log_path.display());
        Ok(())
    })
}
