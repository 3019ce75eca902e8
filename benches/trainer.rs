//! Speed of the trainer's hot paths. Run: `cargo bench --bench trainer`.
//!
//! Every group runs in a 2-thread pool (this project's reference machine has 2 cores)
//! unless its name says otherwise.

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use logicars::automaton::hard::HardRollout;
use logicars::automaton::soft::ActivationMemory;
use logicars::kernels::hard::{self, TruthMasks, HARD_TILE, WORDS};
use logicars::kernels::parameters::hard_truth;
use logicars::kernels::plan::{BackwardPlan, ForwardRows};
use logicars::kernels::soft::{self, TILE};
use logicars::kernels::table::table;
use logicars::model::circuit::{Circuit, GateRef};
use logicars::model::config::{ModelConfig, TrainSettings};
use logicars::model::network::Model;
use logicars::model::recipe::RecipeName;
use logicars::model::task::TaskKind;
use logicars::tasks::{preset, Override};
use logicars::train::Trainer;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// The reference checkerboard with the paper's recipe, as the earlier figures measured it.
fn paper_preset() -> (ModelConfig, TrainSettings) {
    let (mut config, mut settings) = preset(TaskKind::Checkerboard, false);
    Override::recipe(RecipeName::Paper).apply(&mut config, &mut settings);
    (config, settings)
}

fn reference_trainer(memory: ActivationMemory) -> Trainer {
    let (config, settings) = paper_preset();
    let model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(settings.seed)).unwrap();
    Trainer::with_memory(model, settings, memory)
}

/// One epoch of the reference checkerboard per recipe, side by side: what a recipe's
/// parametrization and penalty cost over the paper's.
fn recipes(c: &mut Criterion) {
    let mut group = c.benchmark_group("epoch-recipe");
    group.sample_size(30);
    let pool = pool(2);
    for (name, changes) in [
        ("checkerboard/paper", vec!["recipe=paper"]),
        // The default recipe at the task's size (after its curriculum), and within its
        // curriculum (a run so long that every timed epoch is one of its first 40%), with
        // one start and with its four. A learning rate far below what moves an f32
        // logit costs the same work and keeps the starts from reaching a perfect
        // circuit, which ends them (0 itself is refused by the knobs' check).
        (
            "checkerboard/converge",
            vec!["curriculum-share=0", "starts=1"],
        ),
        (
            "checkerboard/converge-curriculum",
            vec!["epochs=100000000", "lr=1e-30", "starts=1"],
        ),
        (
            "checkerboard/converge-curriculum/4-starts",
            vec!["epochs=100000000", "lr=1e-30"],
        ),
        ("checkerboard/input-wise", vec!["recipe=input-wise"]),
        (
            "checkerboard/input-wise+discreteness",
            vec!["recipe=input-wise", "discreteness=1"],
        ),
        // Every epoch a straight-through one: the share of the run does not matter here.
        (
            "checkerboard/input-wise+straight-through",
            vec!["recipe=input-wise", "straight-through=1"],
        ),
    ] {
        let (mut config, mut settings) = preset(TaskKind::Checkerboard, false);
        for change in changes {
            let change: Override = change.parse().unwrap();
            change.apply(&mut config, &mut settings);
        }
        let trainer = pool.install(|| Trainer::from_seed(config, settings).unwrap());
        bench_epochs(&mut group, name, &pool, trainer);
    }
    group.finish();
}

/// Times one epoch after another of `trainer` on `pool`.
fn bench_epochs(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    pool: &rayon::ThreadPool,
    mut trainer: Trainer,
) {
    let mut e = 0;
    group.bench_function(name, |b| {
        b.iter(|| {
            e += 1;
            pool.install(|| trainer.epoch(e).unwrap())
        })
    });
}

/// One epoch of each of the paper's other experiments with its default recipe: the
/// growing tasks roll out 64 (coloured G) and 128 (lizard) channels per cell, where the
/// checkerboard's 8 tuned the kernels.
fn epoch_task(c: &mut Criterion) {
    let mut group = c.benchmark_group("epoch-task");
    group.sample_size(10);
    let pool = pool(2);
    for task in [
        TaskKind::Lizard,
        TaskKind::ColoredG,
        TaskKind::CheckerboardAsync,
    ] {
        let (config, settings) = preset(task, false);
        let trainer = pool.install(|| Trainer::from_seed(config, settings).unwrap());
        bench_epochs(&mut group, task.name(), &pool, trainer);
    }
    group.finish();
}

/// One training epoch of the reference checkerboard: batch 2, 16x16, 20 steps,
/// soft forward + BPTT + hard rollout + AdamW.
fn epoch(c: &mut Criterion) {
    let mut group = c.benchmark_group("epoch");
    group.sample_size(30);
    for (name, memory, threads) in [
        (
            "checkerboard/recompute/2-threads",
            ActivationMemory::Recompute,
            2,
        ),
        ("checkerboard/store/2-threads", ActivationMemory::Store, 2),
        (
            "checkerboard/recompute/1-thread",
            ActivationMemory::Recompute,
            1,
        ),
    ] {
        let pool = pool(threads);
        let trainer = pool.install(|| reference_trainer(memory));
        bench_epochs(&mut group, name, &pool, trainer);
    }
    group.finish();
}

