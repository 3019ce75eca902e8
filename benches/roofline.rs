//! Each task's training epoch against the plain gate kernel for the same work: how close
//! an epoch comes to the cost of its gate-lanes. Run: `cargo bench --bench roofline`.
//!
//! A *gate-lane* is one gate of one cell step evaluated for one cell of one grid: an
//! epoch has (gates per cell step) x (grids x cells) x (rollout steps) of them, each run
//! forward, recomputed and run backward by the soft rollout (the hard rollout that
//! scores the epoch runs 64 of them per word). The *plain kernel* runs 256 random gates
//! on one 64-lane tile of activations that stays in cache: forward twice and backward
//! once, on every thread of the pool at once; its time per gate-lane is what an epoch's
//! gate work would cost if nothing else did.
//!
//! Every task's epoch and the plain kernel are timed in turn, round after round (the host
//! is shared: a ratio within one round is what counts), and the table gives medians over
//! the rounds: the epoch, the plain kernel's time for the same gate-lanes, their ratio,
//! and each task's cost per gate-lane as a multiple of the reference checkerboard's (the
//! paper's recipe). A second table gives the plain kernel chained into more layers,
//! against one layer, within each round: what a tile's table larger than the L2 costs
//! the kernels alone. `LOGICARS_ROOFLINE_ROUNDS` sets the rounds (default 7); in test mode
//! (`cargo test --benches`, or `cargo bench --bench roofline -- --test`) every part runs
//! once.

use std::time::{Duration, Instant};

use logicars::kernels::plan::{BackwardPlan, ForwardRows};
use logicars::kernels::soft::{self, TILE};
use logicars::kernels::table::{table, Table};
use logicars::model::circuit::GateRef;
use logicars::model::config::{ModelConfig, TrainSettings};
use logicars::model::task::TaskKind;
use logicars::tasks::{preset_with, Override};
use logicars::train::memory::RolloutSize;
use logicars::train::Trainer;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

const THREADS: usize = 2;
/// Time each part runs for in a round.
const ROUND_TIME: Duration = Duration::from_millis(300);

/// One task with one recipe, as the table names it.
struct Workload {
    task: TaskKind,
    recipe: &'static str,
    trainer: Trainer,
    /// The epoch timed (the run's last: past any curriculum, holding where the recipe
    /// holds).
    epoch: usize,
    gate_lanes: f64,
}

/// The task's preset with `changes`; `default` means the task's own recipe at its size
/// with one start (after its curriculum), `paper` the paper's recipe.
fn workload(task: TaskKind, recipe: &'static str) -> Workload {
    let changes: &[&str] = match recipe {
        "paper" => &["recipe=paper"],
        _ => &["curriculum-share=0", "starts=1"],
    };
    let changes: Vec<Override> = changes.iter().map(|c| c.parse().unwrap()).collect();
    // Fitted as a run is once its flags are applied (the paper's lizard: 20x20).
    let (config, settings) = preset_with(task, false, &changes).unwrap();
    let gate_lanes = gate_lanes(&config, &settings);
    let epoch = settings.epochs;
    let trainer = Trainer::from_seed(config, settings).unwrap();
    Workload {
        task,
        recipe,
        trainer,
        epoch,
        gate_lanes,
    }
}

/// Gate-lanes of one training epoch (holding, where the recipe holds).
fn gate_lanes(config: &ModelConfig, settings: &TrainSettings) -> f64 {
    let size = RolloutSize::training(config, settings);
    let lanes = size.batch * size.height * size.width * size.steps;
    (config.gates_per_cell_step() * lanes) as f64
}

/// The plain kernel's tables on one thread: layers of 256 gates, the first reading 264
/// rows of 64 lanes, each other the layer before it.
struct Plain {
    gates: Vec<GateRef>,
    coefs: Vec<[f32; 4]>,
    acts: Table<f32>,
    patch_grads: Table<f32>,
    grads: Table<f32>,
    coef_grads: Vec<[f64; 4]>,
    plan: BackwardPlan,
}

const INPUT_ROWS: usize = 264;
const GATES: usize = 256;

