//! `logicars train`: build the model, train it, save it; or resume a stopped run.

mod checkpoint;
mod configure;
mod finish;
mod session;
mod stop;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};
use logicars::model::parametrization::Parametrization;
use logicars::model::recipe::RecipeName;
use logicars::model::task::TaskKind;
use logicars::train::Keep;

use crate::support::resources::thread_pool;
use crate::support::value_parsers::{parametrization_parser, recipe_parser, task_parser};
use configure::{non_negative, positive, share_of_gates, share_of_run};
use session::{CheckpointEvery, Session};
pub use stop::Interrupted;

/// Every flag that sets up a run, which `--resume` takes from the checkpoint instead.
const RUN_FLAGS: [&str; 35] = [
    "task",
    "small",
    "epochs",
    "seed",
    "log_interval",
    "log",
    "save",
    "lr",
    "batch",
    "steps",
    "periodic",
    "artefacts",
    "no_artefacts",
    "target",
    "rgb",
    "channels",
    "recipe",
    "parametrization",
    "pass_through",
    "weight_decay",
    "epsilon",
    "warmup",
    "cosine",
    "discreteness",
    "straight_through",
    "hardening",
    "loss_steps",
    "gate_noise",
    "sharpen",
    "hard_gates",
    "curriculum_size",
    "curriculum_share",
    "starts",
    "init_params",
    "batches",
];

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The task; its preset holds the paper's hyperparameters (listed below).
    #[arg(value_parser = task_parser(), required_unless_present = "resume")]
    pub task: Option<TaskKind>,
    /// Continue a stopped run: its folder (holding model.checkpoint.json) or the
    /// checkpoint file. The run's own settings apply; only --threads,
    /// --checkpoint-every and --keep may be given with it.
    #[arg(long, value_name = "RUN", conflicts_with_all = RUN_FLAGS)]
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
    /// pattern, lizard, colored-g: the target image, read as the task reads its own
    /// (pattern: dark pixels, at most 64x64; lizard: shrunk to 20x20, R, G or B above 0.26;
    /// colored-g: shrunk to 16x16, the paper's colour classes) [default: assets/].
    #[arg(long)]
    pub target: Option<PathBuf>,
    /// pattern: grow the image's colours (the colour classes of colored-g in channels 0..2).
    #[arg(long)]
    pub rgb: bool,
    /// pattern, lizard, colored-g: bits per cell [default: the preset's].
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
    /// Share of the gates, drawn afresh each epoch, that run their hard op in the soft
    /// rollout (straight-through) while the rest stay soft [default: the recipe's, 0].
    #[arg(long, value_name = "SHARE", value_parser = share_of_gates)]
    pub hard_gates: Option<f32>,
    /// Train the first --curriculum-share of the run on square grids of this side, then
    /// at the task's size; 0 for none (checkerboard tasks) [default: the recipe's].
    #[arg(long, value_name = "SIDE")]
    pub curriculum_size: Option<usize>,
    /// Share of the run, at its start, on the curriculum's smaller grids, 0 to 1
    /// [default: the recipe's].
    #[arg(long, value_name = "SHARE", value_parser = share_of_run)]
    pub curriculum_share: Option<f32>,
    /// Train this many models, each wired and initialised from its own seed, through the
    /// curriculum and go on with the one that leads at its end (or the first whose hard
    /// circuit is perfect); needs a curriculum [default: the recipe's].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub starts: Option<u64>,
    /// Start from these parameters (wires and logits of each layer, as in a model file)
    /// instead of drawing them from the seed, e.g. to replay another implementation's run.
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
        let session = match &args.resume {
            Some(run) => Session::resume(run)?,
            None => Session::start(&args)?,
        };
        session.train(args.checkpoint_every, threads, args.keep.into())
    })
}