/// The reference epoch's cost against grid size and steps (batch 2, 2 threads): it
/// should grow in proportion to cells x steps, so the throughput is in cell-steps.
fn epoch_size(c: &mut Criterion) {
    let mut group = c.benchmark_group("epoch-size");
    group.sample_size(10);
    let pool = pool(2);
    for size in [8, 16, 32, 64] {
        for steps in [10, 20, 40] {
            let (mut config, mut settings) = paper_preset();
            (config.height, config.width) = (size, size);
            let change: Override = format!("steps={steps}").parse().unwrap();
            change.apply(&mut config, &mut settings);
            let cell_steps = settings.batch * size * size * steps;
            group.throughput(Throughput::Elements(cell_steps as u64));
            let trainer = pool.install(|| Trainer::from_seed(config, settings).unwrap());
            let name = format!("checkerboard-{size}x{size}/{steps}-steps");
            bench_epochs(&mut group, &name, &pool, trainer);
        }
    }
    group.finish();
}

/// Hard (bit-sliced) rollouts: the training one, and the 64x64 generalization test; their
/// throughput is in gate evaluations per lane.
fn hard_rollout(c: &mut Criterion) {
    let (config, settings) = paper_preset();
    let model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(settings.seed)).unwrap();
    let circuit = Circuit::compile(&model);
    let truth = hard_truth(model.config.parametrization, &model.logits);
    let pool = pool(2);
    let mut group = c.benchmark_group("hard_rollout");
    for (name, batch, size, steps) in [
        ("checkerboard-16x16x2-20steps", 2, 16, 20),
        ("checkerboard-64x64-80steps", 1, 64, 80),
    ] {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let init = logicars::automaton::grid::Grids::random_bits(batch, size, size, 8, &mut rng);
        let mut rollout = pool.install(|| HardRollout::new(batch, size, size, false, &circuit));
        // Gate evaluations per rollout, so that criterion prints gate-lanes per second.
        let gate_lanes = circuit.gates.len() * batch * size * size * steps;
        group.throughput(Throughput::Elements(gate_lanes as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                rollout.set_state(&init);
                pool.install(|| rollout.run(&circuit, &truth, None, steps));
            })
        });
    }
    group.finish();
}

/// One 256-gate layer reading 264 rows, forward and backward, on one 64-lane tile, and
/// the hard forward on one 512-lane tile (single thread: this is the kernel itself).
fn layer(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let input_rows = 264;
    let gates: Vec<GateRef> = (0..256u32)
        .map(|g| GateRef {
            a: rng.random_range(0..input_rows as u32),
            b: rng.random_range(0..input_rows as u32),
            param: g,
        })
        .collect();
    let coefs: Vec<[f32; 4]> = (0..256)
        .map(|_| std::array::from_fn(|_| rng.random_range(-1.0..1.0)))
        .collect();
    let rows = input_rows + gates.len();
    // Aligned to a cache line, as the rollouts' tables are.
    let mut acts = table(0.0f32, rows * TILE);
    acts.iter_mut().for_each(|v| *v = rng.random());
    let mut group = c.benchmark_group("layer");
    group.bench_function("forward/256-gates-x64-lanes", |b| {
        let rows = ForwardRows::Every {
            gates: &gates,
            input_rows,
        };
        b.iter(|| soft::forward(rows, &coefs, &mut acts, TILE))
    });
    // Every gate's output is seeded (no gate reads another's), so backward never writes
    // the seeds and the table needs no reset between iterations.
    let mut coef_grads = vec![[0.0f64; 4]; 256];
    let plan = BackwardPlan::new(&gates, input_rows, input_rows..rows);
    let mut grads = table(0.0f32, plan.gradient_rows() * TILE);
    for r in input_rows..rows {
        grads[plan.gradient_slot(r) * TILE..][..TILE].fill(0.5);
    }
    let mut patch_grads = table(0.0f32, input_rows * TILE);
    group.bench_function("backward/256-gates-x64-lanes", |b| {
        b.iter(|| {
            let tables = (&mut patch_grads[..], &mut grads[..]);
            soft::backward(&plan, &coefs, &acts, tables, &mut coef_grads, TILE)
        })
    });
    let truth: Vec<TruthMasks> = (0..256).map(|g| TruthMasks::of_op(g % 16)).collect();
    let mut bits = table(0u64, rows * WORDS);
    bits.iter_mut().for_each(|w| *w = rng.random());
    group.throughput(Throughput::Elements((256 * HARD_TILE) as u64));
    group.bench_function("hard-forward/256-gates-x512-lanes", |b| {
        b.iter(|| hard::forward(&gates, &truth, input_rows, &mut bits))
    });
    group.finish();
}

criterion_group!(
    benches,
    epoch,
    epoch_size,
    epoch_task,
    recipes,
    hard_rollout,
    layer
);
criterion_main!(benches);