impl Plain {
    /// `layers` layers of [`GATES`] gates wired at random from `seed`.
    fn new(seed: u64, layers: usize) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut gates: Vec<GateRef> = Vec::with_capacity(layers * GATES);
        for layer in 0..layers {
            let (first, rows) = match layer {
                0 => (0, INPUT_ROWS),
                _ => (INPUT_ROWS + (layer - 1) * GATES, GATES),
            };
            for _ in 0..GATES {
                let param = gates.len() as u32;
                gates.push(GateRef {
                    a: (first + rng.random_range(0..rows)) as u32,
                    b: (first + rng.random_range(0..rows)) as u32,
                    param,
                });
            }
        }
        let coefs = (0..gates.len())
            .map(|_| std::array::from_fn(|_| rng.random_range(-1.0..1.0)))
            .collect();
        let rows = INPUT_ROWS + gates.len();
        let mut acts = table(0.0f32, rows * TILE);
        acts.iter_mut().for_each(|v| *v = rng.random());
        let plan = BackwardPlan::new(&gates, INPUT_ROWS, rows - GATES..rows);
        let mut grads = table(0.0f32, plan.gradient_rows() * TILE);
        for r in rows - GATES..rows {
            grads[plan.gradient_slot(r) * TILE..][..TILE].fill(0.5);
        }
        Plain {
            coef_grads: vec![[0.0; 4]; gates.len()],
            gates,
            coefs,
            acts,
            patch_grads: table(0.0f32, INPUT_ROWS * TILE),
            grads,
            plan,
        }
    }

    /// Bytes of one tile's activations: what backward's recomputation writes and reads.
    fn table_bytes(&self) -> usize {
        self.acts.len() * size_of::<f32>()
    }

    /// Forward, forward again (backward's recomputation) and backward: its gates x 64
    /// gate-lanes of an epoch's soft work.
    fn run(&mut self) {
        let rows = ForwardRows::Every {
            gates: &self.gates,
            input_rows: INPUT_ROWS,
        };
        soft::forward(rows, &self.coefs, &mut self.acts, TILE);
        soft::forward(rows, &self.coefs, &mut self.acts, TILE);
        soft::backward(
            &self.plan,
            &self.coefs,
            &self.acts,
            (&mut self.patch_grads, &mut self.grads),
            &mut self.coef_grads,
            TILE,
        );
    }
}

/// Seconds per gate-lane of the plain kernel, every thread of the pool running it `reps`
/// times per hand-out.
fn plain_per_gate_lane(
    pool: &rayon::ThreadPool,
    plains: &mut [Plain],
    budget: Duration,
    reps: usize,
) -> f64 {
    let mut runs = 0usize;
    let start = Instant::now();
    while runs == 0 || start.elapsed() < budget {
        pool.install(|| {
            plains
                .par_iter_mut()
                .for_each(|p| (0..reps).for_each(|_| p.run()))
        });
        runs += reps;
    }
    let gate_lanes = (runs * plains.len() * plains[0].gates.len() * TILE) as f64;
    start.elapsed().as_secs_f64() / gate_lanes
}

