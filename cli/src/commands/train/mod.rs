//! `logicars train`: build the model, train it, save it; or resume a stopped run.

mod attempt_lines;
mod checkpoint;
mod configure;
mod finish;
mod folder;
mod knob_flags;
mod schedule;
mod session;
mod stop;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};
use logicars::model::task::TaskKind;
use logicars::train::Keep;

use crate::support::resources::thread_pool;
use crate::support::value_parsers::{parse_layer_widths, task_parser, LayerWidths};
use knob_flags::KnobFlags;
use schedule::CheckpointEvery;
use session::Session;
pub use stop::Interrupted;

/// Every flag that sets up a run besides the knobs, which `--resume` takes from the
/// checkpoint instead.
const RUN_FLAGS: [&str; 18] = [
    "task",
    "overwrite",
    "keep",
    "full",
    "small",
    "seed",
    "log_interval",
    "log",
    "save",
    "artefacts",
    "no_artefacts",
    "target",
    "rgb",
    "channels",
    "frames",
    "update_layers",
    "init_params",
    "batches",
];

/// The flags that `--resume` refuses: every flag that sets up a run.
fn run_flags() -> impl Iterator<Item = &'static str> {
    RUN_FLAGS.into_iter().chain(KnobFlags::ids())
}

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The task; its preset holds the paper's hyperparameters (listed below).
    #[arg(value_parser = task_parser(), required_unless_present = "resume")]
    pub task: Option<TaskKind>,
    /// Continue a stopped run: its folder (holding model.checkpoint.json) or the
    /// checkpoint file. The run goes on with every setting it started with (--full,
    /// --keep, --log-interval, the recipe and its attempts...); only --threads and
    /// --checkpoint-every may be given with it.
    #[arg(long, value_name = "RUN", conflicts_with_all = run_flags())]
    pub resume: Option<PathBuf>,
    /// How often to write a checkpoint (and the model) during training: every N epochs,
    /// every N seconds (`30s`), or `off`. SIGINT and SIGTERM always write one.
    #[arg(long, value_name = "EVERY", default_value = "30s")]
    pub checkpoint_every: CheckpointEvery,
    /// Which parameters the run saves: `best`, those whose hard circuit got the fewest
    /// bits of its training batch wrong (of equals the latest), or `last`. A run can
    /// reach a perfect circuit and drift away from it later.
    #[arg(long, value_enum, default_value_t = KeepModel::Best)]
    pub keep: KeepModel,
    /// Train every epoch, even after the kept model is exact. By default a run with
    /// `--keep best` stops at the first epoch whose kept model is found exact (checked,
    /// as a sweep does, when the batch is right, at most every 20 epochs): training on
    /// can only trade that model for a later one as right on its batch and not
    /// necessarily on fresh inputs.
    #[arg(long)]
    pub full: bool,
    /// A reduced model for quick runs (the "small" rows below).
    #[arg(long)]
    pub small: bool,
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
    /// Where to save the model [default: runs/<task>[-small]-seed<S>/model.json, or the
    /// first of runs/<task>[-small]-seed<S>-2/, -3/... that holds no other run]. The
    /// model's folder is the run's: held by this run alone while it trains, and never
    /// written over when it holds another run (see --overwrite).
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Replace the run the model's folder holds (finished, stopped, or this same run
    /// again): its record, checkpoint, model, log and pictures. A folder a running
    /// process holds is refused even so.
    #[arg(long)]
    pub overwrite: bool,
    /// Folder for the loss plot (loss.svg) and the rollout GIF (rollout.gif)
    /// [default: beside the model].
    #[arg(long)]
    pub artefacts: Option<PathBuf>,
    /// Write no loss plot and no rollout GIF.
    #[arg(long, conflicts_with = "artefacts")]
    pub no_artefacts: bool,
    /// pattern, lizard, colored-g: the target image, read as the task reads its own
    /// (pattern: dark pixels, at most 64x64; lizard: shrunk to 20x20, R, G or B above 0.26;
    /// colored-g: shrunk to 16x16, the paper's colour classes) [default: assets/].
    #[arg(long)]
    pub target: Option<PathBuf>,
    /// pattern: grow the image's colours (the colour classes of colored-g in channels 0..2).
    #[arg(long)]
    pub rgb: bool,
    /// rule: learn the rule of these recorded frames (a NumPy .npy of shape (T, H, W),
    /// uint8 states 0, 1, 2...) instead of a named --rule; the last fifth of the
    /// transitions is held out for the fresh check.
    #[arg(long, value_name = "RECORDING.npy", conflicts_with = "rule")]
    pub frames: Option<PathBuf>,
    /// pattern, lizard, colored-g: bits per cell [default: the preset's].
    #[arg(long)]
    pub channels: Option<usize>,
    /// Gates in each update layer, `WIDTH[xCOUNT]` separated by commas, e.g.
    /// `1024x8,512,256,128` for twice the lizard's widths [default: the preset's]. The last
    /// layer has one gate per channel (with --channels, that layer is set to the channels).
    #[arg(long, value_name = "WIDTHS", value_parser = parse_layer_widths)]
    pub update_layers: Option<LayerWidths>,
    /// The training knobs (--epochs to --starts), one flag per entry of
    /// `logicars::tasks::KNOBS`.
    #[command(flatten)]
    pub knobs: KnobFlags,
    /// Start from these parameters (wires and logits of each layer, as in a model file),
    /// or a model file of the same layers, instead of drawing them from the seed, e.g. to
    /// replay another implementation's run or train a model on with other knobs.
    #[arg(long, value_name = "FILE")]
    pub init_params: Option<PathBuf>,
    /// Train on these initial grids, one batch per epoch, instead of drawing them
    /// (packed bits, `[epoch][batch][row][col][channel]`, first value in the high bit).
    #[arg(long, value_name = "FILE")]
    pub batches: Option<PathBuf>,
}

/// The `--keep` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KeepModel {
    Best,
    Last,
}

impl From<KeepModel> for Keep {
    fn from(keep: KeepModel) -> Self {
        match keep {
            KeepModel::Best => Keep::Best,
            KeepModel::Last => Keep::Last,
        }
    }
}

pub fn run(args: TrainArgs) -> Result<()> {
    let pool = thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    pool.install(|| {
        // The run's folder stays held until the session is over.
        let (session, _folder) = match &args.resume {
            Some(run) => Session::resume(run)?,
            None => match Session::start(&args)? {
                Some(started) => started,
                None => return Ok(()),
            },
        };
        session.train(args.checkpoint_every, threads)
    })
}
