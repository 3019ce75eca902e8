//! `logicars eval`: run a saved model and score it.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use logicars::automaton::frames::Damage;
use logicars::automaton::grid::Grids;
use logicars::automaton::hard_run::HardRun;
use logicars::automaton::masks::FireMasks;
use logicars::evaluate::hard::score_damaged;
use logicars::evaluate::{evaluate, Evaluation, Rollout, SoftLoss};
use logicars::io::{grid_file, model_file};
use logicars::model::config::check_steps;
use logicars::model::network::Model;
use logicars::tasks;
use logicars::train::memory::{evaluation_bytes, RolloutSize};
use logicars::views::page;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::support::bad_value;
use crate::support::compute_time;
use crate::support::progress::steps_bar;
use crate::support::resources::{ensure_memory, thread_pool};
use crate::support::value_parsers::parse_size;

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The model file (from `logicars train`).
    #[arg(long)]
    pub model: PathBuf,
    /// Initial grids: JSON [batch][row][col][channel] of numbers in [0, 1].
    #[arg(long, conflicts_with_all = ["batch", "size"])]
    pub init: Option<PathBuf>,
    /// Seed of the random initial grids and of async fire masks.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Random grids to evaluate.
    #[arg(long, default_value_t = 8)]
    pub batch: usize,
    /// Grid size HxW of random grids [default: the training size].
    #[arg(long, value_parser = parse_size)]
    pub size: Option<(usize, usize)>,
    /// Steps to run, at most 2^20 as in a model file [default: the training steps].
    #[arg(long)]
    pub steps: Option<usize>,
    /// Worker threads [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Also run the soft (differentiable) rollout and print its loss; it costs several
    /// times the hard rollout.
    #[arg(long, conflicts_with = "damage")]
    pub soft: bool,
    /// Zero a centred RxC block after each of steps A..B (inclusive), e.g. 10x10@12..24,
    /// and score the hard circuit after the last step: the fresh check's *regrows* probe.
    #[arg(long, value_name = "RxC@A..B")]
    pub damage: Option<String>,
    /// Also print the CRC-32 of the first grid's hard state after the last step, over the
    /// channels the visible ones read (as `export --format html`'s page prints it).
    #[arg(long, conflicts_with = "damage")]
    pub digest: bool,
}

pub fn run(args: EvalArgs) -> Result<()> {
    if let Some(steps) = args.steps {
        check_steps(steps)?;
    }
    let model = model_file::load(&args.model)?;
    let config = &model.config;
    let steps = args.steps.unwrap_or(config.steps);
    if args.batch == 0 {
        bad_value!("--batch must be at least 1");
    }
    let pool = thread_pool(args.threads)?;
    if args.init.is_none() {
        let (height, width) = args.size.unwrap_or((config.height, config.width));
        let size = RolloutSize::evaluation(args.batch, (height, width), steps);
        let what = format!(
            "evaluating --batch {} grids of --size {height}x{width} for --steps {steps}",
            args.batch
        );
        pool.install(|| ensure_memory(&what, evaluation_bytes(config, &size)))?;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let init = match &args.init {
        Some(path) => grid_file::load(path, config.channels)?,
        None => {
            let (h, w) = args.size.unwrap_or((config.height, config.width));
            tasks::eval_init(config, args.batch, h, w, &mut rng)
        }
    };
    let masks = tasks::fire_masks(config, &init, steps, false, &mut rng);
    if let Some(text) = &args.damage {
        let damage = Damage::parse(text, init.height, init.width)?;
        let masks = masks.as_ref();
        return pool.install(|| eval_damaged(&model, &init, steps, masks, &damage, text));
    }
    let soft = if args.soft {
        SoftLoss::Compute
    } else {
        SoftLoss::Skip
    };
    let start = Instant::now();
    let metrics =
        pool.install(|| evaluate_showing_steps(&model, &init, steps, masks.as_ref(), soft));
    let compute_s = start.elapsed().as_secs_f64();
    let soft_loss = metrics
        .soft_loss
        .map(|loss| format!("soft_loss={loss:.4}, "))
        .unwrap_or_default();
    println!(
        "{} on {} grid(s) of {}x{}, {steps} steps: {soft_loss}hard_loss={:.0}, acc={:.2}%",
        config.task.name(),
        init.batch,
        init.height,
        init.width,
        metrics.hard_loss,
        metrics.accuracy * 100.0
    );
    if args.digest {
        pool.install(|| print_digest(&model, &init, steps, masks.as_ref()));
    }
    compute_time::report("eval", compute_s, steps, "step")
}

/// The digest of the first grid's hard state after `steps` steps from `init`, as a
/// model's page prints it ([`page::digest`]).
fn print_digest(model: &Model, init: &Grids, steps: usize, masks: Option<&FireMasks>) {
    let mut run = HardRun::new(model, init.batch, (init.height, init.width));
    run.set_state(init);
    for step in 0..steps {
        run.step(masks, step);
    }
    let live = page::live_channels(model);
    println!("digest: {:08x}", page::digest(&run.state(), 0, &live));
}

/// The hard circuit's score after `steps` steps with `damage`'s block zeroed (`text`, as
/// given), printed as the plain evaluation prints its own.
fn eval_damaged(
    model: &Model,
    init: &Grids,
    steps: usize,
    masks: Option<&FireMasks>,
    damage: &Damage,
    text: &str,
) -> Result<()> {
    let bar = steps_bar(steps);
    let start = Instant::now();
    let (wrong, right) = score_damaged(model, init, steps, masks, damage, |_| bar.inc(1));
    bar.finish_and_clear();
    println!(
        "{} on {} grid(s) of {}x{}, {steps} steps, {text} zeroed: hard_loss={wrong:.0}, \
         acc={:.2}%",
        model.config.task.name(),
        init.batch,
        init.height,
        init.width,
        right * 100.0
    );
    compute_time::report("eval", start.elapsed().as_secs_f64(), steps, "step")
}

/// [`evaluate`] with a bar of its rollouts' steps on stderr (drawn only on a terminal).
fn evaluate_showing_steps(
    model: &Model,
    init: &Grids,
    steps: usize,
    masks: Option<&FireMasks>,
    soft: SoftLoss,
) -> Evaluation {
    let rollouts = if soft == SoftLoss::Compute { 2 } else { 1 };
    let bar = steps_bar(rollouts * steps);
    let evaluation = evaluate(model, init, steps, masks, soft, |rollout, _| {
        bar.set_message(match rollout {
            Rollout::Soft => "soft rollout",
            Rollout::Hard => "hard rollout",
        });
        bar.inc(1);
    });
    bar.finish_and_clear();
    evaluation
}