/// Seconds per epoch of `w`.
fn epoch_seconds(pool: &rayon::ThreadPool, w: &mut Workload, budget: Duration) -> f64 {
    let mut epochs = 0usize;
    let start = Instant::now();
    while epochs == 0 || start.elapsed() < budget {
        pool.install(|| w.trainer.epoch(w.epoch).unwrap());
        epochs += 1;
    }
    start.elapsed().as_secs_f64() / epochs as f64
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n % 2 {
        1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn main() {
    // `cargo test --benches` passes no `--bench`, and `cargo bench -- --test` asks for a
    // test run as criterion's benches take it: run every part once, quickly.
    let args: Vec<String> = std::env::args().collect();
    let testing = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--test");
    let rounds: usize = match testing {
        true => 1,
        false => std::env::var("LOGICARS_ROOFLINE_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(7),
    };
    let budget = if testing { Duration::ZERO } else { ROUND_TIME };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .unwrap();
    let tasks = [
        TaskKind::Checkerboard,
        TaskKind::CheckerboardAsync,
        TaskKind::Gol,
        TaskKind::ColoredG,
        TaskKind::Lizard,
    ];
    let mut workloads: Vec<Workload> = tasks
        .iter()
        .flat_map(|&task| ["paper", "default"].map(|recipe| (task, recipe)))
        .map(|(task, recipe)| pool.install(|| workload(task, recipe)))
        .collect();
    let mut plains: Vec<Plain> = (0..THREADS as u64).map(|s| Plain::new(s, 1)).collect();
    // Per workload and round: (epoch seconds, plain seconds per gate-lane).
    let mut measured = vec![Vec::new(); workloads.len()];
    for round in 0..rounds {
        for (w, m) in workloads.iter_mut().zip(&mut measured) {
            let plain = plain_per_gate_lane(&pool, &mut plains, budget, 16);
            let epoch = epoch_seconds(&pool, w, budget);
            m.push((epoch, plain));
        }
        eprintln!("round {} of {rounds} done", round + 1);
    }
    print_table(&workloads, &measured);
    table_sizes(&pool, rounds, budget);
}

/// Layer counts of the plain kernel for [`table_sizes`]: a tile's table from 130 KiB
/// (fits any L2) past the lizard's 3.1 MB.
const LAYERS: [usize; 5] = [1, 4, 8, 16, 48];

/// The plain kernel's cost per gate-lane against the size of a tile's table, as a
/// multiple of one layer's, within each round: what a table that does not fit the L2
/// costs the kernels alone. Every count runs 48 layers' gates per hand-out.
fn table_sizes(pool: &rayon::ThreadPool, rounds: usize, budget: Duration) {
    let mut sets: Vec<Vec<Plain>> = LAYERS
        .iter()
        .map(|&layers| (0..THREADS as u64).map(|s| Plain::new(s, layers)).collect())
        .collect();
    let mut measured = vec![Vec::new(); LAYERS.len()];
    for _ in 0..rounds {
        let times: Vec<f64> = sets
            .iter_mut()
            .zip(LAYERS)
            .map(|(set, layers)| plain_per_gate_lane(pool, set, budget, 48 / layers))
            .collect();
        for (m, &t) in measured.iter_mut().zip(&times) {
            m.push((t, t / times[0]));
        }
    }
    println!();
    println!("| plain kernel, layers of 256 gates | a tile's table | per gate-lane (ns) | against one layer |");
    println!("|---:|---:|---:|---:|");
    for ((set, layers), m) in sets.iter().zip(LAYERS).zip(&measured) {
        println!(
            "| {layers} | {} KiB | {:.3} | {:.2} |",
            set[0].table_bytes() / 1024,
            median(m.iter().map(|&(t, _)| t * 1e9).collect()),
            median(m.iter().map(|&(_, r)| r).collect()),
        );
    }
}

fn print_table(workloads: &[Workload], measured: &[Vec<(f64, f64)>]) {
    println!(
        "| task | recipe | gate-lanes per epoch | epoch (ms) | plain kernel, same gate-lanes (ms) | epoch / plain | cost per gate-lane / checkerboard's |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|");
    // Cost per gate-lane against the reference's, within each round, then the median.
    let reference = &measured[0];
    for (w, m) in workloads.iter().zip(measured) {
        let epoch = median(m.iter().map(|&(e, _)| e).collect());
        let plain = median(m.iter().map(|&(_, p)| p * w.gate_lanes).collect());
        let ratio = median(m.iter().map(|&(e, p)| e / (p * w.gate_lanes)).collect());
        let relative = median(
            m.iter()
                .zip(reference)
                .map(|(&(e, _), &(r, _))| (e / w.gate_lanes) / (r / workloads[0].gate_lanes))
                .collect(),
        );
        println!(
            "| {} | {} | {:.3e} | {:.2} | {:.2} | {:.2} | {:.2} |",
            w.task.name(),
            w.recipe,
            w.gate_lanes,
            epoch * 1e3,
            plain * 1e3,
            ratio,
            relative
        );
    }
}
